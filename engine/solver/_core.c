/* The solver's compiled core: move generation, tricks, ordering, the table and the alpha-beta.
 *
 * It plays exactly what engine/solver/search.py plays and searches in the same order, so both
 * give the same verdicts and, from the root, the same first winning move (the pure-Python search
 * is the reference; tests/engine/test_solver_core.py runs both side by side). What differs is
 * only how: C integers and arrays instead of dicts and tuples, and a table of bounded memory.
 *
 * - A hand is a uint64, four bits per rank (two decks hold at most 8 of a rank); a play is the
 *   integer of its rank counts, so playing it is one subtraction.
 * - Move generation mirrors engine/rank_plays.py type by type and in the same order (the order
 *   of equal moves after sorting decides which winning move is found first). The readings of a
 *   set of cards are the lead plays of that set that use every card (rank_plays is complete:
 *   bench/engine.py checks it against classifying every sub-multiset).
 * - A reading is (type, main, length): with the presets the solver plays, a type and a length
 *   fix the size, and beats() needs nothing else. A trick is the sorted set of readings still
 *   possible, interned to a small integer.
 * - The transposition table holds proved answers only (whether the landlord wins), in buckets
 *   of two: a new answer replaces the one of the two that cost fewer nodes to prove.
 * - The move lists, the 手数 (fewest plays to empty a hand) and the readings are kept in caches
 *   of bounded size that are emptied when full. A node does not keep a pointer into the move
 *   cache across a child: it looks its list up again when the cache was emptied meanwhile.
 * - The search runs without the GIL: a background analysis leaves the web server responsive.
 *
 * Options beyond the reference (``cuts``):
 * - 1: a static win: the seat to move leads, or beats the trick with a play no opponent answers,
 *   and then goes out leading plays of which at most one can be answered (static_win).
 * - 2: below the root, proof-number search (df-pn) instead of the alpha-beta (mid).
 * - 4: both, in turn, on slices of nodes that double (child_value).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

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

/* A table entry is players + 2 words: the hands; tid << 32 | turn << 16 | by << 8 | work (log2 of
 * the nodes it took, 1..63; 0: an empty slot); then the proof and disproof numbers of "the landlord
 * wins" (pn << 32 | dn). A proved answer is (0, INF): the landlord wins, or (INF, 0): it loses; the
 * proof-number search also keeps its estimates of positions not proved yet. Entries come in
 * buckets of TT_WAYS. */
#define TT_WAYS 4
#define PREFETCH 8 /* children whose buckets a node asks for at once */
#define INF 0xffffffffu   /* proved */
#define CAP 0xfffffff0u   /* the largest estimate of a position not proved */

typedef struct { uint64_t h; uint32_t tid, off, n, ordinary; } MoveSlot; /* off + 1; 0 = empty */
typedef struct { uint64_t h; int32_t n; } NeedSlot;                     /* n + 1; 0 = empty */
typedef struct { uint64_t pint; uint32_t off, n; } ReadSlot;            /* off + 1 in n's place */
typedef struct { uint64_t pint; uint32_t tid, after; } AfterSlot;       /* after + 1; 0 = empty */

