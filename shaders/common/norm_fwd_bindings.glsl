/* The bindings of norm_fwd.comp and of its CPU forms, norm_fwd_cpu.comp
 * (the latter with the vec4 views, SVK_VIEW4): x, g, LayerNorm's b, out, and
 * the saved statistics (LayerNorm's mean; rstd). NR_TEXEL_BINDING: the first
 * binding after them (the texel view of x, SVK_TEXEL). */
SVK_BUFV(0, readonly, BufX, x);
SVK_BUFV(1, readonly, BufG, g);
#ifdef SVK_RMSNORM
SVK_BUFV(2, writeonly, BufOut, o);
SVK_BUF(3, writeonly, BufRstd, rstd);
#define NR_TEXEL_BINDING 4
#else
SVK_BUFV(2, readonly, BufB, b);
SVK_BUFV(3, writeonly, BufOut, o);
SVK_BUF(4, writeonly, BufMean, mean);
SVK_BUF(5, writeonly, BufRstd, rstd);
#define NR_TEXEL_BINDING 6
#endif
