/* libhopscope.so: the completion recording shared by the Wait/Test
 * wrappers (the start and receive recording is in record.h, inlined into
 * the wrappers: it is on the latency-critical path).
 *
 * Everything here runs after the real MPI call returned, so handles are
 * valid when rc == MPI_SUCCESS; with an error, nothing that could call into
 * MPI with a bad handle is done. */
#include "interpose.h"

#include <string.h>

/* ---- completions -------------------------------------------------------------- */

int hs__compl_take(hs__compl *c, int n, const MPI_Request *reqs)
{
    c->n = 0;
    c->before = NULL;
    c->info = NULL;
    c->known = NULL;
    c->idx = NULL;
    c->nknown = 0;
    c->instant = 0;
    if (n < 0)
        return -1;
    c->n = n;
    if (n == 0) {
        c->instant = 1;
        return 0;
    }
    if (n <= HS__COMPL_INLINE) {
        c->info = c->info_in;
        c->idx = c->idx_in;
        c->known = c->known_in;
        for (int i = 0; i < n; i++)
            c->before_in[i] = reqs[i];
        c->before = c->before_in;
    } else {
        /* One scratch block: infos, known flags, index array. */
        size_t need = (size_t)n * (sizeof(hs__reqinfo) + sizeof(int) + 1) + 16;
        uint8_t *s = hs__scratch(need);
        MPI_Request *before = hs__reqcopy(n);
        if (!s || !before)
            return -1;
        c->info = (hs__reqinfo *)s;
        c->idx = (int *)(s + (size_t)n * sizeof(hs__reqinfo));
        c->known = (unsigned char *)(c->idx + n);
        memcpy(before, reqs, (size_t)n * sizeof *before);
        c->before = before;
    }
    int instant = 0, prev = 0;
    for (int i = 0; i < n; i++) {
        c->known[i] = (unsigned char)hs__req_take(reqs[i], &c->info[i]);
        c->nknown += c->known[i];
        /* The same handle twice in a row after a no-op is the MPI's one
         * static completed request (both MPIs return it for every
         * MPI_PROC_NULL start): complete too. */
        int ins = reqs[i] == MPI_REQUEST_NULL ||
                  (c->known[i] && c->info[i].instant && !c->info[i].persistent) ||
                  (i > 0 && prev && reqs[i] == reqs[i - 1]);
        instant += ins;
        prev = ins;
    }
    c->instant = instant == n;
    return 0;
}

static int is_test_kind(uint16_t k)
{
    return k == HS_TRACE_TEST || k == HS_TRACE_TESTANY || k == HS_TRACE_TESTALL ||
           k == HS_TRACE_TESTSOME;
}

/* Extends the previous record of this thread instead of adding one, when it
 * is the same fruitless poll (kind, and the caller's match). */
static int fold_poll(uint16_t kind, uint64_t t1)
{
    hs__tbuf *b = hs__t.buf;
    hs__rec *last = b ? b->last : NULL;
    if (!last || last->kind != kind || (last->flags & HS_TRACE_F_FOUND) || last->na || last->nb ||
        last->repeat == UINT32_MAX)
        return 0;
    last->t1 = t1;
    last->repeat++;
    return 1;
}

/* One completion's five words: request id, flags, matched source, tag and
 * bytes (from the status, for receives); returns the next word. */
