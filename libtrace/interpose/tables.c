/* libhopscope.so tables: MPI handle -> what hopscope knows about it.
 *
 *   requests       id, type, communicator (to translate the matched source)
 *   messages       MPI_Mprobe results consumed by MPI_Mrecv
 *   communicators  job-wide id, local index, rank translation tables
 *   windows        job-wide id, local index, communicator
 *
 * Handles are ints (MPICH) or pointers (Open MPI); both become uintptr_t
 * keys of open-addressing maps.  Maps take a spin lock only under
 * MPI_THREAD_MULTIPLE.  Request entries are taken out *before* the real
 * completion call and put back if the request did not complete: once MPI
 * frees a request, another thread may get the same handle value at once, and
 * a removal after the call could delete that new request's entry.
 *
 * Communicator ids.  All members of a communicator must record the same id.
 * For constructors that are collective over a parent communicator (dup,
 * split, create, cart/graph, merge, ...) members agree without talking:
 *   id = mix(parent id, constructor count on the parent, kind, lowest world
 *            rank among the new communicator's members)
 * because every member calls the constructors on the parent in the same
 * order.  MPI_Comm_create_group and MPI_Intercomm_create are collective only
 * over the new members; there the lowest world rank L contributes a counter
 * of its own through one (intra) or two (inter) allreduces on the new
 * communicator, and id = mix(L, that counter). */
#include "interpose.h"

#include <stdlib.h>
#include <string.h>

HS__HIDDEN int hs__status_direct;


/* ---- maps -------------------------------------------------------------------- */

#define KEY_EMPTY 0u
#define KEY_TOMB  1u
#define MAP_INIT_CAP 1024

typedef struct map {
    uint8_t *slots;     /* cap slots of (uintptr_t key, value[vsize]) */
    size_t   cap, live, tomb, vsize, ssize;
    atomic_flag lock;
} map;

static map msgs = { .vsize = sizeof(hs__msginfo), .lock = ATOMIC_FLAG_INIT };
static map comms = { .vsize = sizeof(hs__comm *), .lock = ATOMIC_FLAG_INIT };
static map wins = { .vsize = sizeof(hs__win *), .lock = ATOMIC_FLAG_INIT };

static void map_lock(map *m)
{
    if (hs__g.mt)
        while (atomic_flag_test_and_set_explicit(&m->lock, memory_order_acquire))
            ;
}
static void map_unlock(map *m)
{
    if (hs__g.mt)
        atomic_flag_clear_explicit(&m->lock, memory_order_release);
}

static inline uintptr_t *slot_key(map *m, size_t i)
{
    return (uintptr_t *)(m->slots + i * m->ssize);
}

static inline size_t slot_hash(uintptr_t k, size_t cap)
{
    return (size_t)hs__mix64((uint64_t)k) & (cap - 1);
}

/* Rebuilds with at least `want` capacity; 0 or -1 (out of memory: the map
 * stays usable, just fuller). */
static int map_rehash(map *m, size_t want)
{
    size_t ssize = sizeof(uintptr_t) + ((m->vsize + 7) & ~(size_t)7);
    size_t cap = MAP_INIT_CAP;
    while (cap < want)
        cap *= 2;
    uint8_t *ns = calloc(cap, ssize);
    if (!ns)
        return -1;
    uint8_t *old = m->slots;
    size_t oldcap = m->cap;
    m->slots = ns;
    m->ssize = ssize;
    m->cap = cap;
    m->live = m->tomb = 0;
    for (size_t i = 0; i < oldcap; i++) {
        uintptr_t k = *(uintptr_t *)(old + i * ssize);
        if (k == KEY_EMPTY || k == KEY_TOMB)
            continue;
        size_t j = slot_hash(k, cap);
        while (*slot_key(m, j) != KEY_EMPTY)
            j = (j + 1) & (cap - 1);
        memcpy(m->slots + j * ssize, old + i * ssize, ssize);
        m->live++;
    }
    free(old);
    return 0;
}

