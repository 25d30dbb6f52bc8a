/* log1p_pos, shared by the cross-entropy row kernels (cross_entropy.comp
 * and its CPU form cross_entropy_cpu.comp). */
/* log(1 + x) for x >= 0 to a few ULP relative, where GLSL's log is only
 * bounded absolutely (2^-21) near 1. Below 1: 2 atanh(z), z = x / (2 + x)
 * <= 1/3, by its series to z^15 (the next term is < 2^-26 relative);
 * above: log itself, whose error there is relative (3 ULP). */
float log1p_pos(float x)
{
    if (x >= 1.0)
        return log(1.0 + x);
    const float z = x / (2.0 + x), z2 = z * z;
    float poly = 1.0 / 15.0;
    poly = poly * z2 + 1.0 / 13.0;
    poly = poly * z2 + 1.0 / 11.0;
    poly = poly * z2 + 1.0 / 9.0;
    poly = poly * z2 + 1.0 / 7.0;
    poly = poly * z2 + 1.0 / 5.0;
    poly = poly * z2 + 1.0 / 3.0;
    poly = poly * z2 + 1.0;
    return 2.0 * z * poly;
}
