/* hashmap.c — the one hash table of the compiler.
 *
 * Keys are opaque pointers found by a 64-bit hash the caller computes, compared by the map's
 * equality callback (pointer identity when it has none), so one table serves the value and
 * identifier maps of ir.c (string keys), the Sym interning of sym.c (structural keys) and
 * sym.c's walks (Sym pointers).
 *
 * Open addressing with linear probing: an entry lives at hash & (cap - 1) or in the first free
 * slot after it; cap is a power of two.  The table is at most half full: a put that would pass
 * that doubles it, moving the entries by their stored hashes (no key is hashed or compared
 * again).  Nothing is ever deleted, so a probe ends at the first empty slot.  Tables live in
 * the arena (a grown-out table is left to it) or, for scratch maps, on the heap. */
#include "onnx2c.h"
#include <limits.h>
#include <stdlib.h>

void hashmap_init(HashMap *m, Arena *a, int first, bool (*eq)(const void *, const void *)) {
    int cap = 64; /* the masks of the probes need a power of two */
    while (cap < first && cap <= INT_MAX / 2)
        cap *= 2;
    *m = (HashMap){.arena = a, .first = cap, .eq = eq};
}

static HashEntry *new_slots(HashMap *m, int cap) {
    if (m->arena)
        return arena_alloc(m->arena, sizeof(HashEntry) * (size_t)cap);
    HashEntry *t = calloc((size_t)cap, sizeof *t);
    if (!t)
        arena_oom();
    return t;
}

/* The entry of key, or else the free slot that ends its probe (m->cap > 0). */
static HashEntry *probe(const HashMap *m, uint64_t hash, const void *key) {
    size_t mask = (size_t)m->cap - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        HashEntry *e = &m->slots[i];
        if (!e->key || (e->hash == hash && (e->key == key || (m->eq && m->eq(e->key, key)))))
            return e;
    }
}

HashEntry *hashmap_get(const HashMap *m, uint64_t hash, const void *key) {
    if (!m->cap)
        return NULL;
    HashEntry *e = probe(m, hash, key);
    return e->key ? e : NULL;
}

/* The free slot that ends the probe of hash. */
static HashEntry *free_slot(HashEntry *slots, int cap, uint64_t hash) {
    size_t mask = (size_t)cap - 1, i = hash & mask;
    while (slots[i].key)
        i = (i + 1) & mask;
    return &slots[i];
}

HashEntry *hashmap_put(HashMap *m, uint64_t hash, const void *key) {
    HashEntry *e = m->cap ? probe(m, hash, key) : NULL;
    if (e && e->key)
        return e;
    if (2 * ((size_t)m->len + 1) > (size_t)m->cap) { /* at most half full: double */
        if (m->cap > INT_MAX / 2)
            arena_oom();
        int cap = m->cap ? 2 * m->cap : m->first;
        HashEntry *slots = new_slots(m, cap);
        for (int i = 0; i < m->cap; i++)
            if (m->slots[i].key)
                *free_slot(slots, cap, m->slots[i].hash) = m->slots[i];
        if (!m->arena)
            free(m->slots);
        m->slots = slots;
        m->cap = cap;
        e = free_slot(slots, cap, hash);
    }
    *e = (HashEntry){hash, key, NULL};
    m->len++;
    return e;
}

void hashmap_free(HashMap *m) {
    if (!m->arena)
        free(m->slots);
    m->slots = NULL;
    m->cap = m->len = 0;
}
