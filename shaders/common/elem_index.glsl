/* The element an invocation of a 1-D elementwise kernel owns, over a grid
 * spread by svk_op_grid() (needs grid.glsl): false for the surplus
 * invocations past n, including the surplus workgroups x * y may add, whose
 * index times the workgroup size could wrap around 2^32. */
/* Include after the shader's layout(local_size_x_id ...) in; declaration. */
/* Include it after `layout(local_size_x_id = 0, ...) in;`: before that
 * declaration glslang treats gl_WorkGroupSize as the constant (1, 1, 1) and
 * folds it, so every workgroup but the first would index wrongly. */
bool svk_elem_index(uint n, out uint i)
{
    const uint wg = gl_WorkGroupSize.x;
    const uint g = svk_group_index();
    i = 0u;
    if (g > (n - 1u) / wg) /* n >= 1: the op refuses empty problems */
        return false;
    i = g * wg + gl_LocalInvocationID.x;
    return i < n;
}
