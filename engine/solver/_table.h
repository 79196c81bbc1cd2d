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

/* A position's table hash: its hands' key mixed with the trick, the seat to move and the
 * trick's maker. Its high bits pick the bucket, its low 4 the slot's fingerprint (below). */
static inline uint64_t tt_hash(uint64_t key, int turn, uint32_t tid, int by) {
    return key + (uint64_t)tid * 0x9e3779b97f4a7c15ULL + ((uint64_t)turn << 8 | (uint64_t)by) * 0xbf58476d1ce4e5b9ULL;
}

static inline size_t tt_index(const Search *s, uint64_t x) {
    return (size_t)(((unsigned __int128)x * s->tt_buckets) >> 64);
}

/* Each bucket has a 16-bit word in a side array (``tt_side``, 2 bytes a bucket: 1 MiB beside a
 * 64 MiB table, small enough to stay in the inner caches): bits 0-1 the slots used (filled in
 * order, never emptied), bit 2 set once the bucket spilled into its neighbour (below), and a
 * 4-bit fingerprint of each used slot's position (bits 4-7, 8-11, 12-15). A probe reads the
 * bucket's entries only where a fingerprint matches, and a store into a bucket with a free slot
 * writes it without reading the bucket: most probes find nothing (three in four), and then
 * neither they nor the store after the search touch the table's memory, whose every line is a
 * wait (docs/solver-log.md). */
#define SIDE_USED 3u
#define SIDE_SPILL 4u
static inline unsigned tt_fp(uint64_t x) { return (unsigned)(x & 15u); }
static inline unsigned side_fp(unsigned side, int w) { return (side >> (4 + 4 * w)) & 15u; }

static inline uint64_t *tt_at(const Search *s, size_t b) { return s->tt + b * TT_STRIDE; }

/* Every cache line of a position's bucket, and its side word (read first by its probe). */
static inline void tt_prefetch_k(const Search *s, uint64_t key, int turn, uint32_t tid, int by) {
    size_t b = tt_index(s, tt_hash(key, turn, tid, by));
    const uint64_t *bucket = tt_at(s, b);
    __builtin_prefetch(&s->tt_side[b]);
    for (int i = 0; i < TT_LINES; i++) __builtin_prefetch(bucket + 8 * i);
}

/* The lines of a position's bucket that its probe or its store will touch, as its side word
 * says: those of the slots whose fingerprint matches and of the next free slot; every line where
 * the bucket is full or spilled (the store then reads them all). */
static inline void tt_prefetch_slots(const Search *s, uint64_t key, int turn, uint32_t tid, int by) {
    uint64_t x = tt_hash(key, turn, tid, by);
    size_t b = tt_index(s, x);
    unsigned side = s->tt_side[b], fp = tt_fp(x), n = side & SIDE_USED, lines;
    const uint64_t *bucket = tt_at(s, b);
    if (n == s->tt_ways || (side & SIDE_SPILL)) {
        lines = (1u << TT_LINES) - 1;
    } else {
        lines = s->tt_slot_lines[n];
        for (unsigned w = 0; w < n; w++)
            if (side_fp(side, (int)w) == fp) lines |= s->tt_slot_lines[w];
    }
    for (int i = 0; i < TT_LINES; i++)
        if (lines >> i & 1) __builtin_prefetch(bucket + 8 * i);
}

/* Generations: a table's block taken again from the pool (below) is not zeroed. Its side words
 * are new and zero with each table (tt_side_alloc), so no slot of an earlier solver is read as
 * used; its entries also carry the generation of the solver that wrote them (14 bits of the
 * tag), and an entry of another generation is never taken for this solver's (a second guard).
 * A solver's generation comes from a clock counted once a
 * solver (``tt_born``, 1, 2, ...; GEN_SPAN generations, then they come round again); a block keeps
 * the clock of the first and last solvers that used it since it was last zeroed (``tt_lo``,
 * ``tt_hi``), and is zeroed when the solver taking it could meet its own generation there. */
#define GEN_SPAN 16383u
#define GEN_SHIFT 18

static inline uint64_t tt_tag(const Search *s, uint32_t tid, int turn, int by) {
    return (uint64_t)tid << 32 | s->tt_gen << GEN_SHIFT | (uint64_t)turn << 16 | (uint64_t)by << 8;
}

