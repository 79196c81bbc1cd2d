/* The solver's compiled core: move generation, tricks, ordering, the table and the searches.
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
 * - The transposition table holds proved answers (whether the landlord wins) and the proof-number
 *   search's estimates, in buckets of four: it grows as it fills, up to its memory bound, and then
 *   a new entry replaces the one of the bucket that took fewest nodes to learn.
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
 * - 8: the ranks of each position below the root renumbered so that positions no seat can tell
 *   apart are one in the table and the caches (_canon.h); with 16 as well, only positions where
 *   a seat leads (the children of a node are then where the node's moves lead, and its table
 *   buckets can be fetched ahead).
 * - 32: a win by a top: a seat holding a bomb or the rocket that no opponent can beat, whose other
 *   cards then go out by leads none answers but the last, wins for its side before its turn
 *   comes when no opponent can go out first (top_win in _alphabeta.h).
 * - 512: a win by taking over: a seat other than the seat to move that beats with a play none
 *   answers (and goes out after it as cut 1 says) whatever play its opponents moving before it
 *   can make, and whatever stands now, wins for its side when no opponent can go out first
 *   (master_win in _alphabeta.h: cut 32 without a top).
 * - 1024: the alpha-beta's static win also where the seat leads (or beats the trick with) a play
 *   an opponent may answer, takes any answer back with a play none answers and then goes out as
 *   cut 1 says (retakes, retake_after in _alphabeta.h).
 * The default (engine/solver/compiled.py's CUTS) is 1 + 4 + 512 + 1024.
 *
 * The parts, included in this order into this one translation unit: _core.h (types, the Search
 * object), _plays.h (generation), _cache.h (readings, tricks, 手数, move lists), _canon.h (the
 * renumbering), _table.h, _alphabeta.h, _pns.h, _combos.h (Combinations on cards); here the
 * root and the Python type.
 */
