/* The logistic function and its complement for any float u:
 *   s = sigmoid(u) = 1 / (1 + exp(-u)),  c = 1 - s = sigmoid(-u).
 * exp is only taken of -|u|, so it lies in (0, 1] and never overflows; and c
 * is computed as its own sigmoid instead of 1 - s, which would cancel to 0
 * (or give NaN via inf / inf in the form e / (1 + e)) once s rounds to 1.
 * A NaN u gives NaN s and c. */
void svk_sigmoid_pair(float u, out float s, out float c)
{
    const float e = exp(-abs(u));      /* (0, 1] */
    const float big = 1.0 / (1.0 + e); /* sigmoid(|u|), in [0.5, 1] */
    const float small = e * big;       /* sigmoid(-|u|) = e / (1 + e) */
    if (u >= 0.0) {
        s = big;
        c = small;
    } else {
        s = small;
        c = big;
    }
}
