/* Streaming JSON writer.  Output is a pure function of the calls made, so
 * files built with it are byte-identical across runs (numbers use a fixed
 * shortest-round-trip format, never the locale). */
#include "hopscope/common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

void hs_json_init(hs_json *w, FILE *f, int pretty)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->pretty = pretty;
}

static void indent(hs_json *w)
{
    if (!w->pretty)
        return;
    fputc('\n', w->f);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->f);
}

/* Separator and layout before a value or key; returns 0 if writing may go on. */
static int before_value(hs_json *w)
{
    if (w->status)
        return -1;
    if (w->depth == 0)
        return 0;
    if (w->is_obj[w->depth - 1]) {
        if (!w->have_key) {
            w->status = HS_ESTATE;
            return -1;
        }
        w->have_key = 0;
        return 0;
    }
    if (!w->first[w->depth - 1])
        fputc(',', w->f);
    w->first[w->depth - 1] = 0;
    indent(w);
    return 0;
}

static void json_open(hs_json *w, int obj)
{
    if (before_value(w))
        return;
    if (w->depth >= HS_JSON_MAXDEPTH) {
        w->status = HS_EOVERFLOW;
        return;
    }
    fputc(obj ? '{' : '[', w->f);
    w->first[w->depth] = 1;
    w->is_obj[w->depth] = (unsigned char)obj;
    w->depth++;
}

static void json_close(hs_json *w, int obj)
{
    if (w->status)
        return;
    if (w->depth == 0 || w->is_obj[w->depth - 1] != obj || w->have_key) {
        w->status = HS_ESTATE;
        return;
    }
    int empty = w->first[w->depth - 1];
    w->depth--;
    if (!empty)
        indent(w);
    fputc(obj ? '}' : ']', w->f);
}

void hs_json_obj_begin(hs_json *w) { json_open(w, 1); }
void hs_json_obj_end(hs_json *w) { json_close(w, 1); }
void hs_json_arr_begin(hs_json *w) { json_open(w, 0); }
void hs_json_arr_end(hs_json *w) { json_close(w, 0); }

static void write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':  fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void hs_json_key(hs_json *w, const char *key)
{
    if (w->status)
        return;
    if (w->depth == 0 || !w->is_obj[w->depth - 1] || w->have_key) {
        w->status = HS_ESTATE;
        return;
    }
    if (!w->first[w->depth - 1])
        fputc(',', w->f);
    w->first[w->depth - 1] = 0;
    indent(w);
    write_string(w->f, key);
    fputs(w->pretty ? ": " : ":", w->f);
    w->have_key = 1;
}

void hs_json_str(hs_json *w, const char *s)
{
    if (before_value(w) == 0)
        write_string(w->f, s ? s : "");
}

void hs_json_int(hs_json *w, int64_t v)
{
    if (before_value(w) == 0)
        fprintf(w->f, "%" PRId64, v);
}

void hs_json_uint(hs_json *w, uint64_t v)
{
    if (before_value(w) == 0)
        fprintf(w->f, "%" PRIu64, v);
}

void hs_json_num(hs_json *w, double v)
{
    if (before_value(w))
        return;
    if (!isfinite(v)) {
        fputs("null", w->f);
        return;
    }
    if (v == 0) { /* also folds -0 */
        fputc('0', w->f);
        return;
    }
    char buf[40];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, w->f);
}

void hs_json_bool(hs_json *w, int v)
{
    if (before_value(w) == 0)
        fputs(v ? "true" : "false", w->f);
}

void hs_json_null(hs_json *w)
{
    if (before_value(w) == 0)
        fputs("null", w->f);
}

int hs_json_finish(hs_json *w)
{
    if (!w->status && w->depth != 0)
        w->status = HS_ESTATE;
    if (!w->status && w->pretty)
        fputc('\n', w->f);
    if (!w->status && ferror(w->f))
        w->status = HS_EIO;
    return w->status;
}
