/*
 * main() of the backward CPU forms whose invocations are lanes of the gain
 * and bias partials (norm_bwd_cpu.comp and
 * siamese_norm_bwd_fused_cpu.comp, in all their variants): lane p walks rows
 * [p R, (p + 1) R) in order (R = pc.rows_per_part), RC_ROWS at a time and
 * the rest one by one, so that its row of each partial block takes the
 * rows' contributions in row order.
 *
 * Include last, after defining RC_LANE_WIDTH (the row width: the length of
 * a lane's row of partials) and
 *   void lane_rows(uint row, uint n, uint pg, bool first)
 * which does rows row .. row + n - 1 (n is RC_LANE_ROWS, RC_ROWS or 1), pg
 * being the lane's row of the first partial block and first whether row is
 * the lane's first (its partials start from that row's contribution).
 * RC_LANE_ROWS, a multiple of RC_ROWS, may be defined larger than RC_ROWS
 * for a kernel that serves several groups at once (the fused SiameseNorm
 * backward, two): the lane then walks that many rows at a time first.
 * RC_LANE_UNIT, the lane this invocation walks, may be defined otherwise
 * than rc_unit() (a split form's subgroup: common/row_split.glsl).
 */
#ifndef RC_LANE_ROWS
#define RC_LANE_ROWS RC_ROWS
#endif
#ifndef RC_LANE_UNIT
#define RC_LANE_UNIT rc_unit()
#endif
void main()
{
    const uint lane = RC_LANE_UNIT;
    if (lane >= pc.n_part)
        return;
    const uint pg = pc.off_part + lane * RC_LANE_WIDTH;
    const uint r0 = lane * pc.rows_per_part, r1 = min(r0 + pc.rows_per_part, pc.rows);
    uint row = r0;
    if (RC_LANE_ROWS != RC_ROWS)
        for (; row + RC_LANE_ROWS <= r1; row += RC_LANE_ROWS)
            lane_rows(row, RC_LANE_ROWS, pg, row == r0);
    for (; row + RC_ROWS <= r1; row += RC_ROWS)
        lane_rows(row, RC_ROWS, pg, row == r0);
    for (; row < r1; row++)
        lane_rows(row, 1u, pg, row == r0);
}