typedef struct {
    PyObject_HEAD
    Rules R;
    int players, landlord, cuts, use_table;
    int side[MAXSEATS], next[MAXSEATS];
    /* transposition table */
    uint64_t *tt;
    size_t tt_buckets, tt_max_buckets, tt_words, tt_used;
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

static size_t pow2_at_least(size_t n) {
    size_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

/* ------------------------------------------------------------------ readings and beats */

static inline uint32_t key_of(int type, int main, int length) {
    return ((uint32_t)type << 16) | ((uint32_t)length << 8) | (uint32_t)main;
}
static inline int k_type(uint32_t k) { return (int)(k >> 16); }
static inline int k_length(uint32_t k) { return (int)((k >> 8) & 255u); }
static inline int k_main(uint32_t k) { return (int)(k & 255u); }

/* engine.classify.chain_position: A and 2 play low in the A2345 / 23456 straights. */
static inline int chain_pos(int type, int main) {
    return (type == T_STRAIGHT && main >= ACE) ? main - 13 : main;
}

static inline int bomb_value(const Rules *R, uint32_t k) {
    return R->bomb_size_first ? k_length(k) * 32 + k_main(k) : k_main(k) * 32 + k_length(k);
}

/* engine.classify.beats on readings. */
static int beats(const Rules *R, uint32_t a, uint32_t b) {
    int at = k_type(a), bt = k_type(b);
    if (bt == T_ROCKET) return 0;
    if (at == T_ROCKET) return 1;
    if (at == T_BOMB) return bt != T_BOMB || bomb_value(R, a) > bomb_value(R, b);
    if (bt == T_BOMB || at != bt || k_length(a) != k_length(b)) return 0;
    return chain_pos(at, k_main(a)) > chain_pos(bt, k_main(b));
}

/* ------------------------------------------------------------------ move generation */

typedef struct {
    Search *s;
    const Rules *R;
    int c[NR];
    int total;
} Gen;

static int s_reserve(Search *s, size_t more) {
    if (s->sn + more <= s->scap) return 0;
    size_t cap = s->scap ? s->scap : 1024;
    while (cap < s->sn + more) cap *= 2;
    Play *v = realloc(s->sv, cap * sizeof(Play));
    if (!v) {
        s->oom = 1;
        return -1;
    }
    s->sv = v;
    s->scap = cap;
    return 0;
}

static inline void push(Gen *g, int type, int main, int length, int size, uint64_t pint) {
    Search *s = g->s;
    if (s->sn == s->scap && s_reserve(s, 1)) return;
    Play *p = &s->sv[s->sn++];
    p->pint = pint;
    p->type = (uint8_t)type;
    p->main = (uint8_t)main;
    p->length = (uint8_t)length;
    p->size = (uint8_t)size;
}

static void gen_init(Gen *g, Search *s, uint64_t h) {
    g->s = s;
    g->R = &s->R;
    g->total = 0;
    for (int r = 0; r < NR; r++) {
        g->c[r] = NIB(h, r);
        g->total += g->c[r];
    }
}

static inline int imax(int a, int b) { return a > b ? a : b; }
static inline int imin(int a, int b) { return a < b ? a : b; }
static inline int pair_top(const Rules *R) { return R->joker_pairs ? NR : BJ; }

static void g_single(Gen *g, int floor) {
    for (int r = imax(floor + 1, 0); r < NR; r++)
        if (g->c[r]) push(g, T_SINGLE, r, 1, 1, ONE(r));
}

static void g_pair(Gen *g, int floor) {
    int top = pair_top(g->R);
    for (int r = imax(floor + 1, 0); r < top; r++)
        if (g->c[r] >= 2) push(g, T_PAIR, r, 1, 2, 2 * ONE(r));
}

static void g_trio(Gen *g, int floor) {
    for (int r = imax(floor + 1, 0); r < BJ; r++)
        if (g->c[r] >= 3) push(g, T_TRIO, r, 1, 3, 3 * ONE(r));
}

static void g_bombs(Gen *g) { /* every bomb by size then rank, then the rocket */
    const Rules *R = g->R;
    for (int size = R->bomb_min; size <= R->bomb_max; size++)
        for (int r = 0; r < BJ; r++)
            if (g->c[r] >= size && g->c[r] >= R->bomb_min) push(g, T_BOMB, r, size, size, (uint64_t)size * ONE(r));
    int half = R->rocket_jokers / 2;
    if (g->c[BJ] >= half && g->c[RJ] >= half)
        push(g, T_ROCKET, BJ, 2 * half, 2 * half, (uint64_t)half * ONE(BJ) + (uint64_t)half * ONE(RJ));
}

/* Chains of ``each`` cards a rank: by length, then low rank (the order of a sorted lead). */
static void g_chains(Gen *g, int type, int each, int min_len, int length, int floor) {
    int high = g->R->chain_high, lo0 = imax(floor + 1, 0);
    int run[NR + 1];
    run[high + 1] = 0;
    for (int r = high; r >= 0; r--) run[r] = g->c[r] >= each ? run[r + 1] + 1 : 0;
    int nmin = length > 0 ? length : min_len, nmax = length > 0 ? length : high - lo0 + 1;
    if (nmin < min_len) nmin = min_len;
    for (int n = nmin; n <= nmax; n++)
        for (int lo = lo0; lo + n - 1 <= high; lo++)
            if (run[lo] >= n) {
                uint64_t pint = 0;
                for (int r = lo; r < lo + n; r++) pint += (uint64_t)each * ONE(r);
                push(g, type, lo, n, each * n, pint);
            }
}

static void g_straight(Gen *g, int length, int floor) {
    const Rules *R = g->R;
    if (!R->low_straights) {
        g_chains(g, T_STRAIGHT, 1, R->straight_min, length, floor);
        return;
    }
    /* by length: the ordinary straights, then A2345... (main A), then 23456... (main 2) */
    int nmin = length > 0 ? length : R->straight_min, nmax = length > 0 ? length : 13;
    for (int n = nmin; n <= nmax; n++) {
        g_chains(g, T_STRAIGHT, 1, R->straight_min, n, floor);
        if (n < R->straight_min) continue;
        for (int low = ACE; low <= TWO; low++) {
            if (chain_pos(T_STRAIGHT, low) <= floor) continue;
            int below = low == ACE ? n - 2 : n - 1; /* ranks from 3 up */
            int top = low == ACE ? ACE - 1 : ACE;    /* the highest rank those may reach */
            if (!g->c[TWO] || (low == ACE && !g->c[ACE]) || below < 1 || below - 1 > top) continue;
            uint64_t pint = ONE(TWO) + (low == ACE ? ONE(ACE) : 0);
            int ok = 1;
            for (int r = 0; r < below; r++) {
                if (!g->c[r]) {
                    ok = 0;
                    break;
                }
                pint += ONE(r);
            }
            if (ok) push(g, T_STRAIGHT, low, n, n, pint);
        }
    }
}

/* The cards left for kickers per rank: a core rank's spare cards only where the rules allow. */
static void pool_of(Gen *g, const int core[NR], int pool[NR]) {
    int spare = g->R->kicker_core_rank;
    for (int r = 0; r < NR; r++) pool[r] = core[r] ? (spare ? g->c[r] - core[r] : 0) : g->c[r];
}

typedef struct { int r, cap; } Cap;

typedef struct {
    const Cap *caps;
    int ncaps, per, no_rocket, type, main, length, size;
    uint64_t core;
} Kick;

/* Every way to take k units from caps, ranks ascending and fewer of a rank first
 * (engine.rank_plays._multisets). */
static void kick_rec(Gen *g, const Kick *K, int start, int k, uint64_t kick) {
    if (k == 0) {
        if (K->no_rocket && NIB(kick, BJ) && NIB(kick, RJ)) return;
        push(g, K->type, K->main, K->length, K->size, K->core + kick);
        return;
    }
    for (int i = start; i < K->ncaps; i++) {
        int r = K->caps[i].r, m = imin(K->caps[i].cap, k);
        for (int take = 1; take <= m; take++)
            kick_rec(g, K, i + 1, k - take, kick + (uint64_t)(take * K->per) * ONE(r));
    }
}

static void with_kickers(Gen *g, int type, int main, int length, int size, uint64_t core, const Cap *caps,
                         int ncaps, int k, int per, int no_rocket) {
    Kick K = {caps, ncaps, per, no_rocket, type, main, length, size, core};
    kick_rec(g, &K, 0, k, 0);
}

static void g_trio_single(Gen *g, int floor) {
    if (!g->R->trio_single) return;
    for (int r = imax(floor + 1, 0); r < BJ; r++) {
        if (g->c[r] < 3) continue;
        int core[NR] = {0}, pool[NR];
        core[r] = 3;
        pool_of(g, core, pool);
        for (int x = 0; x < NR; x++)
            if (pool[x]) push(g, T_TRIO_SINGLE, r, 1, 4, 3 * ONE(r) + ONE(x));
    }
}

static void g_trio_pair(Gen *g, int floor) {
    if (!g->R->trio_pair) return;
    int top = pair_top(g->R);
    for (int r = imax(floor + 1, 0); r < BJ; r++) {
        if (g->c[r] < 3) continue;
        int core[NR] = {0}, pool[NR];
        core[r] = 3;
        pool_of(g, core, pool);
        for (int x = 0; x < top; x++)
            if (pool[x] >= 2) push(g, T_TRIO_PAIR, r, 1, 5, 3 * ONE(r) + 2 * ONE(x));
    }
}

static void g_four_two_single(Gen *g, int floor) {
    const Rules *R = g->R;
    if (!R->four_two) return;
    int cap = R->four_two_single_pair ? 2 : 1;
    for (int r = imax(floor + 1, 0); r < BJ; r++) {
        if (g->c[r] < 4) continue;
        int core[NR] = {0}, pool[NR], n = 0;
        Cap caps[NR];
        core[r] = 4;
        pool_of(g, core, pool);
        for (int x = 0; x < NR; x++)
            if (pool[x]) caps[n++] = (Cap){x, imin(pool[x], cap)};
        with_kickers(g, T_FOUR_TWO_SINGLE, r, 1, 6, 4 * ONE(r), caps, n, 2, 1, !R->kicker_rocket);
    }
}

static void g_four_two_pair(Gen *g, int floor) {
    const Rules *R = g->R;
    if (!R->four_two) return;
    int cap = R->four_two_pair_same ? 2 : 1, top = pair_top(R);
    for (int r = imax(floor + 1, 0); r < BJ; r++) {
        if (g->c[r] < 4) continue;
        int core[NR] = {0}, pool[NR], n = 0;
        Cap caps[NR];
        core[r] = 4;
        pool_of(g, core, pool);
        for (int x = 0; x < top; x++)
            if (pool[x] >= 2) caps[n++] = (Cap){x, imin(pool[x] / 2, cap)};
        with_kickers(g, T_FOUR_TWO_PAIR, r, 1, 8, 4 * ONE(r), caps, n, 2, 2, 0);
    }
}

/* Airplanes with wings (per = 4: singles, 5: pairs), by length then low rank. */
static void g_wings(Gen *g, int per, int length, int floor) {
    const Rules *R = g->R;
    if (per == 4 ? !R->trio_single : !R->trio_pair) return;
    int high = R->chain_high, lo0 = imax(floor + 1, 0), top = pair_top(R);
    int run[NR + 1];
    run[high + 1] = 0;
    for (int r = high; r >= 0; r--) run[r] = g->c[r] >= 3 ? run[r + 1] + 1 : 0;
    int nmin = imax(length > 0 ? length : R->trio_chain_min, R->trio_chain_min);
    int nmax = length > 0 ? length : high - lo0 + 1;
    for (int n = nmin; n <= nmax; n++) {
        if (n * per > g->total) break;
        for (int lo = lo0; lo + n - 1 <= high; lo++) {
            if (run[lo] < n) continue;
            int core[NR] = {0}, pool[NR], m = 0;
            Cap caps[NR];
            uint64_t cint = 0;
            for (int r = lo; r < lo + n; r++) {
                core[r] = 3;
                cint += 3 * ONE(r);
            }
            pool_of(g, core, pool);
            if (per == 4) {
                for (int x = 0; x < NR; x++) {
                    int cap = pool[x];
                    if (!cap) continue;
                    if (!R->airplane_kicker_repeat) cap = 1;
                    if (!R->airplane_kicker_trio || ((x == lo - 1 || x == lo + n) && x <= high)) cap = imin(cap, 2);
                    if (!R->kicker_four_of_rank) cap = imin(cap, 3);
                    caps[m++] = (Cap){x, cap};
                }
                with_kickers(g, T_AIRPLANE_SINGLE, lo, n, 4 * n, cint, caps, m, n, 1, !R->kicker_rocket);
            } else {
                int cap0 = R->kicker_four_of_rank ? NR : 1;
                for (int x = 0; x < top; x++)
                    if (pool[x] >= 2) caps[m++] = (Cap){x, imin(pool[x] / 2, cap0)};
                with_kickers(g, T_AIRPLANE_PAIR, lo, n, 5 * n, cint, caps, m, n, 2, 0);
            }
        }
    }
}

/* One type's plays above ``floor`` (and of ``length``, 0: every length). */
static void g_type(Gen *g, int type, int length, int floor) {
    const Rules *R = g->R;
    switch (type) {
    case T_SINGLE: g_single(g, floor); break;
    case T_PAIR: g_pair(g, floor); break;
    case T_TRIO: g_trio(g, floor); break;
    case T_TRIO_SINGLE: g_trio_single(g, floor); break;
    case T_TRIO_PAIR: g_trio_pair(g, floor); break;
    case T_STRAIGHT: g_straight(g, length, floor); break;
    case T_PAIR_STRAIGHT: g_chains(g, T_PAIR_STRAIGHT, 2, R->pair_chain_min, length, floor); break;
    case T_AIRPLANE: g_chains(g, T_AIRPLANE, 3, R->trio_chain_min, length, floor); break;
    case T_AIRPLANE_SINGLE: g_wings(g, 4, length, floor); break;
    case T_AIRPLANE_PAIR: g_wings(g, 5, length, floor); break;
    case T_FOUR_TWO_SINGLE: g_four_two_single(g, floor); break;
    case T_FOUR_TWO_PAIR: g_four_two_pair(g, floor); break;
    default: break;
    }
}

/* Every lead of hand h, in engine.rank_plays.generate's order, pushed on the scratch stack. */
static void gen_lead(Search *s, uint64_t h) {
    Gen g;
    gen_init(&g, s, h);
    for (int t = T_SINGLE; t <= T_AIRPLANE_PAIR; t++) g_type(&g, t, 0, -9);
    g_bombs(&g);
    g_type(&g, T_FOUR_TWO_SINGLE, 0, -9);
    g_type(&g, T_FOUR_TWO_PAIR, 0, -9);
}

/* Every play of hand h that may follow the reading ``prev``. */
static void gen_follow(Search *s, uint64_t h, uint32_t prev) {
    Gen g;
    gen_init(&g, s, h);
    int type = k_type(prev), main = k_main(prev), length = k_length(prev);
    if (type == T_ROCKET) return;
    if (type == T_BOMB) {
        size_t base = s->sn;
        g_bombs(&g);
        size_t w = base;
        for (size_t i = base; i < s->sn; i++) {
            Play p = s->sv[i];
            if (p.type == T_ROCKET || bomb_value(&s->R, key_of(p.type, p.main, p.length)) > bomb_value(&s->R, prev))
                s->sv[w++] = p;
        }
        s->sn = w;
        return;
    }
    int floor = chain_pos(type, main);
    if (type == T_FOUR_TWO_SINGLE || type == T_FOUR_TWO_PAIR) { /* after the rocket in type order */
        g_bombs(&g);
        g_type(&g, type, length, floor);
    } else {
        g_type(&g, type, length, floor);
        g_bombs(&g);
    }
}

/* ------------------------------------------------------------------ readings, tricks, after */

static int grow_u32(uint32_t **v, size_t *cap, size_t need, int *oom) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    uint32_t *p = realloc(*v, c * sizeof(uint32_t));
    if (!p) {
        *oom = 1;
        return -1;
    }
    *v = p;
    *cap = c;
    return 0;
}

/* The readings of the cards ``pint``, sorted (type, length, main); n read, -1 on failure. */
static int readings(Search *s, uint64_t pint, uint32_t out[MAXREADINGS]) {
    size_t i = mix64(pint) & s->rd_mask;
    for (;;) {
        ReadSlot *e = &s->rd[i];
        if (!e->off) break;
        if (e->pint == pint) {
            memcpy(out, s->rkeys + e->off - 1, e->n * sizeof(uint32_t));
            return (int)e->n;
        }
        i = (i + 1) & s->rd_mask;
    }
    size_t base = s->sn;
    int n = 0;
    gen_lead(s, pint);
    if (s->oom) return -1;
    for (size_t j = base; j < s->sn && n < MAXREADINGS; j++)
        if (s->sv[j].pint == pint) out[n++] = key_of(s->sv[j].type, s->sv[j].main, s->sv[j].length);
    s->sn = base;
    if (2 * (s->rd_used + 1) > s->rd_mask + 1) { /* full: start again */
        memset(s->rd, 0, (s->rd_mask + 1) * sizeof(ReadSlot));
        s->rd_used = 0;
        s->rkeys_n = 0;
    }
    if (grow_u32(&s->rkeys, &s->rkeys_cap, s->rkeys_n + (size_t)n + 1, &s->oom)) return -1;
    i = mix64(pint) & s->rd_mask;
    while (s->rd[i].off) i = (i + 1) & s->rd_mask;
    s->rd[i].pint = pint;
    s->rd[i].off = (uint32_t)s->rkeys_n + 1;
    s->rd[i].n = (uint32_t)n;
    memcpy(s->rkeys + s->rkeys_n, out, (size_t)n * sizeof(uint32_t));
    s->rkeys_n += (size_t)n;
    s->rd_used++;
    return n;
}

static uint64_t keys_hash(const uint32_t *k, int n) {
    uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(n + 1);
    for (int i = 0; i < n; i++) x = mix64(x ^ k[i]);
    return x;
}

static int tmap_grow(Search *s);

/* The id of the trick with readings k[0..n) (sorted), made if new; -1 on failure. */
static int64_t intern(Search *s, const uint32_t *k, int n) {
    size_t i = keys_hash(k, n) & s->tmap_mask;
    for (;;) {
        uint32_t t = s->tmap[i];
        if (!t) break;
        t--;
        if (s->tlen[t] == (uint32_t)n && !memcmp(s->tkeys + s->toff[t], k, (size_t)n * sizeof(uint32_t)))
            return t;
        i = (i + 1) & s->tmap_mask;
    }
    if (s->ntricks >= 0xfffffff0u) {
        s->oom = 1;
        return -1;
    }
    if (s->ntricks == s->tricks_cap) {
        size_t cap = s->tricks_cap ? 2 * s->tricks_cap : 1024;
        uint32_t *a = realloc(s->toff, cap * sizeof(uint32_t));
        if (!a) goto fail;
        s->toff = a;
        a = realloc(s->tlen, cap * sizeof(uint32_t));
        if (!a) goto fail;
        s->tlen = a;
        s->tricks_cap = cap;
    }
    if (grow_u32(&s->tkeys, &s->tkeys_cap, s->tkeys_n + (size_t)n + 1, &s->oom)) return -1;
    uint32_t t = (uint32_t)s->ntricks++;
    s->toff[t] = (uint32_t)s->tkeys_n;
    s->tlen[t] = (uint32_t)n;
    memcpy(s->tkeys + s->tkeys_n, k, (size_t)n * sizeof(uint32_t));
    s->tkeys_n += (size_t)n;
    if (2 * s->ntricks > s->tmap_mask + 1) {
        if (tmap_grow(s)) return -1;
    } else {
        s->tmap[i] = t + 1;
    }
    return t;
fail:
    s->oom = 1;
    return -1;
}

static int tmap_grow(Search *s) {
    size_t size = 2 * (s->tmap_mask + 1);
    uint32_t *m = calloc(size, sizeof(uint32_t));
    if (!m) {
        s->oom = 1;
        return -1;
    }
    for (uint32_t t = 0; t < s->ntricks; t++) {
        size_t i = keys_hash(s->tkeys + s->toff[t], (int)s->tlen[t]) & (size - 1);
        while (m[i]) i = (i + 1) & (size - 1);
        m[i] = t + 1;
    }
    free(s->tmap);
    s->tmap = m;
    s->tmap_mask = size - 1;
    return 0;
}

/* The trick once the cards ``pint`` are played on trick ``tid``: their readings that beat it
 * (all of them on a lead). */
static int64_t after_of(Search *s, uint64_t pint, uint32_t tid) {
    size_t i = mix64(pint ^ ((uint64_t)tid * 0x9e3779b97f4a7c15ULL)) & s->af_mask;
    for (;;) {
        AfterSlot *e = &s->af[i];
        if (!e->after) break;
        if (e->pint == pint && e->tid == tid) return e->after - 1;
        i = (i + 1) & s->af_mask;
    }
    uint32_t rd[MAXREADINGS], keep[MAXREADINGS];
    int n = readings(s, pint, rd), m = 0;
    if (n < 0) return -1;
    const uint32_t *prev = s->tkeys + s->toff[tid];
    int np = (int)s->tlen[tid];
    for (int j = 0; j < n; j++) {
        int ok = tid == 0;
        for (int q = 0; q < np && !ok; q++) ok = beats(&s->R, rd[j], prev[q]);
        if (ok) keep[m++] = rd[j];
    }
    int64_t t = intern(s, keep, m);
    if (t < 0) return -1;
    if (2 * (s->af_used + 1) > s->af_mask + 1) {
        memset(s->af, 0, (s->af_mask + 1) * sizeof(AfterSlot));
        s->af_used = 0;
    }
    i = mix64(pint ^ ((uint64_t)tid * 0x9e3779b97f4a7c15ULL)) & s->af_mask;
    while (s->af[i].after) i = (i + 1) & s->af_mask;
    s->af[i] = (AfterSlot){pint, tid, (uint32_t)t + 1};
    s->af_used++;
    return t;
}

/* ------------------------------------------------------------------ 手数 */

static int needed(Search *s, uint64_t h) {
    if (!h) return 0;
    size_t i = mix64(h) & s->need_mask;
    for (;;) {
        NeedSlot *e = &s->need[i];
        if (!e->n) break;
        if (e->h == h) return e->n - 1;
        i = (i + 1) & s->need_mask;
    }
    int low = 0;
    while (!NIB(h, low)) low++;
    size_t base = s->sn;
    gen_lead(s, h);
    if (s->oom) return 99;
    size_t top = s->sn;
    int best = 99;
    for (size_t j = base; j < top; j++) {
        uint64_t p = s->sv[j].pint; /* re-read: the recursion may move the stack */
        if (!NIB(p, low)) continue;
        int n = 1 + needed(s, h - p);
        if (n < best) best = n;
        if (best == 1) break;
    }
    s->sn = base;
    if (2 * (s->need_used + 1) > s->need_mask + 1) {
        memset(s->need, 0, (s->need_mask + 1) * sizeof(NeedSlot));
        s->need_used = 0;
    }
    i = mix64(h) & s->need_mask;
    while (s->need[i].n) i = (i + 1) & s->need_mask;
    s->need[i].h = h;
    s->need[i].n = best + 1;
    s->need_used++;
    return best;
}

/* ------------------------------------------------------------------ the move cache */

typedef struct {
    const Move *v;
    uint32_t n, ordinary;
    uint64_t epoch;
} List;

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void cache_clear(Search *s) {
    memset(s->mv, 0, (s->mv_mask + 1) * sizeof(MoveSlot));
    s->mv_used = 0;
    s->arena_n = 0;
    s->epoch++;
    s->cache_clears++;
}

static inline size_t mv_index(const Search *s, uint64_t h, uint32_t tid) {
    return mix64(h ^ ((uint64_t)tid << 60) ^ ((uint64_t)tid * 0xd6e8feb86659fd93ULL)) & s->mv_mask;
}

/* The ordered moves of hand h on trick tid (engine.solver.search.Solver.moves): a play that
 * empties the hand first, then by (bomb, 手数 left, more cards first, lower main); a stable sort
 * of the generation order. ``ordinary``: how many are not bombs. */
static int moves_of(Search *s, uint64_t h, uint32_t tid, List *out) {
    size_t i = mv_index(s, h, tid);
    for (;;) {
        MoveSlot *e = &s->mv[i];
        if (!e->off) break;
        if (e->h == h && e->tid == tid) {
            out->v = s->arena + e->off - 1;
            out->n = e->n;
            out->ordinary = e->ordinary;
            out->epoch = s->epoch;
            return 0;
        }
        i = (i + 1) & s->mv_mask;
    }
    size_t base = s->sn;
    if (tid == 0) {
        gen_lead(s, h);
    } else {
        uint32_t nk = s->tlen[tid];
        for (uint32_t q = 0; q < nk; q++) {
            size_t start = s->sn;
            gen_follow(s, h, s->tkeys[s->toff[tid] + q]);
            if (q == 0) continue;
            size_t w = start; /* keep the first of equal plays met under earlier readings */
            for (size_t j = start; j < s->sn; j++) {
                Play p = s->sv[j];
                int seen = 0;
                for (size_t u = base; u < start && !seen; u++) {
                    Play o = s->sv[u];
                    seen = o.pint == p.pint && o.type == p.type && o.main == p.main && o.length == p.length;
                }
                if (!seen) s->sv[w++] = p;
            }
            s->sn = w;
        }
    }
    if (s->oom) return -1;
    size_t n = s->sn - base;
    uint64_t *keys = malloc((n ? n : 1) * sizeof(uint64_t));
    uint32_t *after = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!keys || !after) {
        free(keys);
        free(after);
        s->oom = 1;
        return -1;
    }
    uint32_t ordinary = 0;
    for (size_t j = 0; j < n; j++) {
        Play p = s->sv[base + j];
        int64_t a = after_of(s, p.pint, tid);
        if (a < 0) {
            free(keys);
            free(after);
            return -1;
        }
        after[j] = (uint32_t)a;
        int bomb = p.type == T_BOMB || p.type == T_ROCKET;
        int need = needed(s, h - s->sv[base + j].pint);
        if (need > 127) need = 127;
        ordinary += !bomb;
        keys[j] = ((uint64_t)(p.pint != h) << 62) | ((uint64_t)bomb << 61) | ((uint64_t)need << 54) |
                  ((uint64_t)(255 - p.size) << 46) | ((uint64_t)p.main << 38) | (uint64_t)j;
    }
    if (s->oom) {
        free(keys);
        free(after);
        return -1;
    }
    qsort(keys, n, sizeof(uint64_t), cmp_u64);
    if (s->arena_n + n > s->arena_cap || 2 * (s->mv_used + 1) > s->mv_mask + 1) cache_clear(s);
    if (n > s->arena_cap) { /* a list larger than the whole cache: no cache at all */
        free(keys);
        free(after);
        s->oom = 1;
        return -1;
    }
    Move *dst = s->arena + s->arena_n;
    for (size_t j = 0; j < n; j++) {
        size_t k = (size_t)(keys[j] & ((1ULL << 38) - 1));
        Play p = s->sv[base + k];
        dst[j] = (Move){p.pint, after[k], p.type, p.main, p.length, (uint8_t)(p.type == T_BOMB || p.type == T_ROCKET)};
    }
    free(keys);
    free(after);
    s->sn = base;
    i = mv_index(s, h, tid);
    while (s->mv[i].off) i = (i + 1) & s->mv_mask;
    s->mv[i] = (MoveSlot){h, tid, (uint32_t)s->arena_n + 1, (uint32_t)n, ordinary};
    s->mv_used++;
    out->v = dst;
    out->n = (uint32_t)n;
    out->ordinary = ordinary;
    out->epoch = s->epoch;
    s->arena_n += n;
    return 0;
}

