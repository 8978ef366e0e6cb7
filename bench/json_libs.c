/* bench/json_libs: hopscope's JSON reader (common/jsonread.c) against
 * Debian's jansson and cJSON on one document.
 *
 *   json_libs hs|jansson|cjson FILE [REPEAT]
 *   json_libs hs-write|jansson-write|cjson-write FILE [REPEAT]
 *   json_libs conform
 *
 * Reads FILE into memory, then REPEAT times (1): parses it into each
 * library's tree and walks the whole tree (every member, key, string and
 * number), then frees it.  Prints the parse+walk seconds of the fastest
 * repetition and a checksum of the walk (value count, string bytes, sum of
 * numbers), which must agree between the libraries: they all read the
 * same document.  Peak memory is measured from outside (/usr/bin/time).
 *
 * The parsers run with their strictest settings: hopscope's reader is
 * always strict; jansson with JSON_REJECT_DUPLICATES; cJSON has no options
 * (it accepts duplicate keys and keeps numbers as doubles only).
 *
 * The -write modes parse FILE with the library (not timed) and time writing
 * the tree back as compact JSON into memory (hopscope: the hs_json writer
 * driven by a walk of the tree, as analyzer/output.c copies values; jansson:
 * json_dumps; cJSON: cJSON_PrintUnformatted); they print the seconds and
 * the bytes written.
 *
 * `conform` feeds the three the same small documents at the edges of RFC
 * 8259 and of 64-bit integers, and prints a markdown table of what each
 * makes of them (the first array element as read, or "rejected"). */
#include "hopscope/common.h"

#include <cjson/cJSON.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct sum {
    uint64_t values, strbytes;
    double   num;
} sum;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void walk_hs(const hs_jdoc *d, const hs_jv *v, sum *s)
{
    s->values++;
    switch (hs_jv_kind(v)) {
    case HS_JV_NUM: {
        double x;
        if (hs_jv_double(v, &x) == 0)
            s->num += x;
        break;
    }
    case HS_JV_STR:
        s->strbytes += strlen(hs_jv_str(d, v));
        break;
    case HS_JV_ARR:
        for (size_t i = 0, n = hs_jv_len(v); i < n; i++)
            walk_hs(d, hs_jv_at(d, v, i), s);
        break;
    case HS_JV_OBJ:
        for (size_t i = 0, n = hs_jv_len(v); i < n; i++) {
            s->strbytes += strlen(hs_jv_key_at(d, v, i));
            walk_hs(d, hs_jv_at(d, v, i), s);
        }
        break;
    default:
        break;
    }
}

static void walk_jansson(json_t *v, sum *s)
{
    s->values++;
    switch (json_typeof(v)) {
    case JSON_INTEGER:
    case JSON_REAL:
        s->num += json_number_value(v);
        break;
    case JSON_STRING:
        s->strbytes += json_string_length(v);
        break;
    case JSON_ARRAY:
        for (size_t i = 0, n = json_array_size(v); i < n; i++)
            walk_jansson(json_array_get(v, i), s);
        break;
    case JSON_OBJECT: {
        const char *k;
        json_t *m;
        json_object_foreach(v, k, m) {
            s->strbytes += strlen(k);
            walk_jansson(m, s);
        }
        break;
    }
    default:
        break;
    }
}

static void walk_cjson(const cJSON *v, sum *s)
{
    s->values++;
    if (cJSON_IsNumber(v)) {
        s->num += v->valuedouble;
    } else if (cJSON_IsString(v)) {
        s->strbytes += strlen(v->valuestring);
    } else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
        for (const cJSON *c = v->child; c; c = c->next) {
            if (cJSON_IsObject(v))
                s->strbytes += strlen(c->string);
            walk_cjson(c, s);
        }
    }
}

/* ---- writing ---------------------------------------------------------------- */

/* Seconds to write the parsed document back with the library; *bytes out. */
static double write_with(const char *lib, const char *text, size_t len, size_t *bytes)
{
    double t = -1;
    if (!strcmp(lib, "hs")) {
        hs_jdoc *d;
        if (hs_jdoc_parse(text, len, "in", &d, NULL))
            return -1;
        char *buf = NULL;
        size_t n = 0;
        double t0 = now();
        FILE *f = open_memstream(&buf, &n);
        hs_json w;
        hs_json_init(&w, f, 0);
        hs_json_copy(&w, d, hs_jdoc_root(d));
        if (hs_json_finish(&w) == 0 && fclose(f) == 0) {
            t = now() - t0;
            *bytes = n;
        }
        free(buf);
        hs_jdoc_free(d);
    } else if (!strcmp(lib, "jansson")) {
        json_error_t e;
        json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
        if (!j)
            return -1;
        double t0 = now();
        char *out = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (out) {
            t = now() - t0;
            *bytes = strlen(out);
        }
        free(out);
        json_decref(j);
    } else if (!strcmp(lib, "cjson")) {
        cJSON *j = cJSON_ParseWithLength(text, len);
        if (!j)
            return -1;
        double t0 = now();
        char *out = cJSON_PrintUnformatted(j);
        if (out) {
            t = now() - t0;
            *bytes = strlen(out);
        }
        cJSON_free(out);
        cJSON_Delete(j);
    }
    return t;
}

/* ---- conformance probe -------------------------------------------------- */

static void show(char *out, size_t n, const char *s)
{
    size_t k = 0;
    for (; *s && k + 5 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x80 || c < 0x20)
            k += (size_t)snprintf(out + k, n - k, "\\x%02x", c);
        else if (c == '|')
            k += (size_t)snprintf(out + k, n - k, "\\|");
        else
            out[k++] = (char)c;
    }
    out[k] = 0;
}

