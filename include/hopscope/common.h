/* hopscope/common.h — status codes, error messages and small shared
 * utilities used by every hopscope module.
 *
 * Convention: functions return 0 on success or a negative hs_status.  Readers
 * of outside input also fill an optional hs_error with a sentence naming the
 * file, the offset and the reason; the caller decides whether to print it. */
#ifndef HOPSCOPE_COMMON_H
#define HOPSCOPE_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hs_status {
    HS_OK        = 0,
    HS_EINVAL    = -1,  /* invalid argument or parameter */
    HS_ENOMEM    = -2,  /* out of memory */
    HS_EIO       = -3,  /* read/write failure (errno-level) */
    HS_EFORMAT   = -4,  /* malformed input (bad magic, field, syntax) */
    HS_ERANGE    = -5,  /* value outside its documented range */
    HS_EOVERFLOW = -6,  /* a counter or field would overflow */
    HS_ENOTSUP   = -7,  /* valid request this build or mode cannot serve */
    HS_ETRUNC    = -8,  /* input ends early */
    HS_ECHECKSUM = -9,  /* stored checksum does not match */
    HS_EVERSION  = -10, /* format version not understood */
    HS_ENOENT    = -11, /* file or item not found */
    HS_EDEADLOCK = -12, /* simulated program cannot progress */
    HS_ESTATE    = -13, /* call not valid in the current state */
    HS_ECHILD    = -14, /* a child process failed */
} hs_status;

/* Never returns NULL; unknown codes give "unknown status". */
const char *hs_strerror(int status);

/* Detailed error: status plus a sentence.  All hs_error pointers passed to
 * hopscope functions may be NULL. */
typedef struct hs_error {
    int  status;
    char msg[512];
} hs_error;

/* Sets *err (if non-NULL) and returns status, so it can be used as
 * `return hs_error_set(err, HS_EFORMAT, "%s: offset %zu: ...", ...)`. */
int hs_error_set(hs_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void hs_error_clear(hs_error *err);
/* Message for printing: err->msg when set, else hs_strerror(status). */
const char *hs_error_str(const hs_error *err, int status);

/* ---- JSON writer ------------------------------------------------------
 * Streaming, deterministic output (fixed number formatting), indentation
 * optional.  Misuse (value without key inside an object, unbalanced close)
 * is recorded in w->status and later calls become no-ops. */
#define HS_JSON_MAXDEPTH 64
typedef struct hs_json {
    FILE *f;
    int   pretty;
    int   depth;
    int   status;
    unsigned char first[HS_JSON_MAXDEPTH]; /* no element yet at this depth */
    unsigned char is_obj[HS_JSON_MAXDEPTH];
    unsigned char have_key;                 /* key written, value pending */
} hs_json;

void hs_json_init(hs_json *w, FILE *f, int pretty);
void hs_json_obj_begin(hs_json *w);
void hs_json_obj_end(hs_json *w);
void hs_json_arr_begin(hs_json *w);
void hs_json_arr_end(hs_json *w);
void hs_json_key(hs_json *w, const char *key);
void hs_json_str(hs_json *w, const char *s);
void hs_json_int(hs_json *w, int64_t v);
void hs_json_uint(hs_json *w, uint64_t v);
/* Finite doubles are printed with %.17g trimmed to the shortest form that
 * round-trips ("%.*g" with increasing precision); NaN/inf become null. */
void hs_json_num(hs_json *w, double v);
void hs_json_bool(hs_json *w, int v);
void hs_json_null(hs_json *w);
/* Returns 0 when everything balanced and no write failed. */
int  hs_json_finish(hs_json *w);

/* ---- JSON reader ------------------------------------------------------
 * Strict RFC 8259 parser into a read-only tree (common/jsonread.c), for
 * files other modules wrote (manifest.json, app.json, analysis.json).
 * Rejects, with "NAME: offset N: reason": anything outside the grammar,
 * duplicate keys, "\u0000", invalid UTF-8, nesting deeper than
 * HS_JSON_READ_MAXDEPTH.  Values stay valid until hs_jdoc_free. */
#define HS_JSON_READ_MAXDEPTH 256
typedef enum hs_jv_type {
    HS_JV_NONE = 0,   /* hs_jv_kind(NULL): a missing value */
    HS_JV_NULL, HS_JV_BOOL, HS_JV_NUM, HS_JV_STR, HS_JV_ARR, HS_JV_OBJ,
} hs_jv_type;
typedef struct hs_jv hs_jv;
typedef struct hs_jdoc hs_jdoc;

/* Parses text[0..len) (NAME names it in messages).  HS_EFORMAT, HS_ENOMEM;
 * *out is NULL on failure. */
int hs_jdoc_parse(const char *text, size_t len, const char *name, hs_jdoc **out,
                  hs_error *err);
/* Reads and parses a file of at most max_bytes.  HS_ENOENT, HS_EIO,
 * HS_ERANGE (too large), HS_EFORMAT, HS_ENOMEM. */
int hs_jdoc_load(const char *path, size_t max_bytes, hs_jdoc **out, hs_error *err);
void hs_jdoc_free(hs_jdoc *d);
const hs_jv *hs_jdoc_root(const hs_jdoc *d);

/* Accessors accept NULL and wrong types: they then return NULL / 0 /
 * HS_EINVAL, so a chain of lookups needs one check at its end. */
hs_jv_type hs_jv_kind(const hs_jv *v);
size_t hs_jv_offset(const hs_jv *v);               /* byte offset in the input */
size_t hs_jv_len(const hs_jv *v);                  /* array or object members */
const hs_jv *hs_jv_at(const hs_jdoc *d, const hs_jv *v, size_t i);   /* i-th member */
const char *hs_jv_key_at(const hs_jdoc *d, const hs_jv *obj, size_t i);
const hs_jv *hs_jv_get(const hs_jdoc *d, const hs_jv *obj, const char *key);
const char *hs_jv_str(const hs_jdoc *d, const hs_jv *v);
int hs_jv_bool(const hs_jv *v, int *out);
int hs_jv_double(const hs_jv *v, double *out);
/* Integer literals only (no fraction or exponent); HS_ERANGE if the value
 * does not fit. */
int hs_jv_u64(const hs_jv *v, uint64_t *out);
int hs_jv_i64(const hs_jv *v, int64_t *out);
/* Writes v (and what it holds) with the JSON writer w as it was read:
 * integer literals as integers, other numbers as hs_json_num writes them,
 * a missing value (NULL) as null. */
void hs_json_copy(hs_json *w, const hs_jdoc *d, const hs_jv *v);

/* ---- small helpers ---------------------------------------------------- */

/* Strict number parsing for command lines and text formats: the whole
 * string must be consumed.  Return 0 or HS_EINVAL / HS_ERANGE. */
int hs_parse_u64(const char *s, uint64_t *out);
int hs_parse_i64(const char *s, int64_t *out);
int hs_parse_double(const char *s, double *out);
/* Sizes with optional binary suffix: "4096", "4K", "1M", "2G" (KiB...). */
int hs_parse_size(const char *s, uint64_t *out);

/* mkdir -p; 0 or HS_EIO (err says which component failed and why). */
int hs_mkdir_p(const char *path, hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