#define TAG_MASK 0xffffffffffffff00ULL /* tid, gen, turn, by: what identifies an entry beside the hands */

static inline int tt_same(const Search *s, const uint64_t *e, const uint64_t *h, uint64_t tag) {
    uint64_t last = e[s->players];
    if (!(last & 63) || (last & TAG_MASK) != tag) return 0;
    for (int i = 0; i < s->players; i++)
        if (e[i] != h[i]) return 0;
    return 1;
}

/* A bucket spills at the table's bound: full, it keeps a new answer in its neighbour (bucket
 * b ^ 1, the other half of an aligned pair), and its side word says so: a probe reads the
 * neighbour's side word only then. */
static inline size_t tt_neighbour(size_t b) { return b ^ 1; }

/* The used slot of bucket b holding the position (fingerprint fp, tag), or -1. */
static inline int tt_slot_of(const Search *s, size_t b, unsigned fp, const uint64_t *h, uint64_t tag) {
    unsigned side = s->tt_side[b];
    for (int w = 0; w < (int)(side & SIDE_USED); w++)
        if (side_fp(side, w) == fp && tt_same(s, tt_at(s, b) + (size_t)w * s->tt_words, h, tag)) return w;
    return -1;
}

static const uint64_t *tt_find_k(Search *s, uint64_t key, const uint64_t *h, int turn, uint32_t tid, int by) {
    uint64_t x = tt_hash(key, turn, tid, by), tag = tt_tag(s, tid, turn, by);
    size_t b = tt_index(s, x);
    unsigned fp = tt_fp(x);
    s->tt_probes++;
    int w = tt_slot_of(s, b, fp, h, tag);
    if (w < 0 && (s->tt_side[b] & SIDE_SPILL)) w = tt_slot_of(s, b = tt_neighbour(b), fp, h, tag);
    if (w < 0) return NULL;
    s->tt_hits++;
    return tt_at(s, b) + (size_t)w * s->tt_words;
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
 * each position has a fresh solver. A kept block's pages are already there; a cache's is zeroed
 * here, a table's only where its generations require it (above). Shared by every solver of the
 * process, under a lock: searches run without the GIL, in several threads. At most POOL_BLOCKS
 * blocks and POOL_MB MiB are kept. */
#ifndef POOL_BLOCKS
#define POOL_BLOCKS 16
#endif
#ifndef POOL_MB
#define POOL_MB 160 /* a whole solver's blocks at the default sizes (64 and 32 MiB) and its table's last growth */
#endif
static struct { void *p; size_t bytes; uint64_t when, lo, hi, kind; } pool[POOL_BLOCKS];
static size_t pool_bytes;
static uint64_t pool_clock, gen_clock;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* A kept block of exactly ``bytes``, or NULL; with what it held (``kind``: the words of a table
 * entry, 0 for anything else) and the generation clocks of its users (above). */
static void *pool_take(size_t bytes, uint64_t *lo, uint64_t *hi, uint64_t *kind) {
    void *p = NULL;
    int last = -1; /* the one kept last: the likeliest to be in the caches still */
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < POOL_BLOCKS; i++)
        if (pool[i].p && pool[i].bytes == bytes && (last < 0 || pool[i].when > pool[last].when)) last = i;
    if (last >= 0) {
        p = pool[last].p;
        *lo = pool[last].lo;
        *hi = pool[last].hi;
        *kind = pool[last].kind;
        pool[last].p = NULL;
        pool_bytes -= bytes;
    }
    pthread_mutex_unlock(&pool_lock);
    return p;
}

/* Keeps the block, giving the longest kept ones back to the system to make room; 0 when it is
 * larger than the pool (the caller gives it back). */
static int pool_keep(void *p, size_t bytes, uint64_t lo, uint64_t hi, uint64_t kind) {
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
    pool[slot].lo = lo;
    pool[slot].hi = hi;
    pool[slot].kind = kind;
    pool_bytes += bytes;
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < nout; i++) munmap(out[i], out_bytes[i]);
    return 1;
}

