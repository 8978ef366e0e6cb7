/* Payloads of messages in flight (hs_fabric_inject_payload): kept for the
 * destination under the key the destination counts the message's packets
 * with (source << 40 | the source NIC's serial), so the destination reads
 * nothing of the source's.  Open addressing, linear probing, backward-shift
 * deletion; entries hold the payload inline. */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

static uint64_t pl_key(uint32_t src, uint64_t mser)
{
    return ((uint64_t)src << 40 | (mser & ((1ull << 40) - 1))) + 1;
}

/* splitmix64's finalizer: every bit of the key reaches the low bits (a
 * multiply alone carries only upwards, so the source, in the high bits,
 * would not choose the slot and the sources' messages of one serial would
 * pile up in one cluster). */
static size_t pl_slot(uint64_t key, size_t mask)
{
    key = (key ^ (key >> 30)) * 0xbf58476d1ce4e5b9ull;
    key = (key ^ (key >> 27)) * 0x94d049bb133111ebull;
    return (size_t)(key ^ (key >> 31)) & mask;
}

static int pl_grow(hs_fabric *F)
{
    size_t nc = F->pl_cap ? 2 * F->pl_cap : 256;
    hs__plent *n = calloc(nc, sizeof *n);
    if (!n)
        return HS_ENOMEM;
    for (size_t i = 0; i < F->pl_cap; i++) {
        const hs__plent *x = &F->pl[i];
        if (!x->key)
            continue;
        size_t j = pl_slot(x->key, nc - 1);
        while (n[j].key)
            j = (j + 1) & (nc - 1);
        n[j] = *x;
    }
    free(F->pl);
    F->pl = n;
    F->pl_cap = nc;
    return 0;
}

int hs__pl_put(hs_fabric *F, uint32_t src, uint64_t mser, const void *b, uint32_t len)
{
    if (len > HS_FABRIC_PAYLOAD)
        return HS_EINVAL;
    if (2 * (F->pl_n + 1) > F->pl_cap && pl_grow(F))
        return HS_ENOMEM;
    uint64_t key = pl_key(src, mser);
    size_t mask = F->pl_cap - 1, i = pl_slot(key, mask);
    while (F->pl[i].key && F->pl[i].key != key)
        i = (i + 1) & mask;
    if (!F->pl[i].key)
        F->pl_n++;
    hs__plent *e = &F->pl[i];
    e->key = key;
    e->len = len;
    memcpy(e->b, b, len);
    return 0;
}

int hs__pl_take(hs_fabric *F, uint32_t src, uint64_t mser)
{
    F->pl_cur_len = 0;
    if (!F->pl_n)
        return 0;
    uint64_t key = pl_key(src, mser);
    size_t mask = F->pl_cap - 1, i = pl_slot(key, mask);
    while (F->pl[i].key != key) {
        if (!F->pl[i].key)
            return 0;
        i = (i + 1) & mask;
    }
    memcpy(F->pl_cur, F->pl[i].b, F->pl[i].len);
    F->pl_cur_len = F->pl[i].len;
    /* backward-shift deletion */
    size_t hole = i, j = i;
    F->pl[hole].key = 0;
    F->pl_n--;
    for (;;) {
        j = (j + 1) & mask;
        hs__plent *x = &F->pl[j];
        if (!x->key)
            return 1;
        size_t home = pl_slot(x->key, mask);
        int between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!between) {
            F->pl[hole] = *x;
            x->key = 0;
            hole = j;
        }
    }
}

void hs__pl_free(hs_fabric *F)
{
    free(F->pl);
    F->pl = NULL;
    F->pl_cap = F->pl_n = 0;
}

const void *hs_fabric_payload(const hs_fabric *F, size_t *len)
{
    if (len)
        *len = F->pl_cur_len;
    return F->pl_cur_len ? F->pl_cur : NULL;
}
