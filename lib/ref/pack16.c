/* Reference of keeping activations in 16 bits (docs/MODEL.md,
 * "Precision"; shaders/pack16.comp, unpack16.comp). The double build
 * rounds through float first: its x holds float values wherever a 16-bit
 * value is kept, as the device's does. */
#include "half16.h"
#include "real.h"

void SVK_REF(pack16)(size_t n, uint32_t fmt, svk_real *x, uint16_t *codes)
{
    for (size_t i = 0; i < n; i++) {
        const uint16_t h = svk_half_encode(fmt, (float)x[i]);
        x[i] = (svk_real)svk_half_decode(fmt, h);
        if (codes)
            codes[i] = h;
    }
}

void SVK_REF(pack16_codes)(size_t n, uint32_t fmt, const svk_real *x, uint16_t *codes)
{
    for (size_t i = 0; i < n; i++)
        codes[i] = svk_half_encode(fmt, (float)x[i]);
}

void SVK_REF(unpack16)(size_t n, uint32_t fmt, const uint16_t *codes, svk_real *x)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (svk_real)svk_half_decode(fmt, codes[i]);
}