/* Huge pages (2 MiB) for the table and the caches, which are read at random a few times a node:
 * with them a node's TLB misses go, and its time falls by a tenth to a third, by machine
 * (docs/solver-log.md). Where a huge page costs little more to touch first than its 512 small
 * ones (huge_cheap: measured once a process), a solver's blocks are on huge pages from the start.
 * Where it costs far more (memory lent by some hypervisors: 6-8 ms of system time a MiB against
 * 0.3-0.4, 0.4-0.6 s for a 64 MiB table, more than a short search takes), a solver's blocks start
 * on small pages and go onto huge ones (MADV_COLLAPSE: moved now; a kernel without it does so in
 * the background) once it has searched 2^HUGE_AFTER nodes (``huge_after``), where a search has
 * shown it is a long one. A kept block already on huge pages stays on them, whoever takes it. */
#ifndef HUGE_AFTER
#define HUGE_AFTER 24
#endif
#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(MADV_COLLAPSE)
#define MADV_COLLAPSE 25 /* Linux 6.1; older C headers lack the name, older kernels refuse it (harmless) */
#endif

/* Whether a huge page, first touched, costs at most HUGE_CHEAP times the 512 small pages it
 * holds: one of each is touched in a fresh mapping, timed, once a process (a few milliseconds at
 * most). Where huge pages are off, or unknown to the kernel, the two cost the same (and asking
 * for them is harmless). */
#ifndef HUGE_CHEAP
#define HUGE_CHEAP 4
#endif
static pthread_once_t huge_once = PTHREAD_ONCE_INIT;
static int huge_cheap_here;

static double touch_ms(char *block, size_t bytes, int huge) {
#ifdef MADV_HUGEPAGE
    if (huge) madvise(block, bytes, MADV_HUGEPAGE);
#else
    (void)huge;
#endif
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; i < bytes; i += 4096) ((volatile char *)block)[i] = 1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
}

