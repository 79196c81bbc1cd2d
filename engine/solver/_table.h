/* The transposition table: proved answers and proof numbers in buckets of TT_LINES cache lines, bounded memory.
 *
 * A part of engine/solver/_core.c, which includes the parts in order in one translation unit
 * (every function static). */
#ifndef DDZ_SOLVER_TABLE_H
#define DDZ_SOLVER_TABLE_H

#include "_core.h"

/* ------------------------------------------------------------------ the table */

/* A position's key is the sum of its seats' hands hashed one by one (each with its seat), so a
 * child's differs from its parent's by one seat's term, and the positions after a pass share it:
 * a node hashes its own hands once and each child's one changed hand. */
static inline uint64_t hand_key(uint64_t h, int seat) {
    return mix64(h ^ (uint64_t)(seat + 1) * 0xd1b54a32d192ed03ULL);
}

static inline uint64_t hands_key(const Search *s, const uint64_t *h) {
    uint64_t k = 0;
    for (int i = 0; i < s->players; i++) k += hand_key(h[i], i);
    return k;
}

/* The bucket of the position with hands' key ``key``. */
static inline uint64_t *tt_bucket_k(const Search *s, uint64_t key, int turn, uint32_t tid, int by) {
    uint64_t x = key + (uint64_t)tid * 0x9e3779b97f4a7c15ULL + ((uint64_t)turn << 8 | (uint64_t)by) * 0xbf58476d1ce4e5b9ULL;
    size_t b = (size_t)(((unsigned __int128)x * s->tt_buckets) >> 64);
    return s->tt + b * TT_STRIDE;
}

static inline uint64_t *tt_bucket(const Search *s, const uint64_t *h, int turn, uint32_t tid, int by) {
    return tt_bucket_k(s, hands_key(s, h), turn, tid, by);
}

/* Every cache line of a bucket. */
static inline void tt_prefetch(const Search *s, const uint64_t *bucket) {
    (void)s;
    for (int i = 0; i < TT_LINES; i++) __builtin_prefetch(bucket + 8 * i);
}

static inline uint64_t tt_tag(uint32_t tid, int turn, int by) {
    return (uint64_t)tid << 32 | (uint64_t)turn << 16 | (uint64_t)by << 8;
}

#define TAG_MASK 0xffffffffffffff00ULL /* tid, turn, by: what identifies an entry beside the hands */

static inline int tt_same(const Search *s, const uint64_t *e, const uint64_t *h, uint64_t tag) {
    uint64_t last = e[s->players];
    if (!(last & 63) || (last & TAG_MASK) != tag) return 0;
    for (int i = 0; i < s->players; i++)
        if (e[i] != h[i]) return 0;
    return 1;
}

/* The last word of a bucket is set once an answer of its was kept in its neighbour (bucket b ^ 1,
 * the other half of an aligned pair), where the bucket was full at the table's bound: a probe
 * reads the neighbour only then. */
#define TT_SPILL (TT_STRIDE - 1)

static inline uint64_t *tt_neighbour(const Search *s, const uint64_t *b) {
    return s->tt + (((size_t)(b - s->tt) / TT_STRIDE) ^ 1) * TT_STRIDE;
}

static const uint64_t *tt_find_k(Search *s, uint64_t key, const uint64_t *h, int turn, uint32_t tid, int by) {
    uint64_t *b = tt_bucket_k(s, key, turn, tid, by), tag = tt_tag(tid, turn, by);
    s->tt_probes++;
    for (int half = 0; half < 2; half++) {
        uint64_t *e = half ? tt_neighbour(s, b) : b;
        for (int w = 0; w < (int)s->tt_ways; w++, e += s->tt_words)
            if (tt_same(s, e, h, tag)) {
                s->tt_hits++;
                return e;
            }
        if (!b[TT_SPILL]) break;
    }
    return NULL;
}

static inline const uint64_t *tt_find(Search *s, const uint64_t *h, int turn, uint32_t tid, int by) {
    return tt_find_k(s, hands_key(s, h), h, turn, tid, by);
}

/* Whether the landlord wins there (1, 0), or -1 when the table does not know. */
static int tt_get_k(Search *s, uint64_t key, const uint64_t *h, int turn, uint32_t tid, int by) {
    const uint64_t *e = tt_find_k(s, key, h, turn, tid, by);
    if (!e) return -1;
    uint64_t pd = e[s->players + 1];
    return !(pd >> 32) ? 1 : !(pd & 0xffffffffu) ? 0 : -1;
}