/* Index of key's slot, or SIZE_MAX. */
static size_t map_find(map *m, uintptr_t k)
{
    if (!m->cap)
        return SIZE_MAX;
    size_t j = slot_hash(k, m->cap);
    for (size_t n = 0; n < m->cap; n++) {
        uintptr_t s = *slot_key(m, j);
        if (s == k)
            return j;
        if (s == KEY_EMPTY)
            return SIZE_MAX;
        j = (j + 1) & (m->cap - 1);
    }
    return SIZE_MAX;
}

static void map_put_locked(map *m, uintptr_t k, const void *v)
{
    if (k == KEY_EMPTY || k == KEY_TOMB)
        return;
    size_t i = map_find(m, k);
    if (i != SIZE_MAX) {
        memcpy(m->slots + i * m->ssize + sizeof(uintptr_t), v, m->vsize);
        return;
    }
    if ((m->live + m->tomb + 1) * 4 > m->cap * 3 &&
        map_rehash(m, (m->live + 1) * 2 > m->cap ? m->cap * 2 : m->cap) != 0 && !m->cap)
        return;
    if ((m->live + m->tomb + 1) > m->cap)
        return;   /* full and could not grow: forget this handle */
    size_t j = slot_hash(k, m->cap);
    while (*slot_key(m, j) != KEY_EMPTY && *slot_key(m, j) != KEY_TOMB)
        j = (j + 1) & (m->cap - 1);
    if (*slot_key(m, j) == KEY_TOMB)
        m->tomb--;
    *slot_key(m, j) = k;
    memcpy(m->slots + j * m->ssize + sizeof(uintptr_t), v, m->vsize);
    m->live++;
}

static void map_put(map *m, uintptr_t k, const void *v)
{
    map_lock(m);
    map_put_locked(m, k, v);
    map_unlock(m);
}

/* Copies the value out; removes it when take.  1 found, 0 not. */
static int map_get(map *m, uintptr_t k, void *out, int take)
{
    map_lock(m);
    size_t i = map_find(m, k);
    if (i != SIZE_MAX) {
        memcpy(out, m->slots + i * m->ssize + sizeof(uintptr_t), m->vsize);
        if (take) {
            *slot_key(m, i) = KEY_TOMB;
            m->live--;
            m->tomb++;
        }
    }
    map_unlock(m);
    return i != SIZE_MAX;
}

/* ---- requests and messages --------------------------------------------------- */

/* Requests: the table hs__rq (interpose.h, whose inline hs__req_add and
 * hs__req_take handle the common single-threaded cases). */
HS__HIDDEN hs__rqtab hs__rq = { .lock = ATOMIC_FLAG_INIT };

static inline void rq_lock(void)
{
    if (hs__g.mt)
        while (atomic_flag_test_and_set_explicit(&hs__rq.lock, memory_order_acquire))
            ;
}
static inline void rq_unlock(void)
{
    if (hs__g.mt)
        atomic_flag_clear_explicit(&hs__rq.lock, memory_order_release);
}

/* Slot of key k, or SIZE_MAX.  The table always keeps an empty slot (load
 * at most 3/4), so the probe ends. */
static inline size_t rq_find(uintptr_t k)
{
    if (hs__unlikely(hs__rq.slots == NULL))
        return SIZE_MAX;
    size_t i = hs__rq_home(k, hs__rq.shift);
    for (;;) {
        uintptr_t s = hs__rq.slots[i].key;
        if (hs__likely(s == k))
            return i;
        if (s == 0)
            return SIZE_MAX;
        i = (i + 1) & hs__rq.mask;
    }
}

/* Empties slot i and moves back every later entry of its probe run whose
 * home slot is not cyclically in (i, j]. */
