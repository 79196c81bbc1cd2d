/* The compiled core's types and state: rule options, plays, moves, the slots of its tables and caches,
 * and the Search object that holds them.
 *
 * A part of engine/solver/_core.c, which includes the parts in order in one translation unit
 * (every function static). */
#ifndef DDZ_SOLVER_CORE_H
#define DDZ_SOLVER_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <pthread.h>

#define NR 15
#define BJ 13
#define RJ 14
#define ACE 11
#define TWO 12
#define NONE 255
#define MAXSEATS 4
#define MAXREADINGS 64
#define NIB(h, r) ((int)(((h) >> (4 * (r))) & 15u))
#define ONE(r) ((uint64_t)1 << (4 * (r)))

/* The order of engine.combination.TYPES (checked by the Python side at import). */
enum {
    T_SINGLE, T_PAIR, T_TRIO, T_TRIO_SINGLE, T_TRIO_PAIR, T_STRAIGHT, T_PAIR_STRAIGHT, T_AIRPLANE,
    T_AIRPLANE_SINGLE, T_AIRPLANE_PAIR, T_BOMB, T_ROCKET, T_FOUR_TWO_SINGLE, T_FOUR_TWO_PAIR, NTYPES
};
static const char *TYPE_NAMES[NTYPES] = {
    "single", "pair", "trio", "trio_single", "trio_pair", "straight", "pair_straight", "airplane",
    "airplane_single", "airplane_pair", "bomb", "rocket", "four_two_single", "four_two_pair"};

/* The rule options the generators read (engine.rules.RuleSet fields of the same names). */
typedef struct {
    int trio_single, trio_pair, four_two, straight_min, pair_chain_min, trio_chain_min, chain_high;
    int low_straights, joker_pairs, rocket_jokers, bomb_min, bomb_max, bomb_size_first;
    int airplane_kicker_repeat, airplane_kicker_trio, kicker_four_of_rank, kicker_rocket, kicker_core_rank;
    int four_two_single_pair, four_two_pair_same;
} Rules;

static const char *RULE_NAMES[] = {
    "trio_single", "trio_pair", "four_two", "straight_min", "pair_chain_min", "trio_chain_min", "chain_high",
    "low_straights", "joker_pairs", "rocket_jokers", "bomb_min", "bomb_max", "bomb_size_first",
    "airplane_kicker_repeat", "airplane_kicker_trio", "kicker_four_of_rank", "kicker_rocket", "kicker_core_rank",
    "four_two_single_pair", "four_two_pair_same", NULL};

/* A generated play. */
typedef struct {
    uint64_t pint;
    uint8_t type, main, length, size;
} Play;

/* A move kept in the move cache: the play and the trick it leaves. */
typedef struct {
    uint64_t pint;
    uint32_t after;
    uint8_t type, main, length, bomb;
} Move;

/* A table entry is players + 2 words: the hands; tid << 32 | gen << 18 | turn << 16 | by << 8 | work
 * (gen: the table's generation, _table.h; work: log2 of the nodes it took, 1..63; 0: an empty
 * slot, as is a slot of another generation); then the proof and disproof numbers of "the landlord
 * wins" (pn << 32 | dn). A proved answer is (0, INF): the landlord wins, or (INF, 0): it loses; the
 * proof-number search also keeps its estimates of positions not proved yet. Entries come in
 * buckets of TT_LINES cache lines, aligned, as many entries as fit beside one word (3 of 40 bytes
 * in two lines in the three- and two-seat games, 2 of 48 in the four-seat): a probe reads two
 * lines, where four entries of 40 bytes unaligned spanned three. The last word is not used: which
 * slots are used, their fingerprints and whether the bucket spilled into its neighbour at the
 * table's bound are in the bucket's side word, in an array of its own (_table.h). */
#ifndef TT_LINES
#define TT_LINES 2
#endif
#define TT_STRIDE (TT_LINES * 8) /* words a bucket */
#ifndef TT_GROW
/* A full table grows to this many times its buckets. Each growth maps a new block, whose pages
 * the system zeroes when first written, and moves every answer over: growing eightfold makes
 * three steps of the way to 64 MiB, not eight (docs/solver-log.md: the system time it saves). */
