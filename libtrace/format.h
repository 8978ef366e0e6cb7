/* libtrace/format.h — private: the on-disk layout of rank files, shared by
 * the two writers (libhopscope.so and hs_trace_writer) and the reader.
 * docs/formats.md ("Trace format") is the prose version of this file; keep
 * them in step.
 *
 * Writers fill a buffer of raw records (hs__rec, each followed by its list
 * words) and hand it to hs__block_build(), which encodes the records
 * (varints, times as deltas), deflates them and prepends a block header with
 * both checksums.  The reader undoes it one record at a time. */
#ifndef HOPSCOPE_LIBTRACE_FORMAT_H
#define HOPSCOPE_LIBTRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>
#include "hopscope/trace.h"

/* ---- file and block headers (little-endian on disk) ------------------- */

#define HS__FILE_MAGIC     "HSTRACE"   /* 8 bytes with its NUL */
#define HS__FILE_HDR_LEN   64
#define HS__BLK_MAGIC      0x31425348u /* "HSB1" */
#define HS__BLK_HDR_LEN    56
/* Largest decoded block payload a reader accepts: bounds its memory. */
#define HS__BLK_MAX_RAW    (64u << 20)
#define HS__RANK_FILE_FMT  "rank-%06u.hst"
#define HS__WIRE_FILE_FMT  "wire-%06u.hst"   /* hopscope record --wire */
#define HS__MANIFEST_NAME  "manifest.txt"

enum { HS__BLK_EVENTS = 1, HS__BLK_CLOCK = 2, HS__BLK_END = 3 };
enum { HS__CLOCK_TSC = 1, HS__CLOCK_MONO = 2, HS__CLOCK_NS = 3 };

typedef struct hs__file_hdr {
    uint16_t version;
    uint32_t rank, nranks;
    uint8_t  clock;     /* HS__CLOCK_* */
    uint8_t  shift;     /* event times are ticks >> shift */
    uint32_t pid;
    uint64_t tick_hz;   /* ticks per second, estimated when the file was opened */
} hs__file_hdr;

typedef struct hs__blk_hdr {
    uint8_t  type;      /* HS__BLK_* */
    uint16_t thread;
    uint32_t seq;       /* per file, counts every block written */
    uint32_t nevents;
    uint32_t raw_len;   /* payload bytes after inflate */
    uint32_t comp_len;  /* payload bytes on disk */
    uint64_t base;      /* time origin of the block's deltas, in units */
    uint64_t sync_tick; /* a clock pair taken when the block was written */
    uint64_t sync_ns;
    uint32_t payload_crc;
} hs__blk_hdr;

void hs__file_hdr_pack(const hs__file_hdr *h, uint8_t out[HS__FILE_HDR_LEN]);
/* 0, HS_EFORMAT (magic), HS_ECHECKSUM, HS_EVERSION. */
int  hs__file_hdr_unpack(const uint8_t in[HS__FILE_HDR_LEN], hs__file_hdr *h);
void hs__blk_hdr_pack(const hs__blk_hdr *h, uint8_t out[HS__BLK_HDR_LEN]);
/* 0, HS_EFORMAT (magic, type, lengths), HS_ECHECKSUM (header crc). */
int  hs__blk_hdr_unpack(const uint8_t in[HS__BLK_HDR_LEN], hs__blk_hdr *h);

/* ---- raw records ------------------------------------------------------ */

#define HS__NOIDX UINT32_MAX  /* comm/comm2/win: none */

/* One event as writers record it: times in clock ticks, communicators and
 * windows as per-rank local indices, ranks already world ranks.  na/nb list
 * items follow the record (hs__list_words() 64-bit words each). */
typedef struct hs__rec {
    uint64_t t0, t1;
    uint64_t bytes, bytes2, req, aux;
    union {
        struct {
            int32_t  peer, tag, peer2;
            uint32_t comm, comm2, win;
        };
        /* HS__WIRE_OPDONE only (fields a wire_op does not have): the
         * completion of the operation, as its wire_done would hold it */
        struct {
            uint64_t done_t;       /* ticks (the writers), units (decoded) */
            uint64_t done_bytes, done_stag;
        };
    };
    int32_t  tag2;
    uint32_t flags, repeat;
    uint32_t na, nb;
    uint16_t kind;
    uint16_t done_flags;           /* HS__WIRE_OPDONE: the wire_done's flags */
} hs__rec;

/* A wire operation with its completion in one record (docs/formats.md,
 * "Wire files"): written instead of a wire_op and its wire_done when the
 * completion is seen on the posting thread before the wire_op's record left
 * the thread's buffer.  A file-format kind only: not an hs_trace_kind (not
 * in hs__kinds); the reader returns it as the wire_op and, in start order
 * among the thread's events, the wire_done. */
