/* Trace reader: the manifest, then one cursor per rank.
 *
 * Opening a cursor reads the file header and walks the block headers (an
 * index of offsets, never the payloads except the small clock and end
 * records).  Events are then decoded one at a time from one inflated block
 * per writer thread; the threads' streams are merged by start time.  Memory
 * is the index, one block per thread, and the tables of live communicators
 * and windows.
 *
 * Times: a rank file stores clock ticks (>> shift).  Every block header
 * carries a (tick, CLOCK_MONOTONIC ns) pair taken when it was written; ticks
 * become local ns by piecewise-linear interpolation between those pairs, and
 * local ns become job ns with the clock offset measured at MPI_Init (and at
 * MPI_Finalize, interpolated between the two when both exist). */
#include "format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Worker address hash -> world rank (wire files), open addressing. */
typedef struct waddr {
    uint64_t hash;
    int32_t rank;
} waddr;

struct hs_trace {
    char *dir;
    hs_trace_manifest m;
    int wire_mapped;
    waddr *wmap;              /* [wmap_cap], hash 0 = empty */
    size_t wmap_cap, wmap_n;
    uint32_t *host_id;        /* [nranks] index of the rank's real host name */
};

int hs_trace_open(const char *dir, hs_trace **out, hs_error *err)
{
    *out = NULL;
    hs_trace *t = calloc(1, sizeof *t);
    if (!t || !(t->dir = strdup(dir))) {
        free(t);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    int rc = hs_trace_manifest_read(dir, &t->m, err);
    if (rc) {
        free(t->dir);
        free(t);
        return rc;
    }
    *out = t;
    return 0;
}

void hs_trace_close(hs_trace *t)
{
    if (!t)
        return;
    hs_trace_manifest_free(&t->m);
    free(t->wmap);
    free(t->host_id);
    free(t->dir);
    free(t);
}

const hs_trace_manifest *hs_trace_get_manifest(const hs_trace *t) { return &t->m; }
const char *hs_trace_get_dir(const hs_trace *t) { return t->dir; }

/* ---- cursor state ---------------------------------------------------------- */

typedef struct blkref {
    uint64_t off;     /* file offset of the block header */
    uint64_t index;   /* position among all blocks of the file (for messages) */
    hs__blk_hdr h;
} blkref;

typedef struct tstream {
    uint16_t thread;
    size_t  *blocks;        /* indices into cursor->blk of this thread's event blocks */
    size_t   nblocks, bcap, next;
    uint8_t *comp, *pay;
    size_t   comp_cap, pay_cap, pay_len;
    size_t   slen, spos, tpos;  /* structure length; positions in both streams */
    uint32_t left;          /* records left in the loaded block */
    size_t   cur;           /* index into cursor->blk of the loaded block */
    hs__codec codec;
    int      have;          /* rec holds the next record (lookahead) */
    hs__rec  rec;
    /* Wire files: the wire_done of each HS__WIRE_OPDONE record already
     * returned as its wire_op, waiting for its place in start order (a
     * min-heap by t0, then op id), and the file's next record meanwhile. */
    hs__rec *pend;
    size_t   npend, pcap;
    int      fhave;
    hs__rec  frec;
    uint64_t *words;
    size_t   wcap;
} tstream;

typedef struct rcomm {
    uint64_t id;
    int32_t *members, *remote;   /* NULL members with world = 1: identity */
    uint32_t n, nr;
    int      defined, world;
} rcomm;

typedef struct rwin {
    uint64_t id;
    int defined;
} rwin;

typedef struct syncpt {
    uint64_t tick, ns;
} syncpt;

struct hs_trace_cursor {
    hs_trace *t;
    uint32_t rank;
    int wire;                  /* a wire file: WIRE_* events only */
    int wire_raw;              /* no address resolution (while building the map) */
    char path[4200];
    FILE *f;
    hs__file_hdr fh;
    blkref *blk;
    size_t nblk;
    tstream *ts;
    size_t nts;
    syncpt *sync;
    size_t nsync, seg;
    hs__clock_rec clk[2];
    int have_clk[2];
    hs_trace_rank_info info;
    int64_t last_start;        /* job time of the last event returned */
    int have_last;
    uint64_t max_index;        /* bound on comm/win indices (events in file + 2) */
    rcomm *comms;
    size_t ncomms;
    rwin *wins;
    size_t nwins;
    /* scratch for the lists of the event returned last */
    hs_trace_compl *compl;
    hs_trace_start *starts;
    hs_trace_peer *sendto, *recvfrom;
    int32_t *members, *remote;
    size_t compl_cap, starts_cap, sendto_cap, recvfrom_cap, members_cap, remote_cap;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*p, nc * elem);
    if (!np)
        return HS_ENOMEM;
    *p = np;
    *cap = nc;
    return 0;
}

static int read_at(FILE *f, uint64_t off, void *buf, size_t n, size_t *got)
{
    if (fseeko(f, (off_t)off, SEEK_SET) != 0)
        return -1;
    *got = fread(buf, 1, n, f);
    return ferror(f) ? -1 : 0;
}

static int cmp_sync(const void *a, const void *b)
{
    const syncpt *x = a, *y = b;
    return x->tick < y->tick ? -1 : x->tick > y->tick;
}

