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
