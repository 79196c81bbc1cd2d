/* Readings of a set of cards, interned tricks, the trick after a play, 手数, and the move cache.
 *
 * A part of engine/solver/_core.c, which includes the parts in order in one translation unit
 * (every function static). */
#ifndef DDZ_SOLVER_CACHE_H
#define DDZ_SOLVER_CACHE_H

#include "_plays.h"

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

/* ------------------------------------------------------------------ a hand played whole */

/* The trick hand h leaves when led as one play (0 when h is no one play), memoized; -1 on
 * failure. Most hands are more than one play: 手数 (memoized) says so before any reading is made. */
static int64_t whole_play(Search *s, uint64_t h) {
    WholeSlot *e = &s->whole[mix64(h ^ 0x2545f4914f6cdd1dULL) & (WHOLE_SLOTS - 1)];
    if (e->h == h) return e->tid;
    int64_t t = needed(s, h) == 1 ? after_of(s, h, 0) : 0;
    if (t < 0 || s->oom) return -1;
    e->h = h;
    e->tid = (uint32_t)t;
    return t;
}

/* Whether a seat whose hand played whole leaves trick ``whole`` (whole_play) plays out at once
 * facing trick ``tid`` (0: on lead): its move list's first move is then its whole hand (moves_of
 * puts a play that empties the hand first, and a play is on the list when one of its readings
 * beats one of the trick's). */
static inline int goes_out(const Search *s, uint32_t whole, uint32_t tid) {
    if (!whole) return 0;
    if (!tid) return 1;
    const uint32_t *a = s->tkeys + s->toff[whole], *b = s->tkeys + s->toff[tid];
    for (uint32_t i = 0; i < s->tlen[whole]; i++)
        for (uint32_t j = 0; j < s->tlen[tid]; j++)
            if (beats(&s->R, a[i], b[j])) return 1;
    return 0;
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

#endif /* DDZ_SOLVER_CACHE_H */