static uint64_t *put_completion(uint64_t *w, const hs__reqinfo *ri, const MPI_Status *s, int rc)
{
    uint64_t f = 0;
    int32_t src = HS_TRACE_RANK_NONE, tag = HS_TRACE_TAG_NONE;
    uint64_t bytes = 0;
    if (s && rc == MPI_ERR_IN_STATUS && s->MPI_ERROR != MPI_SUCCESS)
        f |= HS_TRACE_C_ERROR;
    if (s && (ri->type == HS__RQ_RECV || ri->type == HS__RQ_SENDRECV) && ri->comm &&
        !(f & HS_TRACE_C_ERROR)) {
        f |= HS_TRACE_C_STATUS;
        if (hs__status_cancelled(s)) {
            f |= HS_TRACE_C_CANCELLED;
            src = HS_TRACE_PROC_NULL;
        } else {
            src = hs__peer(ri->comm, s->MPI_SOURCE);
            tag = s->MPI_SOURCE == MPI_PROC_NULL
                      ? HS_TRACE_TAG_NONE
                      : (s->MPI_TAG == MPI_ANY_TAG ? HS_TRACE_ANY_TAG : s->MPI_TAG);
            bytes = hs__status_bytes(s);
        }
    }
    *w++ = ri->id;
    *w++ = f;
    *w++ = (uint64_t)(int64_t)src;
    *w++ = (uint64_t)(int64_t)tag;
    *w++ = bytes;
    return w;
}

/* MPI_Wait: the event hs__compl_take/hs__compl_finish would write for one
 * request, byte for byte, without their arrays and loops (the most common
 * completion call: it was most of an Isend+Wait's cost). */
void hs__wait1_finish(MPI_Request before, int known, hs__reqinfo *ri, int instant,
                      uint64_t t0, int rc, const MPI_Status *st)
{
    uint64_t t1 = hs__now();
    if (instant)
        t0 = t1;
    int done = known && (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS);
    uint32_t nrec = done && (!ri->persistent || ri->active);
    size_t sz;
    hs__rec *r = hs__recn(HS_TRACE_WAIT, t0, t1, hs__rcflag(rc), nrec, 0, &sz);
    if (r) {
        if (nrec)
            put_completion(hs__rec_list(r), ri, st, rc);
        hs__commit(r, sz);
    }
    if (!known)
        return;
    if (!done) {
        hs__req_add(before, ri);
    } else if (ri->persistent) {
        ri->active = 0;
        hs__req_add(before, ri);
    } else if (ri->comm) {
        hs__comm_release(ri->comm);
    }
}

void hs__compl_finish(hs__compl *c, uint16_t kind, uint64_t t0, int rc, int ndone,
                      const int *idx, const MPI_Status *st)
{
    uint64_t t1 = hs__now();
    if (c->instant)
        t0 = t1;
    int ok = rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS;
    if (!ok)
        ndone = 0;   /* which requests completed is undefined after an error */
    /* Mark what completed; count the completions worth recording. */
    uint32_t nrec = 0;
    unsigned char *done = c->known;   /* reuse: bit 1 = done */
    for (int j = 0; j < ndone; j++) {
        int i = idx[j];
        if (i < 0 || i >= c->n || !c->known[i])
            continue;
        done[i] |= 2;
        if (!c->info[i].persistent || c->info[i].active)
            nrec++;
    }
    int test = is_test_kind(kind);
    if (nrec == 0 && test && rc == MPI_SUCCESS && fold_poll(kind, t1)) {
        /* folded */
    } else {
        size_t sz;
        hs__rec *r = hs__recn(kind, t0, t1,
                              hs__rcflag(rc) | (test && nrec ? HS_TRACE_F_FOUND : 0), nrec, 0,
                              &sz);
        if (r) {
            uint64_t *w = hs__rec_list(r);
            for (int j = 0; j < ndone; j++) {
                int i = idx[j];
                if (i < 0 || i >= c->n || !(c->known[i] & 2) ||
                    (c->info[i].persistent && !c->info[i].active))
                    continue;
                w = put_completion(w, &c->info[i], st ? &st[j] : NULL, rc);
            }
            hs__commit(r, sz);
        }
    }
    /* Put back what is still pending, and persistent requests (inactive
     * after completing); release the rest. */
    for (int i = 0; i < c->n; i++) {
        if (!(c->known[i] & 1))
            continue;
        hs__reqinfo *ri = &c->info[i];
        if (!(c->known[i] & 2)) {
            hs__req_add(c->before[i], ri);
        } else if (ri->persistent) {
            ri->active = 0;
            hs__req_add(c->before[i], ri);
        } else if (ri->comm) {
            hs__comm_release(ri->comm);
        }
    }
}
