/* The bindings of siamese_norm_bwd_fused.comp and of its CPU forms,
 * siamese_norm_bwd_fused_cpu.comp (the latter with the vec4 views,
 * SVK_VIEW4). */
SVK_BUFV(0, readonly, BufDh, dh);
SVK_BUFV(1, readonly, BufDxn, dxn);
SVK_BUFV(2, readonly, BufDyIn, dyi);
SVK_BUFV(3, readonly, BufX, x);
SVK_BUFV(4, readonly, BufY, y);
SVK_BUFV(5, readonly, BufG, g);
SVK_BUFV(6, readonly, BufB, b);
SVK_BUF(7, readonly, BufMean, mean);
SVK_BUF(8, readonly, BufRstd, rstd);
SVK_BUFV(9, writeonly, BufDx, dx);
SVK_BUFV(10, writeonly, BufDy, dy);
SVK_BUFV(11, SVK_RW, BufPart, part);
SVK_BUFV(12, writeonly, BufDz, dz);
