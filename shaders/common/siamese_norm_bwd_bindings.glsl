/* The bindings of siamese_norm_bwd.comp and of its CPU form,
 * siamese_norm_bwd_cpu.comp (the latter with the vec4 views, SVK_VIEW4). */
SVK_BUFV(0, readonly, BufDh, dh);
SVK_BUFV(1, readonly, BufX, x);
SVK_BUFV(2, readonly, BufY, y);
SVK_BUFV(3, readonly, BufG, g);
SVK_BUFV(4, readonly, BufB, b);
SVK_BUF(5, readonly, BufMean, mean);
SVK_BUF(6, readonly, BufRstd, rstd);
SVK_BUFV(7, SVK_RW, BufScratch, scratch);
