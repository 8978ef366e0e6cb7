/* Strict parsers for numbers on command lines and in text formats,
 * mkdir -p, and growing strings (common/sbuf.h).  Strict means the whole string must be a number: "12x" and ""
 * are errors, so a typo never silently becomes 0. */
#include "hopscope/common.h"
#include "sbuf.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int hs_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == ' ')
        return HS_EINVAL;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end)
        return HS_EINVAL;
    if (errno == ERANGE)
        return HS_ERANGE;
    *out = v;
    return 0;
}

int hs_parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s || *s == ' ')
        return HS_EINVAL;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 0);
    if (*end)
        return HS_EINVAL;
    if (errno == ERANGE)
        return HS_ERANGE;
    *out = v;
    return 0;
}

int hs_parse_double(const char *s, double *out)
{
    if (!s || !*s || *s == ' ')
        return HS_EINVAL;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (*end)
        return HS_EINVAL;
    if (errno == ERANGE || !isfinite(v))
        return HS_ERANGE;
    *out = v;
    return 0;
}

int hs_parse_size(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return HS_EINVAL;
    size_t n = strlen(s);
    uint64_t mult = 1;
    char buf[64];
    if (n >= sizeof buf)
        return HS_EINVAL;
    memcpy(buf, s, n + 1);
    char last = buf[n - 1];
    switch (last) {
    case 'k': case 'K': mult = 1ull << 10; break;
    case 'm': case 'M': mult = 1ull << 20; break;
    case 'g': case 'G': mult = 1ull << 30; break;
    default: break;
    }
    if (mult != 1)
        buf[n - 1] = '\0';
    uint64_t v;
    int rc = hs_parse_u64(buf, &v);
    if (rc)
        return rc;
    if (v > UINT64_MAX / mult)
        return HS_ERANGE;
    *out = v * mult;
    return 0;
}

int hs_mkdir_p(const char *path, hs_error *err)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return hs_error_set(err, HS_EINVAL, "bad directory path '%s'", path);
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return hs_error_set(err, HS_EIO, "cannot create directory '%s': %s",
                                buf, strerror(errno));
        buf[i] = c;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return hs_error_set(err, HS_EIO, "'%s' exists and is not a directory", path);
    return 0;
}

/* ---- growing strings (common/sbuf.h) ---- */

void hs__sb_printf(hs__sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        size_t room = b->cap - b->n;
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (k < 0)
            return;
        if (b->s && (size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = (b->cap ? 2 * b->cap : 256) + (size_t)k + 1;
        char *t = realloc(b->s, nc);
        if (!t)
            return;
        b->s = t;
        b->cap = nc;
    }
}
