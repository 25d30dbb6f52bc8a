/* GELU, tanh form (docs/MODEL.md, "Building blocks"), needs sigmoid.glsl:
 *   gelu(u) = 0.5 u (1 + tanh(a)),  a = sqrt(2/pi) (u + 0.044715 u^3).
 * Written with 0.5 (1 + tanh(a)) = sigmoid(2a) = s: gelu(u) = u s, and
 *   gelu'(u) = s + 2 u s (1 - s) a'(u),  a'(u) = sqrt(2/pi) (1 + 3 0.044715 u^2)
 * (0.5 (1 - tanh^2) = 2 s (1 - s)). A GLSL tanh built from exp overflows to
 * inf / inf = NaN for |a| > ~44; the sigmoid pair never does, and its
 * complement 1 - s is computed directly, so for very negative u the result
 * keeps its relative precision instead of cancelling 1 + tanh(a) to 0. */
const float SVK_GELU_K = 0.79788456080286535588; /* sqrt(2/pi) */
const float SVK_GELU_C = 0.044715;

float svk_gelu(float u)
{
    float s, c;
    /* u^3 may overflow to +-inf for |u| > ~1e12: a = +-inf, s = 1 or 0, exact. */
    svk_sigmoid_pair(2.0 * SVK_GELU_K * (u + SVK_GELU_C * u * u * u), s, c);
    return u * s;
}

float svk_gelu_grad(float u)
{
    float s, c;
    svk_sigmoid_pair(2.0 * SVK_GELU_K * (u + SVK_GELU_C * u * u * u), s, c);
    /* The second term from u clamped to [-20, 20]: for |u| >= 20, |2a| >= 600,
     * so s (1 - s) ~ exp(-|2a|) is exactly 0 in float and the term is 0
     * whatever multiplies it; the clamp only keeps those factors finite
     * (2u overflows near FLT_MAX, u^2 past ~1.8e19, and inf * 0 is NaN). */
    const float uc = clamp(u, -20.0, 20.0);
    const float da = SVK_GELU_K * (1.0 + 3.0 * SVK_GELU_C * uc * uc);
    return s + 2.0 * uc * (s * c) * da;
}
