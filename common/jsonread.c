/* Strict JSON reader (RFC 8259) into a read-only tree.
 *
 * Used for the run directory's manifest.json and app.json (analyzer/) and
 * analysis.json (viz/): files written by other modules or other versions,
 * so anything outside the grammar is rejected with the file name, the byte
 * offset and the reason, never guessed at.  Beyond the RFC: duplicate keys
 * are errors (a writer that emits them is broken), "\u0000" is refused
 * (values are C strings), nesting is limited to HS_JSON_READ_MAXDEPTH.
 *
 * Layout: all values live in one array, the children of a container
 * contiguously; strings in one pool.  Parsing pushes finished children on a
 * stack and moves them into the array when their container closes, so the
 * tree needs no per-value allocation and pointers into it stay valid until
 * hs_jdoc_free.  Objects keep a key index sorted by key, so lookups are
 * O(log n) and duplicate keys are found in O(n log n). */
#include "hopscope/common.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct hs_jv {
    uint8_t  type;     /* hs_jv_type */
    uint8_t  is_int;   /* number written without fraction or exponent */
    uint8_t  neg;      /* integer literal had a minus sign */
    uint8_t  boolean;
    uint32_t n;        /* containers: children; strings: length */
    size_t   offset;   /* byte offset of the value in the input */
    size_t   first;    /* containers: index of the first child (values array);
                          strings: offset in the string pool */
    size_t   keys;     /* objects: index of the first key record */
    double   d;
    uint64_t mag;      /* integers: magnitude (exact up to 2^64 - 1) */
    uint8_t  mag_ok;   /* magnitude fits in 64 bits */
};

/* One key of an object: its string in the pool. */
typedef struct jkey {
    size_t   str;      /* pool offset */
    uint32_t len;
} jkey;

struct hs_jdoc {
    hs_jv   *v;        /* all values; v[0] is the root after parsing */
    size_t   nv, capv;
    char    *pool;
    size_t   npool, cappool;
    jkey    *keys;     /* per object, in member order */
    uint32_t *perm;    /* per object, member positions sorted by key */
    size_t   nkeys, capkeys, capperm;
};

/* ---- parser state ----------------------------------------------------------- */

typedef struct jparse {
    const char *s;
    size_t      len, pos;
    const char *name;
    hs_error   *err;
    hs_jdoc    *doc;
    hs_jv      *stk;    /* finished values waiting for their container */
    size_t      nstk, capstk;
    jkey       *kstk;   /* keys of the open objects' finished members */
    size_t      nkstk, capkstk;
    int         depth;
} jparse;

static int fail(jparse *p, size_t at, const char *why)
{
    return hs_error_set(p->err, HS_EFORMAT, "%s: offset %zu: %s", p->name, at, why);
}

static int grow(void **a, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / elem)
            return HS_ENOMEM;
        nc *= 2;
    }
    void *n = realloc(*a, nc * elem);
    if (!n)
        return HS_ENOMEM;
    *a = n;
    *cap = nc;
    return 0;
}

static int oom(jparse *p)
{
    return hs_error_set(p->err, HS_ENOMEM, "%s: out of memory", p->name);
}

