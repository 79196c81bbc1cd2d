/* The alpha-beta (engine.solver.search.Solver's win) and the static win.
 *
 * A part of engine/solver/_core.c, which includes the parts in order in one translation unit
 * (every function static). */
#ifndef DDZ_SOLVER_ALPHABETA_H
#define DDZ_SOLVER_ALPHABETA_H

#include "_cache.h"
#include "_canon.h"
#include "_table.h"

/* ------------------------------------------------------------------ the search */

/* The table and the random-access caches onto huge pages, once (_table.h: HUGE_AFTER). */
static void go_huge(Search *s) {
    s->huge = 1;
    to_huge(s->tt, tt_bytes(s, s->tt_buckets), 1);
    to_huge(s->tt_side, s->tt_buckets * sizeof(uint16_t), 1);
    to_huge(s->mv, (s->mv_mask + 1) * sizeof(MoveSlot), 1);
    to_huge(s->need, (s->need_mask + 1) * sizeof(NeedSlot), 1);
    to_huge(s->af, (s->af_mask + 1) * sizeof(AfterSlot), 1);
}

static int budget_out(Search *s) {
    if (!s->huge && s->nodes >= s->huge_at) go_huge(s);
    if (*(volatile int *)&s->stop) return 1;
    if (s->slice_end && s->nodes >= s->slice_end) {
        s->slice_hit = 1;
        return 1;
    }
    if (s->limit && s->nodes >= s->limit) return 1;
    if (s->deadline > 0 && now() >= s->deadline) return 1;
    return 0;
}

