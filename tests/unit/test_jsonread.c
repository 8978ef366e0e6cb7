/* Unit tests for common/jsonread.c: the strict JSON reader.  Valid documents
 * read back exactly (also everything the hs_json writer produces), invalid
 * ones are rejected with the offset of the fault, and mutated or random
 * inputs never crash (run under ASan+UBSan by the test build). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

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
        cmocka_unit_test(test_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
