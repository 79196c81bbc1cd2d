/* cut 8: rank compression. A position is searched in place of another with the same game tree:
 * the ranks of the chain region (3 up to rules.chain_high) are renumbered so that the ranks a
 * position does not tell apart become the same position in the table and the move cache.
 *
 * Which ranks matter: singles, pairs, trios, bombs and their kickers compare ranks only by
 * order; chains (straights, pair straights, airplanes, and the airplane's rule on a kicker next
 * to its trios) also need adjacency. So the held ranks of the region are renumbered from 0 in
 * order, each next to the one below it unless a chain of some seat could then run across the
 * two: two ranks adjacent in the position always stay adjacent, and two that are not are put
 * next to each other only where, for every seat and every chain width w (1, 2, 3 cards a rank),
 * the seat's run of ranks with w cards ending at the lower one and its run starting at the upper
 * one cannot make a chain of the least length together (one of them empty, or both shorter).
 * Otherwise one empty rank stays between them. Hands only shrink, so what no seat can chain now
 * no seat chains later: the renumbering gives the same plays, the same readings of every play,
 * the same answers to every trick, in every position below, so the same value (by induction on
 * the cards left).
 *
 * The trick: a reading compares by its main rank (and length) only, and only with the plays of
 * the seats other than the one that made it (``by``: the trick is over when the turn comes back
 * to it, so it never plays on it). A main that another seat holds goes where that rank goes; any
 * other main is put on the highest rank below it that another seat holds (their cards beat the
 * one exactly when they beat the other; the maker's cards in between make no difference), or,
 * with none below, kept as a rank of its own; a bomb's main is always kept (a bomb of the same
 * rank and another size compares by size). So a seat's two plays that differ only by cards no
 * other seat can tell apart lead to one position. The rules with A2345 straights (low_straights)
 * are not renumbered. */
#ifndef DDZ_SOLVER_CANON_H
#define DDZ_SOLVER_CANON_H

#include "_cache.h"

/* Bits at nibble starts (bit 4r) gathered to bit r, for ranks below 16. */
static inline uint32_t nib_bits(uint64_t x) {
    x = (x | x >> 3) & 0x0303030303030303ULL;
    x = (x | x >> 6) & 0x000f000f000f000fULL;
    x = (x | x >> 12) & 0x000000ff000000ffULL;
    x = (x | x >> 24) & 0xffffULL;
    return (uint32_t)x;
}

#define NIBS 0x1111111111111111ULL

/* Renumber the position's ranks (hands, *tid, made by seat ``by``) in place; 0, or -1 short of memory. */
static int canon(Search *s, uint64_t *hands, uint32_t *tid, int by) {
    const Rules *R = &s->R;
    if (R->low_straights) return 0;
    int high = R->chain_high, players = s->players;
    uint64_t region = ONE(high + 1) - 1, held = 0, others = 0;
    uint32_t M[MAXSEATS][3]; /* each seat's ranks of the region with more than w cards */
    for (int i = 0; i < players; i++) {
        uint64_t h = hands[i] & region;
        uint64_t ge1 = (h | h >> 1 | h >> 2 | h >> 3) & NIBS;
        held |= ge1;
        if (i != by) others |= ge1;
        M[i][0] = nib_bits(ge1);
        M[i][1] = nib_bits((h >> 1 | h >> 2 | h >> 3) & NIBS);
        M[i][2] = nib_bits((h >> 2 | h >> 3 | (h & h >> 1)) & NIBS);
    }
    uint32_t held_r = nib_bits(held), kept = held_r, others_r = nib_bits(others);
    uint32_t nk = *tid ? s->tlen[*tid] : 0;
    const uint32_t *tk = *tid ? s->tkeys + s->toff[*tid] : NULL;
    for (uint32_t q = 0; q < nk; q++) {
        int m = k_main(tk[q]);
        if (m > high || (held_r >> m & 1)) continue;
        if (k_type(tk[q]) == T_BOMB || !(others_r & ((1u << m) - 1))) kept |= 1u << m;
    }
    if (!(kept & (kept + 1))) return 0; /* the kept ranks are 0, 1, ..., k-1: nothing moves */
    const int mins[3] = {R->straight_min, R->pair_chain_min, R->trio_chain_min};
    uint32_t C[MAXSEATS][3] = {{0}}; /* the same, renumbered so far */
    int f[NR], lo[NR], to[NR], blocks = 0, at = -1, prev = -2;
    for (uint32_t K = kept; K; K &= K - 1) {
        int r = __builtin_ctz(K);
        if (r != prev + 1) {
            int gap = 0;
            for (int i = 0; prev >= 0 && i < players && !gap; i++)
                for (int w = 0; w < 3 && !gap; w++) {
                    int right = __builtin_ctz(~(M[i][w] >> r));
                    if (!right || !(C[i][w] >> at & 1)) continue;
                    int left = __builtin_clz(~(C[i][w] << (31 - at)));
                    gap = left + right >= mins[w];
                }
            at += gap ? 2 : 1;
            lo[blocks] = r;
            to[blocks++] = at;
        } else {
            at++;
        }
        for (int i = 0; i < players; i++)
            for (int w = 0; w < 3; w++) C[i][w] |= (M[i][w] >> r & 1u) << at;
        f[r] = at;
        prev = r;
    }
    int moved = 0;
    for (int b = 0; b < blocks; b++) moved |= to[b] != lo[b];
    if (!moved) return 0;
    for (int i = 0; i < players; i++) {
        uint64_t h = hands[i], out = h & ~region;
        for (int b = 0; b < blocks; b++) {
            int end = b + 1 < blocks ? lo[b + 1] : high + 1;
            out |= ((h >> (4 * lo[b])) & (ONE(end - lo[b]) - 1)) << (4 * to[b]);
        }
        hands[i] = out;
    }
    if (!nk) return 0;
    uint32_t k[MAXREADINGS];
    int n = 0;
    for (uint32_t q = 0; q < nk; q++) {
        uint32_t key = tk[q];
        int m = k_main(key);
        if (m <= high) {
            /* a rank another seat holds goes where it goes; any other main, to the highest rank
             * below it that another seat holds (with none, it was kept: where it goes) */
            int b = kept >> m & 1 && (k_type(key) == T_BOMB || others_r >> m & 1 || !(others_r & ((1u << m) - 1)))
                        ? m : 31 - __builtin_clz(others_r & ((1u << m) - 1));
            key = key_of(k_type(key), f[b], k_length(key));
        }
        int j = n;
        while (j > 0 && k[j - 1] > key) {
            k[j] = k[j - 1];
            j--;
        }
        if (j > 0 && k[j - 1] == key) {
            memmove(k + j, k + j + 1, (size_t)(n - j) * sizeof(uint32_t));
            continue;
        }
        k[j] = key;
        n++;
    }
    int64_t t = intern(s, k, n);
    if (t < 0) return -1;
    *tid = (uint32_t)t;
    return 0;
}

#endif /* DDZ_SOLVER_CANON_H */
