/* common/sbuf.h (private): a growing string for messages and reports
 * assembled piece by piece (the replay's report, the analyzer's finding
 * summaries).  Start with { NULL, 0, 0 }; s is NULL until something was
 * written, NUL-terminated after; free(s) when done.  Out of memory leaves
 * what was written so far. */
#ifndef HOPSCOPE_COMMON_SBUF_H
#define HOPSCOPE_COMMON_SBUF_H

#include <stddef.h>

typedef struct hs__sbuf {
    char *s;
    size_t n, cap;
} hs__sbuf;

/* Appends the formatted text. */
void hs__sb_printf(hs__sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