#define HS__WIRE_OPDONE 165
/* hs_trace_writer of a wire file: write HS__WIRE_OPDONE records (off by
 * default: the writer stores the events as given). */
void hs__writer_merge_wire(hs_trace_writer *w, int on);

/* List types.  Words per item in brackets. */
enum {
    HS__L_NONE = 0,
    HS__L_RANKS,      /* [1] world rank */
    HS__L_BYTES,      /* [1] bytes for comm rank i (the reader adds the world rank) */
    HS__L_PEERBYTES,  /* [2] world rank, bytes */
    HS__L_STARTS,     /* [2] req, flags */
    HS__L_COMPL       /* [5] req, flags, src, tag, bytes */
};

/* Fields present in a kind's encoding (besides kind, flags, times). */
enum {
    HS__F_COMM = 1 << 0, HS__F_COMM2 = 1 << 1, HS__F_WIN = 1 << 2,
    HS__F_PEER = 1 << 3, HS__F_TAG = 1 << 4, HS__F_PEER2 = 1 << 5, HS__F_TAG2 = 1 << 6,
    HS__F_BYTES = 1 << 7, HS__F_BYTES2 = 1 << 8, HS__F_REQ = 1 << 9, HS__F_AUX = 1 << 10,
    HS__F_REPEAT = 1 << 11
};

typedef struct hs__kind_desc {
    const char *name;   /* NULL: not a kind */
    uint8_t  cls;       /* hs_trace_class */
    uint16_t fields;    /* HS__F_* */
    uint8_t  la, lb;    /* list types of list A and list B */
} hs__kind_desc;

extern const hs__kind_desc hs__kinds[HS_TRACE_KIND_MAX + 1];

static inline unsigned hs__list_words(unsigned lt)
{
    static const unsigned char w[] = { 0, 1, 1, 2, 2, 5 };
    return lt < sizeof w ? w[lt] : 0;
}

/* Bytes a record with these list lengths occupies in a raw buffer. */
static inline size_t hs__rec_size(unsigned kind, uint32_t na, uint32_t nb)
{
    const hs__kind_desc *d = &hs__kinds[kind & 0xff];
    return sizeof(hs__rec) + 8u * ((size_t)na * hs__list_words(d->la) +
                                   (size_t)nb * hs__list_words(d->lb));
}
static inline uint64_t *hs__rec_list(hs__rec *r)
{
    return (uint64_t *)(r + 1);
}

/* ---- varints ---------------------------------------------------------- */