#define BIG ((size_t)1 << 20)

/* Large blocks freed by one solver and kept for the next (the table's and the caches'). A
 * block the system maps anew is zeroed by the kernel, page by page, on its first write: on the
 * development machine (a virtual one) that was a quarter to a third of a search's CPU time where
 * each position has a fresh solver. A kept block is zeroed here, only where it has to be, and its
 * pages are already there. Shared by every solver of the process, under a lock: searches run
 * without the GIL, in several threads. At most POOL_BLOCKS blocks and POOL_MB MiB are kept. */
#ifndef POOL_BLOCKS
#define POOL_BLOCKS 16
#endif
#ifndef POOL_MB
#define POOL_MB 160 /* a whole solver's blocks at the default sizes (64 and 32 MiB) and its table's last growth */
#endif
static struct { void *p; size_t bytes; uint64_t when; } pool[POOL_BLOCKS];
static size_t pool_bytes;
static uint64_t pool_clock;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* A kept block of exactly ``bytes``, or NULL. */
static void *pool_take(size_t bytes) {
    void *p = NULL;
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < POOL_BLOCKS && !p; i++)
        if (pool[i].p && pool[i].bytes == bytes) {
            p = pool[i].p;
            pool[i].p = NULL;
            pool_bytes -= bytes;
        }
    pthread_mutex_unlock(&pool_lock);
    return p;
}

/* Keeps the block, giving the longest kept ones back to the system to make room; 0 when it is
 * larger than the pool (the caller gives it back). */
static int pool_keep(void *p, size_t bytes) {
    if (bytes > (size_t)POOL_MB << 20) return 0;
    void *out[POOL_BLOCKS];
    size_t out_bytes[POOL_BLOCKS];
    int nout = 0, slot = -1;
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        slot = -1;
        int oldest = -1;
        for (int i = 0; i < POOL_BLOCKS; i++) {
            if (!pool[i].p) slot = i;
            else if (oldest < 0 || pool[i].when < pool[oldest].when) oldest = i;
        }
        if (slot >= 0 && pool_bytes + bytes <= (size_t)POOL_MB << 20) break;
        out[nout] = pool[oldest].p;
        out_bytes[nout++] = pool[oldest].bytes;
        pool_bytes -= pool[oldest].bytes;
        pool[oldest].p = NULL;
    }
    pool[slot].p = p;
    pool[slot].bytes = bytes;
    pool[slot].when = ++pool_clock;
    pool_bytes += bytes;
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < nout; i++) munmap(out[i], out_bytes[i]);
    return 1;
}

/* Memory for ``bytes``, zeroed when ``zero`` (else its content is anything). A large block is a
 * kept one, or mapped (its pages are zero when first touched, so what a search never reaches
 * costs nothing) and on huge pages where the system gives them: the table and the caches are
 * read at random, a few times a node, and fewer TLB misses pay. */
static void *big_alloc(size_t bytes, int zero) {
    if (bytes < BIG) { /* aligned to a cache line: the table's buckets are laid out on them */
        size_t rounded = (bytes + 63) & ~(size_t)63;
        void *p = aligned_alloc(64, rounded ? rounded : 64);
        if (p) memset(p, 0, rounded);
        return p;
    }
    void *t = pool_take(bytes);
    if (t) {
        if (zero) memset(t, 0, bytes);
        return t;
    }
    t = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (t == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(t, bytes, MADV_HUGEPAGE);
#endif
    return t;
}

/* Frees what big_alloc gave; a large block is kept for big_alloc to give again. */
static void big_free(void *p, size_t bytes) {
    if (!p) return;
    if (bytes < BIG) free(p);
    else if (!pool_keep(p, bytes)) munmap(p, bytes);
}

static size_t tt_bytes(const Search *s, size_t buckets) { (void)s; return buckets * TT_STRIDE * sizeof(uint64_t); }

static uint64_t *tt_alloc(size_t buckets) {
    return big_alloc(buckets * TT_STRIDE * sizeof(uint64_t), 1);
}

static void tt_store_k(Search *s, uint64_t key, const uint64_t *h, int turn, uint32_t tid, int by, uint32_t pn,
                       uint32_t dn, uint64_t cost);

/* TT_GROW times the buckets (up to the most allowed), every answer moved over; when memory is short the
 * table stays as it is. */
static void tt_grow(Search *s) {
    size_t buckets = s->tt_buckets * TT_GROW < s->tt_max_buckets ? s->tt_buckets * TT_GROW : s->tt_max_buckets;
    uint64_t *old = s->tt, *t = tt_alloc(buckets);
    if (!t) {
        s->tt_max_buckets = s->tt_buckets;
        return;
    }
    size_t n = s->tt_buckets * s->tt_ways, w = s->tt_words, ways = s->tt_ways, old_bytes = tt_bytes(s, s->tt_buckets);
    s->tt = t;
    s->tt_buckets = buckets;
    s->tt_used = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t *e = old + (i / ways) * TT_STRIDE + (i % ways) * w, last = e[s->players];
        if (!(last & 63)) continue;
        uint64_t h[MAXSEATS];
        memcpy(h, e, sizeof(uint64_t) * (size_t)s->players);
        tt_store_k(s, hands_key(s, h), h, (int)((last >> 16) & 0xffff), (uint32_t)(last >> 32), (int)((last >> 8) & 0xff),
                 (uint32_t)(e[s->players + 1] >> 32), (uint32_t)e[s->players + 1], (uint64_t)1 << ((last & 63) - 1));
    }
    big_free(old, old_bytes);
}

