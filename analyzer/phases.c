/* Phases: the user's names (--phases FILE) and the groups of phases that
 * the per-phase views are made of.
 *
 * A phases file has one rule per line, the first rule that matches a phase
 * names it (syntax in docs/analysis.md, "Phases"):
 *
 *     # comment
 *     tag 7            halo exchange
 *     tag 100-199      solver
 *     collective allreduce   global sums
 *     phase 12         setup          (a phase id as packets carry it)
 *
 * Phases given the same name form one group, whose view is the sum of its
 * phases' (the in-band transform is linear, so counters add).  Phases no
 * rule names keep their own name (app.json's, or phases.tsv's) and form a
 * group each. */
#include "an.h"

#include <stdlib.h>
#include <string.h>

#define RULE_NAME_MAX 128
#define RULES_MAX_BYTES (16u << 20)

void hs__an_phase_rules_free(hs__phase_rules *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->r[i].coll);
        free(r->r[i].name);
    }
    free(r->r);
    r->r = NULL;
    r->n = 0;
}

static int rule_fail(hs_error *err, const char *name, unsigned line, const char *why,
                     const char *what)
{
    return hs_error_set(err, HS_EFORMAT, "%s: line %u: %s%s%s%s", name, line, why,
                        what ? " '" : "", what ? what : "", what ? "'" : "");
}

/* The collective kinds app.json names (docs/formats.md, app.json
 * `phases[].collective`): a rule naming anything else could never match,
 * so a misspelt one ("alltoal") is an error, not a silent no-op.  The
 * nonblocking and v/w forms are replayed as these kinds. */
static const char *const coll_names[] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall",
    "gather", "scatter", "reduce_scatter", "scan", "exscan", "neighbor",
};

/* "N" or "A-B" with 0 <= A <= B <= max. */
static int parse_range(const char *s, int64_t max, int64_t *lo, int64_t *hi)
{
    char buf[64];
    if (strlen(s) >= sizeof buf)
        return HS_EINVAL;
    strcpy(buf, s);
    char *dash = strchr(buf, '-');
    uint64_t a, b;
    if (dash) {
        *dash = 0;
        if (hs_parse_u64(buf, &a) || hs_parse_u64(dash + 1, &b))
            return HS_EINVAL;
    } else {
        if (hs_parse_u64(buf, &a))
            return HS_EINVAL;
        b = a;
    }
    if (a > b || b > (uint64_t)max)
        return HS_ERANGE;
    *lo = (int64_t)a;
    *hi = (int64_t)b;
    return 0;
}