static inline uint8_t *hs__put_u(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}
static inline uint64_t hs__zz(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t hs__unzz(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}
static inline uint8_t *hs__put_s(uint8_t *p, int64_t v)
{
    return hs__put_u(p, hs__zz(v));
}
/* 0, or -1 when the varint runs past end or is longer than 10 bytes. */
static inline int hs__get_u(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (p >= end)
            return -1;
        uint8_t b = *p++;
        if (shift == 63 && b > 1)
            return -1;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pp = p;
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* Worst-case encoded bytes of one record (excluding lists) in the structure
 * stream, per list word, and in the time stream: every varint at most 10
 * bytes. */
#define HS__ENC_REC_MAX  (1 + 15 * 10)
#define HS__ENC_WORD_MAX 10
#define HS__ENC_TIME_MAX (3 * 10)   /* gap, duration; HS__WIRE_OPDONE: its completion */
/* Structure-stream size bound for a raw buffer of raw_len bytes: a raw
 * record is at least sizeof(hs__rec) and each list word 8 bytes. */
static inline size_t hs__enc_bound(size_t raw_len)
{
    return raw_len / sizeof(hs__rec) * HS__ENC_REC_MAX + raw_len / 8 * HS__ENC_WORD_MAX + 64;
}
static inline size_t hs__enc_time_bound(size_t raw_len)
{
    return raw_len / sizeof(hs__rec) * HS__ENC_TIME_MAX + 64;
}

/* ---- encoding and blocks ------------------------------------------------ */

/* Per-block encoder/decoder state: deltas restart in every block. */
typedef struct hs__codec {
    int32_t  rank;      /* peers are coded relative to the own rank */
    uint8_t  shift;
    uint64_t prev_t;    /* units */
    uint64_t prev_req;
    uint64_t prev_aux;  /* the last aux an HS__WIRE_OPDONE stored in full */
} hs__codec;

/* An event block's payload holds two streams: the structure stream (kind,
 * flags, every field and list) and the time stream (the gap before and the
 * duration of each event).  The structure of a trace repeats and compresses
 * to almost nothing with LZ77; its times are noise in their low bits and are
 * only entropy-coded (zlib's RLE strategy): splitting them halves the cost
 * of deflate per event and shrinks the output. */

/* Encodes records from raw[*off..raw_len) until all are encoded or the next
 * one might not fit: structure into s (capacity scap), times into t
 * (capacity tcap).  Advances *off, sets *slen, *tlen, *nenc and *base (units
 * of the first record encoded).  Deltas restart with every call, so each
 * call's output is one block.  HS_EINVAL for a malformed record or when not
 * even one record fits. */
int hs__encode(const uint8_t *raw, size_t raw_len, size_t *off, int32_t rank, uint8_t shift,
               uint8_t *s, size_t scap, size_t *slen, uint8_t *t, size_t tcap, size_t *tlen,
               uint32_t *nenc, uint64_t *base);

/* Decodes the next record: structure from s[*spos..slen), times from
 * t[*tpos..tlen).  rec receives the record (times in units, not ticks), its
 * list words go to *words (grown with realloc as needed, *wcap in words).
 * 0, or HS_EFORMAT with a reason in *why (static string). */
int hs__decode_one(hs__codec *c, const uint8_t *s, size_t slen, size_t *spos,
                   const uint8_t *t, size_t tlen, size_t *tpos, hs__rec *rec,
                   uint64_t **words, size_t *wcap, const char **why);

/* Deflate states of a writer: zs for the structure stream (level, default
 * strategy), zt for the time stream (tlevel, RLE strategy; 0 stores it:
 * timings are mostly noise, and entropy-coding them costs more per event
 * than everything else the writer does). */
int    hs__deflate_init(z_stream *zs, z_stream *zt, int level, int tlevel);
void   hs__deflate_end(z_stream *zs, z_stream *zt);
/* Bytes a block with these stream lengths may take, header included. */
size_t hs__block_bound(size_t slen, size_t tlen);
/* Builds header + payload into out: uvarint(slen), uvarint(deflated
 * structure length), deflated structure, deflated times.  h->raw_len
 * becomes slen + tlen.  Other blocks (clock, end) are built the same way
 * with tlen = 0. */
int    hs__block_build(z_stream *zs, z_stream *zt, hs__blk_hdr *h, const uint8_t *s,
                       size_t slen, const uint8_t *t, size_t tlen, uint8_t *out, size_t cap,
                       size_t *out_len);

/* Adler-32 of p[0..n) (initial value 1), as zlib's adler32(1, p, n). */
uint32_t hs__adler32(const uint8_t *p, size_t n);

/* Inflates a payload of comp_len bytes into out (raw_len bytes: structure
 * then times); *slen receives the structure length.  0 or HS_EFORMAT. */
int hs__inflate(const uint8_t *in, size_t comp_len, uint8_t *out, size_t raw_len, size_t *slen);

/* Small payloads of CLOCK and END blocks (varints). */
typedef struct hs__clock_rec {
    uint32_t which;      /* 0 = at MPI_Init, 1 = at MPI_Finalize */
    int64_t  offset_ns;  /* add to the rank's CLOCK_MONOTONIC to get rank 0's */
    uint64_t epoch_ns;   /* rank 0's CLOCK_MONOTONIC at the job epoch */
    uint64_t rtt_ns;     /* round trip of the best exchange (error bound * 2) */
    uint64_t local_ns;   /* this rank's CLOCK_MONOTONIC when measured */
} hs__clock_rec;
typedef struct hs__end_rec {
    uint32_t reason, code;
    uint64_t events, dropped, blocks;
} hs__end_rec;
size_t hs__clock_rec_encode(const hs__clock_rec *c, uint8_t *out); /* <= 64 bytes */
int    hs__clock_rec_decode(const uint8_t *p, size_t len, hs__clock_rec *c);
size_t hs__end_rec_encode(const hs__end_rec *e, uint8_t *out);     /* <= 64 bytes */
int    hs__end_rec_decode(const uint8_t *p, size_t len, hs__end_rec *e);

/* write() until done, retrying on EINTR; 0 or -1 (errno set).  Async-
 * signal-safe: the interposer's signal handler writes through it. */
int hs__write_all(int fd, const uint8_t *p, size_t n);

/* Deterministic 64-bit mixer (splitmix64 finaliser), used for ids and the
 * monitoring sample. */
static inline uint64_t hs__mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}
/* Monitoring threshold for a rate: a message is monitored when its hash is
 * below it; UINT64_MAX means all. */
uint64_t hs__monitor_threshold(double rate);
static inline int hs__monitored(uint64_t seed, uint64_t thr, uint32_t src, uint32_t dst,
                                uint64_t seq)
{
    if (thr == UINT64_MAX)
        return 1;
    uint64_t h = hs__mix64(seed ^ hs__mix64(((uint64_t)src << 32 | dst) ^ hs__mix64(seq)));
    return h < thr;
}

#endif
