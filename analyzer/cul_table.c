/* The culprit model's input: a strict CSV reader (sweep.csv, or any table
 * of the same shape a user writes; docs/formats.md, "sweep.csv") and the
 * choice of the response and feature columns.
 *
 * The reader never trusts the file: every row must have the header's
 * number of fields, every byte must be printable text, and a cell counts as
 * a number only when it is a plain decimal number, so "inf", "0x10" or
 * " 3" are text and a feature column holding one is rejected with its
 * line. */
#include "hopscope/analyzer.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BAD_TEXT_MAX 40      /* characters of a rejected cell quoted in a message */

void hs_table_free(hs_table *t)
{
    if (!t)
        return;
    for (uint32_t c = 0; c < t->ncols; c++) {
        free(t->col ? t->col[c] : NULL);
        free(t->bad_text ? t->bad_text[c] : NULL);
    }
    free(t->col);
    free(t->bad_text);
    free(t->bad_line);
    free(t->v);
    free(t->line);
    free(t->name);
    free(t);
}

/* A plain decimal number: [+-]digits[.digits][(e|E)[+-]digits], at least
 * one digit in the mantissa, nothing else; finite. */
static int plain_number(const char *s, size_t n, double *out)
{
    size_t i = 0, digits = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, digits++;
    }
    if (!digits)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t ed = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, ed++;
        if (!ed)
            return 0;
    }
    if (i != n || n > 400)
        return 0;
    char buf[401];
    memcpy(buf, s, n);
    buf[n] = 0;
    errno = 0;
    double v = strtod(buf, NULL);
    if (!isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* An integer cell (the run column): optional '-', at most 15 digits, so
 * that every id is exact in the double the table keeps. */
static int plain_int(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && s[i] == '-')
        neg = 1, i++;
    if (i == n || n - i > 15)
        return 0;
    int64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return 1;
}

typedef struct run_key {
    int64_t run;
    size_t  row;
} run_key;

