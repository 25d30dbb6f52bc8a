/* The linear workgroup index of a grid spread over x and y by svk_op_grid()
 * (lib/ops/ops.c): groups past the problem's count exist and must return. */
uint svk_group_index()
{
    return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
}
