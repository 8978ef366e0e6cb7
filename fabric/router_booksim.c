/* router=booksim: a cycle-level model of BookSim2's input-queued virtual-
 * channel router (Dally and Towles ch. 16; BookSim2's iq_router), selected
 * per topology by the spec option router=booksim.  Written from BookSim2's
 * documented pipeline and its default configuration, not from its code.
 *
 * Time is counted in cycles of one flit (flit= bytes, default 64) on a node
 * link; every link carries one flit per cycle and has a latency of
 * max(1, round(lat / cycle)) cycles.  A packet of B wire bytes is
 * ceil(B / flit) flits.  One event per cycle (EV_BS_TICK) runs, while
 * anything is in flight, the same steps in the same order as BookSim2:
 *
 *   read inputs   flits and credits whose channel delay has passed: a flit
 *                 or credit sent in cycle s over a channel of latency d is
 *                 read in cycle s + d + 1 (+ credit_delay for credits)
 *   terminals     eject (the credit goes straight back), then inject at
 *                 most one flit: a head first takes a free VC of the
 *                 injection channel that has credit
 *   routers, each:
 *     input queuing  a head reaching an idle input VC starts routing
 *     route          routing_delay cycles: output port and candidate VCs
 *     VC allocation  vc_alloc_delay cycles, separable input-first with
 *                    round-robin arbiters: each input VC requests every free
 *                    candidate output VC, its input arbiter picks one, each
 *                    output VC's arbiter picks one input VC; the winner
 *                    holds the output VC until its tail passes the switch
 *                    (wait_for_tail_credit=1: until the tail's credit is back)
 *     switch alloc.  sw_alloc_delay cycles, separable input-first: each
 *                    active input VC whose output VC has a credit requests
 *                    its output port (one request per input and output: the
 *                    VC next in round-robin order after the last one served
 *                    at that input), input arbiter over outputs, output
 *                    arbiter over inputs; one flit per input and per output
 *                    per cycle.  The flit leaves its buffer (its credit goes
 *                    upstream) and takes a credit of the output VC
 *     switch traversal  st_final_delay cycles, then the output sends it
 *   routing_delay=0 is lookahead routing (the head goes straight to VC
 *   allocation); hold_switch_for_packet=1 keeps an input's crossbar
 *   connection for the rest of its packet while credit lasts;
 *   internal_speedup=S runs the per-switch steps S times a cycle (outputs
 *   still send one flit, inputs one credit, per cycle)
 *
 * Each stage is a queue of input VCs stamped with the cycle their stage
 * ends (now + delay - 1, set when the stage is evaluated), evaluated and
 * updated in BookSim's order (all evaluations, then all updates), so a VC
 * that enters a stage during an update is evaluated the next cycle.
 *
 * Routing follows BookSim2's routing functions for the families it shares
 * with hopscope: tori dimension order, the direction of a half-way
 * distance chosen at random, the VC half fixed per dimension by whether the
 * packet will cross the dateline, and every VC for ejection (dim_order);
 * meshes every VC; fat-trees the nearest common ancestor with a random up
 * port, every VC (nca); dragonflies minimal, VC 0 before the global hop and
 * 1 on and after it, with a random injection VC (min_dragonflynew).  Only
 * routing=min dragonflies and regular families are supported.
 *
 * The rest of the model is unchanged: NICs cut packets from their message
 * queues, deliveries feed counters, records and callbacks, and every
 * packet's hop is marked in-band and counted in ground truth when its head
 * flit is sent (busy time = flits x cycle; the stall clock is not kept). */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

/* ---- spec options ---------------------------------------------------------- */

int hs__router_spec(hs__spec *s, hs_topo *t, const char *what, hs_error *err)
{
    hs__router_prm *r = &t->router;
    memset(r, 0, sizeof *r);
    const char *x = hs__spec_get(s, "router");
    if (!x || strcmp(x, "default") == 0) {
        static const char *const only[] = { "flit", "vc_buf_size", "routing_delay",
                                            "vc_alloc_delay", "sw_alloc_delay",
                                            "st_final_delay", "credit_delay",
                                            "wait_for_tail_credit",
                                            "hold_switch_for_packet", "internal_speedup" };
        for (unsigned i = 0; i < sizeof only / sizeof *only; i++)
            if (hs__spec_get(s, only[i]))
                return hs_error_set(err, HS_EINVAL, "%s: %s= is a parameter of router=booksim",
                                    what, only[i]);
        return 0;
    }
    if (strcmp(x, "booksim") != 0)
        return hs_error_set(err, HS_EINVAL, "%s: router=%s: expected default or booksim", what, x);
    r->kind = HS_ROUTER_BOOKSIM;
    r->flit = 64;
    r->vc_buf_size = 8;
    r->routing_delay = 1;
    r->vc_alloc_delay = 1;
    r->sw_alloc_delay = 1;
    r->st_final_delay = 1;
    r->credit_delay = 0;
    r->wait_for_tail_credit = 0;
    r->hold_switch_for_packet = 0;
    r->internal_speedup_milli = 1000;
    int rc;
    if ((rc = hs__spec_u32(s, "flit", 1, 65536, &r->flit, what, err)) ||
        (rc = hs__spec_u32(s, "vc_buf_size", 1, 4096, &r->vc_buf_size, what, err)) ||
        (rc = hs__spec_u32(s, "routing_delay", 0, 64, &r->routing_delay, what, err)) ||
        (rc = hs__spec_u32(s, "vc_alloc_delay", 1, 64, &r->vc_alloc_delay, what, err)) ||
        (rc = hs__spec_u32(s, "sw_alloc_delay", 1, 64, &r->sw_alloc_delay, what, err)) ||
        (rc = hs__spec_u32(s, "st_final_delay", 1, 64, &r->st_final_delay, what, err)) ||
        (rc = hs__spec_u32(s, "credit_delay", 0, 64, &r->credit_delay, what, err)) ||
        (rc = hs__spec_u32(s, "wait_for_tail_credit", 0, 1, &r->wait_for_tail_credit, what,
                           err)) ||
        (rc = hs__spec_u32(s, "hold_switch_for_packet", 0, 1, &r->hold_switch_for_packet, what,
                           err)))
        return rc;
    x = hs__spec_get(s, "internal_speedup");
    if (x) {
        double v;
        if (hs_parse_double(x, &v) != 0 || !(v >= 1.0 && v <= 4.0))
            return hs_error_set(err, HS_EINVAL, "%s: internal_speedup=%s: expected a number "
                                "from 1 to 4", what, x);
        r->internal_speedup_milli = (uint32_t)(v * 1000 + 0.5);
    }
    if (t->kind == HS_TOPO_DRAGONFLY && t->routing != HS_ROUTE_MIN)
        return hs_error_set(err, HS_EINVAL, "%s: router=booksim models minimal dragonfly "
                            "routing only (routing=min)", what);
    return 0;
}

