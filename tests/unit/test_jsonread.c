/* Unit tests for common/jsonread.c: the strict JSON reader.  Valid documents
 * read back exactly (also everything the hs_json writer produces), invalid
 * ones are rejected with the offset of the fault, and mutated or random
 * inputs never crash (run under ASan+UBSan by the test build). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hopscope/common.h"

static hs_jdoc *parse_ok(const char *s)
{
    hs_jdoc *d = NULL;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_jdoc_parse(s, strlen(s), "t.json", &d, &e);
    if (rc)
        fail_msg("parse of %s failed: %s", s, hs_error_str(&e, rc));
    return d;
}

static void test_values(void **state)
{
    (void)state;
    hs_jdoc *d = parse_ok(" {\"a\": [1, -2, 3.5, 1e3, true, false, null, \"x\\n\\u00e9\\ud83d\\ude00\"],"
                          " \"b\": {}, \"c\": [], \"big\": 18446744073709551615,"
                          " \"neg\": -9223372036854775808, \"z\": 0, \"f\": -0.25} ");
    const hs_jv *r = hs_jdoc_root(d);
    assert_int_equal(hs_jv_kind(r), HS_JV_OBJ);
    assert_int_equal(hs_jv_len(r), 7);
    assert_string_equal(hs_jv_key_at(d, r, 0), "a");
    assert_string_equal(hs_jv_key_at(d, r, 6), "f");
    const hs_jv *a = hs_jv_get(d, r, "a");
    assert_int_equal(hs_jv_len(a), 8);
    uint64_t u;
    int64_t i;
    double x;
    int b;
    assert_int_equal(hs_jv_u64(hs_jv_at(d, a, 0), &u), 0);
    assert_int_equal(u, 1);
    assert_int_equal(hs_jv_u64(hs_jv_at(d, a, 1), &u), HS_ERANGE);
    assert_int_equal(hs_jv_i64(hs_jv_at(d, a, 1), &i), 0);
    assert_int_equal(i, -2);
    assert_int_equal(hs_jv_u64(hs_jv_at(d, a, 2), &u), HS_EINVAL);
    assert_int_equal(hs_jv_double(hs_jv_at(d, a, 2), &x), 0);
    assert_true(x == 3.5);
    assert_int_equal(hs_jv_u64(hs_jv_at(d, a, 3), &u), HS_EINVAL); /* 1e3 is not an integer literal */
    assert_int_equal(hs_jv_double(hs_jv_at(d, a, 3), &x), 0);
    assert_true(x == 1000);
    assert_int_equal(hs_jv_bool(hs_jv_at(d, a, 4), &b), 0);
    assert_int_equal(b, 1);
    assert_int_equal(hs_jv_bool(hs_jv_at(d, a, 5), &b), 0);
    assert_int_equal(b, 0);
    assert_int_equal(hs_jv_kind(hs_jv_at(d, a, 6)), HS_JV_NULL);
    assert_string_equal(hs_jv_str(d, hs_jv_at(d, a, 7)), "x\n\xc3\xa9\xf0\x9f\x98\x80");
    assert_null(hs_jv_at(d, a, 8));
    assert_int_equal(hs_jv_kind(hs_jv_get(d, r, "b")), HS_JV_OBJ);
    assert_int_equal(hs_jv_len(hs_jv_get(d, r, "c")), 0);
    assert_int_equal(hs_jv_u64(hs_jv_get(d, r, "big"), &u), 0);
    assert_true(u == UINT64_MAX);
    assert_int_equal(hs_jv_i64(hs_jv_get(d, r, "big"), &i), HS_ERANGE);
    assert_int_equal(hs_jv_i64(hs_jv_get(d, r, "neg"), &i), 0);
    assert_true(i == INT64_MIN);
    assert_int_equal(hs_jv_u64(hs_jv_get(d, r, "z"), &u), 0);
    assert_int_equal(u, 0);
    assert_null(hs_jv_get(d, r, "nope"));
    assert_null(hs_jv_get(d, r, ""));
    /* missing values propagate through accessors */
    assert_int_equal(hs_jv_kind(hs_jv_get(d, hs_jv_get(d, r, "nope"), "x")), HS_JV_NONE);
    assert_int_equal(hs_jv_u64(NULL, &u), HS_EINVAL);
    assert_null(hs_jv_str(d, hs_jv_get(d, r, "z")));
    hs_jdoc_free(d);
}