static int cmp_run(const void *a, const void *b)
{
    const run_key *x = a, *y = b;
    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int hs_table_parse(const char *text, size_t len, const char *name, hs_table **out,
                   hs_error *err)
{
    *out = NULL;
    if (!name)
        name = "table";
    hs_table *t = calloc(1, sizeof *t);
    if (!t || !(t->name = strdup(name))) {
        free(t);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    int rc = 0;
    /* Pass 1: the bytes and the lines.  A final newline is optional; CRLF
     * line ends are accepted. */
    size_t nlines = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n') {
            nlines++;
            continue;
        }
        if (ch == '"') {
            rc = hs_error_set(err, HS_EFORMAT, "%s:%zu: a quote: fields are never quoted "
                              "(the format has no commas inside fields)", name, nlines + 1);
            goto fail;
        }
        if ((ch < 0x20 && ch != '\t' && !(ch == '\r' && i + 1 < len && text[i + 1] == '\n')) ||
            ch == 0x7f) {
            rc = hs_error_set(err, HS_EFORMAT, "%s:%zu: control character 0x%02x", name,
                              nlines + 1, ch);
            goto fail;
        }
    }
    if (len && text[len - 1] != '\n')
        nlines++;
    if (!nlines) {
        rc = hs_error_set(err, HS_EFORMAT, "%s:1: empty: expected a header line", name);
        goto fail;
    }
    /* The header. */
    const char *p = text, *end = text + len;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
        eol = end;
    size_t hl = (size_t)(eol - p);
    if (hl && p[hl - 1] == '\r')
        hl--;
    uint32_t nc = 1;
    for (size_t i = 0; i < hl; i++)
        if (p[i] == ',' && ++nc > HS_TABLE_MAX_COLS) {
            rc = hs_error_set(err, HS_EFORMAT, "%s:1: more than %u columns", name,
                              HS_TABLE_MAX_COLS);
            goto fail;
        }
    t->col = calloc(nc, sizeof *t->col);
    t->bad_text = calloc(nc, sizeof *t->bad_text);
    t->bad_line = calloc(nc, sizeof *t->bad_line);
    if (!t->col || !t->bad_text || !t->bad_line)
        goto oom;
    t->ncols = nc;
    {
        const char *f = p;
        for (uint32_t c = 0; c < nc; c++) {
            const char *fe = memchr(f, ',', (size_t)(p + hl - f));
            if (!fe)
                fe = p + hl;
            size_t fl = (size_t)(fe - f);
            if (!fl) {
                rc = hs_error_set(err, HS_EFORMAT, "%s:1: column %u has an empty name", name,
                                  c + 1);
                goto fail;
            }
            if (!(t->col[c] = strndup(f, fl)))
                goto oom;
            f = fe + 1;
        }
        /* A sorted copy finds repeated names. */
        char **s = malloc(nc * sizeof *s);
        if (!s)
            goto oom;
        memcpy(s, t->col, nc * sizeof *s);
        qsort(s, nc, sizeof *s, cmp_name);
        for (uint32_t a = 1; a < nc; a++)
            if (strcmp(s[a], s[a - 1]) == 0) {
                rc = hs_error_set(err, HS_EFORMAT, "%s:1: column '%.*s' appears twice", name,
                                  200, s[a]);
                free(s);
                goto fail;
            }
        free(s);
    }
    /* The rows. */
    size_t maxrows = nlines - 1;
    if (maxrows && (maxrows > SIZE_MAX / nc / sizeof(double)))
        goto oom;
    t->v = malloc((maxrows ? maxrows : 1) * nc * sizeof *t->v);
    t->line = malloc((maxrows ? maxrows : 1) * sizeof *t->line);
    if (!t->v || !t->line)
        goto oom;
    int run_col = strcmp(t->col[0], "run") == 0;
    size_t lineno = 1;
    p = eol < end ? eol + 1 : end;
    while (p < end) {
        lineno++;
        eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        size_t ll = (size_t)(eol - p);
        if (ll && p[ll - 1] == '\r')
            ll--;
        if (!ll) {
            rc = hs_error_set(err, HS_EFORMAT, "%s:%zu: empty line", name, lineno);
            goto fail;
        }
        size_t row = t->nrows;
        double *v = t->v + row * nc;
        const char *f = p;
        uint32_t c = 0;
        for (;;) {
            const char *fe = memchr(f, ',', (size_t)(p + ll - f));
            if (!fe)
                fe = p + ll;
            if (c >= nc) {
                uint32_t n = c + 1;
                for (const char *q = fe; q < p + ll; q++)
                    n += *q == ',';
                rc = hs_error_set(err, HS_EFORMAT, "%s:%zu: %u fields, the header has %u",
                                  name, lineno, n, nc);
                goto fail;
            }
            size_t fl = (size_t)(fe - f);
            double x;
            if (plain_number(f, fl, &x)) {
                v[c] = x;
            } else {
                v[c] = NAN;
                if (!t->bad_line[c]) {
                    t->bad_line[c] = lineno;
                    size_t k = fl < BAD_TEXT_MAX ? fl : BAD_TEXT_MAX;
                    if (!(t->bad_text[c] = strndup(f, k)))
                        goto oom;
                }
            }
            if (c == 0 && run_col) {
                int64_t id;
                if (!plain_int(f, fl, &id)) {
                    rc = hs_error_set(err, HS_EFORMAT, "%s:%zu: run '%.*s' is not an integer",
                                      name, lineno, (int)(fl < BAD_TEXT_MAX ? fl : BAD_TEXT_MAX),
                                      f);
                    goto fail;
                }
                v[c] = (double)id;
            }
            c++;
            if (fe == p + ll)
                break;
            f = fe + 1;
        }
        if (c != nc) {
            rc = hs_error_set(err, HS_EFORMAT, "%s:%zu: %u fields, the header has %u", name,
                              lineno, c, nc);
            goto fail;
        }
        t->line[row] = lineno;
        t->nrows++;
        p = eol < end ? eol + 1 : end;
    }
    if (run_col && t->nrows > 1) {
        run_key *k = malloc(t->nrows * sizeof *k);
        if (!k)
            goto oom;
        for (size_t r = 0; r < t->nrows; r++)
            k[r] = (run_key){ (int64_t)t->v[r * nc], r };
        qsort(k, t->nrows, sizeof *k, cmp_run);
        for (size_t r = 1; r < t->nrows; r++)
            if (k[r].run == k[r - 1].run) {
                rc = hs_error_set(err, HS_EFORMAT, "%s:%zu: run %lld repeats line %zu", name,
                                  t->line[k[r].row], (long long)k[r].run, t->line[k[r - 1].row]);
                free(k);
                goto fail;
            }
        free(k);
    }
    *out = t;
    return 0;
oom:
    rc = hs_error_set(err, HS_ENOMEM, "%s: out of memory", name);
fail:
    hs_table_free(t);
    return rc;
}

