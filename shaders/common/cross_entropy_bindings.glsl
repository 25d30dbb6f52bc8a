/* The bindings of cross_entropy.comp and of its CPU form,
 * cross_entropy_cpu.comp (the latter with the vec4 views, SVK_VIEW4). */
SVK_BUFV(0, readonly, BufLogits, logits);
layout(set = 0, binding = 1, std430) readonly buffer BufTargets { int targets[]; };
layout(set = 0, binding = 2, std430) readonly buffer BufCounts { int counts[]; };
SVK_BUFV(3, writeonly, BufDlogits, dlogits);
SVK_BUF(4, writeonly, BufLosses, losses);