static void test_many_keys(void **state)
{
    (void)state;
    /* an object with many members: every key found, in any order */
    size_t n = 5000;
    char *s = malloc(n * 32 + 16);
    size_t o = 0;
    o += (size_t)sprintf(s + o, "{");
    for (size_t k = 0; k < n; k++)
        o += (size_t)sprintf(s + o, "%s\"k%zu\":%zu", k ? "," : "", (k * 7919) % n, k);
    sprintf(s + o, "}");
    hs_jdoc *d = parse_ok(s);
    const hs_jv *r = hs_jdoc_root(d);
    for (size_t k = 0; k < n; k++) {
        char key[32];
        snprintf(key, sizeof key, "k%zu", (k * 7919) % n);
        uint64_t u;
        assert_int_equal(hs_jv_u64(hs_jv_get(d, r, key), &u), 0);
        assert_int_equal(u, k);
        assert_string_equal(hs_jv_key_at(d, r, k), key);
    }
    hs_jdoc_free(d);
    free(s);
}

/* Each bad document with the offset the message must name. */
static void test_rejects(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        size_t off;
        const char *why;
    } bad[] = {
        { "", 0, "unexpected end" },
        { "{", 1, "unexpected end" },
        { "[1,]", 3, "unexpected character" },
        { "[1 2]", 3, "expected ','" },
        { "{\"a\" 1}", 5, "expected ':'" },
        { "{\"a\":1,\"a\":2}", 11, "duplicate key \"a\"" },
        { "{\"a\":1}x", 7, "trailing" },
        { "01", 0, "leading zero" },
        { "1.", 0, "digits must follow '.'" },
        { "1e", 0, "exponent" },
        { "-", 0, "bad number" },
        { "+1", 0, "unexpected character" },
        { "NaN", 0, "unexpected character" },
        { "1e999", 0, "out of range" },
        { "\"a\\u0000\"", 2, "\\u0000" },
        { "\"\\ud800\"", 1, "high surrogate" },
        { "\"\\udc00\"", 1, "lone low surrogate" },
        { "\"\\x\"", 1, "unknown escape" },
        { "\"\\u12g4\"", 5, "bad hex" },
        { "\"abc", 0, "unterminated string" },
        { "\"a\tb\"", 2, "control character" },
        { "\"\xc3\x28\"", 1, "invalid UTF-8" },
        { "\"\xed\xa0\x80\"", 1, "invalid UTF-8" },
        { "\xef\xbb\xbf{}", 0, "byte-order mark" },
        { "tru", 0, "unexpected character" },
        { "[nul]", 1, "unexpected character" },
        { "{1:2}", 1, "expected a key" },
        { "[1", 0, "unterminated array" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hs_jdoc *d = (hs_jdoc *)1;
        hs_error e;
        hs_error_clear(&e);
        int rc = hs_jdoc_parse(bad[i].s, strlen(bad[i].s), "bad.json", &d, &e);
        if (rc != HS_EFORMAT)
            fail_msg("'%s' accepted (rc %d)", bad[i].s, rc);
        assert_null(d);
        char want[64];
        snprintf(want, sizeof want, "bad.json: offset %zu: ", bad[i].off);
        if (strncmp(e.msg, want, strlen(want)) != 0 || !strstr(e.msg, bad[i].why))
            fail_msg("'%s': message '%s', want '%s...%s'", bad[i].s, e.msg, want, bad[i].why);
    }
    /* nesting limit */
    char deep[2 * HS_JSON_READ_MAXDEPTH + 8];
    size_t n = HS_JSON_READ_MAXDEPTH + 1;
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    hs_jdoc *d;
    hs_error e;
    assert_int_equal(hs_jdoc_parse(deep, 2 * n, "deep", &d, &e), HS_EFORMAT);
    assert_non_null(strstr(e.msg, "nesting too deep"));
    n = HS_JSON_READ_MAXDEPTH;
    assert_int_equal(hs_jdoc_parse(deep + 1, 2 * n, "deep", &d, &e), 0);
    hs_jdoc_free(d);
}

