/* Ground truth and the in-band counters' storage, per phase and per time
 * window.
 *
 * Truth per link: packets, bytes, busy time, stall time and congested
 * packets, kept per phase (dense phase index, a block of L+1 entries each)
 * and per window (a block per window of `window` ps, allocated when first
 * touched); totals are the sum over phases, computed when asked.  Busy and stall intervals are split
 * exactly at window boundaries; packets, bytes and congested packets go to
 * the window in which their transmission started.
 *
 * Counters (hash/'s hs_counters, summed over all destination NICs, which is
 * exact because the update is linear): one set per phase and one per
 * window of delivery time, never per (phase, window): that product of
 * dense 2^k arrays would not fit. */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#define PHASE_NONE 0xffffu

int hs__truth_init(hs_fabric *F)
{
    F->truth = calloc((size_t)F->L + 1, sizeof *F->truth);
    F->phase_idx = malloc(65536 * sizeof *F->phase_idx);
    if (!F->truth || !F->phase_idx)
        return HS_ENOMEM;
    memset(F->phase_idx, 0xff, 65536 * sizeof *F->phase_idx);
    return 0;
}

void hs__truth_free(hs_fabric *F)
{
    for (unsigned i = 0; i < F->nphase; i++) {
        free(F->truth_ph[i]);
        if (F->ct_ph && F->ct_ph[i].n)
            hs_counters_free(&F->ct_ph[i]);
    }
    for (size_t w = 0; w < F->nwin; w++)
        free(F->truth_win[w]);
    for (size_t w = 0; w < F->nctwin; w++)
        if (F->ct_win[w]) {
            hs_counters_free(F->ct_win[w]);
            free(F->ct_win[w]);
        }
    if (F->phase_names)
        for (unsigned i = 0; i < 65536; i++)
            free(F->phase_names[i]);
    free(F->phase_names);
    free(F->truth_ph);
    free(F->ph_last);
    free(F->truth_win);
    free(F->ct_ph);
    free(F->ct_win);
    free(F->truth);
    free(F->phase_idx);
    free(F->phase_ids);
    free(F->rec);
}

uint16_t hs__phase_index(hs_fabric *F, uint16_t phase)
{
    uint16_t i = F->phase_idx[phase];
    if (i != PHASE_NONE)
        return i;
    if (F->nphase >= PHASE_NONE)
        return PHASE_NONE;
    unsigned n = F->nphase + 1;
    hs__truth **tp = realloc(F->truth_ph, n * sizeof *tp);
    if (tp)
        F->truth_ph = tp;
    uint16_t *ids = realloc(F->phase_ids, n * sizeof *ids);
    if (ids)
        F->phase_ids = ids;
    hs_counters *ct = realloc(F->ct_ph, n * sizeof *ct);
    if (ct)
        F->ct_ph = ct;
    hs_time *last = realloc(F->ph_last, n * sizeof *last);
    if (last)
        F->ph_last = last;
    if (!tp || !ids || !ct || !last)
        return PHASE_NONE;
    last[F->nphase] = HS_TIME_NEVER;
    tp[F->nphase] = calloc((size_t)F->L + 1, sizeof **tp);
    if (!tp[F->nphase])
        return PHASE_NONE;
    memset(&ct[F->nphase], 0, sizeof *ct);
    ids[F->nphase] = phase;
    F->phase_idx[phase] = (uint16_t)F->nphase;
    return (uint16_t)F->nphase++;
}

hs__truth *hs__truth_window(hs_fabric *F, size_t w)
{
    if (w >= F->cap_win) {
        size_t nc = F->cap_win ? F->cap_win : 64;
        while (nc <= w)
            nc *= 2;
        hs__truth **n = realloc(F->truth_win, nc * sizeof *n);
        if (!n) {
            F->error = HS_ENOMEM;
            return NULL;
        }
        memset(n + F->cap_win, 0, (nc - F->cap_win) * sizeof *n);
        F->truth_win = n;
        F->cap_win = nc;
    }
    if (w >= F->nwin)
        F->nwin = w + 1;
    if (!F->truth_win[w]) {
        F->truth_win[w] = calloc((size_t)F->L + 1, sizeof **F->truth_win);
        if (!F->truth_win[w]) {
            F->error = HS_ENOMEM;
            return NULL;
        }
    }
    return F->truth_win[w];
}

/* Doubles the window width, merging windows 2i and 2i+1 into window i:
 * truth entries and counters are sums, so the result is exactly what the
 * wider windows would have counted.  Bounds memory for long runs. */
