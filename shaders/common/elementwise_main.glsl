/* The main of a 1-D elementwise kernel (elementwise.glsl), include it last.
 * The kernel defines
 *   void svk_elem_scalar(uint i)   element i (of its push-constant offsets)
 *   void svk_elem_vec4(uint i)     vec4 i, elements 4 i .. 4 i + 3 (VEC4)
 * and, where its count is not pc.n, SVK_ELEM_N, the count in elements (a
 * multiple of 4 with VEC4). Each invocation owns one element, or one vec4. */
#ifndef SVK_ELEM_N
#define SVK_ELEM_N pc.n
#endif

void main()
{
    uint i;
    if (VEC4) {
        if (svk_elem_index(SVK_ELEM_N / 4u, i))
            svk_elem_vec4(i);
        return;
    }
    if (svk_elem_index(SVK_ELEM_N, i))
        svk_elem_scalar(i);
}
