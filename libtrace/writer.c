/* hs_trace_writer: writes a rank file from decoded events (synthetic traces,
 * tests).  It produces exactly what libhopscope.so produces, through the same
 * encoder and block builder, with a clock whose ticks are nanoseconds.
 *
 * Ownership: the writer owns its buffers and the file descriptor; every
 * return path of hs_trace_writer_close() frees them. */
#include "format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Ticks of the synthetic clock are ns + BIAS, so that times before the epoch
 * (negative) stay representable as unsigned ticks. */
#define NS_BIAS (1ull << 62)
#define WRITER_FLUSH_BYTES (256u << 10)
#define WRITER_MAX_THREADS 1024

typedef struct wcomm {
    uint64_t id;
    int32_t *members, *remote;
    uint32_t n, nr;
    int live;
} wcomm;

typedef struct wthread {
    uint8_t *raw;
    size_t used, cap;
    uint32_t nrec;
    int64_t last_start;
    int used_once;
} wthread;

struct hs_trace_writer {
    int fd;
    char path[4096];
    uint32_t rank, nranks;
    wthread *th;
    uint32_t nth;
    uint8_t *enc, *tenc, *out;
    size_t enc_cap, tenc_cap, out_cap;
    z_stream zs, zt;
    int zinit;
    uint32_t seq;
    uint64_t events, blocks;
    wcomm *comms;
    uint32_t ncomms, ccap;
    uint64_t *wins;           /* window ids by local index */
    uint32_t nwins, wcap;
    int wire;                 /* a wire file: WIRE_* events only */
    int merge;                /* wire: completions into their operation's record */
};

/* A wire writer that puts a wire_done into its wire_op's record
 * (HS__WIRE_OPDONE) when that record is one of the thread's last 256
 * still buffered, as libhopscope-wire.so does (tests of the reader). */
void hs__writer_merge_wire(hs_trace_writer *w, int on)
{
    w->merge = on;
}

/* The wire_op of ev (a wire_done) among the last records of its thread's
 * buffer, or NULL.  Wire records have no lists: all sizeof(hs__rec). */
static hs__rec *merge_target(wthread *th, const hs_trace_event *ev)
{
    uint64_t t = (uint64_t)ev->t_start + NS_BIAS;
    for (size_t k = 1; k <= 256 && k * sizeof(hs__rec) <= th->used; k++) {
        hs__rec *r = (hs__rec *)(th->raw + th->used - k * sizeof(hs__rec));
        if (r->kind == HS_TRACE_WIRE_OP && r->req == ev->req)
            return r->t1 <= t ? r : NULL;
    }
    return NULL;
}

static int ensure(uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need)
        nc *= 2;
    uint8_t *nb = realloc(*buf, nc);
    if (!nb)
        return HS_ENOMEM;
    *buf = nb;
    *cap = nc;
    return 0;
}