/* Reads and inflates the payload of block b into (buf, cap). */
static int load_payload(hs_trace_cursor *c, const blkref *b, uint8_t **comp, size_t *comp_cap,
                        uint8_t **pay, size_t *pay_cap, size_t *slen, hs_error *err)
{
    if (grow((void **)comp, comp_cap, b->h.comp_len + 1u, 1) ||
        grow((void **)pay, pay_cap, b->h.raw_len + 1u, 1))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    size_t got;
    if (read_at(c->f, b->off + HS__BLK_HDR_LEN, *comp, b->h.comp_len, &got) ||
        got != b->h.comp_len)
        return hs_error_set(err, HS_EIO, "%s: block %llu at offset %llu: cannot read payload",
                            c->path, (unsigned long long)b->index,
                            (unsigned long long)b->off);
    if ((uint32_t)crc32(0L, *comp, b->h.comp_len) != b->h.payload_crc)
        return hs_error_set(err, HS_ECHECKSUM,
                            "%s: block %llu at offset %llu: payload checksum mismatch "
                            "(data damaged)", c->path, (unsigned long long)b->index,
                            (unsigned long long)b->off);
    if (hs__inflate(*comp, b->h.comp_len, *pay, b->h.raw_len, slen))
        return hs_error_set(err, HS_EFORMAT,
                            "%s: block %llu at offset %llu: payload does not inflate to the "
                            "%u bytes its header announces", c->path,
                            (unsigned long long)b->index, (unsigned long long)b->off,
                            b->h.raw_len);
    return 0;
}

static tstream *stream_for(hs_trace_cursor *c, uint16_t thread)
{
    for (size_t i = 0; i < c->nts; i++)
        if (c->ts[i].thread == thread)
            return &c->ts[i];
    tstream *n = realloc(c->ts, (c->nts + 1) * sizeof *n);
    if (!n)
        return NULL;
    c->ts = n;
    memset(&c->ts[c->nts], 0, sizeof *c->ts);
    c->ts[c->nts].thread = thread;
    return &c->ts[c->nts++];
}

/* Walks the block headers.  Damage is an error; a file that simply stops
 * (killed writer) is not, and the note says what is missing. */
