/* Helpers shared by unit tests (include after cmocka.h). */
#ifndef HOPSCOPE_TEST_UTIL_H
#define HOPSCOPE_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

/* The whole of DIR/NAME, NUL-terminated, its length in *n; fails the test
 * when it cannot be read.  The caller frees it. */
static inline unsigned char *slurp(const char *dir, const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    b[len] = 0;
    *n = (size_t)len;
    return b;
}

#endif
