/* trace_size DIR [TIME_ZLEVEL]: how big a trace is, per event.  Walks every rank file's
 * block headers and prints
 *   events E  file_bytes F  payload_raw R  payload_deflated D
 * where R is the varint-encoded size before deflate and D after (F adds the
 * file and block headers and the clock/end records).  Also times
 * re-encoding and deflating the events at the interposer's settings
 * (structure level 1, times at TIME_ZLEVEL, default 0: stored), reported as
 * encode_ns_per_event and deflate_ns_per_event: the flush cost a traced
 * application pays per event. */
#include "hopscope/trace.h"
#include "../libtrace/format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: trace_size DIR [TIME_ZLEVEL]\n");
        return 2;
    }
    int tz = argc > 2 ? atoi(argv[2]) : 0;
    if (tz < 0 || tz > 9) {
        fprintf(stderr, "trace_size: TIME_ZLEVEL must be 0..9\n");
        return 2;
    }
    hs_error err;
    hs_trace *t;
    if (hs_trace_open(argv[1], &t, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    uint32_t n = hs_trace_get_manifest(t)->nranks;
    uint64_t events = 0, fbytes = 0, raw = 0, comp = 0;
    /* Raw records of every event, re-encoded below to time the flush path. */
    size_t cap = 1 << 20, used = 0;
    uint8_t *buf = malloc(cap);
    double enc_s = 0, def_s = 0;
    uint64_t timed = 0;
    z_stream zs, zt;
    hs__deflate_init(&zs, &zt, 1, tz);
    for (uint32_t r = 0; r < n; r++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/" HS__RANK_FILE_FMT, argv[1], r);
        FILE *f = fopen(path, "rb");
        if (!f) {
            fprintf(stderr, "%s: cannot open\n", path);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        fbytes += (uint64_t)ftell(f);
        uint64_t off = HS__FILE_HDR_LEN;
        uint8_t hb[HS__BLK_HDR_LEN];
        while (fseek(f, (long)off, SEEK_SET) == 0 && fread(hb, 1, sizeof hb, f) == sizeof hb) {
            hs__blk_hdr h;
            if (hs__blk_hdr_unpack(hb, &h))
                break;
            if (h.type == HS__BLK_EVENTS) {
                events += h.nevents;
                raw += h.raw_len;
                comp += h.comp_len;
            }
            off += HS__BLK_HDR_LEN + h.comp_len;
        }
        fclose(f);
        /* Events of this rank as raw records, then encode + deflate them in
         * interposer-sized chunks. */
        hs_trace_cursor *c;
        if (hs_trace_cursor_open(t, r, &c, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        hs_trace_event ev;
        used = 0;
        while (hs_trace_next(c, &ev, &err) == 1) {
            if (used + sizeof(hs__rec) > cap)
                break;
            hs__rec *rec = (hs__rec *)(buf + used);
            memset(rec, 0, sizeof *rec);
            rec->kind = ev.kind;
            rec->t0 = (uint64_t)(ev.t_start + (1ll << 40));
            rec->t1 = (uint64_t)(ev.t_end + (1ll << 40));
            rec->flags = ev.flags;
            rec->peer = ev.peer;
            rec->tag = ev.tag;
            rec->peer2 = ev.peer2;
            rec->tag2 = ev.tag2;
            rec->bytes = ev.bytes;
            rec->bytes2 = ev.bytes2;
            rec->req = ev.req;
            rec->repeat = ev.repeat;
            rec->comm = ev.comm == HS_TRACE_COMM_WORLD ? 0 : 2;
            rec->win = HS__NOIDX;
            rec->comm2 = HS__NOIDX;
            rec->aux = ev.aux;
            if (ev.ncompl || ev.nstarts || ev.nsendto || ev.nrecvfrom || ev.nmembers)
                continue;   /* list-bearing events are not re-encoded (size only) */
            used += sizeof *rec;
        }
        hs_trace_cursor_close(c);
        size_t enc_cap = 128 << 10;
        uint8_t *enc = malloc(enc_cap), *tenc = malloc(enc_cap);
        uint8_t *out = malloc(hs__block_bound(enc_cap, enc_cap));
        /* Best of 3 passes: a single pass is at the mercy of the machine. */
        double best_enc = 1e30, best_def = 1e30;
        uint64_t pass_n = 0;
        for (int pass = 0; pass < 3; pass++) {
            double pe = 0, pd = 0;
            size_t off2 = 0;
            pass_n = 0;
            while (off2 < used) {
                size_t sl, tl, blen;
                uint32_t ne;
                uint64_t base;
                double a = now_s();
                hs__encode(buf, used, &off2, (int32_t)r, 0, enc, enc_cap, &sl, tenc, enc_cap, &tl,
                           &ne, &base);
                double b = now_s();
                hs__blk_hdr h = { .type = HS__BLK_EVENTS, .nevents = ne };
                hs__block_build(&zs, &zt, &h, enc, sl, tenc, tl, out,
                                hs__block_bound(enc_cap, enc_cap), &blen);
                double c2 = now_s();
                pe += b - a;
                pd += c2 - b;
                pass_n += ne;
            }
            if (pe < best_enc)
                best_enc = pe;
            if (pd < best_def)
                best_def = pd;
        }
        enc_s += best_enc;
        def_s += best_def;
        timed += pass_n;
        free(enc);
        free(tenc);
        free(out);
    }
    hs__deflate_end(&zs, &zt);
    printf("events %" PRIu64 " file_bytes %" PRIu64 " payload_raw %" PRIu64
           " payload_deflated %" PRIu64 " encode_ns_per_event %.1f deflate_ns_per_event %.1f\n",
           events, fbytes, raw, comp, timed ? enc_s / (double)timed * 1e9 : 0.0,
           timed ? def_s / (double)timed * 1e9 : 0.0);
    free(buf);
    hs_trace_close(t);
    return 0;
}
