/* svk/file.h: lib/io/io_file.h's reader and atomic writer, for an
 * application's own files, so that they follow the rules libsvk's own
 * files do rather than a second copy of them. */
#include <stdlib.h>

#include "core/error.h"
#include "io/io_file.h"
#include "svk/file.h"

svk_status svk_file_write_atomic(const char *path, const void *data, size_t size)
{
    svk_error_clear_thread();
    SVK_CHECK_PATH(NULL, path);
    if (size)
        SVK_CHECK_PTR(NULL, data);
    svk_file_replace r;
    svk_status st = svk_file_replace_begin(NULL, NULL, path, &r);
    if (st != SVK_OK)
        return st;
    if (size && (st = svk_file_replace_write(&r, data, size)) != SVK_OK) {
        svk_file_replace_abort(&r);
        return st;
    }
    /* The commit removes the temporary itself when it fails. */
    return svk_file_replace_commit(&r);
}

svk_status svk_file_read_whole(const char *path, uint64_t limit, void **data, size_t *size)
{
    svk_error_clear_thread();
    SVK_CHECK_PTR(NULL, data);
    *data = NULL;
    SVK_CHECK_PTR(NULL, size);
    *size = 0;
    SVK_CHECK_PATH(NULL, path);
    void *buf;
    size_t n;
    svk_status st = svk_file_read(NULL, NULL, path, limit, &buf, &n);
    if (st != SVK_OK)
        return st;
    /* svk_file_read leaves one spare byte after the file's. */
    ((unsigned char *)buf)[n] = 0;
    *data = buf;
    *size = n;
    return SVK_OK;
}

void svk_file_data_free(void **data)
{
    if (!data)
        return;
    free(*data);
    *data = NULL;
}