static void conform(void)
{
    static const char *cases[] = {
        "[01]", "[1.]", "[-]", "{\"a\":1,\"a\":2}", "[\"\xff\"]", "[\"\xed\xa0\x80\"]",
        "[\"a\\u0000b\"]", "[\"tab\there\"]", "[1] x", "[1,]",
        "[9007199254740993]", "[18446744073709551615]", "[-9223372036854775808]", "[-0]", NULL,
    };
    printf("| input | hopscope | jansson | cJSON |\n|---|---|---|---|\n");
    for (int i = 0; cases[i]; i++) {
        const char *s = cases[i];
        size_t n = strlen(s);
        char h[64] = "rejected", j[64] = "rejected", c[64] = "rejected", in[96];
        hs_jdoc *d;
        if (hs_jdoc_parse(s, n, "x", &d, NULL) == 0) {
            const hs_jv *v = hs_jv_at(d, hs_jdoc_root(d), 0);
            uint64_t u;
            int64_t q;
            double x;
            if (hs_jv_u64(v, &u) == 0)
                snprintf(h, sizeof h, "%llu", (unsigned long long)u);
            else if (hs_jv_i64(v, &q) == 0)
                snprintf(h, sizeof h, "%lld", (long long)q);
            else if (hs_jv_double(v, &x) == 0)
                snprintf(h, sizeof h, "%.17g", x);
            else if (hs_jv_kind(v) == HS_JV_STR)
                snprintf(h, sizeof h, "string of %zu bytes", strlen(hs_jv_str(d, v)));
            else
                snprintf(h, sizeof h, "accepted");
            hs_jdoc_free(d);
        }
        json_error_t je;
        json_t *jj = json_loadb(s, n, JSON_REJECT_DUPLICATES, &je);
        if (jj) {
            json_t *v = json_is_array(jj) ? json_array_get(jj, 0) : NULL;
            if (v && json_is_integer(v))
                snprintf(j, sizeof j, "%lld", (long long)json_integer_value(v));
            else if (v && json_is_real(v))
                snprintf(j, sizeof j, "%.17g", json_real_value(v));
            else if (v && json_is_string(v))
                snprintf(j, sizeof j, "string of %zu bytes", json_string_length(v));
            else
                snprintf(j, sizeof j, "accepted");
            json_decref(jj);
        }
        /* strictest call: the whole buffer (with its NUL) must be one value */
        const char *end = NULL;
        cJSON *cj = cJSON_ParseWithLengthOpts(s, n + 1, &end, 1);
        if (cj) {
            const cJSON *v = cJSON_IsArray(cj) ? cj->child : NULL;
            if (v && cJSON_IsNumber(v))
                snprintf(c, sizeof c, "%.17g", v->valuedouble);
            else if (v && cJSON_IsString(v))
                snprintf(c, sizeof c, "string of %zu bytes", strlen(v->valuestring));
            else
                snprintf(c, sizeof c, "accepted");
            cJSON_Delete(cj);
        }
        show(in, sizeof in, s);
        printf("| `%s` | %s | %s | %s |\n", in, h, j, c);
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "conform")) {
        conform();
        return 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: json_libs hs|jansson|cjson FILE [REPEAT]\n");
        return 2;
    }
    const char *lib = argv[1];
    int repeat = argc > 3 ? atoi(argv[3]) : 1;
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)len + 1);
    if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "%s: read failed\n", argv[2]);
        return 1;
    }
    text[len] = 0;
    fclose(f);

    double best = 1e30;
    const char *dash = strchr(lib, '-');
    if (dash && !strcmp(dash, "-write")) {
        char base[16];
        snprintf(base, sizeof base, "%.*s", (int)(dash - lib), lib);
        size_t bytes = 0;
        for (int r = 0; r < repeat; r++) {
            double t = write_with(base, text, (size_t)len, &bytes);
            if (t < 0) {
                fprintf(stderr, "json_libs: %s failed\n", lib);
                return 1;
            }
            if (t < best)
                best = t;
        }
        printf("%s %.4f bytes=%zu\n", lib, best, bytes);
        free(text);
        return 0;
    }
    sum s = {0, 0, 0};
    for (int r = 0; r < repeat; r++) {
        memset(&s, 0, sizeof s);
        double t0 = now();
        if (!strcmp(lib, "hs")) {
            hs_jdoc *d;
            hs_error err;
            if (hs_jdoc_parse(text, (size_t)len, argv[2], &d, &err)) {
                fprintf(stderr, "%s\n", err.msg);
                return 1;
            }
            walk_hs(d, hs_jdoc_root(d), &s);
            hs_jdoc_free(d);
        } else if (!strcmp(lib, "jansson")) {
            json_error_t e;
            json_t *j = json_loadb(text, (size_t)len, JSON_REJECT_DUPLICATES, &e);
            if (!j) {
                fprintf(stderr, "%s: %d:%d: %s\n", argv[2], e.line, e.column, e.text);
                return 1;
            }
            walk_jansson(j, &s);
            json_decref(j);
        } else if (!strcmp(lib, "cjson")) {
            cJSON *j = cJSON_ParseWithLength(text, (size_t)len);
            if (!j) {
                fprintf(stderr, "%s: cJSON parse error\n", argv[2]);
                return 1;
            }
            walk_cjson(j, &s);
            cJSON_Delete(j);
        } else {
            fprintf(stderr, "json_libs: unknown library '%s'\n", lib);
            return 2;
        }
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    printf("%s %.4f values=%llu strbytes=%llu num=%.17g\n", lib, best,
           (unsigned long long)s.values, (unsigned long long)s.strbytes, s.num);
    free(text);
    return 0;
}