static void write_sample(hs_json *w)
{
    hs_json_obj_begin(w);
    hs_json_key(w, "format");
    hs_json_str(w, "hopscope-run");
    hs_json_key(w, "esc");
    hs_json_str(w, "q\"b\\s\x01\t");
    hs_json_key(w, "list");
    hs_json_arr_begin(w);
    for (int i = 0; i < 20; i++) {
        hs_json_obj_begin(w);
        hs_json_key(w, "i");
        hs_json_int(w, i - 5);
        hs_json_key(w, "x");
        hs_json_num(w, i / 7.0);
        hs_json_key(w, "ok");
        hs_json_bool(w, i & 1);
        hs_json_key(w, "n");
        hs_json_null(w);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
    hs_json_key(w, "u");
    hs_json_uint(w, 12345678901234567890ull);
    hs_json_obj_end(w);
}

static char *sample(int pretty, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    hs_json w;
    hs_json_init(&w, f, pretty);
    write_sample(&w);
    assert_int_equal(hs_json_finish(&w), 0);
    fclose(f);
    return buf;
}

/* What the writer writes, the reader reads back exactly (numbers too). */
static void test_writer_round_trip(void **state)
{
    (void)state;
    for (int pretty = 0; pretty < 2; pretty++) {
        size_t len;
        char *s = sample(pretty, &len);
        hs_jdoc *d;
        hs_error e;
        assert_int_equal(hs_jdoc_parse(s, len, "rt", &d, &e), 0);
        const hs_jv *r = hs_jdoc_root(d);
        assert_string_equal(hs_jv_str(d, hs_jv_get(d, r, "esc")), "q\"b\\s\x01\t");
        const hs_jv *l = hs_jv_get(d, r, "list");
        assert_int_equal(hs_jv_len(l), 20);
        for (int i = 0; i < 20; i++) {
            const hs_jv *o = hs_jv_at(d, l, (size_t)i);
            int64_t v;
            double x;
            int b;
            assert_int_equal(hs_jv_i64(hs_jv_get(d, o, "i"), &v), 0);
            assert_int_equal(v, i - 5);
            assert_int_equal(hs_jv_double(hs_jv_get(d, o, "x"), &x), 0);
            assert_true(x == i / 7.0);
            assert_int_equal(hs_jv_bool(hs_jv_get(d, o, "ok"), &b), 0);
            assert_int_equal(b, i & 1);
        }
        uint64_t u;
        assert_int_equal(hs_jv_u64(hs_jv_get(d, r, "u"), &u), 0);
        assert_true(u == 12345678901234567890ull);
        hs_jdoc_free(d);
        free(s);
    }
}

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Mutated and truncated documents and random bytes: the reader accepts or
 * rejects, never crashes or leaks; a rejection always names the file. */
static void test_fuzz(void **state)
{
    (void)state;
    size_t len;
    char *s = sample(1, &len);
    uint64_t seed = 42;
    static const char alphabet[] = "{}[]\",:\\0123456789.eE+-tfnul \n\xff\x80";
    char *m = malloc(len + 1);
    for (int it = 0; it < 20000; it++) {
        memcpy(m, s, len);
        size_t n = len;
        int edits = 1 + (int)(rng(&seed) % 4);
        for (int k = 0; k < edits; k++) {
            size_t at = rng(&seed) % n;
            switch (rng(&seed) % 3) {
            case 0: m[at] = alphabet[rng(&seed) % (sizeof alphabet - 1)]; break;
            case 1: n = at + 1; break;                 /* truncate */
            default: m[at] = (char)rng(&seed); break;  /* any byte */
            }
        }
        hs_jdoc *d;
        hs_error e;
        hs_error_clear(&e);
        int rc = hs_jdoc_parse(m, n, "fuzz.json", &d, &e);
        if (rc == 0) {
            /* walk it: every accessor on every value */
            const hs_jv *r = hs_jdoc_root(d);
            for (size_t i = 0; i < hs_jv_len(r); i++) {
                const hs_jv *v = hs_jv_at(d, r, i);
                uint64_t u;
                double x;
                (void)hs_jv_u64(v, &u);
                (void)hs_jv_double(v, &x);
                (void)hs_jv_str(d, v);
                (void)hs_jv_key_at(d, r, i);
            }
            hs_jdoc_free(d);
        } else {
            assert_int_equal(rc, HS_EFORMAT);
            assert_non_null(strstr(e.msg, "fuzz.json: offset "));
        }
    }
    for (int it = 0; it < 5000; it++) {
        size_t n = rng(&seed) % len;
        for (size_t i = 0; i < n; i++)
            m[i] = alphabet[rng(&seed) % (sizeof alphabet - 1)];
        hs_jdoc *d;
        if (hs_jdoc_parse(m, n, "rnd", &d, NULL) == 0)
            hs_jdoc_free(d);
    }
    free(m);
    free(s);
}

/* ---- property fuzz: random documents through the writer and back ---------
 * Random trees (objects with unique keys, arrays, strings with escapes,
 * control characters and multi-byte UTF-8, integers over the whole int64
 * and uint64 ranges, doubles of random bits, booleans, nulls) are written
 * with hs_json, compact and pretty, and read back: every value, key and
 * string must come back exactly, in order.  Then the same text is mutated
 * and truncated: accepted or rejected with the offset, never a crash. */
typedef struct xv {
    hs_jv_type t;
    char    *key;      /* member of an object: its key */
    char    *s;        /* strings */
    size_t   n;        /* containers: members */
    int      kind;     /* numbers: 0 int64, 1 uint64, 2 double */
    int64_t  i;
    uint64_t u;
    double   d;
    int      b;
} xv;
typedef struct xlist {
    xv    *v;
    size_t n, cap;
} xlist;

static xv *xpush(xlist *l)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        assert_non_null(l->v);
    }
    memset(&l->v[l->n], 0, sizeof *l->v);
    return &l->v[l->n++];
}

