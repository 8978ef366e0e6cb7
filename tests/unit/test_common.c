/* Unit tests for common/: status strings, hs_error, JSON writer, parsers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include "hopscope/common.h"

static void test_strerror(void **state)
{
    (void)state;
    assert_string_equal(hs_strerror(0), "success");
    assert_string_equal(hs_strerror(HS_EFORMAT), "malformed input");
    assert_string_equal(hs_strerror(-999), "unknown status");
    for (int s = HS_EINVAL; s >= HS_ECHILD; s--)
        assert_string_not_equal(hs_strerror(s), "unknown status");
}

static void test_error_set(void **state)
{
    (void)state;
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_error_set(&e, HS_ETRUNC, "%s: block %d", "f.trace", 7), HS_ETRUNC);
    assert_int_equal(e.status, HS_ETRUNC);
    assert_string_equal(hs_error_str(&e, HS_ETRUNC), "f.trace: block 7");
    assert_int_equal(hs_error_set(NULL, HS_EIO, "x"), HS_EIO);
    assert_string_equal(hs_error_str(NULL, HS_EIO), "input/output error");
}

/* Writes through the JSON writer into a memory buffer and returns it. */
static char *json_capture(void (*fill)(hs_json *), int pretty, int *status)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hs_json w;
    hs_json_init(&w, f, pretty);
    fill(&w);
    *status = hs_json_finish(&w);
    fclose(f);
    return buf;
}

static void fill_doc(hs_json *w)
{
    hs_json_obj_begin(w);
    hs_json_key(w, "name");
    hs_json_str(w, "a\"b\\c\n\x01");
    hs_json_key(w, "n");
    hs_json_int(w, -42);
    hs_json_key(w, "u");
    hs_json_uint(w, 18446744073709551615ull);
    hs_json_key(w, "x");
    hs_json_num(w, 0.1);
    hs_json_key(w, "third");
    hs_json_num(w, 1.0 / 3.0);
    hs_json_key(w, "big");
    hs_json_num(w, 1e300);
    hs_json_key(w, "nan");
    hs_json_num(w, 0.0 / 0.0);
    hs_json_key(w, "list");
    hs_json_arr_begin(w);
    hs_json_bool(w, 1);
    hs_json_null(w);
    hs_json_arr_begin(w);
    hs_json_arr_end(w);
    hs_json_arr_end(w);
    hs_json_obj_end(w);
}

static void test_json_compact(void **state)
{
    (void)state;
    int st;
    char *s = json_capture(fill_doc, 0, &st);
    assert_int_equal(st, 0);
    assert_string_equal(s, "{\"name\":\"a\\\"b\\\\c\\n\\u0001\",\"n\":-42,"
                           "\"u\":18446744073709551615,\"x\":0.1,"
                           "\"third\":0.3333333333333333,\"big\":1e+300,"
                           "\"nan\":null,\"list\":[true,null,[]]}");
    free(s);
}

static void fill_pretty(hs_json *w)
{
    hs_json_obj_begin(w);
    hs_json_key(w, "a");
    hs_json_arr_begin(w);
    hs_json_int(w, 1);
    hs_json_int(w, 2);
    hs_json_arr_end(w);
    hs_json_obj_end(w);
}

static void test_json_pretty(void **state)
{
    (void)state;
    int st;
    char *s = json_capture(fill_pretty, 1, &st);
    assert_int_equal(st, 0);
    assert_string_equal(s, "{\n  \"a\": [\n    1,\n    2\n  ]\n}\n");
    free(s);
}

static void fill_bad_value(hs_json *w)
{
    hs_json_obj_begin(w);
    hs_json_int(w, 1); /* value without key */
    hs_json_obj_end(w);
}
static void fill_unbalanced(hs_json *w)
{
    hs_json_arr_begin(w);
}
static void fill_wrong_close(hs_json *w)
{
    hs_json_arr_begin(w);
    hs_json_obj_end(w);
}

static void test_json_misuse(void **state)
{
    (void)state;
    int st;
    free(json_capture(fill_bad_value, 0, &st));
    assert_int_equal(st, HS_ESTATE);
    free(json_capture(fill_unbalanced, 0, &st));
    assert_int_equal(st, HS_ESTATE);
    free(json_capture(fill_wrong_close, 0, &st));
    assert_int_equal(st, HS_ESTATE);
}

static void test_parse(void **state)
{
    (void)state;
    uint64_t u;
    int64_t i;
    double d;
    assert_int_equal(hs_parse_u64("123", &u), 0);
    assert_int_equal(u, 123);
    assert_int_equal(hs_parse_u64("0x10", &u), 0);
    assert_int_equal(u, 16);
    assert_int_equal(hs_parse_u64("12x", &u), HS_EINVAL);
    assert_int_equal(hs_parse_u64("", &u), HS_EINVAL);
    assert_int_equal(hs_parse_u64("-1", &u), HS_EINVAL);
    assert_int_equal(hs_parse_u64("99999999999999999999999", &u), HS_ERANGE);
    assert_int_equal(hs_parse_i64("-7", &i), 0);
    assert_int_equal(i, -7);
    assert_int_equal(hs_parse_double("2.5e3", &d), 0);
    assert_true(d == 2500.0);
    assert_int_equal(hs_parse_double("inf", &d), HS_ERANGE);
    assert_int_equal(hs_parse_double("1.5.", &d), HS_EINVAL);
    assert_int_equal(hs_parse_size("4K", &u), 0);
    assert_int_equal(u, 4096);
    assert_int_equal(hs_parse_size("3M", &u), 0);
    assert_int_equal(u, 3u << 20);
    assert_int_equal(hs_parse_size("17179869184G", &u), HS_ERANGE);
    assert_int_equal(hs_parse_size("K", &u), HS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_error_set),
        cmocka_unit_test(test_json_compact),
        cmocka_unit_test(test_json_pretty),
        cmocka_unit_test(test_json_misuse),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