void hs__router_spec_fmt(const hs_topo *t, char *buf, size_t n)
{
    const hs__router_prm *r = &t->router;
    if (r->kind != HS_ROUTER_BOOKSIM) {
        if (n)
            buf[0] = '\0';
        return;
    }
    snprintf(buf, n, ",router=booksim,flit=%u,vc_buf_size=%u,routing_delay=%u,"
             "vc_alloc_delay=%u,sw_alloc_delay=%u,st_final_delay=%u,credit_delay=%u,"
             "wait_for_tail_credit=%u,hold_switch_for_packet=%u,internal_speedup=%u.%03u",
             r->flit, r->vc_buf_size, r->routing_delay, r->vc_alloc_delay, r->sw_alloc_delay,
             r->st_final_delay, r->credit_delay, r->wait_for_tail_credit,
             r->hold_switch_for_packet, r->internal_speedup_milli / 1000,
             r->internal_speedup_milli % 1000);
}

/* ---- state ------------------------------------------------------------------ */

enum { VS_IDLE = 0, VS_ROUTING, VS_VCALLOC, VS_ACTIVE };

typedef struct bs_flit {
    uint32_t p;        /* packet */
    uint16_t i;        /* flit index within it */
    uint16_t vc;       /* VC it occupies / travels on */
} bs_flit;

/* an input VC: its buffer (a ring in bs->fl) and pipeline state */
typedef struct bs_ivc {
    uint16_t h, n;     /* ring head, flits buffered */
    uint8_t  state;
    uint8_t  ovc;      /* output VC held (VS_ACTIVE) */
    uint8_t  vlo, vhi; /* candidate output VCs (after routing) */
    uint16_t oport;    /* output port at this switch (after routing) */
} bs_ivc;

/* the state a transmitter keeps of the VC buffers at the far end */
typedef struct bs_ovc {
    int32_t  occ;      /* flits sent and not credited */
    int32_t  owner;    /* input VC holding it (switch-local index) or -1 */
    uint8_t  tail_sent;
} bs_ovc;

/* a stage queue entry: input VC (switch-local r = port * nvc + vc), the
 * cycle its stage ends (-1: not evaluated yet) and its outcome */
typedef struct bs_ent {
    int64_t  t;
    uint32_t r;
    int32_t  res;
} bs_ent;

typedef struct bs_q {
    bs_ent  *e;
    uint32_t h, n, cap;
} bs_q;

typedef struct bs_xent {   /* a flit crossing the switch */
    int64_t  t;
    bs_flit  f;
    uint16_t out;
} bs_xent;

typedef struct bs_router {
    bs_q     rq, vq, sq;   /* routing, VC allocation, switch allocation */
    bs_q     hq;           /* held switch connections (hold_switch_for_packet) */
    bs_xent *xb;           /* crossbar, ring of xcap */
    uint32_t xh, xn, xcap;
    uint8_t  active;
} bs_router;

typedef struct bs_arr {    /* something arriving in a given cycle */
    uint32_t link;
    uint32_t kind;         /* 0: flit, 1: credit */
    bs_flit  f;
} bs_arr;

typedef struct bs_slot {
    bs_arr  *a;
    uint32_t n, cap;
} bs_slot;

typedef struct bs_pk {     /* per packet (parallel to F->pk) */
    uint16_t nfl;          /* flits */
    uint8_t  ph;           /* torus: crosses the dateline in this dimension;
                              dragonfly: a global hop taken or being taken */
    int8_t   dir;          /* torus: direction in the current dimension */
    uint8_t  last;         /* last packet of its message */
    uint8_t  dim;          /* torus: dimension being travelled (0xff: none) */
} bs_pk;

typedef struct bs_node {
    uint32_t cur;          /* packet being injected, or HS_NIL */
    uint16_t fi;           /* its next flit */
    int16_t  vc;           /* its VC, -1 before the head takes one */
    int16_t  last_vc;
} bs_node;

struct hs__bs {
    hs__router_prm prm;
    unsigned nvc;
    uint32_t vbuf;
    hs_time  cyc;          /* ps per cycle */
    int64_t  c;            /* next cycle to run */
    int      armed;        /* a tick is scheduled */
    uint64_t live;         /* messages not yet cut into packets, packets not
                              yet delivered, credits on their way */
    uint32_t *lat;         /* [link] channel latency in cycles */
    bs_ivc   *iv;          /* [gp * nvc + v] */
    bs_flit  *fl;          /* [(gp * nvc + v) * vbuf + k] */
    bs_ovc   *ov;          /* [link * nvc + v], transmitter side */
    bs_flit  *oq;          /* [gp * qcap + k]: output queue after the crossbar */
    uint32_t *oqh, *oqn;   /* [gp] */
    uint32_t  qcap;        /* entries per port in oq and cq */
    uint8_t  *cq;          /* [gp * qcap + k]: credits (VC) to send upstream */
    uint32_t *cqh, *cqn;   /* [gp] */
    int16_t  *hold_vc;     /* [gp]: input VC holding the switch (-1 none) */
    int16_t  *hold_in;     /* [gp]: output port an input holds (-1) */
    int16_t  *hold_out;    /* [gp]: input port holding an output (-1) */
    unsigned  xsteps;      /* most internal steps in a cycle */
    int32_t  *vin_ptr;     /* [gp * nvc + v]: VC allocator input arbiters */
    int32_t  *vout_ptr;    /* [gp * nvc + v]: VC allocator output arbiters */
    int32_t  *sin_ptr, *sout_ptr;  /* [gp]: switch allocator arbiters */
    uint8_t  *sw_off;      /* [gp]: round-robin VC offset per input */
    bs_router *rt;         /* [switch] */
    uint32_t *act, nact;   /* active switches */
    bs_node  *nd;          /* [node] */
    bs_pk    *pk;          /* [packet] */
    uint32_t  pk_cap;
    bs_slot  *wheel;
    uint32_t  W;
    /* allocation scratch, sized for the largest switch */
    int32_t  *s_req;       /* [in port * P + out port]: requesting VC or -1 */
    int32_t  *s_in, *s_best; /* per input: chosen output; per output: chosen input */
    int32_t  *v_pick;      /* [r]: output VC chosen by r's input arbiter */
    int32_t  *v_best;      /* [output VC index]: input VC winning it */
    int32_t  *v_match;     /* [r]: output VC granted, -1 */
    int32_t  *s_match;     /* [in port]: output port granted, -1 */
    uint32_t  maxp;
};

/* ---- helpers ------------------------------------------------------------------ */

static int q_init(bs_q *q, uint32_t cap)
{
    q->e = malloc((size_t)cap * sizeof *q->e);
    q->cap = cap;
    q->h = q->n = 0;
    return q->e ? 0 : HS_ENOMEM;
}

static inline bs_ent *q_at(bs_q *q, uint32_t k)
{
    return &q->e[(q->h + k) % q->cap];
}

static inline void q_push(bs_q *q, uint32_t r)
{
    bs_ent *e = &q->e[(q->h + q->n) % q->cap];
    e->t = -1;
    e->r = r;
    e->res = -1;
    q->n++;
}