/* A random valid UTF-8 string without NUL (the writer takes C strings). */
static char *rnd_str(uint64_t *seed, const char *suffix)
{
    size_t n = (size_t)(rng(seed) % 12);
    char *s = malloc(4 * n + 32);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        switch (rng(seed) % 6) {
        case 0: s[k++] = (char)(1 + rng(seed) % 0x1f); break;          /* control */
        case 1: s[k++] = "\"\\/"[rng(seed) % 3]; break;
        case 2: {                                                       /* U+0080..U+07FF */
            unsigned c = 0x80 + (unsigned)(rng(seed) % 0x780);
            s[k++] = (char)(0xc0 | c >> 6);
            s[k++] = (char)(0x80 | (c & 0x3f));
            break;
        }
        case 3: {                                                       /* U+0800..U+FFFF, no surrogates */
            unsigned c = 0x800 + (unsigned)(rng(seed) % (0x10000 - 0x800 - 0x800));
            if (c >= 0xd800)
                c += 0x800;
            s[k++] = (char)(0xe0 | c >> 12);
            s[k++] = (char)(0x80 | ((c >> 6) & 0x3f));
            s[k++] = (char)(0x80 | (c & 0x3f));
            break;
        }
        case 4: {                                                       /* U+10000..U+10FFFF */
            unsigned c = 0x10000 + (unsigned)(rng(seed) % 0x100000);
            s[k++] = (char)(0xf0 | c >> 18);
            s[k++] = (char)(0x80 | ((c >> 12) & 0x3f));
            s[k++] = (char)(0x80 | ((c >> 6) & 0x3f));
            s[k++] = (char)(0x80 | (c & 0x3f));
            break;
        }
        default: s[k++] = (char)(0x20 + rng(seed) % 0x5f); break;      /* printable ASCII */
        }
    }
    strcpy(s + k, suffix);
    return s;
}

