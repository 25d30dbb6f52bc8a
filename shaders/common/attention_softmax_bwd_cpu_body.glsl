/* The body of shaders/attention_softmax_bwd_cpu.comp and
 * attention_softmax_bwd_texel.comp; the including shader defines how p and
 * dP are read (SM_LD_P, SM_LD_D). */
#include "common/push_attention_softmax.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 0, std430) readonly buffer BufP { float p[]; };
layout(set = 0, binding = 0, std430) readonly buffer BufP4 { vec4 p4[]; };
layout(set = 0, binding = 1, std430) buffer BufD { float d[]; };
layout(set = 0, binding = 1, std430) buffer BufD4 { vec4 d4[]; };

#include "common/grid.glsl"
#include "common/row_cpu.glsl"

void main()
{
    const uint row = rc_unit();
    if (row >= pc.rows)
        return;
    const uint T = pc.T, n = row % T + 1u;
    const uint bp = pc.off_p + row * T, bd = pc.off_d + row * T;

    float dot = 0.0, dot_c = 0.0;
    for (uint j = 0u; j < n; j += RC_STEP) {
        const bvec4 key = lessThan(uvec4(j) + uvec4(0u, 1u, 2u, 3u), uvec4(n));
        rc_add(dot, dot_c, mix(vec4(0.0), SM_LD_P(bp + j) * SM_LD_D(bd + j), key));
    }

    uint j = 0u;
    for (; j < n; j += RC_STEP) {
        const bvec4 key = lessThan(uvec4(j) + uvec4(0u, 1u, 2u, 3u), uvec4(n));
        RC_ST(d, d4, bd + j, mix(vec4(0.0), SM_LD_P(bp + j) * (SM_LD_D(bd + j) - dot), key));
    }
    for (; j < T; j += RC_STEP)
        RC_ST(d, d4, bd + j, vec4(0.0));
}