static inline void q_pop(bs_q *q)
{
    q->h = (q->h + 1) % q->cap;
    q->n--;
}

static int wheel_add(hs_fabric *F, int64_t cycle, uint32_t link, uint32_t kind, bs_flit f)
{
    struct hs__bs *B = F->bs;
    bs_slot *s = &B->wheel[cycle % B->W];
    if (s->n == s->cap) {
        uint32_t nc = s->cap ? s->cap * 2 : 64;
        bs_arr *a = realloc(s->a, (size_t)nc * sizeof *a);
        if (!a) {
            F->error = HS_ENOMEM;
            return HS_ENOMEM;
        }
        s->a = a;
        s->cap = nc;
    }
    bs_arr *a = &s->a[s->n++];
    a->link = link;
    a->kind = kind;
    a->f = f;
    if (kind == 1)
        B->live++;
    return 0;
}

static void activate(struct hs__bs *B, uint32_t sw)
{
    if (!B->rt[sw].active) {
        B->rt[sw].active = 1;
        B->act[B->nact++] = sw;
    }
}

static int pk_room(hs_fabric *F)
{
    struct hs__bs *B = F->bs;
    if (B->pk_cap >= F->pk_cap)
        return 0;
    bs_pk *n = realloc(B->pk, (size_t)F->pk_cap * sizeof *n);
    if (!n) {
        F->error = HS_ENOMEM;
        return HS_ENOMEM;
    }
    B->pk = n;
    B->pk_cap = F->pk_cap;
    return 0;
}

/* The packet's hop onto link o starts now: in-band mark and ground truth,
 * as hs__link_transmit does for a whole packet. */
static void account(hs_fabric *F, uint32_t o, uint32_t pi)
{
    hs__pkt *p = &F->pk[pi];
    const hs_link_info *l = &F->lk[o];
    hs_time ser = (hs_time)F->bs->pk[pi].nfl * F->bs->cyc;
    int congested = F->now - p->ready >= F->op[o].tau;
    if (p->monitored)
        hs_mark(&F->scheme, &p->field, p->key, o, congested);
    hs__truth_tx(F, o, p->pidx, F->now, ser, p->bytes, congested);
    F->st.hops++;
    if (l->kind == HS_LINK_SWITCH) {
        p->nsw++;
        if (l->sub == HS_SUB_GLOBAL)
            p->ng++;
    }
}

/* ---- routing: output link and candidate VCs, as BookSim2's functions ----------- */

/* Flits sent on link l and not yet credited, over all VCs (BookSim2's
 * GetUsedCredit). */
static int32_t used(const struct hs__bs *B, uint32_t l)
{
    int32_t u = 0;
    for (unsigned v = 0; v < B->nvc; v++)
        u += B->ov[(size_t)l * B->nvc + v].occ;
    return u;
}

static void route(hs_fabric *F, uint32_t sw, uint32_t pi, uint32_t *out, unsigned *vlo,
                  unsigned *vhi)
{
    struct hs__bs *B = F->bs;
    const hs_topo *t = F->topo;
    hs__pkt *p = &F->pk[pi];
    bs_pk *bp = &B->pk[pi];
    unsigned nvc = B->nvc;
    *vlo = 0;
    *vhi = nvc - 1;
    if (t->node_sw[p->dst] == sw) {
        *out = F->N + 1 + p->dst;
        if (t->kind == HS_TOPO_DRAGONFLY) {
            unsigned half = nvc / 2;
            *vlo = bp->ph ? half : 0;
            *vhi = bp->ph ? nvc - 1 : half - 1;
        }
        return;
    }
    switch (t->kind) {
    case HS_TOPO_TORUS: {
        const hs__torus *tr = &t->u.tor;
        uint32_t dsw = t->node_sw[p->dst];
        unsigned i;
        uint32_t c = 0, d = 0;
        for (i = 0; i < tr->n; i++) {
            c = hs__torus_coord(tr, sw, i);
            d = hs__torus_coord(tr, dsw, i);
            if (c != d)
                break;
        }
        uint32_t k = tr->k[i];
        if (bp->dim != i) {
            /* turning into dimension i: direction and dateline class */
            bp->dim = (uint8_t)i;
            if (!tr->wrap || k <= 2) {
                bp->dir = d > c ? 1 : -1;
                bp->ph = 0;
            } else {
                int64_t dist2 = (int64_t)k - 2 * (int64_t)((d + k - c) % k);
                if (dist2 > 0 || (dist2 == 0 && (hs__rand(F) & 1)))
                    bp->dir = 1;
                else
                    bp->dir = -1;
                bp->ph = (bp->dir > 0 && c > d) || (bp->dir < 0 && c < d);
            }
        }
        *out = t->port_out[t->port_off[sw] + hs__torus_port(tr, i, bp->dir)];
        if (tr->wrap && nvc >= 2) {
            unsigned half = nvc / 2;
            *vlo = bp->ph ? half : 0;
            *vhi = bp->ph ? nvc - 1 : half - 1;
        }
        return;
    }
    case HS_TOPO_FATTREE: {
        const hs__fattree *ft = &t->u.ft;
        const uint32_t *po = t->port_out + t->port_off[sw];
        uint32_t port;
        if (hs__fattree_below(ft, sw, p->dst, &port)) {
            *out = po[port];
            return;
        }
        unsigned l = hs__fattree_level(ft, sw);
        uint32_t w = ft->w[l + 1], m = ft->m[l];
        uint32_t u1 = (uint32_t)(hs__rand(F) % w);
        if (t->routing == HS_ROUTE_ADAPTIVE) {
            /* anca: the less occupied of two random up ports */
            uint32_t u2 = (uint32_t)(hs__rand(F) % w);
            if (used(B, po[m + u1]) > used(B, po[m + u2]))
                u1 = u2;
        }
        *out = po[m + u1];
        return;
    }
    case HS_TOPO_DRAGONFLY: {
        hs__route_dragonfly(F, sw, p);
        *out = p->out;
        if (F->lk[*out].sub == HS_SUB_GLOBAL)
            bp->ph = 1;
        unsigned half = nvc / 2;
        *vlo = bp->ph ? half : 0;
        *vhi = bp->ph ? nvc - 1 : half - 1;
        return;
    }
    default:
        hs__route(F, sw, p);
        *out = p->out;
        return;
    }
}

/* ---- creation ------------------------------------------------------------------ */