static void gen_value(hs_json *w, xlist *l, uint64_t *seed, int depth, char *key)
{
    xv *x = xpush(l);
    size_t me = l->n - 1;
    x->key = key;
    if (key)
        hs_json_key(w, key);
    unsigned what = (unsigned)(rng(seed) % (depth < 6 ? 10 : 7));
    switch (what) {
    case 0: x->t = HS_JV_NULL; hs_json_null(w); break;
    case 1: x->t = HS_JV_BOOL; x->b = (int)(rng(seed) & 1); hs_json_bool(w, x->b); break;
    case 2: x->t = HS_JV_STR; x->s = rnd_str(seed, ""); hs_json_str(w, x->s); break;
    case 3: x->t = HS_JV_NUM; x->kind = 0; x->i = (int64_t)rng(seed) >> (rng(seed) % 64);
            hs_json_int(w, x->i); break;
    case 4: x->t = HS_JV_NUM; x->kind = 1; x->u = rng(seed) >> (rng(seed) % 64);
            hs_json_uint(w, x->u); break;
    case 5: case 6: {
        uint64_t bits = rng(seed);
        double d;
        memcpy(&d, &bits, sizeof d);
        if (rng(seed) % 2)
            d = (double)(int64_t)(rng(seed) % 2000001) / 1000.0 - 1000.0;
        x->t = HS_JV_NUM;
        x->kind = 2;
        /* the writer writes non-finite numbers as null, and -0 as 0 */
        if (!isfinite(d))
            x->t = HS_JV_NULL;
        x->d = d == 0 ? 0 : d;
        hs_json_num(w, d);
        break;
    }
    default: {
        int obj = what == 9 || (what == 8 && rng(seed) % 2);
        size_t n = (size_t)(rng(seed) % 6);
        x->t = obj ? HS_JV_OBJ : HS_JV_ARR;
        x->n = n;
        if (obj)
            hs_json_obj_begin(w);
        else
            hs_json_arr_begin(w);
        for (size_t i = 0; i < n; i++) {
            char suffix[24];
            snprintf(suffix, sizeof suffix, "#%zu", i);   /* keys unique */
            gen_value(w, l, seed, depth + 1, obj ? rnd_str(seed, suffix) : NULL);
        }
        if (obj)
            hs_json_obj_end(w);
        else
            hs_json_arr_end(w);
        (void)me;
    }
    }
}

/* Compares the parsed value with the expected pre-order list from *at. */
static void check_value(const hs_jdoc *d, const hs_jv *v, const xlist *l, size_t *at)
{
    const xv *x = &l->v[(*at)++];
    assert_int_equal(hs_jv_kind(v), x->t);
    switch (x->t) {
    case HS_JV_BOOL: {
        int b;
        assert_int_equal(hs_jv_bool(v, &b), 0);
        assert_int_equal(b, x->b);
        break;
    }
    case HS_JV_STR:
        assert_string_equal(hs_jv_str(d, v), x->s);
        break;
    case HS_JV_NUM: {
        double dv;
        assert_int_equal(hs_jv_double(v, &dv), 0);
        if (x->kind == 0) {
            int64_t i;
            assert_int_equal(hs_jv_i64(v, &i), 0);
            assert_true(i == x->i);
            assert_true(dv == (double)x->i);
        } else if (x->kind == 1) {
            uint64_t u;
            assert_int_equal(hs_jv_u64(v, &u), 0);
            assert_true(u == x->u);
            assert_true(dv == (double)x->u);
        } else {
            if (dv != x->d)
                fail_msg("double %.17g read back as %.17g", x->d, dv);
        }
        break;
    }
    case HS_JV_ARR:
    case HS_JV_OBJ:
        assert_int_equal(hs_jv_len(v), x->n);
        for (size_t i = 0; i < x->n; i++) {
            const xv *c = &l->v[*at];
            if (x->t == HS_JV_OBJ) {
                assert_string_equal(hs_jv_key_at(d, v, i), c->key);
                assert_ptr_equal(hs_jv_get(d, v, c->key), hs_jv_at(d, v, i));
            }
            check_value(d, hs_jv_at(d, v, i), l, at);
        }
        break;
    default:
        break;
    }
}

/* Random documents: what the writer writes the reader reads back, value for
 * value, and hs_json_copy writes it again byte for byte; mutations of them
 * are accepted or rejected naming the offset. */
