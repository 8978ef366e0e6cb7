/* Status strings and the hs_error helper shared by all modules. */
#include "hopscope/common.h"

#include <stdarg.h>
#include <string.h>

const char *hs_strerror(int status)
{
    switch (status) {
    case HS_OK:        return "success";
    case HS_EINVAL:    return "invalid argument";
    case HS_ENOMEM:    return "out of memory";
    case HS_EIO:       return "input/output error";
    case HS_EFORMAT:   return "malformed input";
    case HS_ERANGE:    return "value out of range";
    case HS_EOVERFLOW: return "overflow";
    case HS_ENOTSUP:   return "not supported";
    case HS_ETRUNC:    return "truncated input";
    case HS_ECHECKSUM: return "checksum mismatch";
    case HS_EVERSION:  return "unsupported format version";
    case HS_ENOENT:    return "not found";
    case HS_EDEADLOCK: return "simulated program cannot make progress";
    case HS_ESTATE:    return "invalid state for this call";
    case HS_ECHILD:    return "child process failed";
    }
    return "unknown status";
}

int hs_error_set(hs_error *err, int status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

void hs_error_clear(hs_error *err)
{
    if (err) {
        err->status = 0;
        err->msg[0] = '\0';
    }
}

const char *hs_error_str(const hs_error *err, int status)
{
    if (err && err->status != 0 && err->msg[0])
        return err->msg;
    return hs_strerror(status);
}
