/* Combinations on a hand's cards, built in C for engine.legal.legal_plays and engine.compiled_plays.
 *
 * A part of engine/solver/_core.c, which includes the parts in order in one translation unit
 * (every function static). */
#ifndef DDZ_SOLVER_COMBOS_H
#define DDZ_SOLVER_COMBOS_H

#include "_plays.h"

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

/* The plays of hand ``h`` that lead (``prev_o`` None) or follow the play ``(type, main, length)``,
   pushed on the search's stack from ``*base`` on; -1 with a Python exception set when the search is
   running, the play is not one the core plays, or memory ran out. */
static int generate(Search *s, uint64_t h, PyObject *prev_o, size_t *base) {
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the search is running");
        return -1;
    }
    *base = s->sn;
    if (prev_o == Py_None) {
        gen_lead(s, h);
    } else {
        int type, main, length;
        if (!PyArg_ParseTuple(prev_o, "iii", &type, &main, &length)) return -1;
        if (type < 0 || type >= NTYPES) {
            PyErr_SetString(PyExc_ValueError, "a type the compiled core does not play");
            return -1;
        }
        gen_follow(s, h, key_of(type, main, length));
    }
    if (s->oom) {
        s->sn = *base;
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static PyObject *Search_legal(Search *s, PyObject *args) {
    PyObject *groups, *prev_o = Py_None;
    if (!PyArg_ParseTuple(args, "O|O", &groups, &prev_o)) return NULL;
    if (check_groups(groups)) return NULL;
    size_t base;
    if (generate(s, groups_hand(groups), prev_o, &base) < 0) return NULL;
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

#endif /* DDZ_SOLVER_COMBOS_H */
