/* Depth-first proof-number search (df-pn) over the same positions, sharing the table.
 *
 * A part of engine/solver/_core.c, which includes the parts in order in one translation unit
 * (every function static). */
#ifndef DDZ_SOLVER_PNS_H
#define DDZ_SOLVER_PNS_H

#include "_alphabeta.h"

/* ------------------------------------------------------------------ proof-number search */

/* A child of a position in the proof-number search: the move, the position it leads to once the
 * seats that cannot beat the trick have passed, and its proof and disproof numbers. */
typedef struct Child {
    uint64_t h[MAXSEATS]; /* the hands there */
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

/* Whether hand h plays out on trick tid in one move (the alpha-beta does not keep such positions
 * in the table): from the move cache only, 0 when the list is not there. */
static int out_in_one(Search *s, uint64_t h, uint32_t tid) {
    size_t i = mv_index(s, h, tid);
    for (;;) {
        MoveSlot *e = &s->mv[i];
        if (!e->off) return 0;
        if (e->h == h && e->tid == tid) return e->n > 0 && s->arena[e->off - 1].pint == h;
        i = (i + 1) & s->mv_mask;
    }
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
    copy_hands(child, hands, s->players);
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
    if ((s->cuts & 8) && (!(s->cuts & 16) || !ctid) && canon(s, child, &ctid, cby)) return -1;
    copy_hands(c->h, child, s->players);
    c->turn = (uint8_t)cturn;
    c->tid = ctid;
    c->by = (uint8_t)cby;
    const uint64_t *e = tt_find(s, child, cturn, ctid, cby);
    if (e) {
        c->pn = (uint32_t)(e[s->players + 1] >> 32);
        c->dn = (uint32_t)e[s->players + 1];
    } else if (!ctid ? needed(s, child[cturn]) == 1 : out_in_one(s, child[cturn], ctid)) {
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
    if (count_node(s) < 0) return -1;
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
    /* The static win without cut 1024's retakes: with them the proof-number search took another
     * path on full deal 16 of bench.solver and did not finish it within 150 million nodes, where
     * without them it needs 77 million (docs/solver-log.md). */
    if ((l.n && l.v[0].pint == h) || ((s->cuts & 1) && static_win(s, hands, turn, tid, h, &l, 0))) {
        *pn_out = lord ? 0 : INF;
        *dn_out = lord ? INF : 0;
        tt_store(s, hands, turn, tid, by, *pn_out, *dn_out, 1);
        return 0;
    }
    if (s->oom) return -1;
    if (s->cuts & 512) {
        int t = master_win(s, hands, turn, tid, by);
        if (t >= 0) {
            int lw = t == lord;
            *pn_out = lw ? 0 : INF;
            *dn_out = lw ? INF : 0;
            tt_store(s, hands, turn, tid, by, *pn_out, *dn_out, 1);
            return 0;
        }
        if (s->oom) return -1;
    }
    if (s->cuts & 32) {
        int t = top_win(s, hands, turn, tid, by);
        if (t >= 0) {
            int lw = t == lord; /* the landlord wins: its seat to move wins, or a farmer's loses */
            *pn_out = lw ? 0 : INF;
            *dn_out = lw ? INF : 0;
            tt_store(s, hands, turn, tid, by, *pn_out, *dn_out, 1);
            return 0;
        }
        if (s->oom) return -1;
    }
    if (l.epoch != s->epoch && moves_of(s, h, tid, &l)) return -1;
    uint32_t n = l.n + (tid ? 1 : 0), pass_at = tid ? (s->side[by] == lord ? 0 : l.ordinary) : UINT32_MAX;
    size_t base = s->cn;
    if (c_reserve(s, n)) return -1;
    s->cn += n;
    {
        /* What filling the children reads, asked for at once so that the waits overlap: each
         * mover's hand's 手数, the next seat's move list on the new trick, and the table's bucket
         * of the child as it stands when the next seat can play, or else when the one after it
         * can (or leads again: the trick is the mover's). */
        uint64_t child[MAXSEATS];
        copy_hands(child, hands, s->players);
        int nxt = s->next[turn];
        for (uint32_t i = 0; i < l.n; i++) {
            child[turn] = h - l.v[i].pint;
            if (!child[turn]) continue;
            __builtin_prefetch(&s->need[mix64(child[turn]) & s->need_mask]);
            __builtin_prefetch(&s->mv[mv_index(s, child[nxt], l.v[i].after)]);
            uint64_t key = hands_key(s, child);
            tt_prefetch_k(s, key, nxt, l.v[i].after, turn);
            int nx2 = s->next[nxt], ends = nx2 == turn;
            tt_prefetch_k(s, key, nx2, ends ? 0 : l.v[i].after, ends ? NONE : turn);
            __builtin_prefetch(&s->mv[mv_index(s, child[nx2], ends ? 0 : l.v[i].after)]);
        }
    }
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
        uint32_t cpn, cdn;
        if (mid(s, c.h, c.turn, c.tid, c.by, cthp, cthd, &cpn, &cdn)) goto fail;
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
static int landlord_wins(Search *s, const uint64_t *given, int turn, uint32_t tid, int by) {
    uint64_t hands[MAXSEATS];
    copy_hands(hands, given, s->players);
    if (settle(s, hands, &turn, &tid, &by)) return -1;
    if ((s->cuts & 8) && (!(s->cuts & 16) || !tid) && canon(s, hands, &tid, by)) return -1;
    uint32_t pn, dn;
    if (mid(s, hands, turn, tid, by, INF, INF, &pn, &dn)) return -1;
    return pn == 0;
}

#endif /* DDZ_SOLVER_PNS_H */
