/* The discrete-event core: a 4-ary min-heap of (time, data) events, the
 * packet pool, and the run loop that dispatches events to the devices.
 *
 * Why a timing wheel: the pending set is a few events per busy port (end
 * of transmission, credit return, arrival), up to millions in a large
 * network, nearly all within a microsecond of now.  A heap pays log(n)
 * cache-missing levels per event; the wheel appends in O(1) and sorts each
 * 64 ps bucket (a handful of events) when it comes up.  Events beyond the
 * wheel's ~4 us horizon (timers of the replay or of sparse traffic) wait
 * in a 4-ary heap.  Ties run in scheduling order, so the order is total and
 * independent of the wheel's geometry: the same inputs give the same run. */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

/* ---- far heap (events beyond the wheel's horizon) ------------------------- */

static inline int fev_less(const hs__fev *a, const hs__fev *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int far_push(hs_fabric *F, hs__fev e)
{
    if (F->ev_n == F->ev_cap) {
        size_t nc = F->ev_cap ? F->ev_cap * 2 : 1024;
        hs__fev *n = realloc(F->ev, nc * sizeof *n);
        if (!n) {
            F->error = HS_ENOMEM;
            return HS_ENOMEM;
        }
        F->ev = n;
        F->ev_cap = nc;
    }
    size_t i = F->ev_n++;
    hs__fev *h = F->ev;
    while (i > 0) {
        size_t parent = (i - 1) >> 2;
        if (!fev_less(&e, &h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
    return 0;
}

static hs__fev far_pop(hs_fabric *F)
{
    hs__fev *h = F->ev;
    hs__fev top = h[0];
    hs__fev last = h[--F->ev_n];
    size_t n = F->ev_n, i = 0;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = c;
        size_t end = c + 4 < n ? c + 4 : n;
        for (size_t j = c + 1; j < end; j++)
            if (fev_less(&h[j], &h[best]))
                best = j;
        if (!fev_less(&h[best], &last))
            break;
        h[i] = h[best];
        i = best;
    }
    if (n)
        h[i] = last;
    return top;
}

/* ---- the wheel ---------------------------------------------------------------
 * Bucket b (= t >> WHEEL_BITS) lives in slot b mod WHEEL_SLOTS while
 * wcur <= b < wcur + WHEEL_SLOTS, as a list in scheduling order.  When it
 * becomes current it is moved into `cur` and sorted by time with a stable
 * sort, which leaves equal times in scheduling order: (t, seq) order.  Far
 * events of a bucket move into its list, in (t, seq) order, as soon as the
 * bucket enters the horizon, which is before any event can be scheduled
 * into it directly, so they keep their place too.  An event scheduled for
 * the current bucket, or for an earlier time after hs_fabric_run stopped
 * short of the next event, is inserted into `cur` after every event with
 * the same or an earlier time. */

static uint32_t chunk_alloc(hs_fabric *F)
{
    if (F->chk_free == HS_NIL) {
        uint32_t nc = F->chk_cap ? F->chk_cap * 2 : 1024;
        if (nc <= F->chk_cap || nc == HS_NIL)
            return HS_NIL;
        hs__chunk *n = realloc(F->chk, (size_t)nc * sizeof *n);
        if (!n)
            return HS_NIL;
        for (uint32_t i = F->chk_cap; i < nc; i++)
            n[i].next = i + 1 < nc ? i + 1 : HS_NIL;
        F->chk = n;
        F->chk_free = F->chk_cap;
        F->chk_cap = nc;
    }
    uint32_t k = F->chk_free;
    F->chk_free = F->chk[k].next;
    F->chk[k].next = HS_NIL;
    F->chk[k].n = 0;
    return k;
}

static int wheel_put(hs_fabric *F, hs_time t, uint64_t d)
{
    uint32_t slot = (uint32_t)((t >> WHEEL_BITS) & (WHEEL_SLOTS - 1));
    uint32_t tail = F->wtail[slot];
    if (tail == HS_NIL || F->chk[tail].n == EV_CHUNK) {
        uint32_t k = chunk_alloc(F);
        if (k == HS_NIL) {
            F->error = HS_ENOMEM;
            return HS_ENOMEM;
        }
        if (tail == HS_NIL) {
            F->whead[slot] = k;
            F->wbits[slot >> 6] |= 1ull << (slot & 63);
        } else {
            F->chk[tail].next = k;
        }
        F->wtail[slot] = tail = k;
    }
    hs__chunk *c = &F->chk[tail];
    c->e[c->n].t = t;
    c->e[c->n].d = d;
    c->n++;
    F->wcount[slot]++;
    return 0;
}

static int cur_reserve(hs_fabric *F, uint32_t n)
{
    if (n <= F->cur_cap)
        return 0;
    uint32_t nc = F->cur_cap ? F->cur_cap : 256;
    while (nc < n)
        nc *= 2;
    hs__ev *a = realloc(F->cur, (size_t)nc * sizeof *a);
    if (a)
        F->cur = a;
    hs__ev *b = realloc(F->wtmp, (size_t)nc * sizeof *b);
    if (b)
        F->wtmp = b;
    if (!a || !b) {
        F->error = HS_ENOMEM;
        return HS_ENOMEM;
    }
    F->cur_cap = nc;
    return 0;
}

int hs__ev_push(hs_fabric *F, hs_time t, unsigned type, uint64_t arg)
{
    uint64_t d = (uint64_t)type << EV_SHIFT | arg;
    uint64_t b = t >> WHEEL_BITS;
    int rc;
    if (F->wopen && b <= F->wcur) {
        if ((rc = cur_reserve(F, F->cur_n + 1)))
            return rc;
        uint32_t i = F->cur_n++;
        while (i > F->wpos && F->cur[i - 1].t > t) {
            F->cur[i] = F->cur[i - 1];
            i--;
        }
        F->cur[i].t = t;
        F->cur[i].d = d;
    } else if (b < F->wcur + WHEEL_SLOTS) {
        if ((rc = wheel_put(F, t, d)))
            return rc;
    } else {
        hs__fev e = { t, F->evseq++, d };
        if ((rc = far_push(F, e)))
            return rc;
    }
    F->nev++;
    return 0;
}

/* Stable sort of cur[0..n) by time: counting sort on the time within the
 * bucket for large buckets, insertion sort for small ones. */
static void cur_sort(hs_fabric *F)
{
    uint32_t n = F->cur_n;
    hs__ev *e = F->cur;
    const uint32_t W = 1u << WHEEL_BITS;
    if (n > 16) {
        uint32_t cnt[(1u << WHEEL_BITS) + 1];
        memset(cnt, 0, sizeof cnt);
        for (uint32_t i = 0; i < n; i++)
            cnt[(e[i].t & (W - 1)) + 1]++;
        for (uint32_t k = 0; k < W; k++)
            cnt[k + 1] += cnt[k];
        hs__ev *tmp = F->wtmp;
        for (uint32_t i = 0; i < n; i++)
            tmp[cnt[e[i].t & (W - 1)]++] = e[i];
        F->wtmp = e;
        F->cur = tmp;
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        hs__ev x = e[i];
        uint32_t j = i;
        while (j > 0 && x.t < e[j - 1].t) {
            e[j] = e[j - 1];
            j--;
        }
        e[j] = x;
    }
}

/* Makes cur[wpos] the next event; 0 if no event is left. */
static int wheel_advance(hs_fabric *F)
{
    if (F->wopen) {
        if (F->wpos < F->cur_n)
            return 1;
        /* wcur stays the bucket of `now`, so that an event scheduled for
         * now after the run returns lands in the right slot */
        F->wopen = 0;
        F->cur_n = 0;
        F->wpos = 0;
    }
    if (F->nev == 0)
        return 0;
    uint32_t start = (uint32_t)(F->wcur & (WHEEL_SLOTS - 1));
    uint64_t found = UINT64_MAX;
    for (uint32_t k = 0; k <= WHEEL_SLOTS / 64; k++) {
        uint32_t w = ((start >> 6) + k) & (WHEEL_SLOTS / 64 - 1);
        uint64_t bits = F->wbits[w];
        if (k == 0)
            bits &= ~0ull << (start & 63);
        else if (k == WHEEL_SLOTS / 64)
            bits &= (start & 63) ? ~(~0ull << (start & 63)) : 0;
        if (bits) {
            uint32_t slot = (w << 6) | (uint32_t)__builtin_ctzll(bits);
            found = F->wcur + ((slot - start) & (WHEEL_SLOTS - 1));
            break;
        }
    }
    if (found == UINT64_MAX)
        found = F->ev[0].t >> WHEEL_BITS;  /* the wheel is empty: jump */
    F->wcur = found;
    while (F->ev_n && (F->ev[0].t >> WHEEL_BITS) < F->wcur + WHEEL_SLOTS) {
        hs__fev e = far_pop(F);
        if (wheel_put(F, e.t, e.d))
            return 0;
    }
    uint32_t slot = (uint32_t)(F->wcur & (WHEEL_SLOTS - 1));
    if (cur_reserve(F, F->wcount[slot]))
        return 0;
    uint32_t n = 0;
    uint32_t k = F->whead[slot];
    while (k != HS_NIL) {
        hs__chunk *c = &F->chk[k];
        memcpy(F->cur + n, c->e, (size_t)c->n * sizeof *c->e);
        n += c->n;
        uint32_t next = c->next;
        c->next = F->chk_free;
        F->chk_free = k;
        k = next;
    }
    F->wcount[slot] = 0;
    F->whead[slot] = F->wtail[slot] = HS_NIL;
    F->wbits[slot >> 6] &= ~(1ull << (slot & 63));
    F->cur_n = n;
    cur_sort(F);
    F->wopen = 1;
    F->wpos = 0;
    return 1;
}

int hs__ev_init(hs_fabric *F)
{
    F->whead = malloc(WHEEL_SLOTS * sizeof *F->whead);
    F->wtail = malloc(WHEEL_SLOTS * sizeof *F->wtail);
    F->wcount = calloc(WHEEL_SLOTS, sizeof *F->wcount);
    F->wbits = calloc(WHEEL_SLOTS / 64, sizeof *F->wbits);
    F->chk_free = HS_NIL;
    if (!F->whead || !F->wtail || !F->wcount || !F->wbits)
        return HS_ENOMEM;
    memset(F->whead, 0xff, WHEEL_SLOTS * sizeof *F->whead);
    memset(F->wtail, 0xff, WHEEL_SLOTS * sizeof *F->wtail);
    return cur_reserve(F, 256);
}

void hs__ev_free(hs_fabric *F)
{
    free(F->whead);
    free(F->wtail);
    free(F->wcount);
    free(F->wbits);
    free(F->chk);
    free(F->cur);
    free(F->wtmp);
    free(F->ev);
}

size_t hs__ev_bytes(const hs_fabric *F)
{
    return WHEEL_SLOTS * (3 * sizeof(uint32_t)) + WHEEL_SLOTS / 8 +
           (size_t)F->chk_cap * sizeof(hs__chunk) + 2 * (size_t)F->cur_cap * sizeof(hs__ev) +
           F->ev_cap * sizeof(hs__fev);
}

/* ---- packet pool ----------------------------------------------------------- */

uint32_t hs__pkt_alloc(hs_fabric *F)
{
    if (F->pk_free == HS_NIL) {
        uint32_t nc = F->pk_cap ? F->pk_cap * 2 : 4096;
        if (nc <= F->pk_cap || nc == HS_NIL) {
            F->error = HS_ENOMEM;
            return HS_NIL;
        }
        hs__pkt *n = aligned_alloc(64, (size_t)nc * sizeof *n);
        hs__pkc *c = realloc(F->pc, (size_t)nc * sizeof *c);
        if (c)
            F->pc = c;
        if (!n || !c) {
            free(n);
            F->error = HS_ENOMEM;
            return HS_NIL;
        }
        if (F->pk_cap)
            memcpy(n, F->pk, (size_t)F->pk_cap * sizeof *n);
        free(F->pk);
        F->pk = n;
        for (uint32_t i = F->pk_cap; i < nc; i++)
            n[i].next = i + 1 < nc ? i + 1 : HS_NIL;
        F->pk_free = F->pk_cap;
        F->pk_cap = nc;
    }
    uint32_t p = F->pk_free;
    F->pk_free = F->pk[p].next;
    if (++F->pk_live > F->pk_peak)
        F->pk_peak = F->pk_live;
    return p;
}

void hs__pkt_free(hs_fabric *F, uint32_t p)
{
    F->pk[p].next = F->pk_free;
    F->pk_free = p;
    F->pk_live--;
}

/* ---- run loop ---------------------------------------------------------------- */

static void on_timer(hs_fabric *F, uint32_t slot)
{
    uint64_t cookie = F->tm[slot];
    F->tm[slot] = F->tm_free;
    F->tm_free = slot;
    if (F->cb.timer)
        F->cb.timer(F->cb_ctx, F, cookie, F->now);
}

int hs_fabric_run(hs_fabric *F, hs_time until)
{
    if (F->in_run)
        return HS_ESTATE;
    if (F->error)
        return F->error;
    F->in_run = 1;
    F->stop = 0;
    int rc = 1;
    for (;;) {
        if (!(F->wopen && F->wpos < F->cur_n) && !wheel_advance(F))
            break;
        if (F->cur[F->wpos].t > until) {
            F->now = until;
            rc = 0;
            break;
        }
        hs__ev e = F->cur[F->wpos++];
        F->nev--;
        F->now = e.t;
        F->st.events++;
        uint64_t arg = e.d & EV_ARG_MASK;
        switch (e.d >> EV_SHIFT) {
        case EV_TX_END:
            if (F->lk[arg].from_kind == HS_DEV_NODE)
                hs__nic_tx_end(F, (uint32_t)arg);
            else
                hs__switch_tx_end(F, (uint32_t)arg);
            break;
        case EV_CREDIT:
            hs__on_credit(F, arg);
            break;
        case EV_ARRIVE:
            hs__switch_arrive(F, (uint32_t)arg);
            break;
        case EV_DELIVER:
            hs__nic_deliver(F, (uint32_t)arg);
            break;
        case EV_POST:
            hs__nic_post(F, (uint32_t)arg);
            break;
        case EV_TIMER:
            on_timer(F, (uint32_t)arg);
            break;
        case EV_WAKE:
            hs__on_wake(F, (uint32_t)arg);
            break;
        }
        if (F->error)
            break;
        if (F->stop) {
            rc = 2;
            break;
        }
    }
    F->in_run = 0;
    F->stop = 0;
    if (F->error)
        return F->error;
    if (rc == 1 && F->pk_live > 0)
        return HS_EDEADLOCK;
    if (rc == 1 && F->ms_live > 0) {
        /* messages left with no event to move them: only possible if a
         * NIC holds work it cannot send, which is a deadlock too */
        return HS_EDEADLOCK;
    }
    return rc;
}

void hs_fabric_stop(hs_fabric *F)
{
    if (F->in_run)
        F->stop = 1;
}