void hs__truth_coarsen(hs_fabric *F)
{
    hs__truth_flush(F);
    size_t nw = (F->nwin + 1) / 2;
    for (size_t i = 0; i < nw; i++) {
        hs__truth *a = F->truth_win[2 * i];
        hs__truth *b = 2 * i + 1 < F->nwin ? F->truth_win[2 * i + 1] : NULL;
        if (a && b) {
            for (uint32_t l = 0; l <= F->L; l++) {
                a[l].packets += b[l].packets;
                a[l].bytes += b[l].bytes;
                a[l].busy += b[l].busy;
                a[l].stall += b[l].stall;
                a[l].congested += b[l].congested;
            }
            free(b);
        } else if (!a) {
            a = b;
        }
        F->truth_win[i] = a;
    }
    for (size_t i = nw; i < F->nwin; i++)
        F->truth_win[i] = NULL;
    F->nwin = nw;
    size_t nc = (F->nctwin + 1) / 2;
    for (size_t i = 0; i < nc; i++) {
        hs_counters *a = F->ct_win[2 * i];
        hs_counters *b = 2 * i + 1 < F->nctwin ? F->ct_win[2 * i + 1] : NULL;
        if (a && b) {
            hs_counters_add(a, b);  /* same shape by construction */
            hs_counters_free(b);
            free(b);
        } else if (!a) {
            a = b;
        }
        F->ct_win[i] = a;
    }
    for (size_t i = nc; i < F->nctwin; i++)
        F->ct_win[i] = NULL;
    F->prm.window *= 2;
    F->twin_blk = NULL;
    F->twin_lo = F->twin_hi = 0;
    F->cwin_ct = NULL;
    F->cwin_lo = F->cwin_hi = 0;
}

/* The window holding time t, widening windows first if t would need more
 * than max_windows of them. */
static size_t window_index(hs_fabric *F, hs_time t)
{
    size_t w;
    while ((w = (size_t)(t / F->prm.window)) >= F->prm.max_windows && F->prm.max_windows &&
           F->prm.window <= UINT64_MAX / 2)
        hs__truth_coarsen(F);
    return w;
}

/* Adds [t0, t1) to the busy (stall = 0) or stall (stall = 1) time of link
 * o in every window it overlaps. */
static void split_time(hs_fabric *F, uint32_t o, hs_time t0, hs_time t1, int stall)
{
    while (t0 < t1) {
        size_t w = window_index(F, t0);
        hs_time end = ((hs_time)w + 1) * F->prm.window;
        if (end > t1)
            end = t1;
        hs__truth *b = hs__truth_window(F, w);
        if (!b)
            return;
        if (stall)
            b[o].stall += end - t0;
        else
            b[o].busy += end - t0;
        t0 = end;
    }
}

/* Adds link o's accumulated truth to its phase's and window's blocks and
 * empties it.  The window's block exists: hs__truth_tx made it when the
 * accumulation began. */
static void acc_flush(hs_fabric *F, uint32_t o)
{
    hs__oport *op = &F->op[o];
    if (op->acc_win == HS_NIL)
        return;
    if (op->acc_pidx != PHASE_NONE) {
        hs__truth *ph = &F->truth_ph[op->acc_pidx][o];
        ph->packets += op->acc_packets;
        ph->bytes += op->acc_bytes;
        ph->busy += op->acc_busy;
        ph->congested += op->acc_congested;
    }
    hs__truth *b = F->truth_win[op->acc_win];
    b[o].packets += op->acc_packets;
    b[o].bytes += op->acc_bytes;
    b[o].busy += op->acc_busy;
    b[o].congested += op->acc_congested;
    op->acc_win = HS_NIL;
    op->acc_packets = op->acc_congested = 0;
    op->acc_bytes = op->acc_busy = 0;
}

void hs__truth_flush(hs_fabric *F)
{
    for (uint32_t l = 1; l <= F->L; l++)
        if (!F->pd || hs__pdes_link_local(F, l))   /* others' pages are given back */
            acc_flush(F, l);
}

void hs__truth_tx(hs_fabric *F, uint32_t o, uint16_t pidx, hs_time t0, hs_time ser,
                  uint32_t bytes, int congested)
{
    /* the window of t0: nearly always the cached one (no division) */
    size_t w;
    hs__truth *b;
    if (t0 >= F->twin_lo && t0 < F->twin_hi) {
        w = F->twin_w;
        b = F->twin_blk;
    } else {
        w = window_index(F, t0);
        hs_time W = F->prm.window;
        b = hs__truth_window(F, w);
        if (!b)
            return;
        F->twin_blk = b;
        F->twin_w = w;
        F->twin_lo = (hs_time)w * W;
        F->twin_hi = F->twin_lo + W;
    }
    hs__oport *op = &F->op[o];
    if (t0 + ser <= F->twin_hi && w < HS_NIL) {
        /* within one window: into the link's accumulator */
        if (op->acc_win != w || op->acc_pidx != pidx || op->acc_packets == UINT32_MAX) {
            acc_flush(F, o);
            op->acc_win = (uint32_t)w;
            op->acc_pidx = pidx;
        }
        op->acc_packets++;
        op->acc_bytes += bytes;
        op->acc_busy += ser;
        op->acc_congested += (uint32_t)congested;
        return;
    }
    /* busy time across a window boundary: split, straight into the blocks
     * (totals are the sum over phases, hs__truth_sum, not kept per hop) */
    if (pidx != PHASE_NONE) {
        hs__truth *ph = &F->truth_ph[pidx][o];
        ph->packets++;
        ph->bytes += bytes;
        ph->busy += ser;
        ph->congested += (uint64_t)congested;
    }
    b[o].packets++;
    b[o].bytes += bytes;
    b[o].congested += (uint64_t)congested;
    split_time(F, o, t0, t0 + ser, 0);
}