void hs__bs_free(hs_fabric *F)
{
    struct hs__bs *B = F->bs;
    if (!B)
        return;
    if (B->rt)
        for (uint32_t s = 0; s < F->S; s++) {
            free(B->rt[s].rq.e);
            free(B->rt[s].vq.e);
            free(B->rt[s].sq.e);
            free(B->rt[s].hq.e);
            free(B->rt[s].xb);
        }
    if (B->wheel)
        for (uint32_t i = 0; i < B->W; i++)
            free(B->wheel[i].a);
    free(B->wheel);
    free(B->rt);
    free(B->lat);
    free(B->iv);
    free(B->fl);
    free(B->ov);
    free(B->oq);
    free(B->oqh);
    free(B->oqn);
    free(B->cq);
    free(B->cqh);
    free(B->cqn);
    free(B->hold_vc);
    free(B->hold_in);
    free(B->hold_out);
    free(B->vin_ptr);
    free(B->vout_ptr);
    free(B->sin_ptr);
    free(B->sout_ptr);
    free(B->sw_off);
    free(B->act);
    free(B->nd);
    free(B->pk);
    free(B->s_req);
    free(B->s_in);
    free(B->s_best);
    free(B->v_pick);
    free(B->v_best);
    free(B->v_match);
    free(B->s_match);
    free(B);
    F->bs = NULL;
}

int hs__bs_create(hs_fabric *F, hs_error *err)
{
    const hs_topo *t = F->topo;
    if (t->kind == HS_TOPO_FILE)
        return hs_error_set(err, HS_EINVAL, "router=booksim: topology files are not supported");
    uint64_t most = (uint64_t)F->prm.mtu + F->prm.header;
    if (most < HS_FABRIC_MIN_PACKET)
        most = HS_FABRIC_MIN_PACKET;
    if ((most + t->router.flit - 1) / t->router.flit > 65535)
        return hs_error_set(err, HS_EINVAL, "router=booksim: a packet of %llu bytes would be "
                            "more than 65535 flits of %u bytes", (unsigned long long)most,
                            t->router.flit);
    struct hs__bs *B = calloc(1, sizeof *B);
    if (!B)
        return HS_ENOMEM;
    F->bs = B;
    B->prm = t->router;
    B->nvc = F->nvc;
    B->vbuf = B->prm.vc_buf_size;
    uint64_t bw = F->lk[hs_topo_node_injection(t, 0)].bw;
    B->cyc = hs_ser_time(B->prm.flit, bw);
    if (B->cyc == 0)
        B->cyc = 1;
    size_t L1 = (size_t)F->L + 1, nvc = B->nvc;
    size_t GP = t->port_off[F->S];
    uint32_t maxp = 1, maxlat = 1;
    for (uint32_t s = 0; s < F->S; s++) {
        uint32_t np = t->port_off[s + 1] - t->port_off[s];
        if (np > maxp)
            maxp = np;
    }
    B->maxp = maxp;
    B->lat = calloc(L1, sizeof *B->lat);
    B->iv = calloc(GP * nvc + 1, sizeof *B->iv);
    B->fl = calloc(GP * nvc * B->vbuf + 1, sizeof *B->fl);
    B->ov = calloc(L1 * nvc, sizeof *B->ov);
    B->xsteps = (B->prm.internal_speedup_milli + 999) / 1000;
    B->qcap = (uint32_t)nvc * B->vbuf + 4 * B->xsteps;
    B->oq = calloc(GP * B->qcap + 1, sizeof *B->oq);
    B->oqh = calloc(GP + 1, sizeof *B->oqh);
    B->oqn = calloc(GP + 1, sizeof *B->oqn);
    B->cq = calloc(GP * B->qcap + 1, 1);
    B->cqh = calloc(GP + 1, sizeof *B->cqh);
    B->cqn = calloc(GP + 1, sizeof *B->cqn);
    B->hold_vc = malloc((GP + 1) * sizeof *B->hold_vc);
    B->hold_in = malloc((GP + 1) * sizeof *B->hold_in);
    B->hold_out = malloc((GP + 1) * sizeof *B->hold_out);
    B->vin_ptr = malloc((GP * nvc + 1) * sizeof *B->vin_ptr);
    B->vout_ptr = malloc((GP * nvc + 1) * sizeof *B->vout_ptr);
    B->sin_ptr = malloc((GP + 1) * sizeof *B->sin_ptr);
    B->sout_ptr = malloc((GP + 1) * sizeof *B->sout_ptr);
    B->sw_off = calloc(GP + 1, 1);
    B->rt = calloc(F->S + 1, sizeof *B->rt);
    B->act = calloc(F->S + 1, sizeof *B->act);
    B->nd = calloc(F->N, sizeof *B->nd);
    B->s_req = malloc((size_t)maxp * maxp * sizeof *B->s_req);
    B->s_in = malloc(maxp * sizeof *B->s_in);
    B->s_best = malloc(maxp * sizeof *B->s_best);
    B->s_match = malloc(maxp * sizeof *B->s_match);
    B->v_pick = malloc(maxp * nvc * sizeof *B->v_pick);
    B->v_best = malloc(maxp * nvc * sizeof *B->v_best);
    B->v_match = malloc(maxp * nvc * sizeof *B->v_match);
    if (!B->lat || !B->iv || !B->fl || !B->ov || !B->oq || !B->oqh || !B->oqn || !B->cq ||
        !B->cqh || !B->cqn || !B->hold_vc || !B->hold_in || !B->hold_out || !B->vin_ptr || !B->vout_ptr || !B->sin_ptr || !B->sout_ptr ||
        !B->sw_off || !B->rt || !B->act || !B->nd || !B->s_req || !B->s_in || !B->s_best ||
        !B->s_match || !B->v_pick || !B->v_best || !B->v_match)
        goto nomem;
    for (uint32_t l = 1; l <= F->L; l++) {
        hs_time lat = F->lk[l].lat;
        uint64_t d = (lat + B->cyc / 2) / B->cyc;
        if (d < 1)
            d = 1;
        if (d > 1u << 20)
            d = 1u << 20;
        B->lat[l] = (uint32_t)d;
        if (d > maxlat)
            maxlat = (uint32_t)d;
        for (size_t v = 0; v < nvc; v++)
            B->ov[l * nvc + v].owner = -1;
    }
    for (size_t i = 0; i < GP * nvc; i++)
        B->vin_ptr[i] = B->vout_ptr[i] = -1;
    for (size_t i = 0; i < GP; i++) {
        B->sin_ptr[i] = B->sout_ptr[i] = -1;
        B->hold_vc[i] = B->hold_in[i] = B->hold_out[i] = -1;
    }
    for (size_t i = 0; i < (size_t)maxp * maxp; i++)
        B->s_req[i] = -1;
    for (uint32_t n = 0; n < F->N; n++) {
        B->nd[n].cur = HS_NIL;
        B->nd[n].vc = -1;
        B->nd[n].last_vc = -1;
    }
    B->W = maxlat + 2 + B->prm.credit_delay;
    B->wheel = calloc(B->W, sizeof *B->wheel);
    if (!B->wheel)
        goto nomem;
    uint32_t xdelay = B->prm.st_final_delay;
    for (uint32_t s = 0; s < F->S; s++) {
        uint32_t np = t->port_off[s + 1] - t->port_off[s];
        uint32_t cap = np * (uint32_t)nvc + 1;
        bs_router *r = &B->rt[s];
        r->xcap = np * (xdelay + 1) * B->xsteps + 1;
        r->xb = malloc(r->xcap * sizeof *r->xb);
        if (q_init(&r->rq, cap) || q_init(&r->vq, cap) || q_init(&r->sq, cap) ||
            q_init(&r->hq, cap) || !r->xb)
            goto nomem;
    }
    return 0;
nomem:
    hs__bs_free(F);
    return hs_error_set(err, HS_ENOMEM, "out of memory building the BookSim router model");
}

