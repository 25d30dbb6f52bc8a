/* svk_precision's names (svk/model.h), for options, logs and plans. */
#include <string.h>

#include "core/error.h"
#include "svk/model.h"

static const char *const names[] = {"fp32", "fp16", "bf16"};

const char *svk_precision_name(svk_precision precision)
{
    return (unsigned)precision < sizeof(names) / sizeof(*names) ? names[precision] : NULL;
}

svk_status svk_precision_parse(const char *name, svk_precision *out)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, name);
    SVK_CHECK_PTR(NULL, out);
    for (unsigned i = 0; i < sizeof(names) / sizeof(*names); i++) {
        if (!strcmp(name, names[i])) {
            *out = (svk_precision)i;
            return SVK_OK;
        }
    }
    return svk_error(NULL, SVK_ERROR_INVALID_ARG, "precision '%s': not fp32, fp16 or bf16", name);
}