int hs__an_phase_rules_parse(const char *text, size_t len, const char *name,
                          hs__phase_rules *out, hs_error *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    unsigned line = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        line++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char buf[512];
        if (n >= sizeof buf) {
            hs__an_phase_rules_free(out);
            return rule_fail(err, name, line, "line longer than 511 characters", NULL);
        }
        memcpy(buf, p, n);
        buf[n] = 0;
        p = nl ? nl + 1 : end;
        if (memchr(buf, 0, n)) {
            hs__an_phase_rules_free(out);
            return rule_fail(err, name, line, "NUL byte", NULL);
        }
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = 0;
        /* selector word, argument, then the name (rest of the line) */
        char *s = buf;
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (!*s)
            continue;
        char *w1 = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        if (*s)
            *s++ = 0;
        while (*s == ' ' || *s == '\t')
            s++;
        char *w2 = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        if (*s)
            *s++ = 0;
        while (*s == ' ' || *s == '\t')
            s++;
        char *nm = s;
        size_t nl2 = strlen(nm);
        while (nl2 && (nm[nl2 - 1] == ' ' || nm[nl2 - 1] == '\t' || nm[nl2 - 1] == '\r'))
            nm[--nl2] = 0;
        hs__phase_rule rule;
        memset(&rule, 0, sizeof rule);
        int rc = 0;
        if (strcmp(w1, "tag") == 0) {
            rule.what = 1;
            rc = parse_range(w2, INT32_MAX, &rule.lo, &rule.hi);
        } else if (strcmp(w1, "phase") == 0) {
            rule.what = 3;
            rc = parse_range(w2, 65535, &rule.lo, &rule.hi);
        } else if (strcmp(w1, "collective") == 0) {
            rule.what = 2;
            rc = HS_EINVAL;
            for (size_t k = 0; k < sizeof coll_names / sizeof coll_names[0]; k++)
                if (strcmp(w2, coll_names[k]) == 0)
                    rc = 0;
        } else {
            hs__an_phase_rules_free(out);
            return rule_fail(err, name, line, "expected 'tag', 'collective' or 'phase', not", w1);
        }
        if (rc) {
            hs__an_phase_rules_free(out);
            return rule_fail(err, name, line,
                             rule.what == 2 ? "expected a collective kind (barrier, bcast, "
                                              "reduce, allreduce, allgather, alltoall, gather, "
                                              "scatter, reduce_scatter, scan, exscan, neighbor), "
                                              "not"
                             : rc == HS_ERANGE ? "range out of order or too large:"
                                               : "expected N or A-B, not", w2);
        }
        if (!*nm) {
            hs__an_phase_rules_free(out);
            return rule_fail(err, name, line, "no name after the selector", NULL);
        }
        if (nl2 > RULE_NAME_MAX) {
            hs__an_phase_rules_free(out);
            return rule_fail(err, name, line, "name longer than 128 characters", NULL);
        }
        for (const char *c = nm; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) {
                hs__an_phase_rules_free(out);
                return rule_fail(err, name, line, "control character in the name", NULL);
            }
        if (out->n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            hs__phase_rule *t = realloc(out->r, nc * sizeof *t);
            if (!t) {
                hs__an_phase_rules_free(out);
                return hs_error_set(err, HS_ENOMEM, "%s: out of memory", name);
            }
            out->r = t;
            cap = nc;
        }
        rule.name = strdup(nm);
        rule.coll = rule.what == 2 ? strdup(w2) : NULL;
        if (!rule.name || (rule.what == 2 && !rule.coll)) {
            free(rule.name);
            free(rule.coll);
            hs__an_phase_rules_free(out);
            return hs_error_set(err, HS_ENOMEM, "%s: out of memory", name);
        }
        out->r[out->n++] = rule;
    }
    return 0;
}

int hs__an_phase_rules_read(const char *path, hs__phase_rules *out, hs_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return hs_error_set(err, HS_ENOENT, "cannot open phases file '%s'", path);
    /* grown as read: a phases file is a few lines, the bound is for hostile
     * ones (a buffer of the bound each time made every read cost 16 MB) */
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 4096;
            char *nb = nc <= (size_t)RULES_MAX_BYTES + 1 ? realloc(buf, nc + 1) : NULL;
            if (!nb) {
                rc = nc > (size_t)RULES_MAX_BYTES + 1
                         ? hs_error_set(err, HS_ERANGE, "%s: larger than %u bytes", path,
                                        RULES_MAX_BYTES)
                         : hs_error_set(err, HS_ENOMEM, "out of memory");
                break;
            }
            buf = nb;
            cap = nc;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0)
            break;
    }
    if (!rc && ferror(f))
        rc = hs_error_set(err, HS_EIO, "cannot read phases file '%s'", path);
    else if (!rc && n > RULES_MAX_BYTES)
        rc = hs_error_set(err, HS_ERANGE, "%s: larger than %u bytes", path, RULES_MAX_BYTES);
    fclose(f);
    if (!rc)
        rc = hs__an_phase_rules_parse(buf, n, path, out, err);
    free(buf);
    return rc;
}

const char *hs__an_phase_rules_match(const hs__phase_rules *r, uint32_t phase_id, int64_t tag,
                                  const char *collective)
{
    for (size_t i = 0; i < r->n; i++) {
        const hs__phase_rule *q = &r->r[i];
        if ((q->what == 1 && tag >= 0 && tag >= q->lo && tag <= q->hi) ||
            (q->what == 3 && (int64_t)phase_id >= q->lo && (int64_t)phase_id <= q->hi) ||
            (q->what == 2 && collective && strcmp(collective, q->coll) == 0))
            return q->name;
    }
    return NULL;
}

int hs_an_phases_check(const char *path, hs_error *err)
{
    hs__phase_rules r;
    int rc = hs__an_phase_rules_read(path, &r, err);
    if (!rc)
        hs__an_phase_rules_free(&r);
    return rc;
}