/* ------------------------------------------------------------------ the table */

static inline uint64_t *tt_bucket(const Search *s, const uint64_t *h, int turn, uint32_t tid, int by) {
    uint64_t x = (uint64_t)tid * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)turn << 8 | (uint64_t)by);
    for (int i = 0; i < s->players; i++) x = mix64(x ^ h[i]);
    size_t b = (size_t)(((unsigned __int128)x * s->tt_buckets) >> 64);
    return s->tt + b * TT_WAYS * s->tt_words;
}

/* Every cache line of a bucket (it spans two or three). */
static inline void tt_prefetch(const Search *s, const uint64_t *bucket) {
    const char *p = (const char *)bucket, *end = p + TT_WAYS * s->tt_words * sizeof(uint64_t) - 1;
    for (; p <= end; p += 64) __builtin_prefetch(p);
    __builtin_prefetch(end);
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

static const uint64_t *tt_find(Search *s, const uint64_t *h, int turn, uint32_t tid, int by) {
    uint64_t *e = tt_bucket(s, h, turn, tid, by), tag = tt_tag(tid, turn, by);
    s->tt_probes++;
    for (int w = 0; w < TT_WAYS; w++, e += s->tt_words)
        if (tt_same(s, e, h, tag)) {
            s->tt_hits++;
            return e;
        }
    return NULL;
}

/* Whether the landlord wins there (1, 0), or -1 when the table does not know. */
static int tt_get(Search *s, const uint64_t *h, int turn, uint32_t tid, int by) {
    const uint64_t *e = tt_find(s, h, turn, tid, by);
    if (!e) return -1;
    uint64_t pd = e[s->players + 1];
    return !(pd >> 32) ? 1 : !(pd & 0xffffffffu) ? 0 : -1;
}

#define BIG ((size_t)1 << 20)

/* Zeroed memory. A large block is mapped (its pages are zero when first touched, so what a
 * search never reaches costs nothing) and on huge pages where the system gives them: the table
 * and the caches are read at random, a few times a node, and fewer TLB misses pay. */
static void *big_calloc(size_t bytes) {
    if (bytes < BIG) return calloc(bytes ? bytes : 1, 1);
    void *t = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (t == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(t, bytes, MADV_HUGEPAGE);
#endif
    return t;
}

static void big_free(void *p, size_t bytes) {
    if (!p) return;
    if (bytes < BIG) free(p);
    else munmap(p, bytes);
}

static size_t tt_bytes(const Search *s, size_t buckets) { return buckets * TT_WAYS * s->tt_words * sizeof(uint64_t); }

static uint64_t *tt_alloc(size_t buckets, size_t words) {
    return big_calloc(buckets * TT_WAYS * words * sizeof(uint64_t));
}

static void tt_store(Search *s, const uint64_t *h, int turn, uint32_t tid, int by, uint32_t pn, uint32_t dn,
                     uint64_t cost);

/* Twice the buckets (up to the most allowed), every answer moved over; when memory is short the
 * table stays as it is. */
static void tt_grow(Search *s) {
    size_t buckets = s->tt_buckets * 2 < s->tt_max_buckets ? s->tt_buckets * 2 : s->tt_max_buckets;
    uint64_t *old = s->tt, *t = tt_alloc(buckets, s->tt_words);
    if (!t) {
        s->tt_max_buckets = s->tt_buckets;
        return;
    }
    size_t n = s->tt_buckets * TT_WAYS, w = s->tt_words, old_bytes = tt_bytes(s, s->tt_buckets);
    s->tt = t;
    s->tt_buckets = buckets;
    s->tt_used = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t *e = old + i * w, last = e[s->players];
        if (!(last & 63)) continue;
        uint64_t h[MAXSEATS];
        memcpy(h, e, sizeof(uint64_t) * (size_t)s->players);
        tt_store(s, h, (int)((last >> 16) & 0xffff), (uint32_t)(last >> 32), (int)((last >> 8) & 0xff),
                 (uint32_t)(e[s->players + 1] >> 32), (uint32_t)e[s->players + 1], (uint64_t)1 << ((last & 63) - 1));
    }
    big_free(old, old_bytes);
}

/* Keep what took ``cost`` nodes to learn: in its own slot, an empty one, or in place of the one of
 * the bucket that took fewest nodes. */
static void tt_store(Search *s, const uint64_t *h, int turn, uint32_t tid, int by, uint32_t pn, uint32_t dn,
                     uint64_t cost) {
    uint64_t *e = tt_bucket(s, h, turn, tid, by), tag = tt_tag(tid, turn, by), *slot = NULL;
    int work = 1, least = 64;
    while (cost > 1 && work < 63) {
        cost >>= 1;
        work++;
    }
    for (int w = 0; w < TT_WAYS; w++, e += s->tt_words) {
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
    if (least > 0 && s->tt_buckets < s->tt_max_buckets) { /* a full bucket: grow rather than forget */
        tt_grow(s); /* (or, short of memory, make the present size the largest) */
        tt_store(s, h, turn, tid, by, pn, dn, cost);
        return;
    }
    if (least == 0) s->tt_used++;
    else if (least > 0) s->tt_replaced++;
    for (int i = 0; i < s->players; i++) slot[i] = h[i];
    slot[s->players] = tag | (uint64_t)work;
    slot[s->players + 1] = (uint64_t)pn << 32 | dn;
}

/* A proved answer: whether the landlord wins. */
static inline void tt_put(Search *s, const uint64_t *h, int turn, uint32_t tid, int by, int value, uint64_t cost) {
    tt_store(s, h, turn, tid, by, value ? 0 : INF, value ? INF : 0, cost);
}

/* ------------------------------------------------------------------ the search */

static int budget_out(Search *s) {
    if (*(volatile int *)&s->stop) return 1;
    if (s->slice_end && s->nodes >= s->slice_end) {
        s->slice_hit = 1;
        return 1;
    }
    if (s->limit && s->nodes >= s->limit) return 1;
    if (s->deadline > 0 && now() >= s->deadline) return 1;
    return 0;
}

/* Whether no opponent of ``seat`` can play on trick ``tid`` (one the seat just made). */
static int unanswered(Search *s, const uint64_t *hands, int seat, uint32_t tid) {
    for (int o = 0; o < s->players; o++) {
        if (s->side[o] == s->side[seat]) continue;
        List l;
        if (moves_of(s, hands[o], tid, &l) || l.n) return 0;
    }
    return 1;
}

/* Whether ``seat``, on lead with hand h, goes out by leading plays of which at most ``spare`` can
 * be answered by an opponent, in at most ``depth`` plays. It leads the unanswered ones first:
 * each comes back to it (its partner passes), the opponents' hands unchanged; then the last.
 * Every split of h has a play holding a card of its lowest rank: only those are tried first. */
static int controls(Search *s, const uint64_t *hands, int seat, uint64_t h, int spare, int depth) {
    if (!h) return 1;
    if (depth <= 0 || needed(s, h) > depth) return 0;
    int low = 0;
    while (!NIB(h, low)) low++;
    List l;
    if (moves_of(s, h, 0, &l)) return 0;
    for (uint32_t j = 0; j < l.n; j++) {
        Move m = l.v[j];
        uint64_t epoch = l.epoch;
        if (!NIB(m.pint, low)) continue;
        int answered = !unanswered(s, hands, seat, m.after); /* counted even when it empties h */
        if (answered <= spare && controls(s, hands, seat, h - m.pint, spare - answered, depth - 1)) return 1;
        if (s->oom) return 0;
        if (s->epoch != epoch && moves_of(s, h, 0, &l)) return 0;
    }
    return 0;
}

/* cut 1: the seat to move wins at once if it has the lead or a play on the trick that no opponent
 * answers, and then goes out with at most one answerable play (controls). */
static int static_win(Search *s, const uint64_t *hands, int turn, uint32_t tid, uint64_t h, List *l) {
    int most = needed(s, h);
    if (most > 3) return 0;
    if (!tid) return controls(s, hands, turn, h, 1, most + 1);
    for (uint32_t j = 0; j < l->n; j++) {
        Move m = l->v[j];
        uint64_t epoch = l->epoch;
        if (needed(s, h - m.pint) <= 2 && unanswered(s, hands, turn, m.after) &&
            controls(s, hands, turn, h - m.pint, 1, 3))
            return 1;
        if (s->oom) return 0;
        if (s->epoch != epoch && moves_of(s, h, tid, l)) return 0;
    }
    return 0;
}

static int win(Search *s, const uint64_t *hands, int turn, uint32_t tid, int by);

static inline int pass_value(Search *s, const uint64_t *hands, int nxt, uint32_t tid, int by) {
    return nxt == by ? win(s, hands, nxt, 0, NONE) : win(s, hands, nxt, tid, by);
}

/* True if the side of ``turn`` wins from here (engine.solver.search.Solver._searcher's win);
 * -1 when the budget ran out. */
static int win(Search *s, const uint64_t *hands, int turn, uint32_t tid, int by) {
    s->nodes++;
    if (!(s->nodes & 1023) && budget_out(s)) {
        s->abort = 1;
        return -1;
    }
    uint64_t first = s->nodes;
    if (s->use_table) {
        /* An answer kept for the position as it stands was found where this seat had a move (the
         * table keeps positions after the passes), so it stands; the move list is not needed then. */
        tt_prefetch(s, tt_bucket(s, hands, turn, tid, by)); /* its lines at once */
        __builtin_prefetch(&s->mv[mv_index(s, hands[turn], tid)]);
        int known = tt_get(s, hands, turn, tid, by);
        if (known >= 0) return known == s->side[turn];
    }
    List l;
    if (moves_of(s, hands[turn], tid, &l)) return -1;
    int flip = 0, asked = turn;
    while (tid && !l.n) { /* a seat that cannot beat the trick passes: no choice, no node */
        int nxt = s->next[turn];
        if (s->side[nxt] != s->side[turn]) flip = !flip;
        if (nxt == by) {
            tid = 0;
            by = NONE;
        }
        turn = nxt;
        if (moves_of(s, hands[turn], tid, &l)) return -1;
    }
    int me = s->side[turn];
    uint64_t h = hands[turn];
    if (s->use_table && turn != asked) { /* others passed: the position after them */
        int known = tt_get(s, hands, turn, tid, by);
        if (known >= 0) return (known == me) != flip;
    }
    if (l.n && l.v[0].pint == h) { /* plays out in one move */
        if (s->use_table) tt_put(s, hands, turn, tid, by, me, 1);
        return !flip;
    }
    int result = 0, v;
    if ((s->cuts & 1) && static_win(s, hands, turn, tid, h, &l)) {
        result = 1;
        goto done;
    }
    if (s->oom) return -1;
    int nxt = s->next[turn], same = s->side[nxt] == me, passed = !tid;
    if (tid && s->side[by] == me) { /* the trick is the partner's: let it stand first */
        passed = 1;
        if ((v = pass_value(s, hands, nxt, tid, by)) < 0) return -1;
        result = same ? v : !v;
    }
    if (!result) {
        uint64_t child[MAXSEATS];
        memcpy(child, hands, sizeof(uint64_t) * (size_t)s->players);
        if (l.epoch != s->epoch && moves_of(s, h, tid, &l)) return -1;
        if (s->use_table) { /* the children's table buckets, fetched together: one wait, not one each */
            for (uint32_t i = 0; i < l.n && i < PREFETCH; i++) {
                child[turn] = h - l.v[i].pint;
                tt_prefetch(s, tt_bucket(s, child, nxt, l.v[i].after, turn));
            }
        }
        for (uint32_t i = 0; i < l.n; i++) {
            if (i == l.ordinary && !passed) {
                passed = 1;
                if ((v = pass_value(s, hands, nxt, tid, by)) < 0) return -1;
                if (same ? v : !v) {
                    result = 1;
                    break;
                }
                if (l.epoch != s->epoch && moves_of(s, h, tid, &l)) return -1;
            }
            child[turn] = h - l.v[i].pint;
            v = win(s, child, nxt, l.v[i].after, turn);
            if (v < 0) return -1;
            if (same ? v : !v) {
                result = 1;
                break;
            }
            if (l.epoch != s->epoch && moves_of(s, h, tid, &l)) return -1;
        }
        if (!result && !passed) {
            if ((v = pass_value(s, hands, nxt, tid, by)) < 0) return -1;
            result = same ? v : !v;
        }
    }
done:
    if (s->use_table) tt_put(s, hands, turn, tid, by, result == me, s->nodes - first + 1);
    return result != flip;
}

/* ------------------------------------------------------------------ proof-number search */

/* A child of a position in the proof-number search: the move, the position it leads to once the
 * seats that cannot beat the trick have passed, and its proof and disproof numbers. */
typedef struct Child {
    uint64_t pint; /* the play; 0: the pass */
    uint32_t pn, dn;
    uint32_t tid;
    uint8_t turn, by, done;
} Child;

static int c_reserve(Search *s, size_t more) {
    if (s->cn + more <= s->ccap) return 0;
    size_t cap = s->ccap ? s->ccap : 4096;
    while (cap < s->cn + more) cap *= 2;
    Child *v = realloc(s->cv, cap * sizeof(Child));
    if (!v) {
        s->oom = 1;
        return -1;
    }
    s->cv = v;
    s->ccap = cap;
    return 0;
}

/* Whether hand h has a play on trick tid (without ordering it: the cache first, else generation). */
static int can_play(Search *s, uint64_t h, uint32_t tid) {
    size_t i = mv_index(s, h, tid);
    for (;;) {
        MoveSlot *e = &s->mv[i];
        if (!e->off) break;
        if (e->h == h && e->tid == tid) return e->n > 0;
        i = (i + 1) & s->mv_mask;
    }
    size_t base = s->sn;
    int found = 0;
    for (uint32_t q = 0; q < s->tlen[tid] && !found; q++) {
        gen_follow(s, h, s->tkeys[s->toff[tid] + q]);
        found = s->sn > base;
        s->sn = base;
    }
    return s->oom ? -1 : found;
}

/* The position once every seat that cannot beat the trick has passed. */
static int settle(Search *s, const uint64_t *hands, int *turn, uint32_t *tid, int *by) {
    while (*tid) {
        int r = can_play(s, hands[*turn], *tid);
        if (r) return r < 0 ? -1 : 0;
        int nxt = s->next[*turn];
        if (nxt == *by) {
            *tid = 0;
            *by = NONE;
        }
        *turn = nxt;
    }
    return 0;
}

/* A child: where the move leads, and what is known of it (proved when the mover goes out, or when
 * the seat to move next leads a hand it plays in one go; the table's numbers; else 1 and 1). */
static int fill_child(Search *s, const uint64_t *hands, int turn, uint32_t tid, int by, uint64_t pint,
                      uint32_t after, Child *c) {
    uint64_t child[MAXSEATS];
    memcpy(child, hands, sizeof(uint64_t) * (size_t)s->players);
    int nxt = s->next[turn], cturn = nxt, cby;
    uint32_t ctid;
    c->pint = pint;
    c->done = 0;
    if (pint) {
        child[turn] -= pint;
        if (!child[turn]) { /* out: the mover's side wins */
            c->pn = s->side[turn] ? 0 : INF;
            c->dn = s->side[turn] ? INF : 0;
            c->done = 1;
            return 0;
        }
        ctid = after;
        cby = turn;
    } else {
        ctid = nxt == by ? 0 : tid;
        cby = nxt == by ? NONE : by;
    }
    if (settle(s, child, &cturn, &ctid, &cby)) return -1;
    c->turn = (uint8_t)cturn;
    c->tid = ctid;
    c->by = (uint8_t)cby;
    const uint64_t *e = tt_find(s, child, cturn, ctid, cby);
    if (e) {
        c->pn = (uint32_t)(e[s->players + 1] >> 32);
        c->dn = (uint32_t)e[s->players + 1];
    } else if (!ctid && needed(s, child[cturn]) == 1) {
        c->pn = s->side[cturn] ? 0 : INF;
        c->dn = s->side[cturn] ? INF : 0;
    } else {
        uint32_t lord = 99, farmer = 99;
        for (int i = 0; i < s->players; i++) {
            uint32_t k = (uint32_t)needed(s, child[i]);
            if (s->side[i]) lord = k;
            else if (k < farmer) farmer = k;
        }
        c->pn = lord;
        c->dn = farmer;
    }
    return 0;
}

static inline uint32_t sat_add(uint64_t x) { return x >= CAP ? CAP : (uint32_t)x; }

/* Depth-first proof-number search (df-pn) on a settled position, from the landlord's side: pn
 * estimates the positions to search to prove the landlord wins, dn to prove it loses. The seat of
 * the landlord picks the child easiest to prove (least pn), a farmer the one easiest to disprove;
 * each child is searched until its numbers pass thresholds that say another child has become the
 * easier one. Children keep the search's order, so ties go to the move the alpha-beta tries first. */
static int mid(Search *s, const uint64_t *hands, int turn, uint32_t tid, int by, uint32_t thp, uint32_t thd,
               uint32_t *pn_out, uint32_t *dn_out) {
    s->nodes++;
    if (!(s->nodes & 1023) && budget_out(s)) {
        s->abort = 1;
        return -1;
    }
    uint64_t first = s->nodes;
    const uint64_t *e = tt_find(s, hands, turn, tid, by);
    if (e) {
        uint32_t pn = (uint32_t)(e[s->players + 1] >> 32), dn = (uint32_t)e[s->players + 1];
        if (pn >= thp || dn >= thd) {
            *pn_out = pn;
            *dn_out = dn;
            return 0;
        }
    }
    int lord = s->side[turn];
    uint64_t h = hands[turn];
    List l;
    if (moves_of(s, h, tid, &l)) return -1;
    if ((l.n && l.v[0].pint == h) || ((s->cuts & 1) && static_win(s, hands, turn, tid, h, &l))) {
        *pn_out = lord ? 0 : INF;
        *dn_out = lord ? INF : 0;
        tt_store(s, hands, turn, tid, by, *pn_out, *dn_out, 1);
        return 0;
    }
    if (s->oom) return -1;
    if (l.epoch != s->epoch && moves_of(s, h, tid, &l)) return -1;
    uint32_t n = l.n + (tid ? 1 : 0), pass_at = tid ? (s->side[by] == lord ? 0 : l.ordinary) : UINT32_MAX;
    size_t base = s->cn;
    if (c_reserve(s, n)) return -1;
    s->cn += n;
    uint32_t k = 0;
    for (uint32_t i = 0; i <= l.n; i++) {
        if (i == pass_at && fill_child(s, hands, turn, tid, by, 0, 0, &s->cv[base + k++])) goto fail;
        if (i == l.n) break;
        Move m = l.v[i];
        uint64_t epoch = l.epoch;
        if (fill_child(s, hands, turn, tid, by, m.pint, m.after, &s->cv[base + k++])) goto fail;
        if (s->epoch != epoch && moves_of(s, h, tid, &l)) goto fail;
    }
    uint32_t pn, dn;
    for (;;) {
        /* this position's numbers from its children's; the child to search and the runner-up */
        uint64_t sum = 0;
        uint32_t least = INF, second = INF, best = 0;
        int proved = 0;
        for (uint32_t j = 0; j < n; j++) {
            const Child *c = &s->cv[base + j];
            uint32_t pick = lord ? c->pn : c->dn, add = lord ? c->dn : c->pn;
            if (pick < least) {
                second = least;
                least = pick;
                best = j;
            } else if (pick < second) {
                second = pick;
            }
            if (add == INF) proved = 1;
            sum += add;
        }
        uint32_t total = proved ? INF : sat_add(sum);
        pn = lord ? least : total;
        dn = lord ? total : least;
        if (!pn || !dn || pn >= thp || dn >= thd) break;
        /* the child's thresholds: until the runner-up is easier (by a quarter: fewer switches) */
        uint64_t next_least = (uint64_t)second + second / 4 + 1;
        Child c = s->cv[base + best];
        uint32_t cthp, cthd;
        if (lord) {
            cthp = (uint32_t)(next_least < thp ? next_least : thp);
            uint64_t t = (uint64_t)thd - dn + c.dn;
            cthd = t > INF ? INF : (uint32_t)t;
        } else {
            cthd = (uint32_t)(next_least < thd ? next_least : thd);
            uint64_t t = (uint64_t)thp - pn + c.pn;
            cthp = t > INF ? INF : (uint32_t)t;
        }
        uint64_t child[MAXSEATS];
        memcpy(child, hands, sizeof(uint64_t) * (size_t)s->players);
        child[turn] -= c.pint;
        uint32_t cpn, cdn;
        if (mid(s, child, c.turn, c.tid, c.by, cthp, cthd, &cpn, &cdn)) goto fail;
        s->cv[base + best].pn = cpn;
        s->cv[base + best].dn = cdn;
    }
    s->cn = base;
    tt_store(s, hands, turn, tid, by, pn, dn, s->nodes - first + 1);
    *pn_out = pn;
    *dn_out = dn;
    return 0;
fail:
    s->cn = base;
    return -1;
}

/* Whether the landlord wins (1, 0; -1 out of budget or memory), by proof-number search. */
static int landlord_wins(Search *s, const uint64_t *hands, int turn, uint32_t tid, int by) {
    if (settle(s, hands, &turn, &tid, &by)) return -1;
    uint32_t pn, dn;
    if (mid(s, hands, turn, tid, by, INF, INF, &pn, &dn)) return -1;
    return pn == 0;
}

static int pn_value(Search *s, const uint64_t *hands, int turn, uint32_t tid, int by) {
    int lw = landlord_wins(s, hands, turn, tid, by);
    return lw < 0 ? -1 : s->side[turn] ? lw : !lw;
}

/* Whether the side of ``turn`` wins there, by the search the cuts ask for: the alpha-beta, the
 * proof-number search, or both in turn (4) on slices of nodes that double each round. Each keeps
 * what it proves in the one table, so the other starts from it; a slice cut short costs nodes,
 * never an answer. */
static int child_value(Search *s, const uint64_t *hands, int turn, uint32_t tid, int by) {
    if (s->cuts & 4) {
        for (uint64_t slice = (uint64_t)1 << 14;; slice *= 2) {
            for (int pn = 0; pn < 2; pn++) {
                s->slice_end = s->nodes + slice;
                s->slice_hit = 0;
                int v = pn ? pn_value(s, hands, turn, tid, by) : win(s, hands, turn, tid, by);
                s->slice_end = 0;
                if (v >= 0 || !s->slice_hit) return v;
                s->abort = 0;
                s->slice_hit = 0;
            }
        }
    }
    return s->cuts & 2 ? pn_value(s, hands, turn, tid, by) : win(s, hands, turn, tid, by);
}

/* The root (engine.solver.search.Solver._root): the first winning move in search order, the
 * pass put where the search puts it. Returns 1/0 for the side of ``turn``, -1 out of budget or
 * memory; *move: the index of the winning move, n for the pass. */
static int root(Search *s, uint64_t *hands, int turn, uint32_t tid, int by, Move *best, int *passes) {
    List l;
    if (moves_of(s, hands[turn], tid, &l)) return -1;
    int me = s->side[turn], nxt = s->next[turn];
    int partner = tid && s->side[by] == s->side[turn];
    uint32_t n = l.n, pass_at = tid ? (partner ? 0 : l.ordinary) : UINT32_MAX;
    uint64_t child[MAXSEATS];
    memcpy(child, hands, sizeof(uint64_t) * (size_t)s->players);
    /* the root's list is copied: the search below may empty the cache */
    Move *mv = malloc((n ? n : 1) * sizeof(Move));
    if (!mv) {
        s->oom = 1;
        return -1;
    }
    memcpy(mv, l.v, n * sizeof(Move));
    int found = 0;
    *passes = 0;
    for (uint32_t i = 0; i <= n && !found; i++) {
        if (i == pass_at) {
            int v = child_value(s, hands, nxt, nxt == by ? 0 : tid, nxt == by ? NONE : by);
            if (v < 0) {
                free(mv);
                return -1;
            }
            if (s->side[nxt] == me ? v : !v) {
                found = 1;
                *passes = 1;
                break;
            }
        }
        if (i == n) break;
        child[turn] = hands[turn] - mv[i].pint;
        if (!child[turn]) {
            *best = mv[i];
            found = 1;
            break;
        }
        int v = child_value(s, child, nxt, mv[i].after, turn);
        if (v < 0) {
            free(mv);
            return -1;
        }
        if (s->side[nxt] == me ? v : !v) {
            *best = mv[i];
            found = 1;
        }
    }
    free(mv);
    return found;
}

/* ------------------------------------------------------------------ Python type */

static void search_free_tables(Search *s) {
    free(s->cv);
    s->cv = NULL;
    if (s->tt) big_free(s->tt, tt_bytes(s, s->tt_buckets));
    if (s->mv) big_free(s->mv, (s->mv_mask + 1) * sizeof(MoveSlot));
    if (s->arena) big_free(s->arena, s->arena_cap * sizeof(Move));
    if (s->need) big_free(s->need, (s->need_mask + 1) * sizeof(NeedSlot));
    if (s->af) big_free(s->af, (s->af_mask + 1) * sizeof(AfterSlot));
    free(s->rd);
    free(s->rkeys);
    free(s->tkeys);
    free(s->toff);
    free(s->tlen);
    free(s->tmap);
    free(s->sv);
    s->tt = NULL;
    s->mv = NULL;
    s->arena = NULL;
    s->need = NULL;
    s->rd = NULL;
    s->rkeys = NULL;
    s->tkeys = NULL;
    s->toff = s->tlen = NULL;
    s->tmap = NULL;
    s->af = NULL;
    s->sv = NULL;
}

static void Search_dealloc(Search *s) {
    search_free_tables(s);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int read_rules(PyObject *rules, Rules *R) {
    int *field = (int *)R;
    for (int i = 0; RULE_NAMES[i]; i++) {
        PyObject *v = PyMapping_GetItemString(rules, RULE_NAMES[i]);
        if (!v) return -1;
        long x = PyLong_AsLong(v);
        Py_DECREF(v);
        if (x == -1 && PyErr_Occurred()) return -1;
        field[i] = (int)x;
    }
    if (R->bomb_max > 8 || R->bomb_min < 1 || R->chain_high > ACE || R->rocket_jokers < 2 || R->rocket_jokers > 4) {
        PyErr_SetString(PyExc_ValueError, "rule options outside what the compiled core plays");
        return -1;
    }
    return 0;
}

static int Search_init(Search *s, PyObject *args, PyObject *kw) {
    static char *names[] = {"rules", "landlord", "next", "table_mb", "cache_mb", "table", "cuts", NULL};
    PyObject *rules, *next;
    int landlord, table = 1, cuts = 0;
    double table_mb = 64, cache_mb = 32;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiO|ddpi", names, &rules, &landlord, &next, &table_mb, &cache_mb,
                                     &table, &cuts))
        return -1;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the search is running");
        return -1;
    }
    search_free_tables(s);
    memset((char *)s + offsetof(Search, R), 0, sizeof(Search) - offsetof(Search, R));
    if (read_rules(rules, &s->R)) return -1;
    PyObject *seq = PySequence_Fast(next, "next must be a sequence of seats");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 2 || n > MAXSEATS || landlord < 0 || landlord >= n) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "2 to 4 seats and a landlord among them");
        return -1;
    }
    s->players = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (x < 0 || x >= n) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "next: a seat for each seat");
            return -1;
        }
        s->next[i] = (int)x;
        s->side[i] = i == landlord;
    }
    Py_DECREF(seq);
    s->landlord = landlord;
    s->use_table = table;
    s->cuts = cuts;
    if (table_mb < 1) table_mb = 1;
    if (cache_mb < 2) cache_mb = 2;
    s->tt_words = (size_t)s->players + 2;
    s->tt_max_buckets = (size_t)(table_mb * 1048576.0 / (TT_WAYS * s->tt_words * sizeof(uint64_t)));
    if (!s->tt_max_buckets) s->tt_max_buckets = 1;
    s->tt_buckets = s->tt_max_buckets < 2048 ? s->tt_max_buckets : 2048; /* grows as it fills */
    double cache = cache_mb * 1048576.0;
    size_t arena = (size_t)(cache * 0.55 / sizeof(Move));
    size_t mv_n = pow2_at_least((size_t)(cache * 0.15 / sizeof(MoveSlot))) / 2;
    size_t need_n = pow2_at_least((size_t)(cache * 0.15 / sizeof(NeedSlot))) / 2;
    size_t rd_n = pow2_at_least((size_t)(cache * 0.05 / sizeof(ReadSlot))) / 2;
    size_t af_n = pow2_at_least((size_t)(cache * 0.1 / sizeof(AfterSlot))) / 2;
    s->tt = tt_alloc(s->tt_buckets, s->tt_words);
    s->mv = big_calloc(mv_n * sizeof(MoveSlot));
    s->mv_mask = mv_n - 1;
    s->arena = big_calloc(arena * sizeof(Move));
    s->arena_cap = arena;
    s->need = big_calloc(need_n * sizeof(NeedSlot));
    s->need_mask = need_n - 1;
    s->rd = calloc(rd_n, sizeof(ReadSlot));
    s->rd_mask = rd_n - 1;
    s->af = big_calloc(af_n * sizeof(AfterSlot));
    s->af_mask = af_n - 1;
    s->tmap = calloc(1024, sizeof(uint32_t));
    s->tmap_mask = 1023;
    if (!s->tt || !s->mv || !s->arena || !s->need || !s->rd || !s->af || !s->tmap) {
        search_free_tables(s);
        PyErr_NoMemory();
        return -1;
    }
    if (intern(s, NULL, 0) != 0) { /* trick 0: the lead */
        search_free_tables(s);
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int parse_hands(Search *s, PyObject *hands, uint64_t *h) {
    PyObject *seq = PySequence_Fast(hands, "hands must be a sequence of integers");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != s->players) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "one hand a seat");
        return -1;
    }
    for (int i = 0; i < s->players; i++) {
        h[i] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* A trick given as readings (type, main, length): its id. */
static int64_t parse_trick(Search *s, PyObject *trick) {
    PyObject *seq = PySequence_Fast(trick, "the trick is a sequence of (type, main, length)");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > MAXREADINGS) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "too many readings");
        return -1;
    }
    uint32_t k[MAXREADINGS];
    int m = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int type, main, length;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "iii", &type, &main, &length)) {
            Py_DECREF(seq);
            return -1;
        }
        if (type < 0 || type >= NTYPES || main < 0 || main >= NR || length < 1 || length > 64) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "a reading of a type the compiled core does not play");
            return -1;
        }
        uint32_t key = key_of(type, main, length);
        int j = m;
        while (j > 0 && k[j - 1] > key) {
            k[j] = k[j - 1];
            j--;
        }
        if (j > 0 && k[j - 1] == key) { /* the same reading twice */
            memmove(k + j, k + j + 1, (size_t)(m - j) * sizeof(uint32_t));
            continue;
        }
        k[j] = key;
        m++;
    }
    Py_DECREF(seq);
    int64_t t = intern(s, k, m);
    if (t < 0) PyErr_NoMemory();
    return t;
}