/* Counts a node; 0, or -1 (the search aborted) when the budget has run out (asked every 1,024). */
static inline int count_node(Search *s) {
    s->nodes++;
    if (!(s->nodes & 1023) && budget_out(s)) {
        s->abort = 1;
        return -1;
    }
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

/* The highest reading of each type and length that hand h might play, into best[][] (0xffffffff:
 * none): read off the rank counts, without the kickers (a kicker does not change a reading), so
 * a reading may be there that no play of the hand has (a trio with a pair where no pair is
 * left), never one missing. 1 when done, 0 where the rules' low straights (A2345, 23456: their
 * order is not the ranks') make generation the simpler way. */
static int tops_by_counts(Search *s, uint64_t h, uint32_t best[NTYPES][16]) {
    const Rules *R = &s->R;
    if (R->low_straights) return 0;
    int c[NR], total = 0, high = R->chain_high;
    for (int r = 0; r < NR; r++) total += c[r] = NIB(h, r);
    int top1 = -1, top2 = -1, top3 = -1, top4 = -1;
    for (int r = 0; r < NR; r++) {
        if (c[r]) top1 = r;
        if (c[r] >= 2 && r < pair_top(R)) top2 = r;
        if (c[r] >= 3 && r < BJ) top3 = r;
        if (c[r] >= 4 && r < BJ) top4 = r;
    }
    if (top1 >= 0) best[T_SINGLE][1] = key_of(T_SINGLE, top1, 1);
    if (top2 >= 0) best[T_PAIR][1] = key_of(T_PAIR, top2, 1);
    if (top3 >= 0) {
        best[T_TRIO][1] = key_of(T_TRIO, top3, 1);
        if (R->trio_single && total >= 4) best[T_TRIO_SINGLE][1] = key_of(T_TRIO_SINGLE, top3, 1);
        if (R->trio_pair && total >= 5) best[T_TRIO_PAIR][1] = key_of(T_TRIO_PAIR, top3, 1);
    }
    if (top4 >= 0 && R->four_two) {
        if (total >= 6) best[T_FOUR_TWO_SINGLE][1] = key_of(T_FOUR_TWO_SINGLE, top4, 1);
        if (total >= 8) best[T_FOUR_TWO_PAIR][1] = key_of(T_FOUR_TWO_PAIR, top4, 1);
    }
    /* chains: for each length, the highest low rank with a run that long */
    static const int each[3] = {1, 2, 3};
    int types[3] = {T_STRAIGHT, T_PAIR_STRAIGHT, T_AIRPLANE}, mins[3] = {R->straight_min, R->pair_chain_min,
                                                                          R->trio_chain_min};
    for (int k = 0; k < 3; k++) {
        int run[NR + 1];
        run[high + 1] = 0;
        for (int r = high; r >= 0; r--) run[r] = c[r] >= each[k] ? run[r + 1] + 1 : 0;
        for (int lo = 0; lo <= high; lo++)
            for (int n = mins[k]; n <= run[lo] && n < 16; n++) {
                best[types[k]][n] = key_of(types[k], lo, n); /* lo ascends: the last is the highest */
                if (k == 2) {
                    if (R->trio_single && 4 * n <= total) best[T_AIRPLANE_SINGLE][n] = key_of(T_AIRPLANE_SINGLE, lo, n);
                    if (R->trio_pair && 5 * n <= total) best[T_AIRPLANE_PAIR][n] = key_of(T_AIRPLANE_PAIR, lo, n);
                }
            }
    }
    for (int size = R->bomb_min; size <= R->bomb_max && size < 16; size++)
        for (int r = 0; r < BJ; r++)
            if (c[r] >= size) best[T_BOMB][size] = key_of(T_BOMB, r, size);
    int half = R->rocket_jokers / 2;
    if (c[BJ] >= half && c[RJ] >= half && 2 * half < 16) best[T_ROCKET][2 * half] = key_of(T_ROCKET, BJ, 2 * half);
    return 1;
}

/* The highest reading of each type and length among the plays of hand h (a play that beats it
 * beats the lower ones of its type and length; tops_by_counts may add readings no play has),
 * memoized; NULL when there are more than TOPS_MAX or memory ran out. */
static const TopsSlot *tops_of_hand(Search *s, uint64_t h) {
    if (!s->tops && !(s->tops = calloc(TOPS_SLOTS, sizeof(TopsSlot)))) {
        s->oom = 1;
        return NULL;
    }
    TopsSlot *e = &s->tops[mix64(h ^ 0x5bd1e995u) & (TOPS_SLOTS - 1)];
    if (e->n && e->h == h) return e->n == 255 ? NULL : e;
    uint32_t best[NTYPES][16];
    memset(best, 0xff, sizeof best);
    int n = 0;
    if (!tops_by_counts(s, h, best)) {
        size_t base = s->sn;
        gen_lead(s, h);
        if (s->oom) return NULL;
        for (size_t i = base; i < s->sn; i++) {
            Play p = s->sv[i];
            if (p.length >= 16) {
                n = 255;
                break;
            }
            uint32_t key = key_of(p.type, p.main, p.length), *b = &best[p.type][p.length];
            if (*b == 0xffffffffu || beats(&s->R, key, *b)) *b = key;
        }
        s->sn = base;
    }
    e->h = h;
    int k = 0;
    for (int t = 0; t < NTYPES && n != 255; t++)
        for (int len = 0; len < 16; len++)
            if (best[t][len] != 0xffffffffu) {
                if (k == TOPS_MAX) {
                    n = 255;
                    break;
                }
                e->key[k++] = best[t][len];
            }
    if (n == 255) {
        e->n = 255;
        return NULL;
    }
    e->n = (uint8_t)(k + 1);
    return e;
}

#ifndef TOP_DEPTH
#define TOP_DEPTH 4 /* the most plays the rest of a seat's hand may need for cut 32 to try it */
#endif
#ifndef RETAKE_DEPTH
#define RETAKE_DEPTH 4 /* the most plays a hand may need for cut 1024 to try it */
#endif
#define MASTER_TAKES 64 /* the most plays of a hand looked at as ways to take over */

/* The highest readings of the plays of every opponent of ``seat`` (tops_of_hand) into want[]; how
 * many; -1 when some hand has too many (then cut 1024 is not tried) or memory ran out. */
static int opponents_tops(Search *s, const uint64_t *hands, int seat, uint32_t want[MAXSEATS * TOPS_MAX]) {
    int nw = 0;
    for (int o = 0; o < s->players; o++) {
        if (s->side[o] == s->side[seat]) continue;
        const TopsSlot *t = tops_of_hand(s, hands[o]);
        if (!t) return -1;
        memcpy(want + nw, t->key, (size_t)(t->n - 1) * sizeof(uint32_t));
        nw += t->n - 1;
    }
    return nw;
}

/* Whether one of the readings want[0..nw) beats one of the readings of trick ``tid`` (with the
 * opponents' highest readings: whether an opponent may answer it; never no where one can). */
static int beaten_by(Search *s, const uint32_t *want, int nw, uint32_t tid) {
    for (int e = 0; e < nw; e++)
        for (uint32_t q = 0; q < s->tlen[tid]; q++)
            if (beats(&s->R, want[e], s->tkeys[s->toff[tid] + q])) return 1;
    return 0;
}

/* Whether the cards ``part`` are among the cards ``whole`` (rank by rank). */
static inline int within(uint64_t part, uint64_t whole) {
    for (int r = 0; r < NR; r++)
        if (NIB(part, r) > NIB(whole, r)) return 0;
    return 1;
}

/* A hand's plays as leads, for cut 1024: at most MASTER_TAKES of them (the first in the search's
 * order), each with its trick and whether none of the opponents' highest readings beats it
 * (free: 2 until asked, free_lead). */
typedef struct {
    uint64_t pint[MASTER_TAKES];
    uint32_t after[MASTER_TAKES];
    uint8_t free[MASTER_TAKES];
    uint32_t n;
} Leads;

static int leads_of(Search *s, uint64_t h, Leads *L) {
    List l;
    if (moves_of(s, h, 0, &l)) return -1;
    L->n = l.n < MASTER_TAKES ? l.n : MASTER_TAKES;
    for (uint32_t i = 0; i < L->n; i++) {
        L->pint[i] = l.v[i].pint;
        L->after[i] = l.v[i].after;
        L->free[i] = 2;
    }
    return 0;
}

static inline int free_lead(Search *s, Leads *L, uint32_t i, const uint32_t *want, int nw) {
    if (L->free[i] == 2) L->free[i] = (uint8_t)!beaten_by(s, want, nw, L->after[i]);
    return L->free[i];
}

/* cut 1024: whether ``seat``, having just played a play that leaves trick ``after`` and keeping
 * ``rest``, goes out whatever its opponents answer: no opponent goes out by answering (its whole
 * hand is no play on the trick), and for each of the opponents' highest readings (want[0..nw),
 * opponents_tops) that beats the trick (a play of theirs played on top of another beats the trick
 * too, so whatever stands when the turn is back is one of these or lower), ``rest`` holds a play
 * with a reading that beats it that either empties ``rest`` or is beaten by none of the opponents'
 * highest readings (so no opponent answers it) and leaves a rest that goes out leading plays of
 * which at most one is answered (controls). If all pass, the seat leads such a play itself.
 * Partners pass (no partner is on lead meanwhile). Opponents' hands only shrink, so what none
 * answers now none answers later. The plays of ``rest`` are looked for among L, the plays of a
 * hand holding it. */
static int retake_after(Search *s, const uint64_t *hands, int seat, uint64_t rest, uint32_t after,
                        const uint32_t *want, int nw, Leads *L) {
    uint32_t answers[MAXSEATS * TOPS_MAX];
    int8_t good[MASTER_TAKES];
    int na = 0;
    for (int e = 0; e < nw; e++) { /* the answers to take back: the readings that beat the trick */
        int beats_it = 0;
        for (uint32_t q = 0; q < s->tlen[after] && !beats_it; q++)
            beats_it = beats(&s->R, want[e], s->tkeys[s->toff[after] + q]);
        if (beats_it) answers[na++] = want[e];
    }
    if (!na) return 0; /* none answers it: controls' case, not this one */
    for (int o = 0; o < s->players; o++) {
        if (s->side[o] == s->side[seat] || needed(s, hands[o]) >= 2) continue;
        int64_t t = after_of(s, hands[o], after); /* its whole hand is one play: on the trick? */
        if (t < 0) return -1;
        if (s->tlen[t]) return 0; /* it goes out on the trick */
    }
    for (uint32_t i = 0; i < L->n; i++) good[i] = -1;
    for (int e = 0; e < na; e++) {
        int beaten = 0;
        for (uint32_t i = 0; i < L->n && !beaten; i++) {
            if (!good[i]) continue;
            int beats_it = 0;
            for (uint32_t q = 0; q < s->tlen[L->after[i]] && !beats_it; q++)
                beats_it = beats(&s->R, s->tkeys[s->toff[L->after[i]] + q], answers[e]);
            if (!beats_it) continue;
            if (good[i] < 0) {
                uint64_t q = L->pint[i];
                good[i] = q == rest;
                if (!good[i] && within(q, rest) && free_lead(s, L, i, want, nw)) {
                    int most = needed(s, rest - q);
                    good[i] = most <= TOP_DEPTH && controls(s, hands, seat, rest - q, 1, most + 1);
                    if (s->oom) return -1;
                }
            }
            beaten = good[i];
        }
        if (!beaten) return 0;
    }
    return 1;
}

/* cut 1024: whether ``seat`` on lead with hand h goes out by leading a play some opponent may
 * answer, taking the trick back (retake_after) and then going out as controls says. Plays none
 * answers may come before or after: they do not change the opponents' hands. */
static int retakes(Search *s, const uint64_t *hands, int seat, uint64_t h) {
    if (needed(s, h) > RETAKE_DEPTH) return 0;
    uint32_t want[MAXSEATS * TOPS_MAX];
    int nw = opponents_tops(s, hands, seat, want);
    if (nw < 0) return s->oom ? -1 : 0;
    Leads L;
    if (leads_of(s, h, &L)) return -1;
    for (uint32_t i = 0; i < L.n; i++) {
        if (L.pint[i] == h) continue; /* out at once: controls' case (and none answering: no answer) */
        int r = retake_after(s, hands, seat, h - L.pint[i], L.after[i], want, nw, &L);
        if (r) return r;
    }
    return s->oom ? -1 : 0;
}

/* The seat goes out from the lead: controls, or with ``retake`` retakes. */
static int leads_out(Search *s, const uint64_t *hands, int seat, uint64_t h, int most, int retake) {
    if (most <= 3 && controls(s, hands, seat, h, 1, most + 1)) return 1;
    if (s->oom) return 0;
    return retake && retakes(s, hands, seat, h) > 0;
}

/* cut 1: the seat to move wins at once if it has the lead or a play on the trick that no opponent
 * answers, and then goes out with at most one answerable play (controls); with ``retake`` (cut
 * 1024, asked by the alpha-beta only) also by a play an opponent may answer, taken back. */
static int static_win(Search *s, const uint64_t *hands, int turn, uint32_t tid, uint64_t h, List *l, int retake) {
    int most = needed(s, h);
    if (most > (retake ? RETAKE_DEPTH : 3)) return 0;
    if (!tid) return leads_out(s, hands, turn, h, most, retake);
    uint32_t want[MAXSEATS * TOPS_MAX];
    int nw = -2;
    Leads L;
    for (uint32_t j = 0; j < l->n; j++) {
        Move m = l->v[j];
        uint64_t epoch = l->epoch;
        int left = needed(s, h - m.pint);
        if (left <= 2 && unanswered(s, hands, turn, m.after) && controls(s, hands, turn, h - m.pint, 1, 3))
            return 1;
        /* cut 1024: the trick beaten by a play an opponent may answer, and taken back (where none
         * answers it, the seat leads next, and its own node asks whether it retakes from there) */
        if (retake && left < RETAKE_DEPTH) {
            if (nw == -2) { /* once a node: the opponents' highest readings, the hand's leads */
                nw = opponents_tops(s, hands, turn, want);
                if (nw >= 0 && leads_of(s, h, &L)) return 0;
                if (l->epoch != s->epoch && moves_of(s, h, tid, l)) return 0;
            }
            if (nw >= 0 && retake_after(s, hands, turn, h - m.pint, m.after, want, nw, &L) > 0) return 1;
        }
        if (s->oom) return 0;
        if (s->epoch != epoch && moves_of(s, h, tid, l)) return 0;
    }
    return 0;
}

/* A seat's bombs and the rocket: their readings in key[], their cards in pint[]; how many. */
static int tops_of(Search *s, uint64_t h, uint32_t key[], uint64_t pint[]) {
    const Rules *R = &s->R;
    int n = 0, half = R->rocket_jokers / 2;
    for (int size = R->bomb_min; size <= R->bomb_max; size++)
        for (int r = 0; r < BJ; r++)
            if (NIB(h, r) >= size) {
                key[n] = key_of(T_BOMB, r, size);
                pint[n++] = (uint64_t)size * ONE(r);
            }
    if (NIB(h, BJ) >= half && NIB(h, RJ) >= half) {
        key[n] = key_of(T_ROCKET, BJ, 2 * half);
        pint[n++] = (uint64_t)half * ONE(BJ) + (uint64_t)half * ONE(RJ);
    }
    return n;
}


/* cut 32: some seat X wins for its side whatever the others do, because it holds a top (a bomb
 * or the rocket that beats every bomb and rocket its opponents hold, so no opponent ever answers
 * it and it beats every play they can make) and the rest of its hand goes out by leads of which
 * at most one can be answered (controls), once X has a turn:
 * - the seats that move before X's turn (each once, in order from the seat to move) cannot stop
 *   that: an opponent among them cannot go out (its 手数 is 2 or more: a hand played out in one
 *   play is one lead), so it plays or passes; a partner among them passes, which it may unless it
 *   is on lead then (the seat to move on a lead, or the seat that made the trick);
 * - at X's turn X leads (a trick of its own) or beats the trick with the top: a play of an
 *   opponent's hand (it beats them all) or the trick standing now, which the top must beat;
 * - then X leads: the top first when it did not play it, each play unanswered but the last,
 *   and opponents' hands only shrink, so what none answers now none answers later.
 * Returns 1 when the side of ``turn`` wins so, 0 when it loses so, -1 when no seat shows it. */
static int top_win(Search *s, const uint64_t *hands, int turn, uint32_t tid, int by) {
    uint32_t tkey[2 * 8 * 15 + 1], okey[2 * 8 * 15 + 1];
    uint64_t tpint[2 * 8 * 15 + 1], opint[2 * 8 * 15 + 1];
    int before[MAXSEATS], nb = 0;
    for (int x = turn, k = 0; k < s->players; k++, x = s->next[x]) {
        before[nb++] = x;
        int nt = tops_of(s, hands[x], tkey, tpint);
        if (!nt) continue;
        int ok = 1;
        for (int j = 0; j < nb - 1 && ok; j++) {
            int w = before[j];
            if (s->side[w] != s->side[x]) ok = needed(s, hands[w]) >= 2;
            else ok = !(j == 0 && !tid) && w != by;
        }
        if (!ok) continue;
        for (int t = nt - 1; t >= 0; t--) {
            int top = 1;
            if (tid && by != x) { /* X may face the trick standing now */
                int beaten = 0;
                for (uint32_t q = 0; q < s->tlen[tid] && !beaten; q++)
                    beaten = beats(&s->R, tkey[t], s->tkeys[s->toff[tid] + q]);
                top = beaten;
            }
            for (int o = 0; o < s->players && top; o++) {
                if (s->side[o] == s->side[x]) continue;
                int no = tops_of(s, hands[o], okey, opint);
                for (int i = 0; i < no && top; i++) top = beats(&s->R, tkey[t], okey[i]);
            }
            if (!top) continue;
            uint64_t rest = hands[x] - tpint[t];
            int most = needed(s, rest);
            if (most <= TOP_DEPTH && controls(s, hands, x, rest, 1, most + 1))
                return s->side[x] == s->side[turn];
            if (s->oom) return -1;
        }
    }
    return -1;
}

#ifndef MASTER_DEPTH
#define MASTER_DEPTH 4 /* the most plays a seat's hand may need for cut 512 to try it */
#endif

/* Whether seat x, facing trick ``tid``, beats it with a play no opponent answers and then goes out
 * leading plays of which at most one is answered (or goes out with the play itself). */
static int takes_over(Search *s, const uint64_t *hands, int x, uint32_t tid) {
    List l;
    if (moves_of(s, hands[x], tid, &l)) return -1;
    for (uint32_t j = 0; j < l.n; j++) {
        Move m = l.v[j];
        uint64_t epoch = l.epoch, rest = hands[x] - m.pint;
        if (!rest) return 1;
        int most = needed(s, rest);
        if (most <= TOP_DEPTH && unanswered(s, hands, x, m.after) && controls(s, hands, x, rest, 1, most + 1))
            return 1;
        if (s->oom) return -1;
        if (s->epoch != epoch && moves_of(s, hands[x], tid, &l)) return -1;
    }
    return 0;
}

/* The highest rank of hand h (-1 when empty). */
static inline int top_rank(uint64_t h) {
    return h ? (63 - __builtin_clzll(h)) / 4 : -1;
}

/* Whether seat x beats the highest single of each opponent among seats[0..n): a higher card, a
 * bomb (some rank with bomb_min cards) or the rocket. Every card is a single, so cut 512 needs
 * this of X; it is cheap and rules out most seats before the plays are looked at. */
static int single_over(Search *s, const uint64_t *hands, int x, const int *seats, int n) {
    int mine = top_rank(hands[x]);
    for (int r = 0; r < BJ; r++)
        if (NIB(hands[x], r) >= s->R.bomb_min) return 1;
    int half = s->R.rocket_jokers / 2;
    if (NIB(hands[x], BJ) >= half && NIB(hands[x], RJ) >= half) return 1;
    for (int j = 0; j < n; j++)
        if (s->side[seats[j]] != s->side[x] && top_rank(hands[seats[j]]) >= mine) return 0;
    return 1;
}

/* cut 512: some seat X other than the seat to move wins for its side whatever the others do,
 * because whatever stands when its turn comes it takes over and goes out (top_win without a top):
 * - the seats that move before X's turn (each once, from the seat to move) cannot stop that: an
 *   opponent among them cannot go out (its 手数 is 2 or more), so it plays or passes; a partner
 *   among them passes, which it may unless it is on lead then (the seat to move on a lead, or the
 *   trick's maker when the turn reaches it);
 * - at X's turn X faces one of: the lead (the trick is X's and all before it passed), the trick
 *   standing now (all passed, its maker not among them), or some play of an opponent among them,
 *   made of cards of its hand now, under some of its readings. X leads out (controls) or beats the
 *   trick standing now with a play no opponent answers and goes out after it (takes_over); and
 *   for every reading of every play each opponent among them holds, X holds a takeover (a play
 *   that goes out, or that no opponent answers as a lead, under any of its readings, and after
 *   which the rest goes out leading plays of which at most one is answered) with a reading that
 *   beats it: that play is then legal on whatever the opponent's play stands as. Of the readings
 *   of one type and length only the highest is asked (tops_of_hand);
 * - opponents' hands only shrink, so what none of them answers now none answers later.
 * Returns 1 when the side of ``turn`` wins so, 0 when it loses so, -1 when not shown (or out of
 * memory: s->oom). */
static int master_win(Search *s, const uint64_t *hands, int turn, uint32_t tid, int by) {
    int before[MAXSEATS], nb = 0;
    for (int x = turn, k = 0; k < s->players; k++, x = s->next[x]) {
        before[nb++] = x;
        if (!k) continue; /* the seat to move itself: static_win */
        if (!single_over(s, hands, x, before, nb - 1)) continue;
        int ok = 1, seen_by = 0;
        for (int j = 0; j < nb - 1 && ok; j++) {
            int w = before[j];
            seen_by |= w == by;
            if (s->side[w] != s->side[x]) {
                ok = needed(s, hands[w]) >= 2;
            } else {
                ok = !(j == 0 && !tid) && w != by;
            }
        }
        if (!ok || needed(s, hands[x]) > MASTER_DEPTH) continue;
        uint32_t want[MAXSEATS * TOPS_MAX]; /* copied: two hands may share a memo slot */
        int nw = 0;
        for (int j = 0; j < nb - 1 && ok; j++) {
            if (s->side[before[j]] == s->side[x]) continue;
            const TopsSlot *t = tops_of_hand(s, hands[before[j]]);
            if (!t) {
                ok = 0;
                break;
            }
            memcpy(want + nw, t->key, (size_t)(t->n - 1) * sizeof(uint32_t));
            nw += t->n - 1;
        }
        if (s->oom) return -1;
        /* first whether X's highest readings beat them at all (a play of X that beats one has a
         * reading whose highest of its type and length beats it too): the cheap part, from memos */
        const TopsSlot *mine = ok ? tops_of_hand(s, hands[x]) : NULL;
        if (s->oom) return -1;
        for (int e = 0; e < nw && mine; e++) {
            int beaten = 0;
            for (int q = 0; q < mine->n - 1 && !beaten; q++) beaten = beats(&s->R, mine->key[q], want[e]);
            if (!beaten) mine = NULL;
        }
        if (!mine) continue;
        List l;
        if (moves_of(s, hands[x], 0, &l)) return -1;
        uint32_t n = l.n < MASTER_TAKES ? l.n : MASTER_TAKES, after[MASTER_TAKES];
        uint64_t pint[MASTER_TAKES];
        int8_t good[MASTER_TAKES]; /* whether X's play i takes over: -1 not known yet */
        for (uint32_t i = 0; i < n; i++) {
            after[i] = l.v[i].after;
            pint[i] = l.v[i].pint;
            good[i] = -1;
        }
        for (int e = 0; e < nw && ok; e++) {
            uint32_t key = want[e];
            int beaten = 0;
            for (uint32_t i = 0; i < n && !beaten; i++) {
                if (!good[i]) continue;
                int beats_it = 0;
                for (uint32_t q = 0; q < s->tlen[after[i]] && !beats_it; q++)
                    beats_it = beats(&s->R, s->tkeys[s->toff[after[i]] + q], key);
                if (!beats_it) continue;
                if (good[i] < 0) { /* the dear part, once a play */
                    uint64_t rest = hands[x] - pint[i];
                    int most = rest ? needed(s, rest) : 0;
                    good[i] = !rest || (most <= TOP_DEPTH && unanswered(s, hands, x, after[i]) &&
                                        controls(s, hands, x, rest, 1, most + 1));
                    if (s->oom) return -1;
                }
                beaten = good[i];
            }
            ok = beaten;
        }
        if (!ok) continue;
        int r = 1;
        if (tid && !seen_by) { /* all before X may pass: X leads, or faces the trick standing now */
            if (by == x) {
                int most = needed(s, hands[x]);
                r = controls(s, hands, x, hands[x], 1, most + 1);
            } else {
                r = takes_over(s, hands, x, tid);
            }
        }
        if (r < 0 || s->oom) return -1;
        if (r == 1) return s->side[x] == s->side[turn];
    }
    return -1;
}

static int win_k(Search *s, const uint64_t *hands, uint64_t key, int turn, uint32_t tid, int by);

/* The value of the child where ``seat`` is to move on trick ``tid`` (win's), where ``whole`` is
 * what the seat's hand leaves played whole (whole_play): a child where the seat plays out at once
 * is counted as a node and valued here, without the call (a quarter of the nodes: each would
 * fetch the table buckets and move lists of its next seats and never read them). */
static inline int child_win(Search *s, const uint64_t *hands, uint64_t key, int seat, uint32_t tid, int by,
                            uint32_t whole) {
    if (goes_out(s, whole, tid)) return count_node(s) < 0 ? -1 : 1;
    return win_k(s, hands, key, seat, tid, by);
}

static inline int pass_value(Search *s, const uint64_t *hands, uint64_t key, int nxt, uint32_t tid, int by,
                             uint32_t whole) {
    return nxt == by ? child_win(s, hands, key, nxt, 0, NONE, whole) : child_win(s, hands, key, nxt, tid, by, whole);
}

/* True if the side of ``turn`` wins from here (engine.solver.search.Solver._searcher's win);
 * -1 when the budget ran out. ``key``: the hands' key (hands_key), which the parent has made
 * from its own with one hand changed (where the ranks are renumbered it is made again). */
static int win_k(Search *s, const uint64_t *given, uint64_t key, int turn, uint32_t tid, int by) {
    if (count_node(s) < 0) return -1;
    uint64_t first = s->nodes, hands[MAXSEATS];
    copy_hands(hands, given, s->players);
    int renumber = s->cuts & 8, lead_only = s->cuts & 16;
    if (renumber && (!lead_only || !tid)) {
        if (canon(s, hands, &tid, by)) return -1;
        key = hands_key(s, hands);
    }
    if (s->use_table) {
        /* The table's bucket and the move list's slot are fetched at once, so the waits overlap.
         * Where the seat has nothing to beat the trick with, the table is asked where the next
         * seat stands, or the one after (each seat that cannot play passes): those buckets and
         * move lists are fetched now too. */
        tt_prefetch_k(s, key, turn, tid, by);
        __builtin_prefetch(&s->mv[mv_index(s, hands[turn], tid)]);
        if (tid) {
            int nx = s->next[turn], ends = nx == by;
            tt_prefetch_k(s, key, nx, ends ? 0 : tid, ends ? NONE : by);
            __builtin_prefetch(&s->mv[mv_index(s, hands[nx], ends ? 0 : tid)]);
            if (!ends) {
                int nx2 = s->next[nx], ends2 = nx2 == by;
                tt_prefetch_k(s, key, nx2, ends2 ? 0 : tid, ends2 ? NONE : by);
                __builtin_prefetch(&s->mv[mv_index(s, hands[nx2], ends2 ? 0 : tid)]);
            }
        }
    }
    /* The move list comes before the table: a seat that plays out in one move, or passes, has no
     * entry of its own there (the table keeps positions after the passes, and none played out
     * in one move), so the table is asked only where it may answer. */
    List l;
    if (moves_of(s, hands[turn], tid, &l)) return -1;
    int flip = 0;
    while (tid && !l.n) { /* a seat that cannot beat the trick passes: no choice, no node */
        int nxt = s->next[turn];
        if (s->side[nxt] != s->side[turn]) flip = !flip;
        if (nxt == by) {
            tid = 0;
            by = NONE;
        }
        turn = nxt;
        if (renumber && !tid) { /* the trick is gone: renumber again */
            if (canon(s, hands, &tid, NONE)) return -1;
            if (s->use_table) key = hands_key(s, hands);
        }
        if (moves_of(s, hands[turn], tid, &l)) return -1;
    }
    int me = s->side[turn];
    uint64_t h = hands[turn];
    if (l.n && l.v[0].pint == h) { /* plays out in one move */
        /* Not kept in the table: found again, it costs this one node as a table hit would, and
         * keeping it would cost a bucket's store and the room of answers that took a search. */
        return !flip;
    }
    if (s->use_table) {
        int known = tt_get_k(s, key, hands, turn, tid, by);
        if (known >= 0) return (known == me) != flip;
    }
    int result = 0, v;
    if ((s->cuts & 1) && static_win(s, hands, turn, tid, h, &l, s->cuts & 1024)) {
        result = 1;
        goto done;
    }
    if (s->cuts & 32) {
        int t = top_win(s, hands, turn, tid, by);
        if (t >= 0) {
            result = t;
            goto done;
        }
    }
    if (s->cuts & 512) {
        int t = master_win(s, hands, turn, tid, by);
        if (t >= 0) {
            result = t;
            goto done;
        }
    }
    if (s->oom) return -1;
    int nxt = s->next[turn], same = s->side[nxt] == me, passed = !tid;
    int64_t whole = renumber ? 0 : whole_play(s, hands[nxt]); /* (a renumbered child is left to win) */
    if (whole < 0) return -1;
    if (tid && s->side[by] == me) { /* the trick is the partner's: let it stand first */
        passed = 1;
        if ((v = pass_value(s, hands, key, nxt, tid, by, (uint32_t)whole)) < 0) return -1;
        result = same ? v : !v;
    }
    if (!result) {
        uint64_t child[MAXSEATS];
        copy_hands(child, hands, s->players);
        if (l.epoch != s->epoch && moves_of(s, h, tid, &l)) return -1;
        uint64_t others = key - hand_key(h, turn); /* the children's keys: this and their mover's hand */
        if (s->use_table && (!renumber || lead_only)) {
            /* The children's table buckets, fetched together: one wait, not one each; only the
             * lines their probes and stores will touch, as their side words say (a node's many
             * requests at once are what it waits on). The node's own bucket and its next seats'
             * are fetched whole above: waiting for their side words first cost more than the
             * lines (docs/solver-log.md). */
            for (uint32_t i = 0; i < l.n && i < PREFETCH; i++)
                if (!goes_out(s, (uint32_t)whole, l.v[i].after))
                    tt_prefetch_slots(s, others + hand_key(h - l.v[i].pint, turn), nxt, l.v[i].after, turn);
        }
        for (uint32_t i = 0; i < l.n; i++) {
            if (i == l.ordinary && !passed) {
                passed = 1;
                if ((v = pass_value(s, hands, key, nxt, tid, by, (uint32_t)whole)) < 0) return -1;
                if (same ? v : !v) {
                    result = 1;
                    break;
                }
                if (l.epoch != s->epoch && moves_of(s, h, tid, &l)) return -1;
            }
            child[turn] = h - l.v[i].pint;
            v = child_win(s, child, others + hand_key(child[turn], turn), nxt, l.v[i].after, turn, (uint32_t)whole);
            if (v < 0) return -1;
            if (same ? v : !v) {
                result = 1;
                break;
            }
            if (l.epoch != s->epoch && moves_of(s, h, tid, &l)) return -1;
        }
        if (!result && !passed) {
            if ((v = pass_value(s, hands, key, nxt, tid, by, (uint32_t)whole)) < 0) return -1;
            result = same ? v : !v;
        }
    }
done:
    if (s->use_table) tt_put_k(s, key, hands, turn, tid, by, result == me, s->nodes - first + 1);
    return result != flip;
}

static inline int win(Search *s, const uint64_t *hands, int turn, uint32_t tid, int by) {
    return win_k(s, hands, hands_key(s, hands), turn, tid, by);
}

#endif /* DDZ_SOLVER_ALPHABETA_H */