#include "_core.h"
#include "_plays.h"
#include "_cache.h"
#include "_table.h"
#include "_alphabeta.h"
#include "_pns.h"
#include "_combos.h"

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
        for (uint64_t slice = (uint64_t)1 << FIRST_SLICE;; slice *= 2) {
            for (int pn = 0; pn < 2; pn++) {
                s->slice_end = s->nodes + (pn ? slice >> PN_SLICE : slice);
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
    copy_hands(child, hands, s->players);
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
    free(s->tops);
    s->tops = NULL;
    free(s->whole);
    s->whole = NULL;
    if (s->tt) tt_free(s, s->tt, s->tt_buckets, s->tt_lo, s->tt_hi);
    if (s->tt_side) tt_side_free(s->tt_side, s->tt_buckets);
    s->tt_side = NULL;
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
    static char *names[] = {"rules", "landlord", "next", "table_mb", "cache_mb", "table", "cuts", "huge_after", NULL};
    PyObject *rules, *next;
    int landlord, table = 1, cuts = 0, huge_after = INT_MIN; /* not given: by huge_cheap (_table.h) */
    double table_mb = 64, cache_mb = 32;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiO|ddpii", names, &rules, &landlord, &next, &table_mb, &cache_mb,
                                     &table, &cuts, &huge_after))
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
    int from_start = huge_after == INT_MIN && huge_cheap();
    if (huge_after == INT_MIN) huge_after = HUGE_AFTER;
    if (huge_after < 0 || huge_after > 62) {
        PyErr_SetString(PyExc_ValueError, "huge_after: 0 to 62 (log2 of the nodes)");
        return -1;
    }
    s->huge_at = (uint64_t)1 << huge_after;
    s->huge = from_start; /* the table's blocks are mapped on huge pages (tt_first), the caches below */
    if (table_mb < 1) table_mb = 1;
    if (cache_mb < 2) cache_mb = 2;
    s->tt_words = (size_t)s->players + 2;
    s->tt_ways = (TT_STRIDE - 1) / s->tt_words; /* at most 3: a side word has 3 fingerprints (_table.h) */
    for (size_t w = 0; w < s->tt_ways; w++) {
        size_t first = w * s->tt_words * 8 / 64, last = ((w + 1) * s->tt_words * 8 - 1) / 64;
        for (size_t i = first; i <= last; i++) s->tt_slot_lines[w] |= (uint8_t)(1u << i);
    }
    s->tt_max_buckets = (size_t)(table_mb * 1048576.0 / (TT_STRIDE * sizeof(uint64_t))) & ~(size_t)1; /* pairs */
    if (!s->tt_max_buckets) s->tt_max_buckets = 2;
    double cache = cache_mb * 1048576.0;
    size_t arena = (size_t)(cache * 0.55 / sizeof(Move));
    size_t mv_n = pow2_at_least((size_t)(cache * 0.15 / sizeof(MoveSlot))) / 2;
    size_t need_n = pow2_at_least((size_t)(cache * 0.15 / sizeof(NeedSlot))) / 2;
    size_t rd_n = pow2_at_least((size_t)(cache * 0.05 / sizeof(ReadSlot))) / 2;
    size_t af_n = pow2_at_least((size_t)(cache * 0.1 / sizeof(AfterSlot))) / 2;
    tt_new_generation(s);
    s->tt = tt_first(s); /* (sets tt_buckets) */
    s->tt_side = tt_side_alloc(s->tt_buckets);
    s->mv = big_alloc(mv_n * sizeof(MoveSlot), 1);
    s->mv_mask = mv_n - 1;
    s->arena = big_alloc(arena * sizeof(Move), 0); /* written before it is read */
    s->arena_cap = arena;
    s->need = big_alloc(need_n * sizeof(NeedSlot), 1);
    s->need_mask = need_n - 1;
    s->rd = calloc(rd_n, sizeof(ReadSlot));
    s->rd_mask = rd_n - 1;
    s->af = big_alloc(af_n * sizeof(AfterSlot), 1);
    s->af_mask = af_n - 1;
    s->tmap = calloc(1024, sizeof(uint32_t));
    s->tmap_mask = 1023;
    s->whole = calloc(WHOLE_SLOTS, sizeof(WholeSlot));
    if (!s->tt || !s->tt_side || !s->mv || !s->arena || !s->need || !s->rd || !s->af || !s->tmap || !s->whole) {
        search_free_tables(s);
        PyErr_NoMemory();
        return -1;
    }
    if (s->huge) go_huge(s); /* the caches too (a block not yet touched is only marked) */
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
    size_t base;
    if (generate(s, h, prev_o, &base) < 0) return NULL;
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
    double mb = (double)tt_bytes(s, s->tt_buckets) / 1048576.0;
    double most = (double)tt_bytes(s, s->tt_max_buckets) / 1048576.0;
    double cache = ((double)(s->mv_mask + 1) * sizeof(MoveSlot) + (double)s->arena_cap * sizeof(Move) +
                    (double)(s->need_mask + 1) * sizeof(NeedSlot) + (double)(s->rd_mask + 1) * sizeof(ReadSlot) +
                    (double)(s->af_mask + 1) * sizeof(AfterSlot)) / 1048576.0;
    return Py_BuildValue("{sKsnsnsdsdsdsKsKsnsKsKsi}", "nodes", (unsigned long long)s->nodes, "table_entries",
                         (Py_ssize_t)s->tt_used, "table_slots", (Py_ssize_t)(s->tt_buckets * s->tt_ways), "table_mb", mb,
                         "table_most_mb", most, "cache_mb", cache, "cache_clears", (unsigned long long)s->cache_clears,
                         "table_replaced", (unsigned long long)s->tt_replaced, "tricks", (Py_ssize_t)s->ntricks,
                         "table_probes", (unsigned long long)s->tt_probes, "table_hits", (unsigned long long)s->tt_hits,
                         "huge_pages", s->huge);
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

static PyObject *core_huge_pages_cheap(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    return PyBool_FromLong(huge_cheap());
}

static PyMethodDef core_functions[] = {
    {"bind", (PyCFunction)core_bind, METH_O, "bind(Combination): the class legal() and build() make"},
    {"huge_pages_cheap", core_huge_pages_cheap, METH_NOARGS,
     "whether a huge page costs little more to touch first than its small pages here (solvers start on huge pages)"},
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
    if (!bad && PyModule_AddIntConstant(m, "GENERATIONS", GEN_SPAN)) bad = 1;
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