/* ---- the cycle ------------------------------------------------------------------- */

static void arm(hs_fabric *F)
{
    struct hs__bs *B = F->bs;
    if (B->armed)
        return;
    int64_t c = (int64_t)((F->now + B->cyc - 1) / B->cyc);
    if (c < B->c)
        c = B->c;
    B->c = c;
    B->armed = 1;
    hs__ev_push(F, (hs_time)c * B->cyc, EV_BS_TICK, 0);
}

void hs__bs_post(hs_fabric *F, uint32_t node)
{
    (void)node;
    F->bs->live++;   /* the message, until its last packet is cut */
    arm(F);
}

/* Routes the head flit of input VC rr (index ix) and queues the VC for
 * VC allocation. */
static void route_head(hs_fabric *F, bs_router *r, uint32_t sw, size_t ix, uint32_t rr)
{
    struct hs__bs *B = F->bs;
    bs_ivc *iv = &B->iv[ix];
    uint32_t out;
    unsigned vlo, vhi;
    route(F, sw, B->fl[ix * B->vbuf + iv->h].p, &out, &vlo, &vhi);
    iv->oport = (uint16_t)F->lk[out].from_port;
    iv->vlo = (uint8_t)vlo;
    iv->vhi = (uint8_t)vhi;
    iv->state = VS_VCALLOC;
    q_push(&r->vq, rr);
}

/* The head of input VC rr (switch-local) is at the front of its buffer:
 * routing, or with routing_delay=0 (lookahead routing, computed upstream)
 * straight to VC allocation. */
static void start_packet(hs_fabric *F, uint32_t sw, uint32_t rr)
{
    struct hs__bs *B = F->bs;
    bs_router *r = &B->rt[sw];
    size_t ix = (size_t)F->topo->port_off[sw] * B->nvc + rr;
    bs_ivc *iv = &B->iv[ix];
    if (B->prm.routing_delay) {
        iv->state = VS_ROUTING;
        q_push(&r->rq, rr);
        return;
    }
    route_head(F, r, sw, ix, rr);
}

/* A flit arrives at the switch input of link l. */
static void flit_in(hs_fabric *F, uint32_t l, bs_flit f)
{
    struct hs__bs *B = F->bs;
    const hs_link_info *li = &F->lk[l];
    uint32_t sw = li->to;
    uint32_t gp = F->topo->port_off[sw] + li->to_port;
    unsigned nvc = B->nvc;
    bs_ivc *iv = &B->iv[(size_t)gp * nvc + f.vc];
    B->fl[((size_t)gp * nvc + f.vc) * B->vbuf + (iv->h + iv->n) % B->vbuf] = f;
    iv->n++;
    bs_router *r = &B->rt[sw];
    uint32_t rr = li->to_port * nvc + f.vc;
    if (f.i == 0) {
        hs__pkt *pk = &F->pk[f.p];
        pk->ready = F->now;
        pk->in = l;
        pk->vc = (uint8_t)f.vc;
    }
    if (iv->state == VS_IDLE) {
        start_packet(F, sw, rr);
    } else if (iv->state == VS_ACTIVE && iv->n == 1) {
        if (B->hold_vc[gp] == (int16_t)f.vc)
            q_push(&r->hq, rr);
        else
            q_push(&r->sq, rr);
    }
    activate(B, sw);
}

/* A credit for VC v reaches the transmitter of link l. */
static void credit_in(hs_fabric *F, uint32_t l, unsigned v)
{
    struct hs__bs *B = F->bs;
    bs_ovc *o = &B->ov[(size_t)l * B->nvc + v];
    o->occ--;
    if (B->prm.wait_for_tail_credit && o->tail_sent && o->occ == 0) {
        o->owner = -1;
        o->tail_sent = 0;
    }
    if (F->lk[l].from_kind == HS_DEV_SWITCH)
        activate(B, F->lk[l].from);
}

static inline int ovc_free(const struct hs__bs *B, const bs_ovc *o)
{
    (void)B;
    return o->owner < 0;
}

static inline int ovc_full(const struct hs__bs *B, const bs_ovc *o)
{
    return o->occ >= (int32_t)B->vbuf;
}

static void sending_flit(struct hs__bs *B, bs_ovc *o, int tail)
{
    o->occ++;
    if (tail) {
        if (B->prm.wait_for_tail_credit)
            o->tail_sent = 1;
        else
            o->owner = -1;
    }
}

/* Sends f over link l now: it is read s + d + 1 cycles later. */
static void send_flit(hs_fabric *F, uint32_t l, bs_flit f)
{
    struct hs__bs *B = F->bs;
    if (f.i == 0)
        account(F, l, f.p);
    wheel_add(F, B->c + B->lat[l] + 1, l, 0, f);
}

static void send_credit(hs_fabric *F, uint32_t l, unsigned v)
{
    struct hs__bs *B = F->bs;
    bs_flit f = { 0, 0, (uint16_t)v };
    wheel_add(F, B->c + B->lat[l] + 1 + B->prm.credit_delay, l, 1, f);
}

/* Terminal n: eject whatever arrived (done by the caller), then inject at
 * most one flit. */
static void inject(hs_fabric *F, uint32_t n)
{
    struct hs__bs *B = F->bs;
    bs_node *nd = &B->nd[n];
    if (nd->cur == HS_NIL) {
        if (F->nic[n].nactive == 0)
            return;
        uint32_t pi = hs__nic_cut(F, n);
        if (pi == HS_NIL)
            return;
        if (pk_room(F))
            return;
        bs_pk *bp = &B->pk[pi];
        uint32_t nfl = (F->pk[pi].bytes + B->prm.flit - 1) / B->prm.flit;
        bp->nfl = (uint16_t)(nfl ? nfl : 1);
        bp->ph = 0;
        bp->dir = 0;
        bp->dim = 0xff;
        const hs__msg *msg = &F->ms[F->pc[pi].msg];
        bp->last = msg->cut == msg->npk;
        if (bp->last)
            B->live--;   /* the message is all cut; its packets count from here */
        B->live++;       /* the packet */
        nd->cur = pi;
        nd->fi = 0;
        nd->vc = -1;
    }
    uint32_t pi = nd->cur;
    bs_pk *bp = &B->pk[pi];
    uint32_t l = hs_topo_node_injection(F->topo, n);
    unsigned nvc = B->nvc;
    bs_ovc *ob = &B->ov[(size_t)l * nvc];
    if (nd->vc < 0) {
        if (F->topo->kind == HS_TOPO_DRAGONFLY) {
            unsigned v = (unsigned)(hs__rand(F) % nvc);
            if (ovc_free(B, &ob[v]) && !ovc_full(B, &ob[v]))
                nd->vc = (int16_t)v;
        } else {
            for (unsigned i = 1; i <= nvc; i++) {
                int lvc = nd->last_vc;
                unsigned v = lvc < 0 ? 0 : (unsigned)(lvc + (int)i) % nvc;
                if (ovc_free(B, &ob[v]) && !ovc_full(B, &ob[v])) {
                    nd->vc = (int16_t)v;
                    break;
                }
            }
        }
        if (nd->vc < 0)
            return;
    }
    bs_ovc *o = &ob[nd->vc];
    if (ovc_full(B, o))
        return;
    bs_flit f = { pi, nd->fi, (uint16_t)nd->vc };
    if (nd->fi == 0) {
        o->owner = (int32_t)n;
        nd->last_vc = nd->vc;
    }
    int tail = nd->fi + 1 == bp->nfl;
    sending_flit(B, o, tail);
    send_flit(F, l, f);
    nd->fi++;
    if (tail) {
        nd->cur = HS_NIL;
        nd->vc = -1;
        if (bp->last)
            hs__nic_msg_sent(F, F->pc[pi].msg);
    }
}