/* Builds and writes one block from its two streams. */
static int put_block(hs_trace_writer *w, hs__blk_hdr *h, const uint8_t *st, size_t slen,
                     const uint8_t *tm, size_t tlen, hs_error *err)
{
    if (ensure(&w->out, &w->out_cap, hs__block_bound(slen, tlen)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    size_t n;
    h->seq = w->seq++;
    if (h->sync_tick == 0)
        h->sync_tick = h->sync_ns = NS_BIAS;
    int rc = hs__block_build(&w->zs, &w->zt, h, st, slen, tm, tlen, w->out, w->out_cap, &n);
    if (rc)
        return hs_error_set(err, rc, "%s: cannot build block %u", w->path, h->seq);
    if (hs__write_all(w->fd, w->out, n))
        return hs_error_set(err, HS_EIO, "%s: %s", w->path, strerror(errno));
    w->blocks++;
    return 0;
}

static int flush_thread(hs_trace_writer *w, uint32_t t, hs_error *err)
{
    wthread *th = &w->th[t];
    if (th->nrec == 0)
        return 0;
    if (ensure(&w->enc, &w->enc_cap, hs__enc_bound(th->used)) ||
        ensure(&w->tenc, &w->tenc_cap, hs__enc_time_bound(th->used)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    size_t off = 0;
    while (off < th->used) {
        size_t sl, tl;
        uint32_t nenc;
        hs__blk_hdr h = { .type = HS__BLK_EVENTS, .thread = (uint16_t)t };
        int rc = hs__encode(th->raw, th->used, &off, (int32_t)w->rank, 0, w->enc, w->enc_cap,
                            &sl, w->tenc, w->tenc_cap, &tl, &nenc, &h.base);
        if (rc)
            return hs_error_set(err, rc, "%s: cannot encode events", w->path);
        h.nevents = nenc;
        /* The sync pair of a synthetic clock is the identity at any tick. */
        h.sync_tick = h.sync_ns = h.base;
        if ((rc = put_block(w, &h, w->enc, sl, w->tenc, tl, err)))
            return rc;
        w->events += nenc;
    }
    th->used = 0;
    th->nrec = 0;
    return 0;
}

static int writer_open(hs_trace_writer **out, const char *dir, uint32_t rank, uint32_t nranks,
                       int wire, hs_error *err)
{
    *out = NULL;
    if (nranks == 0 || rank >= nranks)
        return hs_error_set(err, HS_EINVAL, "rank %u of %u ranks", rank, nranks);
    hs_trace_writer *w = calloc(1, sizeof *w);
    if (!w)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    w->fd = -1;
    w->rank = rank;
    w->nranks = nranks;
    w->wire = wire;
    int rc;
    char name[64];
    snprintf(name, sizeof name, wire ? HS__WIRE_FILE_FMT : HS__RANK_FILE_FMT, rank);
    if ((size_t)snprintf(w->path, sizeof w->path, "%s/%s", dir, name) >= sizeof w->path) {
        rc = hs_error_set(err, HS_EINVAL, "%s: directory name too long", dir);
        goto fail;
    }
    /* Synthetic traces are not written under time pressure: compress the
     * time stream too. */
    if ((rc = hs__deflate_init(&w->zs, &w->zt, Z_DEFAULT_COMPRESSION, 1))) {
        hs_error_set(err, rc, "zlib initialisation failed");
        goto fail;
    }
    w->zinit = 1;
    w->fd = open(w->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        rc = hs_error_set(err, HS_EIO, "%s: %s", w->path, strerror(errno));
        goto fail;
    }
    hs__file_hdr fh = { .version = HS_TRACE_FORMAT_VERSION, .rank = rank, .nranks = nranks,
                        .clock = HS__CLOCK_NS, .shift = 0, .pid = 0,
                        .tick_hz = 1000000000ull };
    uint8_t hdr[HS__FILE_HDR_LEN];
    hs__file_hdr_pack(&fh, hdr);
    if (hs__write_all(w->fd, hdr, sizeof hdr)) {
        rc = hs_error_set(err, HS_EIO, "%s: %s", w->path, strerror(errno));
        goto fail;
    }
    /* Clock record: offset 0, epoch at tick NS_BIAS. */
    hs__clock_rec cr = { .which = 0, .offset_ns = 0, .epoch_ns = NS_BIAS, .rtt_ns = 0,
                         .local_ns = NS_BIAS };
    uint8_t pay[64];
    hs__blk_hdr h = { .type = HS__BLK_CLOCK };
    if ((rc = put_block(w, &h, pay, hs__clock_rec_encode(&cr, pay), NULL, 0, err)))
        goto fail;
    /* Local indices 0 and 1 are WORLD and SELF in every rank file. */
    w->ccap = 16;
    w->comms = calloc(w->ccap, sizeof *w->comms);
    if (!w->comms) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto fail;
    }
    w->comms[0] = (wcomm){ .id = HS_TRACE_COMM_WORLD, .n = nranks, .live = 1 };
    w->comms[1] = (wcomm){ .id = HS_TRACE_COMM_SELF, .n = 1, .live = 1 };
    w->ncomms = 2;
    *out = w;
    return 0;
fail:
    if (w->fd >= 0)
        close(w->fd);
    if (w->zinit)
        hs__deflate_end(&w->zs, &w->zt);
    free(w->comms);
    free(w->out);
    free(w);
    return rc;
}

static int find_comm(const hs_trace_writer *w, uint64_t id, uint32_t *idx)
{
    if (id == HS_TRACE_COMM_NONE) {
        *idx = HS__NOIDX;
        return 0;
    }
    for (uint32_t i = w->ncomms; i-- > 0;)
        if (w->comms[i].live && w->comms[i].id == id) {
            *idx = i;
            return 0;
        }
    return -1;
}

/* Position of world rank r in the group g (n ranks; NULL = world). */
static int64_t group_pos(const int32_t *g, uint32_t n, int32_t r)
{
    if (!g)
        return r >= 0 && (uint32_t)r < n ? r : -1;
    for (uint32_t i = 0; i < n; i++)
        if (g[i] == r)
            return i;
    return -1;
}

int hs_trace_writer_open(hs_trace_writer **out, const char *dir, uint32_t rank, uint32_t nranks,
                         hs_error *err)
{
    return writer_open(out, dir, rank, nranks, 0, err);
}

int hs_trace_writer_open_wire(hs_trace_writer **out, const char *dir, uint32_t rank,
                              uint32_t nranks, hs_error *err)
{
    return writer_open(out, dir, rank, nranks, 1, err);
}

int hs_trace_writer_event(hs_trace_writer *w, const hs_trace_event *ev, hs_error *err)
{
    const hs__kind_desc *d = ev->kind <= HS_TRACE_KIND_MAX ? &hs__kinds[ev->kind] : NULL;
    if (!d || !d->name)
        return hs_error_set(err, HS_EINVAL, "unknown event kind %u", ev->kind);
    if ((d->cls == HS_TRACE_CLASS_WIRE) != (w->wire != 0))
        return hs_error_set(err, HS_EINVAL, "%s event in a %s file", d->name,
                            w->wire ? "wire" : "rank");
    if (ev->flags & ~HS_TRACE_F_ALL || ev->repeat == 0)
        return hs_error_set(err, HS_EINVAL, "%s: bad flags or repeat count", d->name);
    if (ev->t_start < -HS_TRACE_TIME_LIMIT || ev->t_end > HS_TRACE_TIME_LIMIT ||
        ev->t_end < ev->t_start)
        return hs_error_set(err, HS_EINVAL, "%s at %lld ns .. %lld ns: times must satisfy "
                            "-2^56 <= start <= end <= 2^56 ns", d->name,
                            (long long)ev->t_start, (long long)ev->t_end);
    if (ev->thread >= WRITER_MAX_THREADS)
        return hs_error_set(err, HS_EINVAL, "thread %u beyond %u", ev->thread,
                            WRITER_MAX_THREADS);
    if (ev->thread >= w->nth) {
        wthread *nt = realloc(w->th, (ev->thread + 1u) * sizeof *nt);
        if (!nt)
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        memset(nt + w->nth, 0, (ev->thread + 1u - w->nth) * sizeof *nt);
        w->th = nt;
        w->nth = ev->thread + 1u;
    }
    wthread *th = &w->th[ev->thread];
    if (th->used_once && ev->t_start < th->last_start)
        return hs_error_set(err, HS_EINVAL, "%s at %lld ns starts before the previous event "
                            "of thread %u", d->name, (long long)ev->t_start, ev->thread);

    hs__rec *m;
    if (w->merge && ev->kind == HS_TRACE_WIRE_DONE && (m = merge_target(th, ev))) {
        m->done_t = (uint64_t)ev->t_start + NS_BIAS;
        m->done_flags = (uint16_t)ev->flags;
        m->done_bytes = ev->bytes;
        m->done_stag = ev->bytes2;
        m->kind = HS__WIRE_OPDONE;
        th->last_start = ev->t_start;
        return 0;
    }

    /* The lists as the raw record stores them. */
    uint32_t na = 0, nb = 0;
    const void *la = NULL, *lb = NULL;
    switch (d->la) {
    case HS__L_COMPL: na = ev->ncompl; la = ev->compl; break;
    case HS__L_STARTS: na = ev->nstarts; la = ev->starts; break;
    case HS__L_RANKS: na = ev->nmembers; la = ev->members; break;
    case HS__L_BYTES: case HS__L_PEERBYTES: na = ev->nsendto; la = ev->sendto; break;
    default: break;
    }
    switch (d->lb) {
    case HS__L_RANKS: nb = ev->nremote; lb = ev->remote; break;
    case HS__L_BYTES: case HS__L_PEERBYTES: nb = ev->nrecvfrom; lb = ev->recvfrom; break;
    default: break;
    }
    if ((na && !la) || (nb && !lb))
        return hs_error_set(err, HS_EINVAL, "%s: list count without list", d->name);

    hs__rec r = { 0 };
    r.kind = ev->kind;
    r.flags = ev->flags;
    r.repeat = ev->repeat;
    r.t0 = (uint64_t)ev->t_start + NS_BIAS;
    r.t1 = (uint64_t)ev->t_end + NS_BIAS;
    r.peer = ev->peer;
    r.tag = ev->tag;
    r.peer2 = ev->peer2;
    r.tag2 = ev->tag2;
    r.bytes = ev->bytes;
    r.bytes2 = ev->bytes2;
    r.req = ev->req;
    r.aux = ev->aux;
    r.comm = r.comm2 = r.win = HS__NOIDX;
    r.na = na;
    r.nb = nb;

    const wcomm *gc = NULL; /* communicator whose group indexes BYTES lists */
    if (ev->kind == HS_TRACE_COMM_CREATE) {
        uint32_t dummy;
        if (ev->comm <= HS_TRACE_COMM_SELF || find_comm(w, ev->comm, &dummy) == 0)
            return hs_error_set(err, HS_EINVAL, "comm_create: id %llu is reserved or in use",
                                (unsigned long long)ev->comm);
        if (find_comm(w, ev->comm2, &r.comm2))
            return hs_error_set(err, HS_EINVAL, "comm_create: unknown parent %llu",
                                (unsigned long long)ev->comm2);
        if (w->ncomms == w->ccap) {
            wcomm *nc = realloc(w->comms, 2 * w->ccap * sizeof *nc);
            if (!nc)
                return hs_error_set(err, HS_ENOMEM, "out of memory");
            w->comms = nc;
            w->ccap *= 2;
        }
        wcomm *c = &w->comms[w->ncomms];
        memset(c, 0, sizeof *c);
        c->id = ev->comm;
        c->n = ev->nmembers;
        c->nr = ev->nremote;
        c->members = malloc((ev->nmembers + 1u) * sizeof(int32_t));
        c->remote = malloc((ev->nremote + 1u) * sizeof(int32_t));
        if (!c->members || !c->remote) {
            free(c->members);
            free(c->remote);
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        }
        if (ev->nmembers)
            memcpy(c->members, ev->members, ev->nmembers * sizeof(int32_t));
        if (ev->nremote)
            memcpy(c->remote, ev->remote, ev->nremote * sizeof(int32_t));
        c->live = 1;
        r.comm = w->ncomms++;
        r.aux = ev->comm;
    } else if (d->fields & HS__F_COMM) {
        if (find_comm(w, ev->comm, &r.comm))
            return hs_error_set(err, HS_EINVAL, "%s: unknown communicator %llu", d->name,
                                (unsigned long long)ev->comm);
        if (r.comm != HS__NOIDX)
            gc = &w->comms[r.comm];
    }
    if (ev->kind == HS_TRACE_WIN_CREATE) {
        if (ev->win == 0)
            return hs_error_set(err, HS_EINVAL, "win_create: window id 0");
        if (w->nwins == w->wcap) {
            uint32_t nc = w->wcap ? 2 * w->wcap : 8;
            uint64_t *nw = realloc(w->wins, nc * sizeof *nw);
            if (!nw)
                return hs_error_set(err, HS_ENOMEM, "out of memory");
            w->wins = nw;
            w->wcap = nc;
        }
        w->wins[w->nwins] = ev->win;
        r.win = w->nwins++;
        r.aux = ev->win;
    } else if (d->fields & HS__F_WIN) {
        uint32_t i = w->nwins;
        while (i-- > 0 && w->wins[i] != ev->win)
            ;
        if (i == UINT32_MAX || ev->win == 0)
            return hs_error_set(err, HS_EINVAL, "%s: unknown window %llu", d->name,
                                (unsigned long long)ev->win);
        r.win = i;
    }

    size_t rsz = hs__rec_size(r.kind, na, nb);
    if (ensure(&th->raw, &th->cap, th->used + rsz))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    uint8_t *dst = th->raw + th->used;
    uint64_t *wd = (uint64_t *)(dst + sizeof r);
    for (int li = 0; li < 2; li++) {
        unsigned lt = li ? d->lb : d->la;
        uint32_t n = li ? nb : na;
        const void *src = li ? lb : la;
        for (uint32_t i = 0; i < n; i++) {
            switch (lt) {
            case HS__L_RANKS:
                *wd++ = (uint64_t)(int64_t)((const int32_t *)src)[i];
                break;
            case HS__L_BYTES: {
                /* v/w collectives: entry i is comm rank i (remote group for an
                 * intercommunicator), so the lists must list the group in order. */
                const hs_trace_peer *p = &((const hs_trace_peer *)src)[i];
                int32_t self = (int32_t)w->rank;
                const int32_t *g = gc ? (gc->nr ? gc->remote : gc->members) : NULL;
                uint32_t gn = gc ? (gc->nr ? gc->nr : gc->n) : 0;
                if (gc && gc->id == HS_TRACE_COMM_SELF)
                    g = &self;
                if (!gc || n != gn || group_pos(g, gn, p->rank) != (int64_t)i)
                    return hs_error_set(err, HS_EINVAL,
                                        "%s: per-rank list entry %u is rank %d, not the "
                                        "communicator's rank %u", d->name, i, p->rank, i);
                *wd++ = p->bytes;
                break;
            }
            case HS__L_PEERBYTES: {
                const hs_trace_peer *p = &((const hs_trace_peer *)src)[i];
                *wd++ = (uint64_t)(int64_t)p->rank;
                *wd++ = p->bytes;
                break;
            }
            case HS__L_STARTS: {
                const hs_trace_start *s = &((const hs_trace_start *)src)[i];
                *wd++ = s->req;
                *wd++ = s->flags & HS_TRACE_F_ALL;
                break;
            }
            case HS__L_COMPL: {
                const hs_trace_compl *c = &((const hs_trace_compl *)src)[i];
                *wd++ = c->req;
                *wd++ = c->flags & HS_TRACE_C_ALL;
                *wd++ = (uint64_t)(int64_t)c->src;
                *wd++ = (uint64_t)(int64_t)c->tag;
                *wd++ = c->bytes;
                break;
            }
            default:
                break;
            }
        }
    }
    memcpy(dst, &r, sizeof r);
    th->used += rsz;
    th->nrec++;
    th->last_start = ev->t_start;
    th->used_once = 1;

    if (ev->kind == HS_TRACE_COMM_FREE && r.comm > 1 && r.comm != HS__NOIDX) {
        wcomm *c = &w->comms[r.comm];
        free(c->members);
        free(c->remote);
        c->members = c->remote = NULL;
        c->live = 0;
    }
    if (ev->kind == HS_TRACE_WIN_FREE)
        w->wins[r.win] = 0;   /* ids are never 0: the slot is dead */
    if (th->used >= WRITER_FLUSH_BYTES)
        return flush_thread(w, ev->thread, err);
    return 0;
}

int hs_trace_writer_close(hs_trace_writer *w, hs_error *err)
{
    if (!w)
        return 0;
    int rc = 0;
    for (uint32_t t = 0; t < w->nth && !rc; t++)
        rc = flush_thread(w, t, err);
    if (!rc) {
        hs__end_rec e = { .reason = HS_TRACE_END_FINALIZE, .events = w->events,
                          .blocks = w->blocks };
        uint8_t pay[64];
        hs__blk_hdr h = { .type = HS__BLK_END };
        rc = put_block(w, &h, pay, hs__end_rec_encode(&e, pay), NULL, 0, err);
    }
    if (close(w->fd) != 0 && !rc)
        rc = hs_error_set(err, HS_EIO, "%s: %s", w->path, strerror(errno));
    hs__deflate_end(&w->zs, &w->zt);
    for (uint32_t t = 0; t < w->nth; t++)
        free(w->th[t].raw);
    free(w->th);
    for (uint32_t i = 0; i < w->ncomms; i++) {
        free(w->comms[i].members);
        free(w->comms[i].remote);
    }
    free(w->comms);
    free(w->wins);
    free(w->enc);
    free(w->tenc);
    free(w->out);
    free(w);
    return rc;
}