static void rq_remove_at(size_t i)
{
    size_t j = i;
    for (;;) {
        j = (j + 1) & hs__rq.mask;
        uintptr_t k = hs__rq.slots[j].key;
        if (k == 0)
            break;
        size_t h = hs__rq_home(k, hs__rq.shift);
        if (((j - h) & hs__rq.mask) >= ((j - i) & hs__rq.mask)) {
            hs__rq.slots[i] = hs__rq.slots[j];
            i = j;
        }
    }
    hs__rq.slots[i].key = 0;
}

/* Rebuilds with capacity cap; 0 or -1 (out of memory: the table stays as
 * it was). */
static int rq_grow(size_t cap)
{
    hs__rq_slot *ns = calloc(cap, sizeof *ns);
    if (!ns)
        return -1;
    unsigned shift = 64;
    for (size_t c = cap; c > 1; c >>= 1)
        shift--;
    hs__rq_slot *old = hs__rq.slots;
    size_t oldcap = old ? hs__rq.mask + 1 : 0;
    for (size_t i = 0; i < oldcap; i++) {
        if (old[i].key == 0)
            continue;
        size_t j = hs__rq_home(old[i].key, shift);
        while (ns[j].key != 0)
            j = (j + 1) & (cap - 1);
        ns[j] = old[i];
    }
    hs__rq.slots = ns;
    hs__rq.mask = cap - 1;
    hs__rq.shift = shift;
    free(old);
    return 0;
}

void hs__req_add_slow(MPI_Request h, const hs__reqinfo *ri)
{
    uintptr_t k = (uintptr_t)h;
    if (hs__unlikely(k == 0))
        return;   /* not a handle either MPI gives out: never recorded */
    rq_lock();
    size_t i = rq_find(k);
    if (i != SIZE_MAX) {
        hs__rq.slots[i].v = *ri;
    } else {
        size_t cap = hs__rq.slots ? hs__rq.mask + 1 : 0;
        if (hs__unlikely((hs__rq.live + 1) * 4 > cap * 3) &&
            rq_grow(cap ? cap * 2 : MAP_INIT_CAP) != 0 && hs__rq.live + 2 > cap) {
            rq_unlock();
            return;   /* full and could not grow: forget this handle */
        }
        i = hs__rq_home(k, hs__rq.shift);
        while (hs__rq.slots[i].key != 0)
            i = (i + 1) & hs__rq.mask;
        hs__rq.slots[i].key = k;
        hs__rq.slots[i].v = *ri;
        hs__rq.live++;
    }
    rq_unlock();
}

int hs__req_take_slow(MPI_Request h, hs__reqinfo *ri)
{
    rq_lock();
    size_t i = rq_find((uintptr_t)h);
    if (i != SIZE_MAX) {
        *ri = hs__rq.slots[i].v;
        rq_remove_at(i);
        hs__rq.live--;
    }
    rq_unlock();
    return i != SIZE_MAX;
}

int hs__req_peek(MPI_Request h, hs__reqinfo *ri)
{
    if (h == MPI_REQUEST_NULL)
        return 0;
    rq_lock();
    size_t i = rq_find((uintptr_t)h);
    if (i != SIZE_MAX)
        *ri = hs__rq.slots[i].v;
    rq_unlock();
    return i != SIZE_MAX;
}

void hs__req_set_active(MPI_Request h, int active)
{
    rq_lock();
    size_t i = rq_find((uintptr_t)h);
    if (i != SIZE_MAX)
        hs__rq.slots[i].v.active = (uint8_t)active;
    rq_unlock();
}

void hs__msg_add(MPI_Message h, const hs__msginfo *mi)
{
    map_put(&msgs, (uintptr_t)h, mi);
}

int hs__msg_take(MPI_Message h, hs__msginfo *mi)
{
    return map_get(&msgs, (uintptr_t)h, mi, 1);
}

/* ---- datatypes and statuses ---------------------------------------------------- */