static void test_fuzz_round_trip(void **state)
{
    (void)state;
    uint64_t seed = 2026;
    int accepted = 0, rejected = 0;
    for (int it = 0; it < 1500; it++) {
        int pretty = it & 1;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        hs_json w;
        hs_json_init(&w, f, pretty);
        xlist l = {0};
        /* the root is a container, as in every file hopscope writes */
        hs_json_obj_begin(&w);
        size_t n = 1 + (size_t)(rng(&seed) % 8);
        xv *root = xpush(&l);
        root->t = HS_JV_OBJ;
        root->n = n;
        for (size_t i = 0; i < n; i++) {
            char suffix[24];
            snprintf(suffix, sizeof suffix, "@%zu", i);
            gen_value(&w, &l, &seed, 1, rnd_str(&seed, suffix));
        }
        hs_json_obj_end(&w);
        assert_int_equal(hs_json_finish(&w), 0);
        fclose(f);

        hs_jdoc *d;
        hs_error e;
        hs_error_clear(&e);
        int rc = hs_jdoc_parse(buf, len, "rt.json", &d, &e);
        if (rc)
            fail_msg("writer output rejected: %s\n%.*s", e.msg, (int)(len < 400 ? len : 400), buf);
        size_t at = 0;
        check_value(d, hs_jdoc_root(d), &l, &at);
        assert_int_equal(at, l.n);
        /* hs_json_copy writes what was read back to the same bytes */
        char *cbuf = NULL;
        size_t clen = 0;
        FILE *cf = open_memstream(&cbuf, &clen);
        assert_non_null(cf);
        hs_json cw;
        hs_json_init(&cw, cf, pretty);
        hs_json_copy(&cw, d, hs_jdoc_root(d));
        assert_int_equal(hs_json_finish(&cw), 0);
        fclose(cf);
        assert_int_equal(clen, len);
        assert_memory_equal(cbuf, buf, len);
        free(cbuf);
        hs_jdoc_free(d);

        /* mutated and truncated: accepted, or rejected naming the offset */
        for (int m = 0; m < 4; m++) {
            char *t = malloc(len + 1);
            memcpy(t, buf, len);
            size_t tn = len;
            size_t pos = (size_t)(rng(&seed) % len);
            switch (rng(&seed) % 4) {
            case 0: tn = pos; break;
            case 1: t[pos] = (char)rng(&seed); break;
            case 2: t[pos] = "{}[]\",:\\ 0-.eEtfn"[rng(&seed) % 18]; break;
            default: memmove(t + pos, t + pos + 1, len - pos - 1); tn--; break;
            }
            rc = hs_jdoc_parse(t, tn, "m.json", &d, &e);
            if (rc == 0) {
                accepted++;
                hs_jdoc_free(d);
            } else {
                rejected++;
                assert_int_equal(rc, HS_EFORMAT);
                assert_non_null(strstr(e.msg, "m.json: offset "));
                assert_null(d);
            }
            free(t);
        }
        for (size_t i = 0; i < l.n; i++) {
            free(l.v[i].key);
            free(l.v[i].s);
        }
        free(l.v);
        free(buf);
    }
    /* both outcomes happen, or the mutations test nothing */
    assert_true(accepted > 0 && rejected > 0);
    print_message("round trip: 1500 documents; mutations: %d accepted, %d rejected\n",
                  accepted, rejected);
}

static void test_load(void **state)
{
    (void)state;
    char path[] = "/tmp/hs_jsonread_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("{\"k\": [1, 2, 3]}\n", f);
    fclose(f);
    hs_jdoc *d;
    hs_error e;
    assert_int_equal(hs_jdoc_load(path, 1 << 20, &d, &e), 0);
    assert_int_equal(hs_jv_len(hs_jv_get(d, hs_jdoc_root(d), "k")), 3);
    hs_jdoc_free(d);
    assert_int_equal(hs_jdoc_load(path, 4, &d, &e), HS_ERANGE);
    assert_null(d);
    unlink(path);
    assert_int_equal(hs_jdoc_load(path, 1 << 20, &d, &e), HS_ENOENT);
    assert_non_null(strstr(e.msg, path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_many_keys),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_writer_round_trip),
        cmocka_unit_test(test_fuzz),
        cmocka_unit_test(test_fuzz_round_trip),
        cmocka_unit_test(test_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