static int scan(hs_trace_cursor *c, hs_error *err)
{
    struct stat st;
    if (fstat(fileno(c->f), &st) != 0)
        return hs_error_set(err, HS_EIO, "%s: %s", c->path, strerror(errno));
    uint64_t size = (uint64_t)st.st_size;
    c->info.file_bytes = size;
    uint8_t fh[HS__FILE_HDR_LEN];
    size_t got;
    if (read_at(c->f, 0, fh, sizeof fh, &got))
        return hs_error_set(err, HS_EIO, "%s: %s", c->path, strerror(errno));
    if (got < sizeof fh)
        return hs_error_set(err, HS_ETRUNC, "%s: %zu bytes, shorter than the %d-byte file "
                            "header (the rank wrote nothing readable)", c->path, got,
                            HS__FILE_HDR_LEN);
    int rc = hs__file_hdr_unpack(fh, &c->fh);
    if (rc == HS_EVERSION)
        return hs_error_set(err, rc, "%s: file header: format version %u, this hopscope reads %u",
                            c->path, (unsigned)(fh[8] | fh[9] << 8), HS_TRACE_FORMAT_VERSION);
    if (rc)
        return hs_error_set(err, rc, "%s: offset 0: %s", c->path,
                            rc == HS_ECHECKSUM ? "file header checksum mismatch"
                                               : "not a hopscope rank file (bad magic or field)");
    if (c->fh.rank != c->rank || c->fh.nranks != c->t->m.nranks)
        return hs_error_set(err, HS_EFORMAT, "%s: file header says rank %u of %u, manifest "
                            "expects rank %u of %u", c->path, c->fh.rank, c->fh.nranks,
                            c->rank, c->t->m.nranks);
    uint64_t off = HS__FILE_HDR_LEN;
    size_t bcap = 0, scap = 0;
    uint8_t *comp = NULL, *pay = NULL;
    size_t comp_cap = 0, pay_cap = 0;
    uint64_t index = 0;
    int64_t last_sync_ns = -1;
    rc = 0;
    while (off < size) {
        uint8_t hb[HS__BLK_HDR_LEN];
        if (read_at(c->f, off, hb, sizeof hb, &got)) {
            rc = hs_error_set(err, HS_EIO, "%s: %s", c->path, strerror(errno));
            break;
        }
        if (got < sizeof hb) {
            snprintf(c->info.note, sizeof c->info.note,
                     "the last %llu bytes (from offset %llu) are the start of block %llu, "
                     "cut short before its header was complete",
                     (unsigned long long)(size - off), (unsigned long long)off,
                     (unsigned long long)index);
            break;
        }
        blkref b = { .off = off, .index = index };
        rc = hs__blk_hdr_unpack(hb, &b.h);
        if (rc) {
            rc = hs_error_set(err, rc, "%s: block %llu at offset %llu: %s", c->path,
                              (unsigned long long)index, (unsigned long long)off,
                              rc == HS_ECHECKSUM ? "header checksum mismatch (data damaged)"
                                                 : "bad block header (magic, type or length)");
            break;
        }
        if (b.h.seq != index) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: block %llu at offset %llu: sequence number "
                              "%u (blocks missing or out of order)", c->path,
                              (unsigned long long)index, (unsigned long long)off, b.h.seq);
            break;
        }
        uint64_t end = off + HS__BLK_HDR_LEN + b.h.comp_len;
        if (end > size) {
            snprintf(c->info.note, sizeof c->info.note,
                     "block %llu at offset %llu announces %u payload bytes but the file ends "
                     "after %llu of them (cut short while writing)", (unsigned long long)index,
                     (unsigned long long)off, b.h.comp_len,
                     (unsigned long long)(size - off - HS__BLK_HDR_LEN));
            break;
        }
        if (c->info.complete) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: block %llu at offset %llu follows the end "
                              "record", c->path, (unsigned long long)index,
                              (unsigned long long)off);
            break;
        }
        if (b.h.type == HS__BLK_CLOCK || b.h.type == HS__BLK_END) {
            if (b.h.raw_len > 64) {
                rc = hs_error_set(err, HS_EFORMAT, "%s: block %llu at offset %llu: %s record "
                                  "of %u bytes", c->path, (unsigned long long)index,
                                  (unsigned long long)off,
                                  b.h.type == HS__BLK_END ? "end" : "clock", b.h.raw_len);
                break;
            }
            size_t sl;
            if ((rc = load_payload(c, &b, &comp, &comp_cap, &pay, &pay_cap, &sl, err)))
                break;
            if (b.h.type == HS__BLK_CLOCK) {
                hs__clock_rec cr;
                if (sl != b.h.raw_len || hs__clock_rec_decode(pay, sl, &cr)) {
                    rc = hs_error_set(err, HS_EFORMAT, "%s: block %llu at offset %llu: "
                                      "malformed clock record", c->path,
                                      (unsigned long long)index, (unsigned long long)off);
                    break;
                }
                c->clk[cr.which] = cr;
                c->have_clk[cr.which] = 1;
            } else {
                hs__end_rec er;
                if (sl != b.h.raw_len || hs__end_rec_decode(pay, sl, &er)) {
                    rc = hs_error_set(err, HS_EFORMAT, "%s: block %llu at offset %llu: "
                                      "malformed end record", c->path,
                                      (unsigned long long)index, (unsigned long long)off);
                    break;
                }
                c->info.complete = 1;
                c->info.end_reason = (int)er.reason;
                c->info.end_code = (int)er.code;
                c->info.dropped = er.dropped;
            }
        } else if (b.h.nevents > 0) {
            if (b.h.nevents > b.h.raw_len) { /* every record is at least one byte */
                rc = hs_error_set(err, HS_EFORMAT, "%s: block %llu at offset %llu: %u events "
                                  "in %u bytes", c->path, (unsigned long long)index,
                                  (unsigned long long)off, b.h.nevents, b.h.raw_len);
                break;
            }
            tstream *s = stream_for(c, b.h.thread);
            if (!s || grow((void **)&s->blocks, &s->bcap, s->nblocks + 1, sizeof *s->blocks)) {
                rc = hs_error_set(err, HS_ENOMEM, "out of memory");
                break;
            }
            s->blocks[s->nblocks++] = c->nblk;
            c->info.blocks++;
            c->info.events += b.h.nevents;
            last_sync_ns = (int64_t)b.h.sync_ns;
        }
        if (grow((void **)&c->blk, &bcap, c->nblk + 1, sizeof *c->blk) ||
            grow((void **)&c->sync, &scap, c->nsync + 1, sizeof *c->sync)) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            break;
        }
        c->blk[c->nblk++] = b;
        c->sync[c->nsync++] = (syncpt){ b.h.sync_tick, b.h.sync_ns };
        off = end;
        index++;
    }
    free(comp);
    free(pay);
    if (rc)
        return rc;
    c->info.good_bytes = off;
    c->info.nthreads = (uint32_t)c->nts;
    c->max_index = c->info.events + 2;
    /* Sync points: sorted by tick, keeping only strictly increasing pairs. */
    if (c->nsync > 1)   /* a file of only its header has none (qsort(NULL) is undefined) */
        qsort(c->sync, c->nsync, sizeof *c->sync, cmp_sync);
    size_t k = 0;
    for (size_t i = 0; i < c->nsync; i++)
        if (k == 0 || (c->sync[i].tick > c->sync[k - 1].tick && c->sync[i].ns > c->sync[k - 1].ns))
            c->sync[k++] = c->sync[i];
    c->nsync = k;
    if (!c->info.complete) {
        /* Prefix the reason to what the scan already noted about the tail. */
        char tail[sizeof c->info.note];
        memcpy(tail, c->info.note, sizeof tail);
        int n = snprintf(c->info.note, sizeof c->info.note,
                         "no end record: the rank was killed, or could not write the rest "
                         "(disk full?); %llu complete event blocks with %llu events are "
                         "readable", (unsigned long long)c->info.blocks,
                         (unsigned long long)c->info.events);
        size_t used = n > 0 ? (size_t)n : 0;
        if (tail[0] && used + 3 < sizeof c->info.note) {
            memcpy(c->info.note + used, "; ", 2);
            used += 2;
            size_t room = sizeof c->info.note - used - 1, tl = strlen(tail);
            memcpy(c->info.note + used, tail, tl < room ? tl : room);
            c->info.note[used + (tl < room ? tl : room)] = 0;
        }
    } else if (c->info.end_reason != HS_TRACE_END_FINALIZE) {
        snprintf(c->info.note, sizeof c->info.note, "ended by %s (code %d)%s",
                 hs_trace_end_name(c->info.end_reason), c->info.end_code,
                 c->info.dropped ? "; the writer dropped events" : "");
    } else if (c->info.dropped) {
        snprintf(c->info.note, sizeof c->info.note, "the writer dropped %llu events",
                 (unsigned long long)c->info.dropped);
    }
    (void)last_sync_ns;
    return 0;
}

/* ---- time conversion ---------------------------------------------------- */

/* Damaged or hostile files can hold any tick value: all time arithmetic is
 * done in 128 bits and clamped, never overflowed. */
static int64_t clamp64(__int128 v)
{
    if (v > INT64_MAX)
        return INT64_MAX;
    if (v < INT64_MIN)
        return INT64_MIN;
    return (int64_t)v;
}

