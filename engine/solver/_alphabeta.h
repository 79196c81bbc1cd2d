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

#ifndef TOP_DEPTH
#define TOP_DEPTH 4 /* the most plays the rest of a seat's hand may need for cut 32 to try it */
#endif

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

static int win(Search *s, const uint64_t *hands, int turn, uint32_t tid, int by);

static inline int pass_value(Search *s, const uint64_t *hands, int nxt, uint32_t tid, int by) {
    return nxt == by ? win(s, hands, nxt, 0, NONE) : win(s, hands, nxt, tid, by);
}

/* True if the side of ``turn`` wins from here (engine.solver.search.Solver._searcher's win);
 * -1 when the budget ran out. */
static int win(Search *s, const uint64_t *given, int turn, uint32_t tid, int by) {
    s->nodes++;
    if (!(s->nodes & 1023) && budget_out(s)) {
        s->abort = 1;
        return -1;
    }
    uint64_t first = s->nodes, hands[MAXSEATS];
    copy_hands(hands, given, s->players);
    int renumber = s->cuts & 8, lead_only = s->cuts & 16;
    if (renumber && (!lead_only || !tid) && canon(s, hands, &tid, by)) return -1;
    uint64_t key = 0;
    if (s->use_table) {
        /* The table's bucket and the move list's slot are fetched at once, so the waits overlap.
         * Where the seat has nothing to beat the trick with, the table is asked where the next
         * seat stands, or the one after (each seat that cannot play passes): those buckets and
         * move lists are fetched now too. */
        key = hands_key(s, hands);
        tt_prefetch(s, tt_bucket_k(s, key, turn, tid, by));
        __builtin_prefetch(&s->mv[mv_index(s, hands[turn], tid)]);
        if (tid) {
            int nx = s->next[turn], ends = nx == by;
            tt_prefetch(s, tt_bucket_k(s, key, nx, ends ? 0 : tid, ends ? NONE : by));
            __builtin_prefetch(&s->mv[mv_index(s, hands[nx], ends ? 0 : tid)]);
            if (!ends) {
                int nx2 = s->next[nx], ends2 = nx2 == by;
                tt_prefetch(s, tt_bucket_k(s, key, nx2, ends2 ? 0 : tid, ends2 ? NONE : by));
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
    if ((s->cuts & 1) && static_win(s, hands, turn, tid, h, &l)) {
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
    if (s->oom) return -1;
    int nxt = s->next[turn], same = s->side[nxt] == me, passed = !tid;
    if (tid && s->side[by] == me) { /* the trick is the partner's: let it stand first */
        passed = 1;
        if ((v = pass_value(s, hands, nxt, tid, by)) < 0) return -1;
        result = same ? v : !v;
    }
    if (!result) {
        uint64_t child[MAXSEATS];
        copy_hands(child, hands, s->players);
        if (l.epoch != s->epoch && moves_of(s, h, tid, &l)) return -1;
        if (s->use_table && (!renumber || lead_only)) { /* the children's table buckets, fetched together: one wait, not one each */
            uint64_t others = key - hand_key(h, turn);
            for (uint32_t i = 0; i < l.n && i < PREFETCH; i++)
                tt_prefetch(s, tt_bucket_k(s, others + hand_key(h - l.v[i].pint, turn), nxt, l.v[i].after, turn));
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
    if (s->use_table) tt_put_k(s, key, hands, turn, tid, by, result == me, s->nodes - first + 1);
    return result != flip;
}

#endif /* DDZ_SOLVER_ALPHABETA_H */
