/* The bindings of siamese_norm_fwd.comp and of its CPU forms,
 * siamese_norm_fwd_cpu.comp (the latter with the vec4 views, SVK_VIEW4). */
SVK_BUFV(0, readonly, BufX, x);
SVK_BUFV(1, readonly, BufY, y);
SVK_BUFV(2, readonly, BufG, g);
SVK_BUFV(3, readonly, BufB, b);
SVK_BUFV(4, writeonly, BufXn, xn);
SVK_BUFV(5, SVK_RW, BufH, h);
SVK_BUF(6, writeonly, BufMean, mean);
SVK_BUF(7, writeonly, BufRstd, rstd);