/* Separable input-first VC allocation over the entries of vq not yet
 * evaluated. */
static void vc_alloc(hs_fabric *F, uint32_t sw, bs_router *r)
{
    struct hs__bs *B = F->bs;
    const hs_topo *t = F->topo;
    unsigned nvc = B->nvc;
    uint32_t gp0 = t->port_off[sw];
    uint32_t np = t->port_off[sw + 1] - gp0;
    int32_t size = (int32_t)(np * nvc);
    uint32_t ne = 0;
    for (uint32_t k = 0; k < r->vq.n; k++, ne++)
        if (q_at(&r->vq, k)->t >= 0)
            break;
    /* input arbiters: each input VC picks one free candidate output VC,
     * round-robin from the one after its last grant */
    for (uint32_t k = 0; k < ne; k++) {
        uint32_t rr = q_at(&r->vq, k)->r;
        const bs_ivc *iv = &B->iv[(size_t)(gp0 * nvc) + rr];
        int32_t ptr = B->vin_ptr[(size_t)gp0 * nvc + rr], best = -1, bkey = 0;
        uint32_t ol = t->port_out[gp0 + iv->oport];
        for (unsigned v = iv->vlo; v <= iv->vhi; v++) {
            if (!ovc_free(B, &B->ov[(size_t)ol * nvc + v]))
                continue;
            int32_t x = (int32_t)(iv->oport * nvc + v);
            int32_t key = x <= ptr ? x + size : x;
            if (best < 0 || key < bkey) {
                best = x;
                bkey = key;
            }
        }
        B->v_pick[rr] = best;
        B->v_match[rr] = -1;
        if (best >= 0)
            B->v_best[best] = -1;
    }
    /* output arbiters */
    for (uint32_t k = 0; k < ne; k++) {
        int32_t rr = (int32_t)q_at(&r->vq, k)->r;
        int32_t x = B->v_pick[rr];
        if (x < 0)
            continue;
        int32_t ptr = B->vout_ptr[(size_t)gp0 * nvc + (uint32_t)x], cur = B->v_best[x];
        int32_t key = rr <= ptr ? rr + size : rr;
        int32_t ckey = cur < 0 ? 0 : (cur <= ptr ? cur + size : cur);
        if (cur < 0 || key < ckey)
            B->v_best[x] = rr;
    }
    for (uint32_t k = 0; k < ne; k++) {
        bs_ent *e = q_at(&r->vq, k);
        int32_t rr = (int32_t)e->r;
        int32_t x = B->v_pick[rr];
        e->t = B->c + B->prm.vc_alloc_delay - 1;
        if (x >= 0 && B->v_best[x] == rr) {
            e->res = x;
            B->vin_ptr[(size_t)gp0 * nvc + (uint32_t)rr] = x;
            B->vout_ptr[(size_t)gp0 * nvc + (uint32_t)x] = rr;
        } else {
            e->res = -1;
        }
    }
    /* with a longer allocation, a grant whose VC was taken meanwhile fails */
    if (B->prm.vc_alloc_delay > 1)
        for (uint32_t k = 0; k < r->vq.n; k++) {
            bs_ent *e = q_at(&r->vq, k);
            if (B->c < e->t)
                break;
            if (e->res >= 0) {
                uint32_t ol = t->port_out[gp0 + (uint32_t)e->res / nvc];
                if (!ovc_free(B, &B->ov[(size_t)ol * nvc + (uint32_t)e->res % nvc]))
                    e->res = -1;
            }
        }
}

/* Separable input-first switch allocation over the entries of sq not yet
 * evaluated. */
