#include "byte_map.h"

/* The 68 bytes Latin-1 does not print, in order: 0x00-0x20 (33), 0x7F-0xA0
 * (34), 0xAD (1); the n-th of them is U+0100 + n. */
#define FIRST_SHIFTED 0x100u
#define N_LOW 33u  /* 0x00-0x20 */
#define N_HIGH 34u /* 0x7F-0xA0 */

uint32_t svk_byte_to_char(uint8_t b)
{
    if (b <= 0x20)
        return FIRST_SHIFTED + b;
    if (b >= 0x7F && b <= 0xA0)
        return FIRST_SHIFTED + N_LOW + (b - 0x7Fu);
    if (b == 0xAD)
        return FIRST_SHIFTED + N_LOW + N_HIGH;
    return b;
}

int svk_char_to_byte(uint32_t c)
{
    if (c < FIRST_SHIFTED) /* a byte that prints as itself */
        return svk_byte_to_char((uint8_t)c) == c ? (int)c : -1;
    const uint32_t n = c - FIRST_SHIFTED;
    if (n < N_LOW)
        return (int)n;
    if (n < N_LOW + N_HIGH)
        return (int)(0x7F + n - N_LOW);
    return n == N_LOW + N_HIGH ? 0xAD : -1;
}

size_t svk_byte_char_utf8(uint8_t b, char out[2])
{
    const uint32_t c = svk_byte_to_char(b);
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    out[0] = (char)(0xC0 | (c >> 6));
    out[1] = (char)(0x80 | (c & 0x3F));
    return 2;
}