static PyObject *move_tuple(const Move *m) {
    return Py_BuildValue("(iiiK)", m->type, m->main, m->length, (unsigned long long)m->pint);
}

static PyObject *Search_solve(Search *s, PyObject *args, PyObject *kw) {
    static char *names[] = {"hands", "turn", "trick", "by", "seconds", "nodes", NULL};
    PyObject *hands_o, *trick_o, *by_o = Py_None, *sec_o = Py_None, *nodes_o = Py_None;
    int turn;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiO|OOO", names, &hands_o, &turn, &trick_o, &by_o, &sec_o, &nodes_o))
        return NULL;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this search is already running (one position at a time)");
        return NULL;
    }
    uint64_t hands[MAXSEATS] = {0};
    if (parse_hands(s, hands_o, hands)) return NULL;
    if (turn < 0 || turn >= s->players) {
        PyErr_SetString(PyExc_ValueError, "turn: a seat");
        return NULL;
    }
    int64_t tid = parse_trick(s, trick_o);
    if (tid < 0) return NULL;
    int by = NONE;
    if (tid) {
        long b = PyLong_AsLong(by_o);
        if (b == -1 && PyErr_Occurred()) return NULL;
        if (b < 0 || b >= s->players || b == turn) {
            PyErr_SetString(PyExc_ValueError, "by: the seat that played the trick, not the seat to move");
            return NULL;
        }
        by = (int)b;
    }
    double seconds = -1;
    if (sec_o != Py_None) {
        seconds = PyFloat_AsDouble(sec_o);
        if (seconds == -1 && PyErr_Occurred()) return NULL;
    }
    uint64_t budget = 0;
    if (nodes_o != Py_None) {
        budget = PyLong_AsUnsignedLongLong(nodes_o);
        if (PyErr_Occurred()) return NULL;
    }
    uint64_t first = s->nodes;
    s->limit = nodes_o == Py_None ? 0 : s->nodes + (budget ? budget : 1);
    s->abort = s->oom = s->stop = 0;
    s->busy = 1;
    Move best;
    int passes = 0, result;
    double started = now();
    Py_BEGIN_ALLOW_THREADS
    s->deadline = seconds >= 0 ? started + seconds : 0;
    result = root(s, hands, turn, (uint32_t)tid, by, &best, &passes);
    Py_END_ALLOW_THREADS
    s->busy = 0;
    s->sn = 0;
    if (s->oom) return PyErr_NoMemory();
    PyObject *move;
    if (result == 1) move = passes ? PyUnicode_FromString("pass") : move_tuple(&best);
    else move = Py_NewRef(Py_None);
    if (!move) return NULL;
    PyObject *res = result < 0 ? Py_NewRef(Py_None) : PyBool_FromLong(result);
    return Py_BuildValue("(NNK)", res, move, (unsigned long long)(s->nodes - first));
}