static void sw_alloc(hs_fabric *F, uint32_t sw, bs_router *r)
{
    struct hs__bs *B = F->bs;
    const hs_topo *t = F->topo;
    unsigned nvc = B->nvc;
    uint32_t gp0 = t->port_off[sw];
    int32_t np = (int32_t)(t->port_off[sw + 1] - gp0);
    uint32_t ne = 0;
    for (uint32_t k = 0; k < r->sq.n; k++, ne++)
        if (q_at(&r->sq, k)->t >= 0)
            break;
    /* requests: one per (input, output), the VC first in round-robin order */
    for (uint32_t k = 0; k < ne; k++) {
        bs_ent *e = q_at(&r->sq, k);
        uint32_t in = e->r / nvc, v = e->r % nvc;
        const bs_ivc *iv = &B->iv[(size_t)gp0 * nvc + e->r];
        uint32_t ol = t->port_out[gp0 + iv->oport];
        if (ovc_full(B, &B->ov[(size_t)ol * nvc + iv->ovc]) || B->hold_in[gp0 + in] >= 0 ||
            B->hold_out[gp0 + iv->oport] >= 0) {
            e->res = -2;   /* no credit, or a held connection: no request */
            continue;
        }
        e->res = -1;
        int32_t *q = &B->s_req[in * (uint32_t)np + iv->oport];
        uint32_t off = B->sw_off[gp0 + in];
        if (*q < 0 || (v + nvc - off) % nvc < ((uint32_t)*q + nvc - off) % nvc)
            *q = (int32_t)v;
    }
    /* input arbiters (over outputs), then output arbiters (over inputs) */
    for (uint32_t k = 0; k < ne; k++) {
        uint32_t in = q_at(&r->sq, k)->r / nvc;
        B->s_in[in] = -1;
        B->s_match[in] = -1;
        B->s_best[B->iv[(size_t)gp0 * nvc + q_at(&r->sq, k)->r].oport] = -1;
    }
    for (uint32_t k = 0; k < ne; k++) {
        uint32_t in = q_at(&r->sq, k)->r / nvc;
        if (B->s_in[in] != -1)
            continue;
        int32_t ptr = B->sin_ptr[gp0 + in], best = -1, bkey = 0;
        for (int32_t o = 0; o < np; o++) {
            if (B->s_req[in * (uint32_t)np + (uint32_t)o] < 0)
                continue;
            int32_t key = o <= ptr ? o + np : o;
            if (best < 0 || key < bkey) {
                best = o;
                bkey = key;
            }
        }
        B->s_in[in] = best < 0 ? -2 : best;
        if (best >= 0) {
            int32_t optr = B->sout_ptr[gp0 + (uint32_t)best], cur = B->s_best[best];
            int32_t key = (int32_t)in <= optr ? (int32_t)in + np : (int32_t)in;
            int32_t ckey = cur < 0 ? 0 : (cur <= optr ? cur + np : cur);
            if (cur < 0 || key < ckey)
                B->s_best[best] = (int32_t)in;
        }
    }
    for (uint32_t k = 0; k < ne; k++) {
        uint32_t in = q_at(&r->sq, k)->r / nvc;
        int32_t o = B->s_in[in];
        if (o >= 0 && B->s_best[o] == (int32_t)in && B->s_match[in] < 0) {
            B->s_match[in] = o;
            B->sin_ptr[gp0 + in] = o;
            B->sout_ptr[gp0 + (uint32_t)o] = (int32_t)in;
        }
    }
    for (uint32_t k = 0; k < ne; k++) {
        bs_ent *e = q_at(&r->sq, k);
        e->t = B->c + B->prm.sw_alloc_delay - 1;
        if (e->res == -2) {
            e->res = -1;
            continue;
        }
        uint32_t in = e->r / nvc, v = e->r % nvc;
        int32_t o = B->s_match[in];
        if (o >= 0 && B->s_req[in * (uint32_t)np + (uint32_t)o] == (int32_t)v) {
            e->res = o;
            B->sw_off[gp0 + in] = (uint8_t)((v + 1) % nvc);
        } else {
            e->res = -1;
        }
    }
    for (uint32_t k = 0; k < ne; k++) {
        bs_ent *e = q_at(&r->sq, k);
        const bs_ivc *iv = &B->iv[(size_t)gp0 * nvc + e->r];
        B->s_req[(e->r / nvc) * (uint32_t)np + iv->oport] = -1;
    }
    if (B->prm.sw_alloc_delay > 1)
        for (uint32_t k = 0; k < r->sq.n; k++) {
            bs_ent *e = q_at(&r->sq, k);
            if (B->c < e->t)
                break;
            if (e->res >= 0) {
                const bs_ivc *iv = &B->iv[(size_t)gp0 * nvc + e->r];
                uint32_t ol = t->port_out[gp0 + iv->oport];
                if (ovc_full(B, &B->ov[(size_t)ol * nvc + iv->ovc]))
                    e->res = -1;
            }
        }
}

/* Input VC rr's front flit crosses to output port `out`: it leaves its
 * buffer (its credit goes upstream), takes a credit of its output VC and
 * enters the crossbar.  Returns whether it was the tail. */
static int traverse(hs_fabric *F, uint32_t sw, uint32_t rr, uint32_t out)
{
    struct hs__bs *B = F->bs;
    const hs_topo *t = F->topo;
    bs_router *r = &B->rt[sw];
    unsigned nvc = B->nvc;
    uint32_t gp0 = t->port_off[sw];
    size_t ix = (size_t)gp0 * nvc + rr;
    bs_ivc *iv = &B->iv[ix];
    bs_flit f = B->fl[ix * B->vbuf + iv->h];
    iv->h = (uint16_t)((iv->h + 1) % B->vbuf);
    iv->n--;
    int tail = f.i + 1 == B->pk[f.p].nfl;
    uint32_t ol = t->port_out[gp0 + out];
    sending_flit(B, &B->ov[(size_t)ol * nvc + iv->ovc], tail);
    f.vc = iv->ovc;
    bs_xent *x = &r->xb[(r->xh + r->xn) % r->xcap];
    x->t = -1;
    x->f = f;
    x->out = (uint16_t)out;
    r->xn++;
    uint32_t gpi = gp0 + rr / nvc;
    B->cq[(size_t)gpi * B->qcap + (B->cqh[gpi] + B->cqn[gpi]) % B->qcap] = (uint8_t)(rr % nvc);
    B->cqn[gpi]++;
    return tail;
}

static void release_hold(struct hs__bs *B, uint32_t gpi, uint32_t gpo)
{
    B->hold_vc[gpi] = -1;
    B->hold_in[gpi] = -1;
    B->hold_out[gpo] = -1;
}

/* One internal step of switch sw (BookSim2's _InternalStep after input
 * queuing): all evaluations, then all updates. */