void hs__truth_stall(hs_fabric *F, uint32_t o, uint16_t pidx, hs_time t0, hs_time t1)
{
    if (pidx != PHASE_NONE)
        F->truth_ph[pidx][o].stall += t1 - t0;
    split_time(F, o, t0, t1, 1);
}

const hs__truth *hs__truth_sum(hs_fabric *F)
{
    hs__truth_flush(F);
    memset(F->truth, 0, ((size_t)F->L + 1) * sizeof *F->truth);
    for (unsigned i = 0; i < F->nphase; i++)
        for (uint32_t l = 1; l <= F->L; l++) {
            const hs__truth *x = &F->truth_ph[i][l];
            hs__truth *t = &F->truth[l];
            t->packets += x->packets;
            t->bytes += x->bytes;
            t->busy += x->busy;
            t->stall += x->stall;
            t->congested += x->congested;
        }
    return F->truth;
}

hs_counters *hs__counters_phase(hs_fabric *F, uint16_t pidx)
{
    if (pidx == PHASE_NONE)
        return NULL;
    hs_counters *c = &F->ct_ph[pidx];
    if (c->n == 0 && hs_counters_init(c, &F->scheme, NULL) != 0) {
        memset(c, 0, sizeof *c);
        F->error = HS_ENOMEM;
        return NULL;
    }
    return c;
}

hs_counters *hs__counters_window(hs_fabric *F, hs_time t)
{
    if (t >= F->cwin_lo && t < F->cwin_hi)
        return F->cwin_ct;
    size_t w = window_index(F, t);
    if (w >= F->nctwin) {
        size_t nc = F->nctwin ? F->nctwin : 16;
        while (nc <= w)
            nc *= 2;
        hs_counters **n = realloc(F->ct_win, nc * sizeof *n);
        if (!n) {
            F->error = HS_ENOMEM;
            return NULL;
        }
        memset(n + F->nctwin, 0, (nc - F->nctwin) * sizeof *n);
        F->ct_win = n;
        F->nctwin = nc;
    }
    if (!F->ct_win[w]) {
        hs_counters *c = calloc(1, sizeof *c);
        if (!c || hs_counters_init(c, &F->scheme, NULL) != 0) {
            free(c);
            F->error = HS_ENOMEM;
            return NULL;
        }
        F->ct_win[w] = c;
    }
    F->cwin_ct = F->ct_win[w];
    F->cwin_lo = (hs_time)w * F->prm.window;
    F->cwin_hi = F->cwin_lo + F->prm.window;
    return F->ct_win[w];
}

void hs__truth_bytes(const hs_fabric *F, size_t *phase, size_t *window, size_t *counters)
{
    size_t blk = ((size_t)F->L + 1) * sizeof(hs__truth);
    *phase = blk * (1 + F->nphase);
    *window = 0;
    for (size_t w = 0; w < F->nwin; w++)
        if (F->truth_win[w])
            *window += blk;
    *counters = 0;
    for (unsigned i = 0; i < F->nphase; i++)
        if (F->ct_ph[i].n)
            *counters += hs_counters_bytes(&F->ct_ph[i]);
    for (size_t w = 0; w < F->nctwin; w++)
        if (F->ct_win[w])
            *counters += hs_counters_bytes(F->ct_win[w]);
}

int hs_fabric_truth(hs_fabric *F, uint32_t link, hs_link_truth *t)
{
    if (link == 0 || link > F->L)
        return HS_EINVAL;
    acc_flush(F, link);
    memset(t, 0, sizeof *t);
    for (unsigned i = 0; i < F->nphase; i++) {
        const hs__truth *x = &F->truth_ph[i][link];
        t->packets += x->packets;
        t->bytes += x->bytes;
        t->busy_ps += x->busy;
        t->stall_ps += x->stall;
        t->congested += x->congested;
    }
    const hs__oport *op = &F->op[link];
    if (op->stall_since != HS_TIME_NEVER && F->now > op->stall_since)
        t->stall_ps += F->now - op->stall_since;
    return 0;
}

const hs_counters *hs_fabric_counters(const hs_fabric *F, uint16_t phase)
{
    uint16_t i = F->phase_idx[phase];
    if (i == PHASE_NONE || !F->ct_ph || F->ct_ph[i].n == 0)
        return NULL;
    return &F->ct_ph[i];
}