int hs_table_read(const char *path, hs_table **out, hs_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return hs_error_set(err, errno == ENOENT ? HS_ENOENT : HS_EIO, "%s: %s", path,
                            strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fclose(f);
        return hs_error_set(err, HS_EIO, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > HS_TABLE_MAX_BYTES) {
        fclose(f);
        return hs_error_set(err, HS_ERANGE, "%s: %lld bytes, more than the %zu a table may have",
                            path, (long long)st.st_size, HS_TABLE_MAX_BYTES);
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n ? n : 1);
    if (!buf) {
        fclose(f);
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
    }
    size_t got = fread(buf, 1, n, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || got != n) {
        free(buf);
        return hs_error_set(err, HS_EIO, "%s: read failed", path);
    }
    int rc = hs_table_parse(buf, n, path, out, err);
    free(buf);
    return rc;
}

/* ---- choosing the columns ------------------------------------------------------ */

void hs_cul_data_free(hs_cul_data *d)
{
    if (!d)
        return;
    for (uint32_t f = 0; f < d->nf; f++)
        free(d->fname ? d->fname[f] : NULL);
    free(d->fname);
    free(d->x);
    free(d->y);
    free(d->run);
    free(d->target);
    free(d->per);
    free(d->per_name);
    memset(d, 0, sizeof *d);
}

static int32_t col_index(const hs_table *t, const char *name, size_t n)
{
    for (uint32_t c = 0; c < t->ncols; c++)
        if (strlen(t->col[c]) == n && strncmp(t->col[c], name, n) == 0)
            return (int32_t)c;
    return -1;
}

static int numeric_col(const hs_table *t, uint32_t c, hs_error *err)
{
    if (!t->bad_line[c])
        return 0;
    return hs_error_set(err, HS_EFORMAT, "%s:%zu: column %s: '%s' is not a plain decimal number",
                        t->name, t->bad_line[c], t->col[c], t->bad_text[c] ? t->bad_text[c] : "");
}

/* Fills d from t's columns cols[0..nf) and response column ty. */
static int fill(const hs_table *t, const uint32_t *cols, uint32_t nf, uint32_t ty, hs_cul_data *d,
                hs_error *err)
{
    int rc = numeric_col(t, ty, err);
    for (uint32_t f = 0; !rc && f < nf; f++)
        rc = numeric_col(t, cols[f], err);
    if (rc)
        return rc;
    size_t n = t->nrows;
    d->n = n;
    d->nf = nf;
    d->x = malloc((n ? n : 1) * nf * sizeof *d->x);
    d->y = malloc((n ? n : 1) * sizeof *d->y);
    d->run = malloc((n ? n : 1) * sizeof *d->run);
    d->fname = calloc(nf, sizeof *d->fname);
    d->target = strdup(t->col[ty]);
    if (!d->x || !d->y || !d->run || !d->fname || !d->target)
        goto oom;
    for (uint32_t f = 0; f < nf; f++)
        if (!(d->fname[f] = strdup(t->col[cols[f]])))
            goto oom;
    int run_col = strcmp(t->col[0], "run") == 0;
    for (size_t r = 0; r < n; r++) {
        const double *v = t->v + r * t->ncols;
        for (uint32_t f = 0; f < nf; f++)
            d->x[r * nf + f] = v[cols[f]];
        d->y[r] = v[ty];
        d->run[r] = run_col ? (int64_t)v[0] : (int64_t)r + 1;
    }
    return 0;
oom:
    hs_cul_data_free(d);
    return hs_error_set(err, HS_ENOMEM, "out of memory");
}

int hs_cul_select(const hs_table *t, const char *target, const char *features,
                  hs_cul_data *d, hs_error *err)
{
    memset(d, 0, sizeof *d);
    if (!target)
        target = "time_s";
    if (!features)
        features = "f_";
    int32_t ty = col_index(t, target, strlen(target));
    if (ty < 0)
        return hs_error_set(err, HS_EINVAL, "%s: no column '%s' (the run time; --target "
                            "names another)", t->name, target);
    uint32_t *cols = malloc(t->ncols * sizeof *cols);
    if (!cols)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    uint32_t nf = 0;
    int rc = 0;
    if (strchr(features, ',') || col_index(t, features, strlen(features)) >= 0) {
        /* a list of names */
        const char *s = features;
        for (;;) {
            const char *e = strchr(s, ',');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            int32_t c = col_index(t, s, n);
            if (c < 0) {
                rc = hs_error_set(err, HS_EINVAL, "%s: --features: no column '%.*s'", t->name,
                                  (int)(n > 200 ? 200 : n), s);
                goto out;
            }
            for (uint32_t k = 0; k < nf; k++)
                if (cols[k] == (uint32_t)c) {
                    rc = hs_error_set(err, HS_EINVAL, "--features: '%s' given twice", t->col[c]);
                    goto out;
                }
            if (nf >= t->ncols)
                break;
            cols[nf++] = (uint32_t)c;
            if (!e)
                break;
            s = e + 1;
        }
    } else {
        size_t pl = strlen(features);
        for (uint32_t c = 0; c < t->ncols; c++)
            if (strncmp(t->col[c], features, pl) == 0)
                cols[nf++] = (uint32_t)c;
        if (!nf) {
            rc = hs_error_set(err, HS_EINVAL, "%s: no column starts with '%s' (the features; "
                              "--features gives a prefix or a list)", t->name, features);
            goto out;
        }
    }
    for (uint32_t k = 0; k < nf; k++)
        if (cols[k] == (uint32_t)ty) {
            rc = hs_error_set(err, HS_EINVAL, "%s: the response '%s' cannot also be a feature",
                              t->name, target);
            goto out;
        }
    if (t->nrows < HS_CUL_MIN_RUNS) {
        rc = hs_error_set(err, HS_EINVAL, "%s: %zu runs; a model needs at least %d", t->name,
                          t->nrows, HS_CUL_MIN_RUNS);
        goto out;
    }
    rc = fill(t, cols, nf, (uint32_t)ty, d, err);
    if (rc)
        goto out;
    size_t r = 1;
    while (r < d->n && d->y[r] == d->y[0])
        r++;
    if (r == d->n) {
        rc = hs_error_set(err, HS_EINVAL, "%s: column %s is the same in every run: nothing to "
                          "explain", t->name, target);
        hs_cul_data_free(d);
    }
out:
    free(cols);
    return rc;
}

int hs_cul_select_like(const hs_table *t, const hs_cul_data *like, hs_cul_data *d,
                       hs_error *err)
{
    memset(d, 0, sizeof *d);
    int32_t ty = col_index(t, like->target, strlen(like->target));
    if (ty < 0)
        return hs_error_set(err, HS_EINVAL, "%s: no column '%s'", t->name, like->target);
    uint32_t *cols = malloc((like->nf ? like->nf : 1) * sizeof *cols);
    if (!cols)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    int rc = 0;
    for (uint32_t f = 0; f < like->nf; f++) {
        int32_t c = col_index(t, like->fname[f], strlen(like->fname[f]));
        if (c < 0) {
            rc = hs_error_set(err, HS_EINVAL, "%s: no column '%s' (a feature of the training "
                              "runs)", t->name, like->fname[f]);
            goto out;
        }
        cols[f] = (uint32_t)c;
    }
    if (t->nrows < 2) {
        rc = hs_error_set(err, HS_EINVAL, "%s: %zu runs; testing needs at least 2", t->name,
                          t->nrows);
        goto out;
    }
    rc = fill(t, cols, like->nf, (uint32_t)ty, d, err);
out:
    free(cols);
    return rc;
}

int hs_cul_set_per(const hs_table *t, const char *col, hs_cul_data *d, hs_error *err)
{
    int32_t c = col_index(t, col, strlen(col));
    if (c < 0)
        return hs_error_set(err, HS_EINVAL, "%s: --per: no column '%.200s'", t->name, col);
    int rc = numeric_col(t, (uint32_t)c, err);
    if (rc)
        return rc;
    if (t->nrows != d->n)
        return hs_error_set(err, HS_EINVAL, "%s: --per: %zu rows for %zu runs", t->name,
                            t->nrows, d->n);
    for (size_t r = 0; r < t->nrows; r++) {
        double v = t->v[r * t->ncols + (uint32_t)c];
        if (!(isfinite(v) && v > 0))
            return hs_error_set(err, HS_EINVAL, "%s:%zu: --per %s: %g; the response is divided "
                                "by it, so it must be above 0", t->name, r + 2, col, v);
    }
    double *per = malloc((t->nrows ? t->nrows : 1) * sizeof *per);
    char *name = strdup(col);
    if (!per || !name) {
        free(per);
        free(name);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < t->nrows; r++)
        per[r] = t->v[r * t->ncols + (uint32_t)c];
    free(d->per);
    free(d->per_name);
    d->per = per;
    d->per_name = name;
    return 0;
}