static void router_internal(hs_fabric *F, uint32_t sw)
{
    struct hs__bs *B = F->bs;
    const hs_topo *t = F->topo;
    bs_router *r = &B->rt[sw];
    unsigned nvc = B->nvc;
    uint32_t gp0 = t->port_off[sw];
    int64_t now = B->c;

    /* evaluations */
    for (uint32_t k = 0; k < r->rq.n; k++) {
        bs_ent *e = q_at(&r->rq, k);
        if (e->t >= 0)
            break;
        e->t = now + B->prm.routing_delay - 1;
    }
    if (r->vq.n)
        vc_alloc(F, sw, r);
    for (uint32_t k = 0; k < r->hq.n; k++) {
        bs_ent *e = q_at(&r->hq, k);
        if (e->t >= 0)
            break;
        e->t = now;
        const bs_ivc *iv = &B->iv[(size_t)gp0 * nvc + e->r];
        uint32_t ol = t->port_out[gp0 + iv->oport];
        e->res = ovc_full(B, &B->ov[(size_t)ol * nvc + iv->ovc]) ? -1 : (int32_t)iv->oport;
    }
    if (r->sq.n)
        sw_alloc(F, sw, r);
    for (uint32_t k = 0; k < r->xn; k++) {
        bs_xent *x = &r->xb[(r->xh + k) % r->xcap];
        if (x->t >= 0)
            break;
        x->t = now + B->prm.st_final_delay - 1;
    }

    /* updates */
    while (r->rq.n) {
        bs_ent *e = q_at(&r->rq, 0);
        if (e->t < 0 || now < e->t)
            break;
        route_head(F, r, sw, (size_t)gp0 * nvc + e->r, e->r);
        q_pop(&r->rq);
    }
    while (r->vq.n) {
        bs_ent *e = q_at(&r->vq, 0);
        if (e->t < 0 || now < e->t)
            break;
        uint32_t rr = e->r;
        int32_t res = e->res;
        q_pop(&r->vq);
        if (res >= 0) {
            bs_ivc *iv = &B->iv[(size_t)gp0 * nvc + rr];
            uint32_t ol = t->port_out[gp0 + iv->oport];
            iv->ovc = (uint8_t)((uint32_t)res % nvc);
            B->ov[(size_t)ol * nvc + iv->ovc].owner = (int32_t)rr;
            iv->state = VS_ACTIVE;
            q_push(&r->sq, rr);
        } else {
            q_push(&r->vq, rr);
        }
    }
    while (r->hq.n) {
        bs_ent *e = q_at(&r->hq, 0);
        if (e->t < 0)
            break;
        uint32_t rr = e->r;
        int32_t res = e->res;
        q_pop(&r->hq);
        bs_ivc *iv = &B->iv[(size_t)gp0 * nvc + rr];
        uint32_t gpi = gp0 + rr / nvc, gpo = gp0 + iv->oport;
        if (res < 0) {
            /* no credit: the held connection is given up */
            release_hold(B, gpi, gpo);
            q_push(&r->sq, rr);
            continue;
        }
        int tail = traverse(F, sw, rr, (uint32_t)res);
        if (iv->n == 0) {
            release_hold(B, gpi, gpo);
            if (tail)
                iv->state = VS_IDLE;
        } else if (tail) {
            release_hold(B, gpi, gpo);
            start_packet(F, sw, rr);
        } else {
            q_push(&r->hq, rr);
        }
    }
    while (r->sq.n) {
        bs_ent *e = q_at(&r->sq, 0);
        if (e->t < 0 || now < e->t)
            break;
        uint32_t rr = e->r;
        int32_t res = e->res;
        q_pop(&r->sq);
        if (res < 0) {
            q_push(&r->sq, rr);
            continue;
        }
        bs_ivc *iv = &B->iv[(size_t)gp0 * nvc + rr];
        int tail = traverse(F, sw, rr, (uint32_t)res);
        if (iv->n == 0) {
            if (tail)
                iv->state = VS_IDLE;
        } else if (tail) {
            start_packet(F, sw, rr);
        } else if (B->prm.hold_switch_for_packet) {
            uint32_t gpi = gp0 + rr / nvc;
            B->hold_vc[gpi] = (int16_t)(rr % nvc);
            B->hold_in[gpi] = (int16_t)res;
            B->hold_out[gp0 + (uint32_t)res] = (int16_t)(rr / nvc);
            q_push(&r->hq, rr);
        } else {
            q_push(&r->sq, rr);
        }
    }
    while (r->xn) {
        bs_xent *x = &r->xb[r->xh];
        if (x->t < 0 || now < x->t)
            break;
        uint32_t gpo = gp0 + x->out;
        B->oq[(size_t)gpo * B->qcap + (B->oqh[gpo] + B->oqn[gpo]) % B->qcap] = x->f;
        B->oqn[gpo]++;
        r->xh = (r->xh + 1) % r->xcap;
        r->xn--;
    }
}

/* Write outputs: one flit per output, one credit per input; decides
 * whether the switch stays active. */
static void router_write(hs_fabric *F, uint32_t sw)
{
    struct hs__bs *B = F->bs;
    const hs_topo *t = F->topo;
    bs_router *r = &B->rt[sw];
    uint32_t gp0 = t->port_off[sw];
    uint32_t np = t->port_off[sw + 1] - gp0;
    int busy = r->rq.n || r->vq.n || r->sq.n || r->hq.n || r->xn;
    for (uint32_t q = 0; q < np; q++) {
        uint32_t gp = gp0 + q;
        if (B->oqn[gp]) {
            bs_flit f = B->oq[(size_t)gp * B->qcap + B->oqh[gp]];
            B->oqh[gp] = (B->oqh[gp] + 1) % B->qcap;
            B->oqn[gp]--;
            send_flit(F, t->port_out[gp], f);
            busy |= B->oqn[gp] != 0;
        }
        if (B->cqn[gp]) {
            unsigned v = B->cq[(size_t)gp * B->qcap + B->cqh[gp]];
            B->cqh[gp] = (B->cqh[gp] + 1) % B->qcap;
            B->cqn[gp]--;
            send_credit(F, t->port_in[gp], v);
            busy |= B->cqn[gp] != 0;
        }
    }
    r->active = (uint8_t)busy;
}

void hs__bs_tick(hs_fabric *F)
{
    struct hs__bs *B = F->bs;
    B->armed = 0;
    /* read inputs */
    bs_slot *s = &B->wheel[B->c % B->W];
    for (uint32_t k = 0; k < s->n; k++) {
        const bs_arr *a = &s->a[k];
        const hs_link_info *li = &F->lk[a->link];
        if (a->kind == 1) {
            B->live--;
            credit_in(F, a->link, a->f.vc);
        } else if (li->to_kind == HS_DEV_SWITCH) {
            flit_in(F, a->link, a->f);
        } else {
            /* ejection: the terminal takes it and returns the credit */
            send_credit(F, a->link, a->f.vc);
            if (a->f.i + 1 == B->pk[a->f.p].nfl) {
                B->live--;   /* the packet */
                hs__nic_deliver(F, a->f.p);
            }
        }
    }
    s->n = 0;
    /* terminals */
    for (uint32_t n = 0; n < F->N; n++)
        if (B->nd[n].cur != HS_NIL || F->nic[n].nactive)
            inject(F, n);
    /* routers */
    uint32_t na = B->nact;
    uint64_t m = B->prm.internal_speedup_milli;
    unsigned steps = (unsigned)(((uint64_t)B->c + 1) * m / 1000 - (uint64_t)B->c * m / 1000);
    for (uint32_t i = 0; i < na; i++) {
        for (unsigned k = 0; k < steps; k++)
            router_internal(F, B->act[i]);
        router_write(F, B->act[i]);
    }
    uint32_t keep = 0;
    for (uint32_t i = 0; i < B->nact; i++)
        if (B->rt[B->act[i]].active)
            B->act[keep++] = B->act[i];
    B->nact = keep;
    B->c++;
    if (B->live || B->nact)
        arm(F);
}

int hs__bs_idle(const hs_fabric *F)
{
    const struct hs__bs *B = F->bs;
    size_t GP = F->topo->port_off[F->S];
    for (uint32_t l = 1; l <= F->L; l++)
        for (unsigned v = 0; v < B->nvc; v++) {
            const bs_ovc *o = &B->ov[(size_t)l * B->nvc + v];
            if (o->occ != 0 || o->owner != -1)
                return -1;
        }
    for (size_t gp = 0; gp < GP; gp++) {
        if (B->oqn[gp] || B->cqn[gp] || B->hold_vc[gp] != -1 || B->hold_in[gp] != -1 ||
            B->hold_out[gp] != -1)
            return -1;
        for (unsigned v = 0; v < B->nvc; v++)
            if (B->iv[gp * B->nvc + v].n || B->iv[gp * B->nvc + v].state != VS_IDLE)
                return -1;
    }
    for (uint32_t s = 0; s < F->S; s++) {
        const bs_router *r = &B->rt[s];
        if (r->rq.n || r->vq.n || r->sq.n || r->hq.n || r->xn)
            return -1;
    }
    for (uint32_t n = 0; n < F->N; n++)
        if (B->nd[n].cur != HS_NIL)
            return -1;
    return B->live == 0 ? 0 : -1;
}
