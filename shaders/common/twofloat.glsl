/*
 * Two-float ("double-float") arithmetic: a value is the unevaluated sum
 * hi + lo of two floats, |lo| <= ulp(hi) / 2, worth about 48 bits. Built on
 * the error-free transformations of Knuth (two_sum), Dekker (fast_two_sum,
 * two_prod with Veltkamp's split); see Dekker, "A floating-point technique
 * for extending the available precision", Numer. Math. 18 (1971).
 *
 * They are exact only if +, - and * are correctly rounded (Vulkan requires
 * it of OpFAdd, OpFSub and OpFMul for 32-bit floats) and the compiler
 * neither fuses a*b+c into an fma nor reassociates: every intermediate is
 * `precise` (SPIR-V NoContraction). fma() itself is not used, because
 * Vulkan lets it round twice.
 */

/* s + e == a + b exactly, for any a, b. */
vec2 tf_two_sum(float a, float b)
{
    precise float s = a + b;
    precise float bb = s - a;
    precise float e = (a - (s - bb)) + (b - bb);
    return vec2(s, e);
}

/* s + e == a + b exactly, when |a| >= |b| (or a == 0). */
vec2 tf_fast_two_sum(float a, float b)
{
    precise float s = a + b;
    precise float e = b - (s - a);
    return vec2(s, e);
}

/* hi + lo == a with hi, lo of at most 12 significant bits each. */
vec2 tf_split(float a)
{
    precise float c = 4097.0 * a; /* 2^12 + 1 */
    precise float hi = c - (c - a);
    precise float lo = a - hi;
    return vec2(hi, lo);
}

/* p + e == a * b exactly (barring overflow and underflow). */
vec2 tf_two_prod(float a, float b)
{
    precise float p = a * b;
    const vec2 as = tf_split(a), bs = tf_split(b);
    precise float e = ((as.x * bs.x - p) + as.x * bs.y + as.y * bs.x) + as.y * bs.y;
    return vec2(p, e);
}

/* a * b for two-float a, b; relative error about 2^-46. */
vec2 tf_mul(vec2 a, vec2 b)
{
    const vec2 p = tf_two_prod(a.x, b.x);
    precise float lo = p.y + (a.x * b.y + a.y * b.x);
    return tf_fast_two_sum(p.x, lo);
}

/*
 * sin and cos of a two-float angle a >= 0 (a.x below about 2^22), each
 * accurate to about one float rounding whatever the size of a.
 *
 * Driver sin/cos are not used: Vulkan only asks for 2^-11 absolute error in
 * [-pi, pi] and nothing outside, and the angles of RoPE reach t radians
 * (thousands). Instead a Cody-Waite reduction by pi/2 with a three-float
 * pi/2, in which n * c0 is formed exactly (two_prod) and a.x - n*c0 is exact
 * (Sterbenz), leaves r in [-pi/4, pi/4] with an error near ulp(r); then
 * Taylor polynomials to degree 11 (sin) and 12 (cos), whose truncation
 * error there is below 1e-11, and the quadrant n mod 4 picks the signs.
 * Returns vec2(sin, cos).
 */
vec2 tf_sincos(vec2 a)
{
    const float PIO2_0 = 1.5707963705062866;      /* float(pi/2) */
    const float PIO2_1 = -4.3711388286737929e-08; /* float(pi/2 - PIO2_0) */
    const float PIO2_2 = -1.7151245100058819e-15; /* the next 24 bits */
    const float TWO_OVER_PI = 0.63661974668502808;
    const float n = floor(a.x * TWO_OVER_PI + 0.5);
    const vec2 p0 = tf_two_prod(n, PIO2_0);
    precise float head = a.x - p0.x;
    precise float tail = ((a.y - p0.y) - n * PIO2_1) - n * PIO2_2;
    precise float r = head + tail;
    const float r2 = r * r;
    const float s = r + r * r2 * (-0.1666666716337204 + r2 * (0.0083333337679505348 + r2 * (-0.00019841270113829523 +
                    r2 * (2.7557318844628753e-06 + r2 * -2.5052107943679403e-08))));
    const float c = 1.0 + r2 * (-0.5 + r2 * (0.041666667908430099 + r2 * (-0.0013888889225199819 +
                    r2 * (2.4801587642286904e-05 + r2 * (-2.755731998149713e-07 + r2 * 2.0876755879584152e-09)))));
    switch (uint(n) & 3u) {
    case 0u: return vec2(s, c);
    case 1u: return vec2(c, -s);
    case 2u: return vec2(-s, -c);
    default: return vec2(-c, s);
    }
}
