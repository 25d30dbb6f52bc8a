/* The bindings of norm_bwd.comp and of its CPU forms, norm_bwd_cpu.comp
 * (the latter with the vec4 views, SVK_VIEW4): dout, add, x, LayerNorm's
 * saved mean, rstd, g, dx and the partials. NR_B: the binding of rstd, where
 * the bindings after LayerNorm's mean start. */
SVK_BUFV(0, readonly, BufDout, dout);
SVK_BUFV(1, readonly, BufAdd, add);
SVK_BUFV(2, readonly, BufX, x);
#ifdef SVK_RMSNORM
#define NR_B 3
#else
SVK_BUF(3, readonly, BufMean, mean);
#define NR_B 4
#endif
SVK_BUF(NR_B, readonly, BufRstd, rstd);
SVK_BUFV(NR_B + 1, readonly, BufG, g);
SVK_BUFV(NR_B + 2, writeonly, BufDx, dx);
SVK_BUFV(NR_B + 3, SVK_RW, BufPart, part);