static void skip_ws(jparse *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static int push(jparse *p, const hs_jv *v)
{
    if (grow((void **)&p->stk, &p->capstk, p->nstk + 1, sizeof *p->stk))
        return oom(p);
    p->stk[p->nstk++] = *v;
    return 0;
}

static int pool_put(jparse *p, const char *b, size_t n)
{
    hs_jdoc *d = p->doc;
    if (grow((void **)&d->pool, &d->cappool, d->npool + n + 1, 1))
        return oom(p);
    memcpy(d->pool + d->npool, b, n);
    d->npool += n;
    return 0;
}

static unsigned hexval(char c)
{
    if (c >= '0' && c <= '9')
        return (unsigned)(c - '0');
    if (c >= 'a' && c <= 'f')
        return (unsigned)(c - 'a' + 10);
    if (c >= 'A' && c <= 'F')
        return (unsigned)(c - 'A' + 10);
    return 16;
}

static int hex4(jparse *p, size_t at, unsigned *out)
{
    if (p->len - at < 4)
        return fail(p, at, "truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned h = hexval(p->s[at + (size_t)i]);
        if (h > 15)
            return fail(p, at + (size_t)i, "bad hex digit in \\u escape");
        v = v << 4 | h;
    }
    *out = v;
    return 0;
}

/* Checks one UTF-8 sequence starting at s[i]; returns its length or 0. */
static size_t utf8_len(const unsigned char *s, size_t n, size_t i)
{
    unsigned c = s[i];
    size_t k;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        k = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        k = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        k = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n - i < k)
        return 0;
    for (size_t j = 1; j < k; j++) {
        if ((s[i + j] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i + j] & 0x3f);
    }
    if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return k;
}

/* Parses a string at p->pos (on the quote) into the pool; *off, *n. */
static int parse_string(jparse *p, size_t *off, uint32_t *n)
{
    size_t start = p->pos++;
    size_t o = p->doc->npool;
    for (;;) {
        if (p->pos >= p->len)
            return fail(p, start, "unterminated string");
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20)
            return fail(p, p->pos, "control character in string");
        if (c == '\\') {
            size_t at = p->pos;
            if (++p->pos >= p->len)
                return fail(p, at, "truncated escape");
            char e = p->s[p->pos++];
            char out;
            switch (e) {
            case '"': out = '"'; break;
            case '\\': out = '\\'; break;
            case '/': out = '/'; break;
            case 'b': out = '\b'; break;
            case 'f': out = '\f'; break;
            case 'n': out = '\n'; break;
            case 'r': out = '\r'; break;
            case 't': out = '\t'; break;
            case 'u': {
                unsigned u, lo;
                if (hex4(p, p->pos, &u))
                    return HS_EFORMAT;
                p->pos += 4;
                uint32_t cp = u;
                if (u >= 0xdc00 && u <= 0xdfff)
                    return fail(p, at, "lone low surrogate in \\u escape");
                if (u >= 0xd800 && u <= 0xdbff) {
                    if (p->len - p->pos < 6 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
                        return fail(p, at, "high surrogate without its low half");
                    if (hex4(p, p->pos + 2, &lo))
                        return HS_EFORMAT;
                    if (lo < 0xdc00 || lo > 0xdfff)
                        return fail(p, p->pos, "high surrogate without its low half");
                    p->pos += 6;
                    cp = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                }
                if (cp == 0)
                    return fail(p, at, "\\u0000 is not allowed");
                char b[4];
                size_t k;
                if (cp < 0x80) {
                    b[0] = (char)cp;
                    k = 1;
                } else if (cp < 0x800) {
                    b[0] = (char)(0xc0 | cp >> 6);
                    b[1] = (char)(0x80 | (cp & 0x3f));
                    k = 2;
                } else if (cp < 0x10000) {
                    b[0] = (char)(0xe0 | cp >> 12);
                    b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
                    b[2] = (char)(0x80 | (cp & 0x3f));
                    k = 3;
                } else {
                    b[0] = (char)(0xf0 | cp >> 18);
                    b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
                    b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
                    b[3] = (char)(0x80 | (cp & 0x3f));
                    k = 4;
                }
                if (pool_put(p, b, k))
                    return HS_ENOMEM;
                continue;
            }
            default:
                return fail(p, at, "unknown escape");
            }
            if (pool_put(p, &out, 1))
                return HS_ENOMEM;
            continue;
        }
        /* a run of plain characters, validated as UTF-8 */
        size_t s0 = p->pos;
        while (p->pos < p->len) {
            unsigned char ch = (unsigned char)p->s[p->pos];
            if (ch == '"' || ch == '\\' || ch < 0x20)
                break;
            size_t k = utf8_len((const unsigned char *)p->s, p->len, p->pos);
            if (!k)
                return fail(p, p->pos, "invalid UTF-8 in string");
            p->pos += k;
        }
        if (pool_put(p, p->s + s0, p->pos - s0))
            return HS_ENOMEM;
    }
    size_t n64 = p->doc->npool - o;
    if (n64 > UINT32_MAX)
        return fail(p, start, "string too long");
    if (pool_put(p, "", 0))   /* room for the terminator, also for "" */
        return HS_ENOMEM;
    p->doc->pool[p->doc->npool++] = '\0';
    *off = o;
    *n = (uint32_t)n64;
    return 0;
}