static PyObject *Search_moves(Search *s, PyObject *args) {
    unsigned long long h;
    PyObject *trick_o;
    if (!PyArg_ParseTuple(args, "KO", &h, &trick_o)) return NULL;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the search is running");
        return NULL;
    }
    int64_t tid = parse_trick(s, trick_o);
    if (tid < 0) return NULL;
    List l;
    if (moves_of(s, h, (uint32_t)tid, &l)) {
        s->sn = 0;
        return PyErr_NoMemory();
    }
    PyObject *out = PyList_New(l.n);
    if (!out) return NULL;
    for (uint32_t i = 0; i < l.n; i++) {
        PyObject *m = move_tuple(&l.v[i]);
        if (!m) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, m);
    }
    return Py_BuildValue("(NI)", out, l.ordinary);
}

static PyObject *Search_plays(Search *s, PyObject *args) {
    unsigned long long h;
    PyObject *prev_o = Py_None;
    if (!PyArg_ParseTuple(args, "K|O", &h, &prev_o)) return NULL;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the search is running");
        return NULL;
    }
    size_t base = s->sn;
    if (prev_o == Py_None) {
        gen_lead(s, h);
    } else {
        int type, main, length;
        if (!PyArg_ParseTuple(prev_o, "iii", &type, &main, &length)) return NULL;
        if (type < 0 || type >= NTYPES) {
            PyErr_SetString(PyExc_ValueError, "a type the compiled core does not play");
            return NULL;
        }
        gen_follow(s, h, key_of(type, main, length));
    }
    if (s->oom) {
        s->sn = base;
        return PyErr_NoMemory();
    }
    PyObject *out = PyList_New((Py_ssize_t)(s->sn - base));
    for (size_t j = base; out && j < s->sn; j++) {
        Play p = s->sv[j];
        PyObject *t = Py_BuildValue("(iiiK)", p.type, p.main, p.length, (unsigned long long)p.pint);
        if (!t) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)(j - base), t);
    }
    s->sn = base;
    return out;
}