static void huge_probe(void) {
    size_t page = (size_t)2 << 20, bytes = 3 * page;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    char *a = (char *)(((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1)); /* two aligned pages inside */
    double small = touch_ms(a, page, 0), huge = touch_ms(a + page, page, 1);
    huge_cheap_here = huge <= HUGE_CHEAP * small;
    munmap(p, bytes);
}

static int huge_cheap(void) {
    pthread_once(&huge_once, huge_probe);
    return huge_cheap_here;
}

/* Puts a block onto huge pages: those it has now (``touched``) and those touched later. */
static void to_huge(void *p, size_t bytes, int touched) {
    if (!p || bytes < BIG) return;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#ifdef MADV_COLLAPSE
    if (touched) madvise(p, bytes, MADV_COLLAPSE);
#endif
#else
    (void)touched;
#endif
}

/* A fresh mapping (zero when first touched); on huge pages when ``huge``. */
static void *big_map(size_t bytes, int huge) {
    void *t = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (t == MAP_FAILED) return NULL;
    if (huge) to_huge(t, bytes, 0);
    return t;
}

/* Memory for ``bytes``, zeroed when ``zero`` (else its content is anything). A large block is a
 * kept one, or mapped (its pages are zero when first touched, so what a search never reaches
 * costs nothing), on small pages (above). */
static void *big_alloc(size_t bytes, int zero) {
    if (bytes < BIG) { /* aligned to a cache line: the table's buckets are laid out on them */
        size_t rounded = (bytes + 63) & ~(size_t)63;
        void *p = aligned_alloc(64, rounded ? rounded : 64);
        if (p) memset(p, 0, rounded);
        return p;
    }
    uint64_t lo, hi, kind;
    void *t = pool_take(bytes, &lo, &hi, &kind);
    if (t) {
        if (zero) memset(t, 0, bytes);
        return t;
    }
    return big_map(bytes, 0);
}

/* Frees what big_alloc gave; a large block is kept for big_alloc to give again. */
static void big_free(void *p, size_t bytes) {
    if (!p) return;
    if (bytes < BIG) free(p);
    else if (!pool_keep(p, bytes, 0, 0, 0)) munmap(p, bytes);
}

static size_t tt_bytes(const Search *s, size_t buckets) { (void)s; return buckets * TT_STRIDE * sizeof(uint64_t); }

/* The solver's generation (once, when its tables are made). */
static void tt_new_generation(Search *s) {
    pthread_mutex_lock(&pool_lock);
    s->tt_born = ++gen_clock;
    pthread_mutex_unlock(&pool_lock);
    s->tt_gen = s->tt_born % GEN_SPAN + 1;
}

/* A table block of ``buckets``, empty for this solver's generation: a kept one is zeroed only
 * where it held something else than entries laid out as this solver's, or where a solver of the
 * same generation may have used it (the clocks of its users span GEN_SPAN); sets tt_lo and tt_hi
 * for it. */
static uint64_t *tt_alloc_from(Search *s, size_t buckets, int kept_only) {
    size_t bytes = buckets * TT_STRIDE * sizeof(uint64_t);
    uint64_t lo = s->tt_born, hi = s->tt_born, kind = 0;
    void *t = NULL;
    if (bytes < BIG) t = kept_only ? NULL : big_alloc(bytes, 1);
    else if ((t = pool_take(bytes, &lo, &hi, &kind)) != NULL) {
        if (s->tt_born < lo) lo = s->tt_born;
        if (s->tt_born > hi) hi = s->tt_born;
        if (kind != s->tt_words || hi - lo >= GEN_SPAN) {
            memset(t, 0, bytes);
            lo = hi = s->tt_born;
        }
        if (s->huge) to_huge(t, bytes, 1);
    } else if (!kept_only)
        t = big_map(bytes, s->huge);
    if (t) {
        s->tt_lo = lo;
        s->tt_hi = hi;
    }
    return t;
}

static uint64_t *tt_alloc(Search *s, size_t buckets) { return tt_alloc_from(s, buckets, 0); }

/* The table a solver starts with: a kept block of the largest size where the pool has one (an
 * earlier solver's: its pages are there, and the table never grows, which moved every answer
 * over three times), else a small one that grows as it fills (a fresh block's pages cost the
 * system's time when first touched, and a short search touches few). */
static uint64_t *tt_first(Search *s) {
    uint64_t *t = tt_alloc_from(s, s->tt_max_buckets, 1);
    s->tt_buckets = s->tt_max_buckets;
    if (t) return t;
    s->tt_buckets = s->tt_max_buckets < 2048 ? s->tt_max_buckets : 2048;
    return tt_alloc(s, s->tt_buckets);
}

/* Frees a table block, kept with its entries' layout and the clocks of its users. */
static void tt_free(const Search *s, uint64_t *t, size_t buckets, uint64_t lo, uint64_t hi) {
    size_t bytes = buckets * TT_STRIDE * sizeof(uint64_t);
    if (!t) return;
    if (bytes < BIG) free(t);
    else if (!pool_keep(t, bytes, lo, hi, s->tt_words)) munmap(t, bytes);
}

static void tt_store_k(Search *s, uint64_t key, const uint64_t *h, int turn, uint32_t tid, int by, uint32_t pn,
                       uint32_t dn, uint64_t cost);

/* A table's side words (zero: every bucket empty). */
static uint16_t *tt_side_alloc(size_t buckets) { return big_alloc(buckets * sizeof(uint16_t), 1); }
static void tt_side_free(uint16_t *side, size_t buckets) { big_free(side, buckets * sizeof(uint16_t)); }

/* TT_GROW times the buckets (up to the most allowed), every answer moved over; when memory is short the
 * table stays as it is. */
static void tt_grow(Search *s) {
    size_t buckets = s->tt_buckets * TT_GROW < s->tt_max_buckets ? s->tt_buckets * TT_GROW : s->tt_max_buckets;
    uint64_t *old = s->tt, old_lo = s->tt_lo, old_hi = s->tt_hi, *t = tt_alloc(s, buckets);
    uint16_t *old_side = s->tt_side, *side = t ? tt_side_alloc(buckets) : NULL;
    if (!side) {
        if (t) tt_free(s, t, buckets, s->tt_lo, s->tt_hi);
        s->tt_lo = old_lo;
        s->tt_hi = old_hi;
        s->tt_max_buckets = s->tt_buckets;
        return;
    }
    size_t w = s->tt_words, old_buckets = s->tt_buckets;
    s->tt = t;
    s->tt_side = side;
    s->tt_buckets = buckets;
    s->tt_used = 0;
    for (size_t b = 0; b < old_buckets; b++)
        for (unsigned i = 0; i < (old_side[b] & SIDE_USED); i++) {
            const uint64_t *e = old + b * TT_STRIDE + i * w, last = e[s->players];
            uint64_t h[MAXSEATS];
            copy_hands(h, e, s->players);
            tt_store_k(s, hands_key(s, h), h, (int)((last >> 16) & 3), (uint32_t)(last >> 32), (int)((last >> 8) & 0xff),
                       (uint32_t)(e[s->players + 1] >> 32), (uint32_t)e[s->players + 1], (uint64_t)1 << ((last & 63) - 1));
        }
    tt_free(s, old, old_buckets, old_lo, old_hi);
    tt_side_free(old_side, old_buckets);
}

/* The work of slot w of bucket b (log2 of its nodes), 0 where it is free. */
static inline int tt_work_at(const Search *s, size_t b, int w) {
    return w < (int)(s->tt_side[b] & SIDE_USED) ? (int)(tt_at(s, b)[(size_t)w * s->tt_words + (size_t)s->players] & 63) : 0;
}

/* Keep what took ``cost`` nodes to learn: in its own slot, the bucket's next free one (written
 * without reading the bucket), or (the bucket full at the table's bound) the neighbour bucket's
 * next free one, or in place of the one of the two buckets that took fewest nodes. */
static void tt_store_k(Search *s, uint64_t key, const uint64_t *h, int turn, uint32_t tid, int by, uint32_t pn,
                       uint32_t dn, uint64_t cost) {
    uint64_t x = tt_hash(key, turn, tid, by), tag = tt_tag(s, tid, turn, by);
    size_t b = tt_index(s, x), at = b;
    unsigned fp = tt_fp(x), home = s->tt_side[b], ways = (unsigned)s->tt_ways;
    int work = 1, least = 64, slot = tt_slot_of(s, b, fp, h, tag);
    for (uint64_t c = cost; c > 1 && work < 63; c >>= 1) work++;
    if (slot < 0 && (home & SIDE_SPILL)) { /* kept in the neighbour before? */
        slot = tt_slot_of(s, tt_neighbour(b), fp, h, tag);
        if (slot >= 0) at = tt_neighbour(b);
    }
    if (slot >= 0) {
        least = -1;
    } else if ((home & SIDE_USED) < ways) {
        least = 0;
        slot = (int)(home & SIDE_USED);
    } else if (s->tt_buckets < s->tt_max_buckets) { /* a full bucket: grow rather than forget */
        tt_grow(s); /* (or, short of memory, make the present size the largest) */
        tt_store_k(s, key, h, turn, tid, by, pn, dn, cost);
        return;
    } else { /* full at the bound: the neighbour's next free slot, or the least of both */
        for (int w = 0; w < (int)ways; w++) {
            int held = tt_work_at(s, b, w);
            if (held < least) {
                least = held;
                slot = w;
            }
        }
        size_t nb = tt_neighbour(b);
        for (int w = 0; w < (int)ways; w++) {
            int held = tt_work_at(s, nb, w);
            if (held < least) {
                least = held;
                slot = w;
                at = nb;
            }
        }
        if (at != b) s->tt_side[b] = (uint16_t)(s->tt_side[b] | SIDE_SPILL);
    }
    if (least >= 0) { /* a new position in slot ``slot`` of bucket ``at``: its side word says so */
        unsigned side = s->tt_side[at], shift = 4 + 4 * (unsigned)slot;
        side = (side & ~(15u << shift)) | fp << shift;
        if ((unsigned)slot == (side & SIDE_USED)) side++;
        s->tt_side[at] = (uint16_t)side;
    }
    if (least == 0) s->tt_used++;
    else if (least > 0) s->tt_replaced++;
    uint64_t *e = tt_at(s, at) + (size_t)slot * s->tt_words;
    for (int i = 0; i < s->players; i++) e[i] = h[i];
    e[s->players] = tag | (uint64_t)work;
    e[s->players + 1] = (uint64_t)pn << 32 | dn;
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