static int parse_number(jparse *p, hs_jv *v)
{
    size_t start = p->pos, i = p->pos;
    const char *s = p->s;
    v->type = HS_JV_NUM;
    v->is_int = 1;
    v->mag_ok = 1;
    v->mag = 0;
    if (s[i] == '-') {
        v->neg = 1;
        i++;
    }
    if (i >= p->len || s[i] < '0' || s[i] > '9')
        return fail(p, start, "bad number");
    if (s[i] == '0') {
        i++;
        if (i < p->len && s[i] >= '0' && s[i] <= '9')
            return fail(p, start, "number with a leading zero");
    } else {
        while (i < p->len && s[i] >= '0' && s[i] <= '9') {
            unsigned dgt = (unsigned)(s[i] - '0');
            if (v->mag > (UINT64_MAX - dgt) / 10)
                v->mag_ok = 0;
            else
                v->mag = v->mag * 10 + dgt;
            i++;
        }
    }
    if (i < p->len && s[i] == '.') {
        v->is_int = 0;
        i++;
        if (i >= p->len || s[i] < '0' || s[i] > '9')
            return fail(p, start, "bad number: digits must follow '.'");
        while (i < p->len && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
        v->is_int = 0;
        i++;
        if (i < p->len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= p->len || s[i] < '0' || s[i] > '9')
            return fail(p, start, "bad number: digits must follow the exponent");
        while (i < p->len && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    /* strtod needs a terminated string; numbers are short unless hostile */
    char buf[64];
    size_t n = i - start;
    if (n >= sizeof buf) {
        char *tmp = malloc(n + 1);
        if (!tmp)
            return oom(p);
        memcpy(tmp, s + start, n);
        tmp[n] = 0;
        v->d = strtod(tmp, NULL);
        free(tmp);
    } else {
        memcpy(buf, s + start, n);
        buf[n] = 0;
        v->d = strtod(buf, NULL);
    }
    if (v->d == HUGE_VAL || v->d == -HUGE_VAL)
        return fail(p, start, "number out of range");
    if (!v->is_int)
        v->mag_ok = 0;
    p->pos = i;
    return 0;
}

static int literal(jparse *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return fail(p, p->pos, "unexpected character");
    p->pos += n;
    return 0;
}

typedef struct key_ctx {
    const char *pool;
    const jkey *keys;
} key_ctx;

static int key_cmp(const void *a, const void *b, void *ctx)
{
    const key_ctx *k = ctx;
    const jkey *x = &k->keys[*(const uint32_t *)a], *y = &k->keys[*(const uint32_t *)b];
    uint32_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(k->pool + x->str, k->pool + y->str, n);
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

static int parse_value(jparse *p);

/* Closes a container whose children are the top `count` stack entries
 * (and, for objects, the top `count` key records): moves them into the
 * values array and pushes the container itself. */
static int close_container(jparse *p, hs_jv *c, size_t count, int obj)
{
    hs_jdoc *d = p->doc;
    if (count > UINT32_MAX)
        return fail(p, c->offset, "container too large");
    if (grow((void **)&d->v, &d->capv, d->nv + count, sizeof *d->v))
        return oom(p);
    c->first = d->nv;
    c->n = (uint32_t)count;
    if (count)
        memcpy(d->v + d->nv, p->stk + p->nstk - count, count * sizeof *d->v);
    d->nv += count;
    p->nstk -= count;
    if (obj) {
        if (grow((void **)&d->keys, &d->capkeys, d->nkeys + count, sizeof *d->keys) ||
            grow((void **)&d->perm, &d->capperm, d->nkeys + count, sizeof *d->perm))
            return oom(p);
        c->keys = d->nkeys;
        if (count)
            memcpy(d->keys + d->nkeys, p->kstk + p->nkstk - count, count * sizeof *d->keys);
        uint32_t *idx = d->perm + d->nkeys;
        for (size_t i = 0; i < count; i++)
            idx[i] = (uint32_t)i;
        key_ctx kc = { d->pool, d->keys + d->nkeys };
        if (count)
            qsort_r(idx, count, sizeof *idx, key_cmp, &kc);
        for (size_t i = 1; i < count; i++)
            if (key_cmp(&idx[i - 1], &idx[i], &kc) == 0) {
                uint32_t dup = idx[i] > idx[i - 1] ? idx[i] : idx[i - 1];
                return hs_error_set(p->err, HS_EFORMAT, "%s: offset %zu: duplicate key \"%s\"",
                                    p->name, d->v[c->first + dup].offset,
                                    d->pool + d->keys[d->nkeys + dup].str);
            }
        d->nkeys += count;
        p->nkstk -= count;
    }
    return push(p, c);
}

static int parse_container(jparse *p, int obj)
{
    hs_jv c;
    memset(&c, 0, sizeof c);
    c.type = obj ? HS_JV_OBJ : HS_JV_ARR;
    c.offset = p->pos;
    if (++p->depth > HS_JSON_READ_MAXDEPTH)
        return fail(p, p->pos, "nesting too deep");
    p->pos++;
    size_t count = 0;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
        p->pos++;
        p->depth--;
        return close_container(p, &c, 0, obj);
    }
    for (;;) {
        skip_ws(p);
        if (obj) {
            if (p->pos >= p->len || p->s[p->pos] != '"')
                return fail(p, p->pos, p->pos >= p->len ? "unexpected end of input" : "expected a key string");
            jkey k;
            if (parse_string(p, &k.str, &k.len))
                return p->err ? p->err->status : HS_EFORMAT;
            if (count > UINT32_MAX)
                return fail(p, c.offset, "object too large");
            if (grow((void **)&p->kstk, &p->capkstk, p->nkstk + 1, sizeof *p->kstk))
                return oom(p);
            p->kstk[p->nkstk++] = k;
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':')
                return fail(p, p->pos, "expected ':' after a key");
            p->pos++;
            skip_ws(p);
        }
        int rc = parse_value(p);
        if (rc)
            return rc;
        count++;
        skip_ws(p);
        if (p->pos >= p->len)
            return fail(p, c.offset, obj ? "unterminated object" : "unterminated array");
        char ch = p->s[p->pos];
        if (ch == ',') {
            p->pos++;
            continue;
        }
        if (ch == (obj ? '}' : ']')) {
            p->pos++;
            break;
        }
        return fail(p, p->pos, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
    p->depth--;
    return close_container(p, &c, count, obj);
}

static int parse_value(jparse *p)
{
    skip_ws(p);
    if (p->pos >= p->len)
        return fail(p, p->pos, "unexpected end of input");
    hs_jv v;
    memset(&v, 0, sizeof v);
    v.offset = p->pos;
    char c = p->s[p->pos];
    int rc;
    switch (c) {
    case '{': return parse_container(p, 1);
    case '[': return parse_container(p, 0);
    case '"':
        v.type = HS_JV_STR;
        if ((rc = parse_string(p, &v.first, &v.n)))
            return rc;
        break;
    case 't':
        if ((rc = literal(p, "true")))
            return rc;
        v.type = HS_JV_BOOL;
        v.boolean = 1;
        break;
    case 'f':
        if ((rc = literal(p, "false")))
            return rc;
        v.type = HS_JV_BOOL;
        break;
    case 'n':
        if ((rc = literal(p, "null")))
            return rc;
        v.type = HS_JV_NULL;
        break;
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            if ((rc = parse_number(p, &v)))
                return rc;
            break;
        }
        return fail(p, p->pos, "unexpected character");
    }
    return push(p, &v);
}

void hs_jdoc_free(hs_jdoc *d)
{
    if (!d)
        return;
    free(d->v);
    free(d->pool);
    free(d->keys);
    free(d->perm);
    free(d);
}

int hs_jdoc_parse(const char *text, size_t len, const char *name, hs_jdoc **out,
                  hs_error *err)
{
    *out = NULL;
    jparse p;
    memset(&p, 0, sizeof p);
    p.s = text;
    p.len = len;
    p.name = name ? name : "(json)";
    p.err = err;
    p.doc = calloc(1, sizeof *p.doc);
    if (!p.doc)
        return oom(&p);
    /* v[0] is reserved for the root, filled at the end */
    int rc = grow((void **)&p.doc->v, &p.doc->capv, 1, sizeof *p.doc->v) ? oom(&p) : 0;
    p.doc->nv = 1;
    if (!rc && len >= 3 && (unsigned char)text[0] == 0xef && (unsigned char)text[1] == 0xbb &&
        (unsigned char)text[2] == 0xbf)
        rc = fail(&p, 0, "byte-order mark is not allowed");
    if (!rc)
        rc = parse_value(&p);
    if (!rc) {
        skip_ws(&p);
        if (p.pos != p.len)
            rc = fail(&p, p.pos, "trailing characters after the value");
    }
    if (!rc) {
        p.doc->v[0] = p.stk[0];
        *out = p.doc;
    } else {
        hs_jdoc_free(p.doc);
    }
    free(p.stk);
    free(p.kstk);
    return rc;
}

int hs_jdoc_load(const char *path, size_t max_bytes, hs_jdoc **out, hs_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return hs_error_set(err, errno == ENOENT ? HS_ENOENT : HS_EIO, "cannot open '%s': %s",
                            path, strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 65536;
            if (cap > max_bytes) {
                rc = hs_error_set(err, HS_ERANGE, "%s: larger than %zu bytes", path, max_bytes);
                break;
            }
            char *nb = realloc(buf, nc);
            if (!nb) {
                rc = hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
                break;
            }
            buf = nb;
            cap = nc;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0) {
            if (ferror(f))
                rc = hs_error_set(err, HS_EIO, "cannot read '%s': %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (!rc && n > max_bytes)
        rc = hs_error_set(err, HS_ERANGE, "%s: larger than %zu bytes", path, max_bytes);
    if (!rc)
        rc = hs_jdoc_parse(buf, n, path, out, err);
    free(buf);
    return rc;
}

/* ---- access ---------------------------------------------------------------- */

const hs_jv *hs_jdoc_root(const hs_jdoc *d) { return d ? &d->v[0] : NULL; }

hs_jv_type hs_jv_kind(const hs_jv *v) { return v ? (hs_jv_type)v->type : HS_JV_NONE; }
size_t hs_jv_offset(const hs_jv *v) { return v ? v->offset : 0; }

size_t hs_jv_len(const hs_jv *v)
{
    return v && (v->type == HS_JV_ARR || v->type == HS_JV_OBJ) ? v->n : 0;
}

const hs_jv *hs_jv_at(const hs_jdoc *d, const hs_jv *v, size_t i)
{
    if (!d || !v || (v->type != HS_JV_ARR && v->type != HS_JV_OBJ) || i >= v->n)
        return NULL;
    return &d->v[v->first + i];
}

const char *hs_jv_key_at(const hs_jdoc *d, const hs_jv *obj, size_t i)
{
    if (!d || !obj || obj->type != HS_JV_OBJ || i >= obj->n)
        return NULL;
    return d->pool + d->keys[obj->keys + i].str;
}

const hs_jv *hs_jv_get(const hs_jdoc *d, const hs_jv *obj, const char *key)
{
    if (!d || !obj || obj->type != HS_JV_OBJ)
        return NULL;
    size_t lo = 0, hi = obj->n, kl = strlen(key);
    const jkey *ks = d->keys + obj->keys;
    const uint32_t *perm = d->perm + obj->keys;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const jkey *k = &ks[perm[mid]];
        uint32_t n = k->len < kl ? k->len : (uint32_t)kl;
        int c = memcmp(d->pool + k->str, key, n);
        if (!c)
            c = k->len < kl ? -1 : k->len > kl;
        if (c == 0)
            return &d->v[obj->first + perm[mid]];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *hs_jv_str(const hs_jdoc *d, const hs_jv *v)
{
    return d && v && v->type == HS_JV_STR ? d->pool + v->first : NULL;
}

int hs_jv_bool(const hs_jv *v, int *out)
{
    if (!v || v->type != HS_JV_BOOL)
        return HS_EINVAL;
    *out = v->boolean;
    return 0;
}

int hs_jv_double(const hs_jv *v, double *out)
{
    if (!v || v->type != HS_JV_NUM)
        return HS_EINVAL;
    *out = v->d;
    return 0;
}

int hs_jv_u64(const hs_jv *v, uint64_t *out)
{
    if (!v || v->type != HS_JV_NUM || !v->is_int)
        return HS_EINVAL;
    if (!v->mag_ok || (v->neg && v->mag != 0))
        return HS_ERANGE;
    *out = v->mag;
    return 0;
}

int hs_jv_i64(const hs_jv *v, int64_t *out)
{
    if (!v || v->type != HS_JV_NUM || !v->is_int)
        return HS_EINVAL;
    if (!v->mag_ok)
        return HS_ERANGE;
    if (v->neg) {
        if (v->mag > (uint64_t)INT64_MAX + 1)
            return HS_ERANGE;
        *out = v->mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v->mag;
    } else {
        if (v->mag > (uint64_t)INT64_MAX)
            return HS_ERANGE;
        *out = (int64_t)v->mag;
    }
    return 0;
}

/* ---- copying a value to the writer ---- */

void hs_json_copy(hs_json *w, const hs_jdoc *d, const hs_jv *v)
{
    switch (hs_jv_kind(v)) {
    case HS_JV_BOOL: {
        int b = 0;
        hs_jv_bool(v, &b);
        hs_json_bool(w, b);
        break;
    }
    case HS_JV_NUM: {
        int64_t i;
        uint64_t u;
        double x = 0;
        if (hs_jv_i64(v, &i) == 0)
            hs_json_int(w, i);
        else if (hs_jv_u64(v, &u) == 0)
            hs_json_uint(w, u);
        else {
            hs_jv_double(v, &x);
            hs_json_num(w, x);
        }
        break;
    }
    case HS_JV_STR: hs_json_str(w, hs_jv_str(d, v)); break;
    case HS_JV_ARR:
        hs_json_arr_begin(w);
        for (size_t i = 0, n = hs_jv_len(v); i < n; i++)
            hs_json_copy(w, d, hs_jv_at(d, v, i));
        hs_json_arr_end(w);
        break;
    case HS_JV_OBJ:
        hs_json_obj_begin(w);
        for (size_t i = 0, n = hs_jv_len(v); i < n; i++) {
            hs_json_key(w, hs_jv_key_at(d, v, i));
            hs_json_copy(w, d, hs_jv_at(d, v, i));
        }
        hs_json_obj_end(w);
        break;
    default: hs_json_null(w); break;
    }
}