/* ------------------------------------------------------------------ Combinations on cards */

/* engine.combination.Combination and its fields' slot descriptors (bind()). */
static PyTypeObject *COMBO_TYPE;
static PyObject *COMBO_FIELDS[5]; /* type, main, length, core, kickers */
static PyObject *TYPE_STR[NTYPES];

/* The core's rank counts of a play (the rest of the play are its kickers), as
 * engine.classify.make_play lays them out. */
static void core_counts(int type, int main, int length, int core[NR]) {
    memset(core, 0, NR * sizeof(int));
    switch (type) {
    case T_SINGLE: core[main] = 1; break;
    case T_PAIR: core[main] = 2; break;
    case T_TRIO: case T_TRIO_SINGLE: case T_TRIO_PAIR: core[main] = 3; break;
    case T_FOUR_TWO_SINGLE: case T_FOUR_TWO_PAIR: core[main] = 4; break;
    case T_BOMB: core[main] = length; break;
    case T_ROCKET: core[BJ] = core[RJ] = length / 2; break;
    case T_STRAIGHT:
        if (main >= ACE) { /* A2345... or 23456... */
            core[TWO] = 1;
            if (main == ACE) core[ACE] = 1;
            for (int r = 0; r < length - (main == ACE ? 2 : 1); r++) core[r] = 1;
        } else {
            for (int r = main; r < main + length; r++) core[r] = 1;
        }
        break;
    case T_PAIR_STRAIGHT: for (int r = main; r < main + length; r++) core[r] = 2; break;
    default: for (int r = main; r < main + length; r++) core[r] = 3; break; /* airplanes */
    }
}