#define TT_GROW 8
#endif
#ifndef PREFETCH
#define PREFETCH 8 /* children whose buckets a node asks for at once */
#endif
#ifndef FIRST_SLICE
#define FIRST_SLICE 20 /* log2 of the alpha-beta's first slice of nodes in the portfolio (cuts 4) */
#endif
#ifndef PN_SLICE
#define PN_SLICE 1 /* the proof-number search's slices: half the alpha-beta's (its nodes cost more) */
#endif
#define INF 0xffffffffu   /* proved */
#define CAP 0xfffffff0u   /* the largest estimate of a position not proved */

typedef struct { uint64_t h; uint32_t tid, off, n, ordinary; } MoveSlot; /* off + 1; 0 = empty */
typedef struct { uint64_t h; int32_t n; } NeedSlot;                     /* n + 1; 0 = empty */
typedef struct { uint64_t pint; uint32_t off, n; } ReadSlot;            /* off + 1 in n's place */
typedef struct { uint64_t pint; uint32_t tid, after; } AfterSlot;       /* after + 1; 0 = empty */
#define TOPS_MAX 40 /* the most readings a TopsSlot keeps */
/* A hand's highest reading of each type and length among its plays (cuts 512 and 1024; n + 1,
 * 0 = empty; n = 255: more than TOPS_MAX). */
typedef struct { uint64_t h; uint32_t key[TOPS_MAX]; uint8_t n; } TopsSlot;
#define TOPS_SLOTS 4096
/* A hand played whole: the trick it leaves when led (its readings as one play; 0: it is no one
 * play), in a small direct-mapped memo that stays in the inner caches (h = 0: empty; no seat in
 * play has an empty hand). */
typedef struct { uint64_t h; uint32_t tid; } WholeSlot;
#define WHOLE_SLOTS 4096

typedef struct {
    PyObject_HEAD
    Rules R;
    int players, landlord, cuts, use_table;
    int side[MAXSEATS], next[MAXSEATS];
    /* transposition table */
    uint64_t *tt;
    uint16_t *tt_side; /* a word a bucket: its slots used, their fingerprints (_table.h) */
    uint8_t tt_slot_lines[4]; /* the cache lines of a bucket each slot lies on (bit i: line i) */
    size_t tt_buckets, tt_max_buckets, tt_words, tt_ways, tt_used;
    uint64_t tt_born, tt_lo, tt_hi; /* the table's generation clock; the block's users' (_table.h) */
    uint64_t tt_gen;                /* the generation in the tags, from tt_born */
    int huge;                       /* the table and caches are on huge pages (_table.h) */
    uint64_t huge_at;               /* ... from this many nodes on */
    /* move cache: lists in one arena */
    MoveSlot *mv;
    size_t mv_mask, mv_used;
    Move *arena;
    size_t arena_n, arena_cap;
    uint64_t epoch;
    /* 手数 memo */
    NeedSlot *need;
    size_t need_mask, need_used;
    /* readings of a set of cards */
    ReadSlot *rd;
    size_t rd_mask, rd_used;
    uint32_t *rkeys;
    size_t rkeys_n, rkeys_cap;
    /* tricks: sets of readings, interned */
    uint32_t *tkeys;
    size_t tkeys_n, tkeys_cap;
    uint32_t *toff, *tlen;
    size_t ntricks, tricks_cap;
    uint32_t *tmap; /* tid + 1; 0 = empty */
    size_t tmap_mask;
    AfterSlot *af;
    size_t af_mask, af_used;
    TopsSlot *tops; /* cut 512's memo, direct-mapped, made when first used */
    WholeSlot *whole; /* whole_play's memo */
    /* generation scratch, used as a stack */
    Play *sv;
    size_t sn, scap;
    /* the proof-number search's children, a stack too */
    struct Child *cv;
    size_t cn, ccap;
    /* budget */
    uint64_t nodes, limit, slice_end;
    double deadline;
    int abort, oom, busy, stop, slice_hit;
    uint64_t cache_clears, tt_replaced, tt_probes, tt_hits;
} Search;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* A position's hands copied (2 to MAXSEATS words): written out, where memcpy of a length known
 * only at run time is a call into the C library at every node. */
static inline void copy_hands(uint64_t *to, const uint64_t *from, int players) {
    to[0] = from[0];
    to[1] = from[1];
    if (players > 2) to[2] = from[2];
    if (players > 3) to[3] = from[3];
}

static size_t pow2_at_least(size_t n) {
    size_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

#endif /* DDZ_SOLVER_CORE_H */