static __int128 tick_to_local_ns(hs_trace_cursor *c, uint64_t tick)
{
    if (c->nsync == 0)
        return (__int128)tick * 1000000000 / (__int128)c->fh.tick_hz;
    if (c->nsync == 1) {
        __int128 d = (__int128)tick - (__int128)c->sync[0].tick;
        return (__int128)c->sync[0].ns + d * 1000000000 / (__int128)c->fh.tick_hz;
    }
    /* Segment search starts at the last one used: times mostly increase. */
    size_t s = c->seg;
    if (s + 1 >= c->nsync)
        s = c->nsync - 2;
    while (s > 0 && tick < c->sync[s].tick)
        s--;
    while (s + 2 < c->nsync && tick >= c->sync[s + 1].tick)
        s++;
    c->seg = s;
    const syncpt *a = &c->sync[s], *b = &c->sync[s + 1];
    __int128 d = (__int128)tick - (__int128)a->tick;
    return (__int128)a->ns + d * (__int128)(b->ns - a->ns) / (__int128)(b->tick - a->tick);
}

static int64_t units_to_job_ns(hs_trace_cursor *c, uint64_t units)
{
    __int128 local = tick_to_local_ns(c, units << c->fh.shift);
    if (!c->have_clk[0])
        return clamp64(local);
    __int128 off = c->clk[0].offset_ns;
    if (c->have_clk[1] && c->clk[1].local_ns > c->clk[0].local_ns) {
        /* Linear drift correction between the two measurements. */
        __int128 span = (__int128)c->clk[1].local_ns - c->clk[0].local_ns;
        __int128 at = local - (__int128)c->clk[0].local_ns;
        off += at * ((__int128)c->clk[1].offset_ns - c->clk[0].offset_ns) / span;
    }
    return clamp64(local + off - (__int128)c->clk[0].epoch_ns);
}

/* ---- cursor ---------------------------------------------------------------- */