static int set_field(PyObject *obj, int i, PyObject *value) {
    int r = Py_TYPE(COMBO_FIELDS[i])->tp_descr_set(COMBO_FIELDS[i], obj, value);
    Py_DECREF(value);
    return r;
}

/* The play on the hand's cards: each rank's first cards to the core, the next to the kickers
 * (engine.classify.combinations). ``groups``: the hand's cards by rank, as group_by_rank gives. */
static PyObject *make_combo(int type, int main, int length, uint64_t pint, PyObject *groups) {
    int core[NR], ncore = 0, nkick = 0;
    core_counts(type, main, length, core);
    for (int r = 0; r < NR; r++) {
        int k = NIB(pint, r);
        if (k > PyList_GET_SIZE(PyList_GET_ITEM(groups, r)) || k < core[r]) {
            PyErr_SetString(PyExc_ValueError, "the play is not made of the cards given");
            return NULL;
        }
        ncore += core[r];
        nkick += k - core[r];
    }
    PyObject *ct = PyTuple_New(ncore), *kt = PyTuple_New(nkick);
    if (!ct || !kt) goto fail;
    int ci = 0, ki = 0;
    for (int r = 0; r < NR; r++) {
        PyObject *g = PyList_GET_ITEM(groups, r);
        int k = NIB(pint, r);
        for (int j = 0; j < k; j++) {
            PyObject *card = PyList_GET_ITEM(g, j);
            Py_INCREF(card);
            if (j < core[r]) PyTuple_SET_ITEM(ct, ci++, card);
            else PyTuple_SET_ITEM(kt, ki++, card);
        }
    }
    PyObject *obj = COMBO_TYPE->tp_alloc(COMBO_TYPE, 0);
    if (!obj) goto fail;
    Py_INCREF(TYPE_STR[type]);
    if (set_field(obj, 0, TYPE_STR[type]) || set_field(obj, 1, PyLong_FromLong(main)) ||
        set_field(obj, 2, PyLong_FromLong(length)) || set_field(obj, 3, ct) || set_field(obj, 4, kt)) {
        Py_DECREF(obj);
        return NULL;
    }
    return obj;
fail:
    Py_XDECREF(ct);
    Py_XDECREF(kt);
    return NULL;
}

