/* Readings and move generation: a hand's plays in engine.rank_plays.generate's order, and beats().
 *
 * A part of engine/solver/_core.c, which includes the parts in order in one translation unit
 * (every function static). */
#ifndef DDZ_SOLVER_PLAYS_H
#define DDZ_SOLVER_PLAYS_H

#include "_core.h"

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

/* Four with two kickers: two singles (width 1) or two pairs (width 2). */
static void g_four_two(Gen *g, int floor, int width) {
    const Rules *R = g->R;
    if (!R->four_two) return;
    int pairs = width == 2;
    int cap = (pairs ? R->four_two_pair_same : R->four_two_single_pair) ? 2 : 1;
    int top = pairs ? pair_top(R) : NR;
    for (int r = imax(floor + 1, 0); r < BJ; r++) {
        if (g->c[r] < 4) continue;
        int core[NR] = {0}, pool[NR], n = 0;
        Cap caps[NR];
        core[r] = 4;
        pool_of(g, core, pool);
        for (int x = 0; x < top; x++)
            if (pool[x] >= width) caps[n++] = (Cap){x, imin(pool[x] / width, cap)};
        with_kickers(g, pairs ? T_FOUR_TWO_PAIR : T_FOUR_TWO_SINGLE, r, 1, 4 + 2 * width, 4 * ONE(r), caps, n, 2,
                     width, pairs ? 0 : !R->kicker_rocket);
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
    case T_FOUR_TWO_SINGLE: g_four_two(g, floor, 1); break;
    case T_FOUR_TWO_PAIR: g_four_two(g, floor, 2); break;
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

#endif /* DDZ_SOLVER_PLAYS_H */