uint64_t hs__type_size_slow(MPI_Datatype dt)
{
    if (dt == MPI_DATATYPE_NULL)
        return 0;
    MPI_Count sz = 0;
    if (HS_PMPI(Type_size_x)(dt, &sz) != MPI_SUCCESS || sz == MPI_UNDEFINED || sz < 0)
        return 0;
    return (uint64_t)sz;
}

uint64_t hs__status_bytes_slow(const MPI_Status *st)
{
    MPI_Count n = 0;
    if (HS_PMPI(Get_elements_x)(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
        return 0;
    return (uint64_t)n;
}

int hs__status_cancelled(const MPI_Status *st)
{
    if (hs__status_direct) {
#if defined(OPEN_MPI) && OPEN_MPI
        return st->_cancelled != 0;
#else
        return st->count_hi_and_cancelled & 1;
#endif
    }
    int flag = 0;
    HS_PMPI(Test_cancelled)(st, &flag);
    return flag;
}

/* ---- communicators ---------------------------------------------------------------- */

hs__comm *hs__comm_new_static(uint64_t id, uint32_t index, int world)
{
    hs__comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->id = id;
    c->index = index;
    c->is_world = world;
    c->refs = 1 << 30;   /* never released */
    if (world) {
        c->size = hs__g.size;
        c->my = hs__g.rank;
    } else if (id == HS_TRACE_COMM_SELF) {
        c->size = 1;
        c->local = malloc(sizeof *c->local);
        if (!c->local) {
            free(c);
            return NULL;
        }
        c->local[0] = hs__g.rank;
        map_put(&comms, (uintptr_t)MPI_COMM_SELF, &c);
    } else {
        map_put(&comms, (uintptr_t)MPI_COMM_NULL, &c);
    }
    return c;
}

void hs__comm_release(hs__comm *c)
{
    if (!c || atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    free(c->local);
    free(c->remote);
    free(c->nb_in);
    free(c->nb_out);
    free(c);
}

/* Local (and remote) group of comm as world ranks. */
static hs__comm *comm_build(MPI_Comm comm, hs__comm *parent, int idup)
{
    hs__comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->refs = 1;
    if (idup && parent) {
        /* MPI_Comm_idup: the new communicator may not be used before the
         * request completes, but its group is the parent's. */
        c->is_inter = parent->is_inter;
        c->size = parent->size;
        c->rsize = parent->rsize;
        c->my = parent->my;
        c->is_world = 0;
        c->local = malloc((size_t)(c->size ? c->size : 1) * sizeof *c->local);
        c->remote = malloc((size_t)(c->rsize ? c->rsize : 1) * sizeof *c->remote);
        if (!c->local || !c->remote)
            goto fail;
        for (int i = 0; i < c->size; i++)
            c->local[i] = hs__local_peer(parent, i);
        for (int i = 0; i < c->rsize; i++)
            c->remote[i] = parent->remote[i];
        return c;
    }
    int inter = 0;
    HS_PMPI(Comm_test_inter)(comm, &inter);
    c->is_inter = inter;
    HS_PMPI(Comm_size)(comm, &c->size);
    HS_PMPI(Comm_rank)(comm, &c->my);
    for (int side = 0; side < 1 + inter; side++) {
        MPI_Group g;
        int n = side ? 0 : c->size;
        if (side) {
            HS_PMPI(Comm_remote_size)(comm, &n);
            HS_PMPI(Comm_remote_group)(comm, &g);
            c->rsize = n;
        } else {
            HS_PMPI(Comm_group)(comm, &g);
        }
        int *in = malloc((size_t)(n ? n : 1) * sizeof *in);
        int32_t *out = malloc((size_t)(n ? n : 1) * sizeof *out);
        if (!in || !out) {
            free(in);
            free(out);
            HS_PMPI(Group_free)(&g);
            goto fail;
        }
        for (int i = 0; i < n; i++)
            in[i] = i;
        HS_PMPI(Group_translate_ranks)(g, n, in, hs__g.world_group, (int *)out);
        HS_PMPI(Group_free)(&g);
        free(in);
        for (int i = 0; i < n; i++)
            if (out[i] == MPI_UNDEFINED)
                out[i] = HS_TRACE_RANK_NONE;   /* not in MPI_COMM_WORLD (spawned) */
        if (side)
            c->remote = out;
        else
            c->local = out;
    }
    return c;
fail:
    free(c->local);
    free(c->remote);
    free(c);
    return NULL;
}

static int32_t lowest_member(const hs__comm *c)
{
    int32_t lo = INT32_MAX;
    for (int i = 0; i < c->size; i++)
        if (c->local[i] >= 0 && c->local[i] < lo)
            lo = c->local[i];
    for (int i = 0; i < c->rsize; i++)
        if (c->remote[i] >= 0 && c->remote[i] < lo)
            lo = c->remote[i];
    return lo;
}

static uint64_t fix_id(uint64_t id)
{
    return id <= HS_TRACE_COMM_SELF ? id + 3 : id;
}

/* Inserts c under comm, numbers it and records COMM_CREATE. */
static hs__comm *comm_publish(MPI_Comm comm, hs__comm *c, int ctor, hs__comm *parent,
                              uint64_t t0, uint64_t t1)
{
    c->index = atomic_fetch_add(&hs__g.next_comm_index, 1);
    map_put(&comms, (uintptr_t)comm, &c);
    atomic_fetch_add_explicit(&hs__g.comm_gen, 1, memory_order_release);
    size_t sz;
    hs__rec *r = hs__recn(HS_TRACE_COMM_CREATE, t0, t1, 0, (uint32_t)c->size,
                          (uint32_t)c->rsize, &sz);
    if (r) {
        r->comm = c->index;
        r->comm2 = parent ? parent->index : HS__NOIDX;
        r->tag = ctor;
        r->aux = c->id;
        uint64_t *w = hs__rec_list(r);
        for (int i = 0; i < c->size; i++)
            *w++ = (uint64_t)(int64_t)c->local[i];
        for (int i = 0; i < c->rsize; i++)
            *w++ = (uint64_t)(int64_t)c->remote[i];
        hs__commit(r, sz);
    }
    return c;
}

hs__comm *hs__comm_register(MPI_Comm comm, int ctor, hs__comm *parent, uint32_t seq,
                            uint64_t t0, uint64_t t1, int idup)
{
    hs__comm *c = comm_build(comm, parent, idup);
    if (!c)
        return NULL;
    uint64_t pid = parent ? parent->id : 0;
    c->id = fix_id(hs__mix64(pid ^ hs__mix64(((uint64_t)seq << 8 | (uint64_t)ctor) ^
                                             hs__mix64((uint64_t)lowest_member(c) + 1))));
    return comm_publish(comm, c, ctor, parent, t0, t1);
}

hs__comm *hs__comm_register_agreed(MPI_Comm comm, int ctor, hs__comm *parent, uint64_t t0,
                                   uint64_t t1)
{
    hs__comm *c = comm_build(comm, parent, 0);
    if (!c)
        return NULL;
    int32_t lo = lowest_member(c);
    uint64_t mine = lo == hs__g.rank ? atomic_fetch_add(&hs__g.agreed_seq, 1) + 1 : 0;
    uint64_t got = 0, got2 = 0;
    HS_PMPI(Allreduce)(&mine, &got, 1, MPI_UINT64_T, MPI_MAX, comm);
    if (c->is_inter) {
        /* On an intercommunicator each group receives the other group's
         * reduction: a second round brings the value back to L's group. */
        uint64_t again = got > mine ? got : mine;
        HS_PMPI(Allreduce)(&again, &got2, 1, MPI_UINT64_T, MPI_MAX, comm);
        if (got2 > got)
            got = got2;
        if (mine > got)
            got = mine;
    }
    c->id = fix_id(hs__mix64(0xa6a6a6a6ull ^ hs__mix64((uint64_t)lo + 1) ^ hs__mix64(got)));
    return comm_publish(comm, c, ctor, parent, t0, t1);
}

hs__comm *hs__comm_lookup_slow(MPI_Comm comm)
{
    hs__comm *c = NULL;
    uint32_t gen = atomic_load_explicit(&hs__g.comm_gen, memory_order_acquire);
    if (!map_get(&comms, (uintptr_t)comm, &c, 0)) {
        /* A communicator hopscope did not see created (MPI_Comm_spawn,
         * connect/accept, created while recording was off): register it
         * now; its id is this rank's own, so the check reports it. */
        c = comm_build(comm, NULL, 0);
        if (!c)
            return hs__g.null_comm;
        c->id = fix_id(hs__mix64(0x5eedull ^ hs__mix64((uint64_t)hs__g.rank + 1) ^
                                 hs__mix64(atomic_fetch_add(&hs__g.agreed_seq, 1) + (1ull << 40))));
        uint64_t t = hs__now();
        comm_publish(comm, c, HS_TRACE_CTOR_UNKNOWN, NULL, t, t);
        gen = atomic_load_explicit(&hs__g.comm_gen, memory_order_acquire);
    }
    hs__t.ckey = (uintptr_t)comm;
    hs__t.cval = c;
    hs__t.cgen = gen;
    return c;
}

hs__comm *hs__comm_take(MPI_Comm comm)
{
    hs__comm *c = NULL;
    if (!map_get(&comms, (uintptr_t)comm, &c, 0) || !c || c->refs >= (1 << 29))
        return NULL;   /* unknown, or a predefined communicator */
    map_get(&comms, (uintptr_t)comm, &c, 1);
    atomic_fetch_add_explicit(&hs__g.comm_gen, 1, memory_order_release);
    return c;
}

void hs__comm_freed(hs__comm *c, uint64_t t0, uint64_t t1, int rc)
{
    if (!c)
        return;
    hs__rec *r = hs__rec0(HS_TRACE_COMM_FREE, t0, t1, hs__rcflag(rc));
    if (r) {
        r->comm = c->index;
        hs__commit(r, sizeof *r);
    }
    hs__comm_release(c);
}

static pthread_mutex_t nb_lock = PTHREAD_MUTEX_INITIALIZER;

int hs__comm_neighbors(hs__comm *c, MPI_Comm comm)
{
    int st = atomic_load(&c->nb_state);
    if (st)
        return st > 0;
    pthread_mutex_lock(&nb_lock);
    if ((st = atomic_load(&c->nb_state)) != 0) {
        pthread_mutex_unlock(&nb_lock);
        return st > 0;
    }
    int topo = MPI_UNDEFINED, nin = 0, nout = 0;
    int *in = NULL, *out = NULL;
    HS_PMPI(Topo_test)(comm, &topo);
    if (topo == MPI_CART) {
        int nd = 0;
        HS_PMPI(Cartdim_get)(comm, &nd);
        nin = nout = 2 * nd;
        in = malloc((size_t)(nin ? nin : 1) * sizeof *in);
        out = malloc((size_t)(nout ? nout : 1) * sizeof *out);
        /* MPI-3.1 7.6: for each dimension, the neighbour in the negative
         * direction, then the positive one; the same list for in and out. */
        for (int d = 0; in && out && d < nd; d++) {
            int src, dst;
            HS_PMPI(Cart_shift)(comm, d, 1, &src, &dst);
            in[2 * d] = out[2 * d] = src;
            in[2 * d + 1] = out[2 * d + 1] = dst;
        }
    } else if (topo == MPI_GRAPH) {
        int n = 0;
        HS_PMPI(Graph_neighbors_count)(comm, c->my, &n);
        nin = nout = n;
        in = malloc((size_t)(n ? n : 1) * sizeof *in);
        out = malloc((size_t)(n ? n : 1) * sizeof *out);
        if (in && out) {
            HS_PMPI(Graph_neighbors)(comm, c->my, n, in);
            memcpy(out, in, (size_t)n * sizeof *in);
        }
    } else if (topo == MPI_DIST_GRAPH) {
        int weighted = 0;
        HS_PMPI(Dist_graph_neighbors_count)(comm, &nin, &nout, &weighted);
        in = malloc((size_t)(nin ? nin : 1) * sizeof *in);
        out = malloc((size_t)(nout ? nout : 1) * sizeof *out);
        /* Open MPI's MPI_UNWEIGHTED is the address 2, which gcc takes for a
         * zero-length array the callee would write. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
        if (in && out)
            HS_PMPI(Dist_graph_neighbors)(comm, nin, in, MPI_UNWEIGHTED, nout, out,
                                          MPI_UNWEIGHTED);
#pragma GCC diagnostic pop
    }
    int ok = (topo == MPI_CART || topo == MPI_GRAPH || topo == MPI_DIST_GRAPH) && in && out;
    if (ok) {
        c->nb_in = malloc((size_t)(nin ? nin : 1) * sizeof *c->nb_in);
        c->nb_out = malloc((size_t)(nout ? nout : 1) * sizeof *c->nb_out);
        ok = c->nb_in && c->nb_out;
        for (int i = 0; ok && i < nin; i++)
            c->nb_in[i] = hs__local_peer(c, in[i]);
        for (int i = 0; ok && i < nout; i++)
            c->nb_out[i] = hs__local_peer(c, out[i]);
        c->nin = nin;
        c->nout = nout;
    }
    free(in);
    free(out);
    atomic_store(&c->nb_state, ok ? 1 : -1);
    pthread_mutex_unlock(&nb_lock);
    return ok;
}

/* ---- windows -------------------------------------------------------------------- */

hs__win *hs__win_get(MPI_Win w)
{
    hs__win *x = NULL;
    if (!map_get(&wins, (uintptr_t)w, &x, 0))
        return NULL;
    return x;
}

void hs__win_register(MPI_Win w, MPI_Comm comm, int ctor, uint64_t bytes, uint64_t t0,
                      uint64_t t1, int rc)
{
    hs__comm *c = hs__comm_get(comm);
    /* Window constructors are collective over comm: count them like
     * communicator constructors, even when they fail. */
    uint32_t seq = atomic_fetch_add(&c->seq, 1);
    if (rc != MPI_SUCCESS || w == MPI_WIN_NULL)
        return;
    hs__win *x = calloc(1, sizeof *x);
    if (!x)
        return;
    atomic_fetch_add(&c->refs, 1);
    x->comm = c;
    x->index = atomic_fetch_add(&hs__g.next_win_index, 1);
    x->id = fix_id(hs__mix64(c->id ^ hs__mix64(((uint64_t)seq << 8) ^ 0x57ull)));
    map_put(&wins, (uintptr_t)w, &x);
    hs__rec *r = hs__rec0(HS_TRACE_WIN_CREATE, t0, t1, 0);
    if (r) {
        r->win = x->index;
        r->comm = c->index;
        r->tag = ctor;
        r->bytes = bytes;
        r->aux = x->id;
        hs__commit(r, sizeof *r);
    }
}

hs__win *hs__win_take(MPI_Win w)
{
    hs__win *x = NULL;
    if (!map_get(&wins, (uintptr_t)w, &x, 1))
        return NULL;
    return x;
}

void hs__win_freed(hs__win *x, uint64_t t0, uint64_t t1, int rc)
{
    if (!x)
        return;
    hs__rec *r = hs__rec0(HS_TRACE_WIN_FREE, t0, t1, hs__rcflag(rc));
    if (r) {
        r->win = x->index;
        hs__commit(r, sizeof *r);
    }
    hs__comm_release(x->comm);
    free(x);
}