static int check_groups(PyObject *groups) {
    if (!COMBO_TYPE) {
        PyErr_SetString(PyExc_RuntimeError, "engine.solver._core.bind(Combination) was not called");
        return -1;
    }
    if (!PyList_Check(groups) || PyList_GET_SIZE(groups) != NR) {
        PyErr_SetString(PyExc_TypeError, "groups: the cards by rank, a list of 15 lists");
        return -1;
    }
    for (int r = 0; r < NR; r++)
        if (!PyList_Check(PyList_GET_ITEM(groups, r))) {
            PyErr_SetString(PyExc_TypeError, "groups: the cards by rank, a list of 15 lists");
            return -1;
        }
    return 0;
}

static uint64_t groups_hand(PyObject *groups) {
    uint64_t h = 0;
    for (int r = 0; r < NR; r++) {
        Py_ssize_t k = PyList_GET_SIZE(PyList_GET_ITEM(groups, r));
        h += (uint64_t)(k > 15 ? 15 : k) << (4 * r);
    }
    return h;
}

/* Combinations for the scratch plays [base, top), the scratch then emptied. */
static PyObject *combos_of(Search *s, size_t base, PyObject *groups) {
    PyObject *out = PyList_New((Py_ssize_t)(s->sn - base));
    for (size_t j = base; out && j < s->sn; j++) {
        Play p = s->sv[j];
        PyObject *c = make_combo(p.type, p.main, p.length, p.pint, groups);
        if (!c) Py_CLEAR(out);
        else PyList_SET_ITEM(out, (Py_ssize_t)(j - base), c);
    }
    s->sn = base;
    return out;
}

static PyObject *Search_legal(Search *s, PyObject *args) {
    PyObject *groups, *prev_o = Py_None;
    if (!PyArg_ParseTuple(args, "O|O", &groups, &prev_o)) return NULL;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the search is running");
        return NULL;
    }
    if (check_groups(groups)) return NULL;
    uint64_t h = groups_hand(groups);
    size_t base = s->sn;
    if (prev_o == Py_None) {
        gen_lead(s, h);
    } else {
        int type, main, length;
        if (!PyArg_ParseTuple(prev_o, "iii", &type, &main, &length)) return NULL;
        if (type < 0 || type >= NTYPES) {
            PyErr_SetString(PyExc_ValueError, "a type the compiled core does not play");
            return NULL;
        }
        gen_follow(s, h, key_of(type, main, length));
    }
    if (s->oom) {
        s->sn = base;
        return PyErr_NoMemory();
    }
    return combos_of(s, base, groups);
}

static PyObject *Search_build(Search *s, PyObject *args) {
    PyObject *moves, *groups;
    if (!PyArg_ParseTuple(args, "OO", &moves, &groups)) return NULL;
    (void)s;
    if (check_groups(groups)) return NULL;
    PyObject *seq = PySequence_Fast(moves, "moves: (type, main, length, play) tuples");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        int type, main, length;
        unsigned long long pint;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "iiiK", &type, &main, &length, &pint) ||
            type < 0 || type >= NTYPES) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a type the compiled core does not play");
            Py_CLEAR(out);
            break;
        }
        PyObject *c = make_combo(type, main, length, pint, groups);
        if (!c) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, c);
    }
    Py_DECREF(seq);
    return out;
}

static PyObject *core_bind(PyObject *module, PyObject *cls) {
    (void)module;
    static const char *names[5] = {"type", "main", "length", "core", "kickers"};
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "bind(Combination): a class");
        return NULL;
    }
    PyObject *fields[5];
    for (int i = 0; i < 5; i++) {
        fields[i] = PyObject_GetAttrString(cls, names[i]); /* a slots class: member descriptors */
        if (!fields[i] || !Py_TYPE(fields[i])->tp_descr_set) {
            for (int j = 0; j <= i; j++) Py_XDECREF(fields[j]);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "bind(Combination): a slots class");
            return NULL;
        }
    }
    for (int i = 0; i < NTYPES; i++)
        if (!TYPE_STR[i] && !(TYPE_STR[i] = PyUnicode_InternFromString(TYPE_NAMES[i]))) return NULL;
    for (int i = 0; i < 5; i++) {
        Py_XSETREF(COMBO_FIELDS[i], fields[i]);
    }
    Py_INCREF(cls);
    Py_XSETREF(COMBO_TYPE, (PyTypeObject *)cls);
    Py_RETURN_NONE;
}

static PyObject *Search_needed(Search *s, PyObject *arg) {
    unsigned long long h = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred()) return NULL;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the search is running");
        return NULL;
    }
    int n = needed(s, h);
    s->sn = 0;
    if (s->oom) return PyErr_NoMemory();
    return PyLong_FromLong(n);
}

static PyObject *Search_stop(Search *s, PyObject *unused) {
    (void)unused;
    s->stop = 1; /* read by the search thread at its next budget check */
    Py_RETURN_NONE;
}

static PyObject *Search_stats(Search *s, PyObject *unused) {
    (void)unused;
    double mb = ((double)s->tt_buckets * TT_WAYS * s->tt_words * sizeof(uint64_t)) / 1048576.0;
    double most = ((double)s->tt_max_buckets * TT_WAYS * s->tt_words * sizeof(uint64_t)) / 1048576.0;
    double cache = ((double)(s->mv_mask + 1) * sizeof(MoveSlot) + (double)s->arena_cap * sizeof(Move) +
                    (double)(s->need_mask + 1) * sizeof(NeedSlot) + (double)(s->rd_mask + 1) * sizeof(ReadSlot) +
                    (double)(s->af_mask + 1) * sizeof(AfterSlot)) / 1048576.0;
    return Py_BuildValue("{sKsnsnsdsdsdsKsKsnsKsK}", "nodes", (unsigned long long)s->nodes, "table_entries",
                         (Py_ssize_t)s->tt_used, "table_slots", (Py_ssize_t)(s->tt_buckets * TT_WAYS), "table_mb", mb,
                         "table_most_mb", most, "cache_mb", cache, "cache_clears", (unsigned long long)s->cache_clears,
                         "table_replaced", (unsigned long long)s->tt_replaced, "tricks", (Py_ssize_t)s->ntricks,
                         "table_probes", (unsigned long long)s->tt_probes, "table_hits", (unsigned long long)s->tt_hits);
}

static PyMethodDef Search_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))Search_solve, METH_VARARGS | METH_KEYWORDS,
     "solve(hands, turn, trick, by=None, seconds=None, nodes=None) -> (mover wins: bool | None, move, nodes)"},
    {"moves", (PyCFunction)Search_moves, METH_VARARGS,
     "moves(hand, trick) -> ([(type, main, length, play)], ordinary): the ordered moves the search tries"},
    {"plays", (PyCFunction)Search_plays, METH_VARARGS,
     "plays(hand, prev=None) -> [(type, main, length, play)]: the generated plays, in generation order"},
    {"needed", (PyCFunction)Search_needed, METH_O, "needed(hand) -> the fewest plays that empty it (手数)"},
    {"legal", (PyCFunction)Search_legal, METH_VARARGS,
     "legal(groups, prev=None) -> [Combination]: the plays of the cards by rank (engine.legal.legal_plays)"},
    {"build", (PyCFunction)Search_build, METH_VARARGS,
     "build(moves, groups) -> [Combination]: (type, main, length, play) moves on the cards by rank"},
    {"stop", (PyCFunction)Search_stop, METH_NOARGS, "ask a running search (another thread) to give up"},
    {"stats", (PyCFunction)Search_stats, METH_NOARGS, "sizes and counters"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "engine.solver._core.Search",
    .tp_basicsize = sizeof(Search),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The compiled search for one rule set and one landlord (see engine/solver/compiled.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
};

static PyMethodDef core_functions[] = {
    {"bind", (PyCFunction)core_bind, METH_O, "bind(Combination): the class legal() and build() make"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef coremodule = {PyModuleDef_HEAD_INIT, "_core",
                                        "The solver's compiled core (engine/solver/_core.c).", -1, core_functions};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&SearchType) < 0) return NULL;
    PyObject *m = PyModule_Create(&coremodule);
    if (!m) return NULL;
    Py_ssize_t nrules = 0;
    while (RULE_NAMES[nrules]) nrules++;
    PyObject *types = PyTuple_New(NTYPES), *rules = PyTuple_New(nrules);
    int bad = !types || !rules;
    for (int i = 0; !bad && i < NTYPES; i++) {
        PyObject *name = PyUnicode_FromString(TYPE_NAMES[i]);
        bad = !name;
        if (name) PyTuple_SET_ITEM(types, i, name);
    }
    for (Py_ssize_t i = 0; !bad && i < nrules; i++) {
        PyObject *name = PyUnicode_FromString(RULE_NAMES[i]);
        bad = !name;
        if (name) PyTuple_SET_ITEM(rules, i, name);
    }
    if (!bad && PyModule_AddObject(m, "TYPES", types) == 0) types = NULL;
    else bad = 1;
    if (!bad && PyModule_AddObject(m, "RULES", rules) == 0) rules = NULL;
    else bad = 1;
    Py_INCREF(&SearchType);
    if (!bad && PyModule_AddObject(m, "Search", (PyObject *)&SearchType) == 0) {
        return m;
    }
    Py_DECREF(&SearchType);
    Py_XDECREF(types);
    Py_XDECREF(rules);
    Py_DECREF(m);
    return NULL;
}