/* Keep what took ``cost`` nodes to learn: in its own slot, an empty one, or (the bucket full at the
 * table's bound) an empty one of the neighbour bucket, or in place of the one of the two buckets
 * that took fewest nodes. */
static void tt_store_k(Search *s, uint64_t key, const uint64_t *h, int turn, uint32_t tid, int by, uint32_t pn,
                       uint32_t dn, uint64_t cost) {
    uint64_t *b = tt_bucket_k(s, key, turn, tid, by), tag = tt_tag(tid, turn, by), *slot = NULL;
    int work = 1, least = 64, spill = 0;
    for (uint64_t c = cost; c > 1 && work < 63; c >>= 1) work++;
    uint64_t *e = b;
    for (int w = 0; w < (int)s->tt_ways; w++, e += s->tt_words) {
        int held = (int)(e[s->players] & 63);
        if (tt_same(s, e, h, tag)) {
            slot = e;
            least = -1;
            break;
        }
        if (held < least) {
            least = held;
            slot = e;
        }
    }
    if (least > 0 && b[TT_SPILL]) { /* kept in the neighbour before? */
        e = tt_neighbour(s, b);
        for (int w = 0; w < (int)s->tt_ways; w++, e += s->tt_words)
            if (tt_same(s, e, h, tag)) {
                slot = e;
                least = -1;
                break;
            }
    }
    if (least > 0 && s->tt_buckets < s->tt_max_buckets) { /* a full bucket: grow rather than forget */
        tt_grow(s); /* (or, short of memory, make the present size the largest) */
        tt_store_k(s, key, h, turn, tid, by, pn, dn, cost);
        return;
    }
    if (least > 0) { /* full at the bound: the neighbour's empty slot, or the least of both */
        e = tt_neighbour(s, b);
        for (int w = 0; w < (int)s->tt_ways; w++, e += s->tt_words) {
            int held = (int)(e[s->players] & 63);
            if (held < least) {
                least = held;
                slot = e;
                spill = 1;
            }
        }
    }
    if (spill) b[TT_SPILL] = 1;
    if (least == 0) s->tt_used++;
    else if (least > 0) s->tt_replaced++;
    for (int i = 0; i < s->players; i++) slot[i] = h[i];
    slot[s->players] = tag | (uint64_t)work;
    slot[s->players + 1] = (uint64_t)pn << 32 | dn;
}

static inline void tt_store(Search *s, const uint64_t *h, int turn, uint32_t tid, int by, uint32_t pn, uint32_t dn,
                            uint64_t cost) {
    tt_store_k(s, hands_key(s, h), h, turn, tid, by, pn, dn, cost);
}

/* A proved answer: whether the landlord wins. */
static inline void tt_put_k(Search *s, uint64_t key, const uint64_t *h, int turn, uint32_t tid, int by, int value,
                            uint64_t cost) {
    tt_store_k(s, key, h, turn, tid, by, value ? 0 : INF, value ? INF : 0, cost);
}

#endif /* DDZ_SOLVER_TABLE_H */
