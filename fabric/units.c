/* Time and bandwidth units of the model: parsing the user's "100ns" and
 * "200Gb/s", exact serialisation times, and printing.
 *
 * Invariant: every time inside the model is an integer number of
 * picoseconds and every rate an integer number of bytes per second, so that
 * the zero-load latency is an exact sum the tests can assert. */
#include "topo.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits "12.5GB/s" into its number and unit; the number must be a plain
 * decimal (no sign, no exponent, no hex) so that "1e3ns" or "0x10" are
 * rejected rather than guessed at. */
static int split_number(const char *s, char *num, size_t nnum, const char **unit)
{
    size_t i = 0;
    int digits = 0, dot = 0;
    while (s[i] && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) {
        if (s[i] == '.') {
            if (dot++)
                return HS_EINVAL;
        } else {
            digits++;
        }
        i++;
    }
    if (!digits || i >= nnum)
        return HS_EINVAL;
    memcpy(num, s, i);
    num[i] = '\0';
    *unit = s + i;
    return 0;
}

/* num * mult as an exact integer: the decimal digits are scaled without
 * going through binary floating point, so "163.84ns" is exactly 163840 ps. */
static int scale_exact(const char *num, uint64_t mult, uint64_t *out)
{
    uint64_t ip = 0, frac = 0, fscale = 1;
    const char *p = num;
    for (; *p && *p != '.'; p++) {
        if (ip > (UINT64_MAX - 9) / 10)
            return HS_ERANGE;
        ip = ip * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.') {
        for (p++; *p; p++) {
            if (fscale > UINT64_MAX / 10 / 10)
                return HS_ERANGE;  /* absurd precision */
            frac = frac * 10 + (uint64_t)(*p - '0');
            fscale *= 10;
        }
    }
    if (mult && ip > UINT64_MAX / mult)
        return HS_ERANGE;
    uint64_t v = ip * mult;
    /* frac/fscale * mult must be a whole number of base units */
    if (frac) {
        unsigned __int128 f = (unsigned __int128)frac * mult;
        if (f % fscale)
            return HS_ERANGE;
        uint64_t add = (uint64_t)(f / fscale);
        if (v > UINT64_MAX - add)
            return HS_ERANGE;
        v += add;
    }
    *out = v;
    return 0;
}

int hs_parse_time(const char *s, hs_time *out)
{
    if (!s)
        return HS_EINVAL;
    char num[64];
    const char *unit;
    int rc = split_number(s, num, sizeof num, &unit);
    if (rc)
        return rc;
    static const struct { const char *u; uint64_t ps; } units[] = {
        { "", 1 }, { "ps", 1 }, { "ns", HS_PS_PER_NS }, { "us", HS_PS_PER_US },
        { "ms", 1000000000ull }, { "s", HS_PS_PER_S },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].u) == 0)
            return scale_exact(num, units[i].ps, out);
    return HS_EINVAL;
}

int hs_parse_rate(const char *s, uint64_t *bytes_per_s)
{
    if (!s)
        return HS_EINVAL;
    char num[64];
    const char *unit;
    int rc = split_number(s, num, sizeof num, &unit);
    if (rc)
        return rc;
    uint64_t prefix = 1;
    switch (*unit) {
    case 'k': case 'K': prefix = 1000ull; unit++; break;
    case 'M': prefix = 1000000ull; unit++; break;
    case 'G': prefix = 1000000000ull; unit++; break;
    case 'T': prefix = 1000000000000ull; unit++; break;
    default: break;
    }
    int bits;
    if (*unit == '\0' && prefix == 1)
        bits = 0;
    else if (strcmp(unit, "B/s") == 0 || strcmp(unit, "Bps") == 0)
        bits = 0;
    else if (strcmp(unit, "b/s") == 0 || strcmp(unit, "bps") == 0)
        bits = 1;
    else
        return HS_EINVAL;
    uint64_t v;
    rc = scale_exact(num, prefix, &v);
    if (rc)
        return rc;
    if (bits) {
        if (v % 8)
            return HS_ERANGE;  /* not a whole number of bytes per second */
        v /= 8;
    }
    if (v == 0)
        return HS_ERANGE;
    *bytes_per_s = v;
    return 0;
}

hs_time hs_ser_time(uint64_t bytes, uint64_t rate)
{
    unsigned __int128 n = (unsigned __int128)bytes * HS_PS_PER_S;
    return (hs_time)((n + rate - 1) / rate);
}

char *hs_time_str(hs_time t, char *buf, size_t n)
{
    if (t == HS_TIME_NEVER)
        snprintf(buf, n, "never");
    else if (t < HS_PS_PER_NS)
        snprintf(buf, n, "%llu ps", (unsigned long long)t);
    else if (t < HS_PS_PER_US)
        snprintf(buf, n, "%.6g ns", (double)t / (double)HS_PS_PER_NS);
    else if (t < 1000000000ull)
        snprintf(buf, n, "%.6g us", (double)t / (double)HS_PS_PER_US);
    else if (t < HS_PS_PER_S)
        snprintf(buf, n, "%.6g ms", (double)t / 1e9);
    else
        snprintf(buf, n, "%.6g s", (double)t / 1e12);
    return buf;
}

char *hs_rate_str(double r, char *buf, size_t n)
{
    static const char *pfx[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s" };
    unsigned i = 0;
    while (r >= 1000.0 && i + 1 < sizeof pfx / sizeof pfx[0]) {
        r /= 1000.0;
        i++;
    }
    snprintf(buf, n, "%.4g %s", r, pfx[i]);
    return buf;
}

/* ---- exact forms for canonical specs (private, declared in topo.h) ---- */
void hs__fmt_rate_exact(uint64_t r, char *buf, size_t n)
{
    static const struct { uint64_t div; const char *u; } u[] = {
        { 1000000000000ull, "TB/s" }, { 1000000000ull, "GB/s" },
        { 1000000ull, "MB/s" }, { 1000ull, "kB/s" },
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if (r % u[i].div == 0) {
            snprintf(buf, n, "%llu%s", (unsigned long long)(r / u[i].div), u[i].u);
            return;
        }
    snprintf(buf, n, "%lluB/s", (unsigned long long)r);
}

void hs__fmt_time_exact(hs_time t, char *buf, size_t n)
{
    static const struct { uint64_t div; const char *u; } u[] = {
        { HS_PS_PER_S, "s" }, { 1000000000ull, "ms" }, { HS_PS_PER_US, "us" },
        { HS_PS_PER_NS, "ns" },
    };
    for (size_t i = 0; t && i < sizeof u / sizeof u[0]; i++)
        if (t % u[i].div == 0) {
            snprintf(buf, n, "%llu%s", (unsigned long long)(t / u[i].div), u[i].u);
            return;
        }
    snprintf(buf, n, "%llups", (unsigned long long)t);
}

int hs__topo_set_spec(hs_topo *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0)
        return HS_EINVAL;
    char *s = malloc((size_t)len + 1);
    if (!s)
        return HS_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)len + 1, fmt, ap);
    va_end(ap);
    free(t->spec);
    t->spec = s;
    return 0;
}