static int cursor_open(hs_trace *t, uint32_t rank, int wire, hs_trace_cursor **out,
                       hs_error *err)
{
    *out = NULL;
    if (rank >= t->m.nranks)
        return hs_error_set(err, HS_EINVAL, "rank %u: the job has %u ranks", rank, t->m.nranks);
    hs_trace_cursor *c = calloc(1, sizeof *c);
    if (!c)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    c->t = t;
    c->rank = rank;
    c->wire = wire;
    c->info.rank = rank;
    char name[64];
    snprintf(name, sizeof name, wire ? HS__WIRE_FILE_FMT : HS__RANK_FILE_FMT, rank);
    snprintf(c->path, sizeof c->path, "%s/%s", t->dir, name);
    c->f = fopen(c->path, "rb");
    int rc;
    if (!c->f) {
        rc = hs_error_set(err, errno == ENOENT ? HS_ENOENT : HS_EIO, "%s: %s%s", c->path,
                          strerror(errno),
                          errno != ENOENT ? ""
                          : wire ? " (recorded without --wire?)"
                                 : " (the rank never reached MPI_Init?)");
        free(c);
        return rc;
    }
    if ((rc = scan(c, err))) {
        hs_trace_cursor_close(c);
        return rc;
    }
    /* Index 0 is MPI_COMM_WORLD, 1 is MPI_COMM_SELF in every rank file. */
    c->comms = calloc(2, sizeof *c->comms);
    c->members = malloc(sizeof *c->members);
    if (!c->comms || !c->members) {
        hs_trace_cursor_close(c);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    c->members_cap = 1;
    c->ncomms = 2;
    c->comms[0] = (rcomm){ .id = HS_TRACE_COMM_WORLD, .n = t->m.nranks, .defined = 1,
                           .world = 1 };
    c->comms[1] = (rcomm){ .id = HS_TRACE_COMM_SELF, .n = 1, .defined = 1 };
    c->comms[1].members = malloc(sizeof(int32_t));
    if (!c->comms[1].members) {
        hs_trace_cursor_close(c);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    c->comms[1].members[0] = (int32_t)rank;
    c->info.last_time = 0;
    *out = c;
    return 0;
}

int hs_trace_cursor_open(hs_trace *t, uint32_t rank, hs_trace_cursor **out, hs_error *err)
{
    return cursor_open(t, rank, 0, out, err);
}

/* ---- wire files -------------------------------------------------------------- */

int hs_trace_has_wire(const hs_trace *t)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/" HS__WIRE_FILE_FMT, t->dir, 0u);
    return access(path, R_OK) == 0;
}

static size_t wmap_slot(const hs_trace *t, uint64_t h)
{
    size_t i = (size_t)(hs__mix64(h) & (t->wmap_cap - 1));
    while (t->wmap[i].hash && t->wmap[i].hash != h)
        i = (i + 1) & (t->wmap_cap - 1);
    return i;
}

int32_t hs_trace_wire_rank_of(const hs_trace *t, uint64_t h)
{
    if (!h || !t->wmap)
        return -1;
    size_t i = wmap_slot(t, h);
    return t->wmap[i].hash == h ? t->wmap[i].rank : -1;
}

static int wmap_add(hs_trace *t, uint64_t h, int32_t rank)
{
    if (!h)
        return 0;
    if ((t->wmap_n + 1) * 2 > t->wmap_cap) {
        size_t nc = t->wmap_cap ? t->wmap_cap * 2 : 256;
        waddr *old = t->wmap;
        size_t oc = t->wmap_cap;
        t->wmap = calloc(nc, sizeof *t->wmap);
        if (!t->wmap) {
            t->wmap = old;
            return HS_ENOMEM;
        }
        t->wmap_cap = nc;
        for (size_t k = 0; k < oc; k++)
            if (old[k].hash)
                t->wmap[wmap_slot(t, old[k].hash)] = old[k];
        free(old);
    }
    size_t i = wmap_slot(t, h);
    if (!t->wmap[i].hash) {
        t->wmap[i] = (waddr){ h, rank };
        t->wmap_n++;
    } else if (t->wmap[i].rank != rank) {
        t->wmap[i].rank = -1;   /* two ranks claim one address: unknown */
    }
    return 0;
}

/* One pass over every rank's wire file for its WIRE_WORKER events, and the
 * real host of every rank (for HS_TRACE_F_WIRE_INTRA). */
static int wire_map(hs_trace *t, hs_error *err)
{
    if (t->wire_mapped)
        return 0;
    uint32_t n = t->m.nranks;
    t->host_id = calloc(n ? n : 1, sizeof *t->host_id);
    if (!t->host_id)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (uint32_t r = 0; r < n; r++) {
        t->host_id[r] = r;
        for (uint32_t q = 0; q < r; q++)
            if (t->m.rank_host && strcmp(t->m.rank_host[q], t->m.rank_host[r]) == 0) {
                t->host_id[r] = t->host_id[q];
                break;
            }
    }
    for (uint32_t r = 0; r < n; r++) {
        hs_trace_cursor *c;
        int rc = cursor_open(t, r, 1, &c, err);
        if (rc == HS_ENOENT)
            continue;       /* that rank recorded nothing below MPI */
        if (rc)
            return rc;
        c->wire_raw = 1;
        hs_trace_event ev;
        while ((rc = hs_trace_next(c, &ev, err)) == 1)
            if (ev.kind == HS_TRACE_WIRE_WORKER && (rc = wmap_add(t, ev.aux, (int32_t)r))) {
                rc = hs_error_set(err, rc, "out of memory");
                break;
            }
        hs_trace_cursor_close(c);
        if (rc < 0)
            return rc;
    }
    t->wire_mapped = 1;
    return 0;
}

int hs_trace_wire_open(hs_trace *t, uint32_t rank, hs_trace_cursor **out, hs_error *err)
{
    *out = NULL;
    if (rank >= t->m.nranks)
        return hs_error_set(err, HS_EINVAL, "rank %u: the job has %u ranks", rank, t->m.nranks);
    int rc = wire_map(t, err);
    if (rc)
        return rc;
    hs_trace_cursor *c;
    if ((rc = cursor_open(t, rank, 1, &c, err)))
        return rc;
    /* Both files hold ticks of one clock of one process: convert the wire
     * file's with the rank file's sync points and clock records, so that
     * an operation posted inside an MPI call lies inside that call's
     * interval in ns too (two interpolations of one clock differ by a few
     * ns).  Without a readable rank file the wire file's own are used. */
    hs_trace_cursor *m;
    hs_error e2;
    if (cursor_open(t, rank, 0, &m, &e2) == 0) {
        if (m->fh.clock == c->fh.clock && m->fh.shift == c->fh.shift && m->fh.pid == c->fh.pid &&
            m->nsync > 0) {
            syncpt *tmp = c->sync;
            c->sync = m->sync;
            m->sync = tmp;
            size_t n = c->nsync;
            c->nsync = m->nsync;
            m->nsync = n;
            c->seg = 0;
            c->fh.tick_hz = m->fh.tick_hz;
            for (int k = 0; k < 2; k++) {
                c->clk[k] = m->clk[k];
                c->have_clk[k] = m->have_clk[k];
            }
        }
        hs_trace_cursor_close(m);
    }
    *out = c;
    return 0;
}

void hs_trace_cursor_info(const hs_trace_cursor *c, hs_trace_rank_info *info)
{
    *info = c->info;
}

void hs_trace_cursor_close(hs_trace_cursor *c)
{
    if (!c)
        return;
    if (c->f)
        fclose(c->f);
    for (size_t i = 0; i < c->nts; i++) {
        free(c->ts[i].blocks);
        free(c->ts[i].comp);
        free(c->ts[i].pay);
        free(c->ts[i].words);
        free(c->ts[i].pend);
    }
    free(c->ts);
    free(c->blk);
    free(c->sync);
    for (size_t i = 0; i < c->ncomms; i++) {
        free(c->comms[i].members);
        free(c->comms[i].remote);
    }
    free(c->comms);
    free(c->wins);
    free(c->compl);
    free(c->starts);
    free(c->sendto);
    free(c->recvfrom);
    free(c->members);
    free(c->remote);
    free(c);
}

static int stream_error(hs_trace_cursor *c, tstream *s, const char *why, hs_error *err)
{
    const blkref *b = &c->blk[s->cur];
    return hs_error_set(err, HS_EFORMAT, "%s: block %llu at offset %llu: %s (event %u of %u, "
                        "structure byte %zu, time byte %zu)", c->path,
                        (unsigned long long)b->index, (unsigned long long)b->off, why,
                        b->h.nevents - s->left, b->h.nevents, s->spos, s->tpos);
}

static int stream_more(const tstream *s)
{
    return s->left > 0 || s->next < s->nblocks || s->fhave || s->npend > 0;
}

static int pend_before(const hs__rec *a, const hs__rec *b)
{
    return a->t0 < b->t0 || (a->t0 == b->t0 && a->req < b->req);
}

static int pend_push(tstream *s, const hs__rec *r)
{
    if (grow((void **)&s->pend, &s->pcap, s->npend + 1, sizeof *s->pend))
        return HS_ENOMEM;
    size_t i = s->npend++;
    while (i > 0 && pend_before(r, &s->pend[(i - 1) / 2])) {
        s->pend[i] = s->pend[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->pend[i] = *r;
    return 0;
}

static void pend_pop(tstream *s, hs__rec *out)
{
    *out = s->pend[0];
    hs__rec last = s->pend[--s->npend];
    size_t i = 0, n = s->npend;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= n)
            break;
        if (k + 1 < n && pend_before(&s->pend[k + 1], &s->pend[k]))
            k++;
        if (!pend_before(&s->pend[k], &last))
            break;
        s->pend[i] = s->pend[k];
        i = k;
    }
    if (n)
        s->pend[i] = last;
}

static int decode_next(hs_trace_cursor *c, tstream *s, hs_error *err);

/* Makes s->rec the stream's next record; s->have = 0 at its end.  An
 * operation with its completion (HS__WIRE_OPDONE) is returned as its
 * wire_op; its wire_done waits in s->pend and comes when no record of the
 * file starts before it (a record of the file starting at the same time
 * comes first: a completion reported inside a later posting call carries
 * that call's time and was written after it). */
static int advance(hs_trace_cursor *c, tstream *s, hs_error *err)
{
    s->have = 0;
    if (!s->fhave) {
        int rc = decode_next(c, s, err);
        if (rc)
            return rc;
        if (s->fhave && s->frec.kind == HS__WIRE_OPDONE) {
            if (!c->wire)
                return stream_error(c, s, "a wire event in a rank file", err);
            hs__rec *r = &s->frec, d;
            memset(&d, 0, sizeof d);
            d.kind = HS_TRACE_WIRE_DONE;
            d.t0 = d.t1 = r->done_t;
            d.flags = r->done_flags;
            d.req = r->req;
            d.bytes = r->done_bytes;
            d.bytes2 = r->done_stag;
            d.peer = d.peer2 = HS_TRACE_RANK_NONE;
            d.tag = d.tag2 = HS_TRACE_TAG_NONE;
            d.comm = d.comm2 = d.win = HS__NOIDX;
            d.repeat = 1;
            if (pend_push(s, &d))
                return hs_error_set(err, HS_ENOMEM, "out of memory");
            /* the wire_op as a plain record of its kind decodes */
            r->kind = HS_TRACE_WIRE_OP;
            r->peer = r->peer2 = HS_TRACE_RANK_NONE;
            r->tag = HS_TRACE_TAG_NONE;
            r->comm = r->comm2 = r->win = HS__NOIDX;
            r->done_flags = 0;
        }
    }
    if (s->npend && (!s->fhave || s->pend[0].t0 < s->frec.t0)) {
        pend_pop(s, &s->rec);
        s->have = 1;
        return 0;
    }
    if (s->fhave) {
        s->rec = s->frec;
        s->fhave = 0;
        s->have = 1;
    }
    return 0;
}

/* Decodes the file's next record of s into s->frec (s->fhave = 0 at the
 * end of the stream's blocks). */
static int decode_next(hs_trace_cursor *c, tstream *s, hs_error *err)
{
    s->fhave = 0;
    while (s->left == 0) {
        if (s->next >= s->nblocks)
            return 0;
        s->cur = s->blocks[s->next++];
        const blkref *b = &c->blk[s->cur];
        int rc = load_payload(c, b, &s->comp, &s->comp_cap, &s->pay, &s->pay_cap, &s->slen, err);
        if (rc)
            return rc;
        s->pay_len = b->h.raw_len;
        s->spos = s->tpos = 0;
        s->left = b->h.nevents;
        s->codec = (hs__codec){ .rank = (int32_t)c->rank, .shift = c->fh.shift,
                                .prev_t = b->h.base, .prev_req = 0 };
    }
    const char *why = NULL;
    if (hs__decode_one(&s->codec, s->pay, s->slen, &s->spos, s->pay + s->slen,
                       s->pay_len - s->slen, &s->tpos, &s->frec, &s->words, &s->wcap, &why))
        return stream_error(c, s, why ? why : "malformed event", err);
    s->fhave = 1;
    if (--s->left == 0 && (s->spos != s->slen || s->tpos != s->pay_len - s->slen))
        return stream_error(c, s, "bytes left after the announced events", err);
    return 0;
}

static int bad_ref(hs_trace_cursor *c, tstream *s, const char *what, uint32_t idx, hs_error *err)
{
    char why[160];
    snprintf(why, sizeof why, "%s event refers to %s %u, which this rank never created",
             hs_trace_kind_name(s->rec.kind), what, idx);
    return stream_error(c, s, why, err);
}

static int comm_at(hs_trace_cursor *c, tstream *s, uint32_t idx, rcomm **out, hs_error *err)
{
    *out = NULL;
    if (idx == HS__NOIDX)
        return 0;
    if (idx >= c->ncomms || !c->comms[idx].defined)
        return bad_ref(c, s, "communicator", idx, err);
    *out = &c->comms[idx];
    return 0;
}

static int32_t group_rank(const rcomm *g, uint32_t i, int remote)
{
    if (g->world)
        return (int32_t)i;
    return remote ? g->remote[i] : g->members[i];
}

/* The times of an event in job ns, checked: both within HS_TRACE_TIME_LIMIT,
 * the end not before the start, and starts not decreasing along the rank
 * (the format keeps each thread in start order and the reader merges the
 * threads by start).  A file that breaks this is damaged or hostile: its
 * times would send every consumer (stats spans, replay gaps) into overflow
 * or into replaying years of idle time. */
static int check_times(hs_trace_cursor *c, tstream *s, const hs_trace_event *ev, hs_error *err)
{
    char why[200];
    const char *name = hs_trace_kind_name(ev->kind);
    if (ev->t_start < -HS_TRACE_TIME_LIMIT || ev->t_start > HS_TRACE_TIME_LIMIT ||
        ev->t_end < -HS_TRACE_TIME_LIMIT || ev->t_end > HS_TRACE_TIME_LIMIT) {
        snprintf(why, sizeof why, "%s event at %lld ns .. %lld ns: time out of range "
                 "(|t| <= 2^56 ns, about 834 days)", name, (long long)ev->t_start,
                 (long long)ev->t_end);
        return stream_error(c, s, why, err);
    }
    if (ev->t_end < ev->t_start) {
        snprintf(why, sizeof why, "%s event ends at %lld ns, before it starts at %lld ns",
                 name, (long long)ev->t_end, (long long)ev->t_start);
        return stream_error(c, s, why, err);
    }
    if (c->have_last && ev->t_start < c->last_start) {
        snprintf(why, sizeof why, "%s event starts at %lld ns, before the previous event of "
                 "the rank (%lld ns): events must be in start order", name,
                 (long long)ev->t_start, (long long)c->last_start);
        return stream_error(c, s, why, err);
    }
    c->last_start = ev->t_start;
    c->have_last = 1;
    return 0;
}

/* Translates the stream's current record into ev (lists into cursor scratch). */
static int translate(hs_trace_cursor *c, tstream *s, hs_trace_event *ev, hs_error *err)
{
    const hs__rec *r = &s->rec;
    const hs__kind_desc *d = &hs__kinds[r->kind];
    hs_trace_event_init(ev, r->kind);
    ev->thread = s->thread;
    ev->flags = r->flags;
    ev->repeat = r->repeat;
    ev->t_start = units_to_job_ns(c, r->t0);
    ev->t_end = units_to_job_ns(c, r->t1);
    int rc = check_times(c, s, ev, err);
    if (rc)
        return rc;
    ev->peer = r->peer;
    ev->tag = r->tag;
    ev->peer2 = r->peer2;
    ev->tag2 = r->tag2;
    ev->bytes = r->bytes;
    ev->bytes2 = r->bytes2;
    ev->req = r->req;
    ev->aux = r->aux;
    const uint64_t *wa = s->words;
    const uint64_t *wb = s->words + (size_t)r->na * hs__list_words(d->la);
    rcomm *cm = NULL;

    if ((d->cls == HS_TRACE_CLASS_WIRE) != (c->wire != 0))
        return stream_error(c, s, c->wire ? "an MPI event in a wire file"
                                          : "a wire event in a rank file", err);
    if (c->wire) {
        if (r->flags & HS_TRACE_F_WIRE_INTRA)
            return stream_error(c, s, "the intra-node flag is the reader's, not stored", err);
        if (r->kind == HS_TRACE_WIRE_OP && (r->tag2 < 1 || r->tag2 > HS_TRACE_WOP_MAX))
            return stream_error(c, s, "unknown wire operation", err);
        if (r->kind == HS_TRACE_WIRE_PROGRESS) {
            /* time inside the calls: clock ticks in the file, ns here, at
             * most the record's span (t_end is stored in shifted units) */
            uint64_t base = r->t0 << c->fh.shift;
            uint64_t end = UINT64_MAX - base < r->bytes2 ? UINT64_MAX : base + r->bytes2;
            __int128 dn = tick_to_local_ns(c, end) - tick_to_local_ns(c, base);
            __int128 span = (__int128)ev->t_end - ev->t_start;
            ev->bytes2 = dn <= 0 ? 0 : (uint64_t)(dn < span ? dn : span);
        }
        if ((r->kind == HS_TRACE_WIRE_OP || r->kind == HS_TRACE_WIRE_EP) && !c->wire_raw) {
            int32_t p = hs_trace_wire_rank_of(c->t, r->aux);
            ev->peer = p >= 0 ? p : HS_TRACE_RANK_NONE;
            if (p >= 0 && c->t->host_id && c->t->host_id[p] == c->t->host_id[c->rank])
                ev->flags |= HS_TRACE_F_WIRE_INTRA;
        }
        return 0;
    }

    if (r->kind == HS_TRACE_COMM_CREATE) {
        rcomm *parent;
        rc = comm_at(c, s, r->comm2, &parent, err);
        if (rc)
            return rc;
        uint64_t parent_id = parent ? parent->id : 0;   /* the table may move below */
        if (r->comm == HS__NOIDX || r->comm < 2 || r->comm >= c->max_index)
            return stream_error(c, s, "communicator index out of range", err);
        if (r->comm < c->ncomms && c->comms[r->comm].defined)
            return stream_error(c, s, "communicator index created twice", err);
        if (r->aux <= HS_TRACE_COMM_SELF)
            return stream_error(c, s, "reserved communicator id", err);
        if (r->na == 0)
            return stream_error(c, s, "communicator without members", err);
        if (r->comm >= c->ncomms) {
            rcomm *nc = realloc(c->comms, (r->comm + 1u) * sizeof *nc);
            if (!nc)
                return hs_error_set(err, HS_ENOMEM, "out of memory");
            memset(nc + c->ncomms, 0, (r->comm + 1u - c->ncomms) * sizeof *nc);
            c->comms = nc;
            c->ncomms = r->comm + 1u;
        }
        rcomm *n = &c->comms[r->comm];
        n->members = malloc(r->na * sizeof(int32_t));
        n->remote = malloc((r->nb + 1u) * sizeof(int32_t));
        if (!n->members || !n->remote) {
            free(n->members);
            free(n->remote);
            n->members = n->remote = NULL;
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        }
        for (uint32_t i = 0; i < r->na; i++)
            n->members[i] = (int32_t)wa[i];
        for (uint32_t i = 0; i < r->nb; i++)
            n->remote[i] = (int32_t)wb[i];
        n->n = r->na;
        n->nr = r->nb;
        n->id = r->aux;
        n->defined = 1;
        ev->comm = r->aux;
        ev->comm2 = parent_id;
        ev->aux = 0;
        ev->members = n->members;
        ev->nmembers = n->n;
        ev->remote = n->nr ? n->remote : NULL;
        ev->nremote = n->nr;
        return 0;
    }
    if (d->fields & HS__F_COMM) {
        rc = comm_at(c, s, r->comm, &cm, err);
        if (rc)
            return rc;
        ev->comm = cm ? cm->id : 0;
    }
    if (r->kind == HS_TRACE_WIN_CREATE) {
        if (r->win == HS__NOIDX || r->win >= c->max_index)
            return stream_error(c, s, "window index out of range", err);
        if (r->win < c->nwins && c->wins[r->win].defined)
            return stream_error(c, s, "window index created twice", err);
        if (r->aux == 0)
            return stream_error(c, s, "window id 0", err);
        if (r->win >= c->nwins) {
            rwin *nw = realloc(c->wins, (r->win + 1u) * sizeof *nw);
            if (!nw)
                return hs_error_set(err, HS_ENOMEM, "out of memory");
            memset(nw + c->nwins, 0, (r->win + 1u - c->nwins) * sizeof *nw);
            c->wins = nw;
            c->nwins = r->win + 1u;
        }
        c->wins[r->win] = (rwin){ .id = r->aux, .defined = 1 };
        ev->win = r->aux;
        ev->aux = 0;
    } else if (d->fields & HS__F_WIN) {
        if (r->win == HS__NOIDX || r->win >= c->nwins || !c->wins[r->win].defined)
            return bad_ref(c, s, "window", r->win, err);
        ev->win = c->wins[r->win].id;
    }

    for (int li = 0; li < 2; li++) {
        unsigned lt = li ? d->lb : d->la;
        uint32_t n = li ? r->nb : r->na;
        const uint64_t *w = li ? wb : wa;
        if (!lt)
            continue;
        switch (lt) {
        case HS__L_COMPL:
            if (grow((void **)&c->compl, &c->compl_cap, n, sizeof *c->compl))
                return hs_error_set(err, HS_ENOMEM, "out of memory");
            for (uint32_t i = 0; i < n; i++, w += 5)
                c->compl[i] = (hs_trace_compl){ .req = w[0], .flags = (uint32_t)w[1],
                                                .src = (int32_t)w[2], .tag = (int32_t)w[3],
                                                .bytes = w[4] };
            ev->compl = c->compl;
            ev->ncompl = n;
            break;
        case HS__L_STARTS:
            if (grow((void **)&c->starts, &c->starts_cap, n, sizeof *c->starts))
                return hs_error_set(err, HS_ENOMEM, "out of memory");
            for (uint32_t i = 0; i < n; i++, w += 2)
                c->starts[i] = (hs_trace_start){ .req = w[0], .flags = (uint32_t)w[1] };
            ev->starts = c->starts;
            ev->nstarts = n;
            break;
        case HS__L_RANKS: {
            int32_t **dst = li ? &c->remote : &c->members;
            size_t *cap = li ? &c->remote_cap : &c->members_cap;
            if (grow((void **)dst, cap, n, sizeof **dst))
                return hs_error_set(err, HS_ENOMEM, "out of memory");
            for (uint32_t i = 0; i < n; i++)
                (*dst)[i] = (int32_t)w[i];
            if (li) {
                ev->remote = c->remote;
                ev->nremote = n;
            } else {
                ev->members = c->members;
                ev->nmembers = n;
            }
            break;
        }
        case HS__L_BYTES:
        case HS__L_PEERBYTES: {
            hs_trace_peer **dst = li ? &c->recvfrom : &c->sendto;
            size_t *cap = li ? &c->recvfrom_cap : &c->sendto_cap;
            if (grow((void **)dst, cap, n, sizeof **dst))
                return hs_error_set(err, HS_ENOMEM, "out of memory");
            if (lt == HS__L_BYTES) {
                /* Entry i is communicator rank i: remote group of an intercommunicator. */
                int remote = cm && cm->nr > 0;
                uint32_t gn = cm ? (remote ? cm->nr : cm->n) : 0;
                if (n && (!cm || n != gn))
                    return stream_error(c, s, "per-rank list length differs from the "
                                        "communicator size", err);
                for (uint32_t i = 0; i < n; i++)
                    (*dst)[i] = (hs_trace_peer){ group_rank(cm, i, remote), w[i] };
            } else {
                for (uint32_t i = 0; i < n; i++)
                    (*dst)[i] = (hs_trace_peer){ (int32_t)w[2 * i], w[2 * i + 1] };
            }
            if (li) {
                ev->recvfrom = c->recvfrom;
                ev->nrecvfrom = n;
            } else {
                ev->sendto = c->sendto;
                ev->nsendto = n;
            }
            break;
        }
        default:
            break;
        }
    }

    if (r->kind == HS_TRACE_COMM_FREE && cm && r->comm > 1) {
        /* Indices are never reused; the member list is no longer needed. */
        free(cm->members);
        free(cm->remote);
        cm->members = cm->remote = NULL;
        cm->defined = 0;
    }
    if (r->kind == HS_TRACE_WIN_FREE && r->win < c->nwins)
        c->wins[r->win].defined = 0;
    return 0;
}

int hs_trace_next(hs_trace_cursor *c, hs_trace_event *ev, hs_error *err)
{
    /* Prime every stream's lookahead once. */
    for (size_t i = 0; i < c->nts; i++) {
        tstream *s = &c->ts[i];
        if (!s->have && stream_more(s)) {
            int rc = advance(c, s, err);
            if (rc)
                return rc;
        }
    }
    tstream *best = NULL;
    for (size_t i = 0; i < c->nts; i++) {
        tstream *s = &c->ts[i];
        if (!s->have)
            continue;
        if (!best) {
            best = s;
            continue;
        }
        /* Compare start ticks across threads (same clock, same shift). */
        if (s->rec.t0 < best->rec.t0 || (s->rec.t0 == best->rec.t0 && s->thread < best->thread))
            best = s;
    }
    if (!best)
        return 0;
    int rc = translate(c, best, ev, err);
    if (rc)
        return rc;
    if (ev->t_end > c->info.last_time)
        c->info.last_time = ev->t_end;
    best->have = 0;
    if (stream_more(best))
        if ((rc = advance(c, best, err)))
            return rc;
    return 1;
}
