/* Raw token files (svk/data.h): little-endian int32 values, a batch's
 * tokens or targets, read through the reader every user path goes through
 * (lib/io/io_file.h), so that a FIFO is refused rather than waited on. */
#include <inttypes.h>
#include <stdlib.h>

#include "core/error.h"
#include "io/io_file.h"
#include "svk/data.h"

svk_status svk_token_file_read(const char *path, int32_t *values, uint64_t count)
{
    svk_error_clear_thread();
    SVK_CHECK_PATH(NULL, path);
    SVK_CHECK_PTR(NULL, values);
    if (count > UINT64_MAX / 4)
        return svk_error(NULL, SVK_ERROR_INVALID_ARG, "%s: count %" PRIu64 " int32 values overflow a byte count",
                         __func__, count);
    const uint64_t want = count * 4;
    void *data;
    size_t size;
    uint64_t file_size;
    /* The head alone: a file of the wrong length is refused after at most
     * the bytes the right one would hold. */
    svk_status st = svk_file_read_head(NULL, NULL, path, want, &data, &size, &file_size);
    if (st != SVK_OK)
        return st;
    if (file_size != want) {
        free(data);
        return svk_error(NULL, SVK_ERROR_INVALID_ARG,
                         "%s holds %" PRIu64 " bytes, not the %" PRIu64 " of %" PRIu64 " little-endian int32 values",
                         path, file_size, want, count);
    }
    /* Decoded byte by byte: the file's order whatever the host's. */
    const uint8_t *b = data;
    for (uint64_t i = 0; i < count; i++, b += 4)
        values[i] = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
    free(data);
    return SVK_OK;
}
