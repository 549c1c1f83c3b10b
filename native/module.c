/* module.c -- the CPython binding of the native core (poolcheckers._core).
 *
 * Narrow on purpose: positions come in as ints (public bitboards, bit s-1 =
 * square s, R2), moves go out as (origin, destination, captured bitboard)
 * tuples, scores as ints.  Perft and search release the GIL.  Bad input
 * raises ValueError naming the argument and the rule; it never crashes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdatomic.h>
#include <stdlib.h>

#include "eval.h"
#include "movegen.h"
#include "perft.h"
#include "search.h"

int pc_egdb_add_to_module(PyObject *m); /* egdb_module.c */

/* ---------- argument helpers ---------- */

static int to_u32(PyObject *o, const char *name, uint32_t *out) {
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int bitboard (bit s-1 = square s, R2)", name);
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow || v < 0 || v > 0xFFFFFFFFLL) {
        PyErr_Format(PyExc_ValueError, "%s must be a 32-bit bitboard of squares 1..32 (R2)", name);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static int to_int_range(PyObject *o, const char *name, long lo, long hi, int *out) {
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int", name);
        return -1;
    }
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be in %ld..%ld", name, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* Parse (black, white, kings, turn[, halfmove, tk_count]) into a Position. */
static int parse_position(PyObject *black, PyObject *white, PyObject *kings, PyObject *turn,
                          PyObject *halfmove, PyObject *tk, Position *pos) {
    uint32_t b, w, k;
    int t, h = 0, c = 0;
    if (to_u32(black, "black", &b) || to_u32(white, "white", &w) || to_u32(kings, "kings", &k) ||
        to_int_range(turn, "turn", 0, 1, &t))
        return -1;
    if (halfmove && to_int_range(halfmove, "halfmove_clock", 0, 100000, &h)) return -1;
    if (tk && to_int_range(tk, "three_kings_count", 0, 100000, &c)) return -1;
    int r = pc_set(pos, b, w, k, t, h, c);
    if (r != 0) {
        PyErr_Format(PyExc_ValueError, "invalid position: %s", pc_error_text(r));
        return -1;
    }
    return 0;
}

static int parse_rules(PyObject *o, RuleOptions *r) {
    *r = pc_default_rules();
    if (o == NULL || o == Py_None) return 0;
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 4) {
        PyErr_SetString(PyExc_TypeError,
                        "rules must be a tuple (crown_stop, three_kings_loss, king_only_move_limit, "
                        "repetition_draw) (RULES.md section 9)");
        return -1;
    }
    int limit;
    int cs = PyObject_IsTrue(PyTuple_GET_ITEM(o, 0));
    int tl = PyObject_IsTrue(PyTuple_GET_ITEM(o, 1));
    int rd = PyObject_IsTrue(PyTuple_GET_ITEM(o, 3));
    if (cs < 0 || tl < 0 || rd < 0) return -1;
    if (to_int_range(PyTuple_GET_ITEM(o, 2), "king_only_move_limit (R18)", 1, 10000, &limit)) return -1;
    r->crown_stop = cs;
    r->three_kings_loss = tl;
    r->king_move_limit = limit;
    r->repetition_draw = rd;
    return 0;
}

static PyObject *move_tuple(const Move *m) {
    return Py_BuildValue("(iik)", pc_move_from_sq(m), pc_move_to_sq(m), (unsigned long)pc_to_bits32(m->cap));
}

static PyObject *overflow_error(void) {
    PyErr_SetString(PyExc_ValueError, "position has more legal moves than the native core supports (1024)");
    return NULL;
}

/* ---------- module functions ---------- */

static PyObject *core_legal_moves(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *kwlist[] = {"black", "white", "kings", "turn", "rules", NULL};
    PyObject *b, *w, *k, *t, *rules = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|O", kwlist, &b, &w, &k, &t, &rules)) return NULL;
    Position pos;
    RuleOptions r;
    if (parse_position(b, w, k, t, NULL, NULL, &pos) || parse_rules(rules, &r)) return NULL;
    MoveList *list = PyMem_Malloc(sizeof(MoveList));
    if (!list) return PyErr_NoMemory();
    pc_gen_moves(&pos, &r, list);
    if (list->overflow) {
        PyMem_Free(list);
        return overflow_error();
    }
    PyObject *out = PyList_New(list->n);
    for (int i = 0; out && i < list->n; i++) {
        PyObject *mt = move_tuple(&list->m[i]);
        if (!mt) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, mt);
    }
    PyMem_Free(list);
    return out;
}

static PyObject *core_perft(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *kwlist[] = {"black", "white", "kings", "turn", "depth", "rules", NULL};
    PyObject *b, *w, *k, *t, *rules = NULL;
    int depth;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOi|O", kwlist, &b, &w, &k, &t, &depth, &rules))
        return NULL;
    Position pos;
    RuleOptions r;
    if (parse_position(b, w, k, t, NULL, NULL, &pos) || parse_rules(rules, &r)) return NULL;
    if (depth < 0 || depth > 30) {
        PyErr_SetString(PyExc_ValueError, "perft depth must be in 0..30");
        return NULL;
    }
    int64_t n;
    Py_BEGIN_ALLOW_THREADS
    n = pc_perft(&pos, &r, depth);
    Py_END_ALLOW_THREADS
    if (n < 0) return overflow_error();
    return PyLong_FromLongLong(n);
}

static PyObject *core_perft_divide(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *kwlist[] = {"black", "white", "kings", "turn", "depth", "rules", NULL};
    PyObject *b, *w, *k, *t, *rules = NULL;
    int depth;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOi|O", kwlist, &b, &w, &k, &t, &depth, &rules))
        return NULL;
    Position pos;
    RuleOptions r;
    if (parse_position(b, w, k, t, NULL, NULL, &pos) || parse_rules(rules, &r)) return NULL;
    if (depth < 1 || depth > 30) {
        PyErr_SetString(PyExc_ValueError, "perft divide depth must be in 1..30");
        return NULL;
    }
    MoveList *list = PyMem_Malloc(sizeof(MoveList));
    int64_t *counts = PyMem_Malloc(sizeof(int64_t) * PC_MAX_MOVES);
    if (!list || !counts) {
        PyMem_Free(list);
        PyMem_Free(counts);
        return PyErr_NoMemory();
    }
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    pc_gen_moves(&pos, &r, list);
    bad = list->overflow;
    for (int i = 0; !bad && i < list->n; i++) {
        Position next;
        pc_make_fast(&pos, &list->m[i], &next);
        counts[i] = pc_perft(&next, &r, depth - 1);
        if (counts[i] < 0) bad = 1;
    }
    Py_END_ALLOW_THREADS
    PyObject *out = NULL;
    if (bad) overflow_error();
    else {
        out = PyList_New(list->n);
        for (int i = 0; out && i < list->n; i++) {
            const Move *m = &list->m[i];
            PyObject *it = Py_BuildValue("(iikL)", pc_move_from_sq(m), pc_move_to_sq(m),
                                         (unsigned long)pc_to_bits32(m->cap), (long long)counts[i]);
            if (!it) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, i, it);
        }
    }
    PyMem_Free(list);
    PyMem_Free(counts);
    return out;
}

static PyObject *core_bench(PyObject *self, PyObject *args) {
    (void)self;
    int depth;
    PyObject *data = Py_None;
    if (!PyArg_ParseTuple(args, "i|O", &depth, &data)) return NULL;
    if (depth < 1 || depth > 40) {
        PyErr_SetString(PyExc_ValueError, "bench depth must be in 1..40");
        return NULL;
    }
    NnueNet *net = NULL;
    if (data != Py_None) { /* bench with the network of a weights file's bytes */
        Py_buffer view;
        if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) != 0) return NULL;
        net = malloc(sizeof(NnueNet));
        const char *why = net ? pc_nnue_parse(view.buf, (size_t)view.len, net) : NULL;
        PyBuffer_Release(&view);
        if (!net) return PyErr_NoMemory();
        if (why) {
            free(net);
            PyErr_SetString(PyExc_ValueError, why);
            return NULL;
        }
    }
    int64_t nodes = 0;
    double secs = 0;
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = pc_bench_with(depth, net, &nodes, &secs);
    Py_END_ALLOW_THREADS
    free(net);
    if (r != 0) {
        PyErr_SetString(PyExc_MemoryError, "bench: could not allocate a searcher");
        return NULL;
    }
    return Py_BuildValue("(Ld)", (long long)nodes, secs);
}

static PyObject *core_bench_positions(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    int n = pc_bench_count();
    PyObject *out = PyList_New(0);
    for (int i = 0; out && i < n; i++) {
        Position p;
        if (pc_bench_position(i, &p) != 0) continue;
        PyObject *it = Py_BuildValue("(kkki)", (unsigned long)pc_to_bits32(p.bb[PC_BLACK]),
                                     (unsigned long)pc_to_bits32(p.bb[PC_WHITE]),
                                     (unsigned long)pc_to_bits32(p.kings), p.stm);
        if (!it || PyList_Append(out, it) < 0) {
            Py_XDECREF(it);
            Py_CLEAR(out);
            break;
        }
        Py_DECREF(it);
    }
    return out;
}

static PyObject *weights_dict(const EvalWeights *w) {
    PyObject *d = PyDict_New();
    const int *base = (const int *)w;
    for (int i = 0; d && i < pc_weight_count; i++) {
        PyObject *v = PyLong_FromLong(base[pc_weight_names[i].offset]);
        if (!v || PyDict_SetItemString(d, pc_weight_names[i].name, v) < 0) {
            Py_XDECREF(v);
            Py_CLEAR(d);
            break;
        }
        Py_DECREF(v);
    }
    return d;
}

static PyObject *core_default_weights(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    EvalWeights w = pc_default_weights();
    return weights_dict(&w);
}

/* ---------- the Searcher type ---------- */

typedef struct {
    PyObject_HEAD Searcher *s;
    atomic_int busy;
    NnueNet *net; /* the network the searcher evaluates with (owned), or NULL */
} SearcherObject;

static int Searcher_init(SearcherObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"hash_mb", NULL};
    int mb = 64;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|i", kwlist, &mb)) return -1;
    if (mb < 1 || mb > 16384) {
        PyErr_SetString(PyExc_ValueError, "hash_mb must be in 1..16384");
        return -1;
    }
    if (self->s) {
        PyErr_SetString(PyExc_RuntimeError, "Searcher already initialised");
        return -1;
    }
    Searcher *s;
    Py_BEGIN_ALLOW_THREADS
    s = pc_searcher_new((size_t)mb);
    Py_END_ALLOW_THREADS
    if (!s) {
        PyErr_NoMemory();
        return -1;
    }
    self->s = s;
    atomic_init(&self->busy, 0);
    return 0;
}

static void Searcher_dealloc(SearcherObject *self) {
    pc_searcher_free(self->s);
    free(self->net);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ready(SearcherObject *self) {
    if (!self->s) {
        PyErr_SetString(PyExc_RuntimeError, "Searcher not initialised");
        return -1;
    }
    int expected = 0;
    if (!atomic_compare_exchange_strong(&self->busy, &expected, 1)) {
        PyErr_SetString(PyExc_RuntimeError, "this engine is already searching (one search at a time)");
        return -1;
    }
    /* A stop() that came after the previous search ended is not for this one. */
    atomic_store(&self->s->stop, 0);
    return 0;
}

static void done(SearcherObject *self) { atomic_store(&self->busy, 0); }

static int parse_history(PyObject *hist, uint64_t **keys, int *n) {
    *keys = NULL;
    *n = 0;
    if (hist == NULL || hist == Py_None) return 0;
    PyObject *seq = PySequence_Fast(hist, "history must be a sequence of (black, white, kings, turn)");
    if (!seq) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    Py_ssize_t start = len > PC_MAX_HISTORY ? len - PC_MAX_HISTORY : 0;
    *keys = PyMem_Malloc(sizeof(uint64_t) * (size_t)(len - start + 1));
    if (!*keys) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = start; i < len; i++) {
        PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyTuple_Check(it) || PyTuple_GET_SIZE(it) != 4) {
            PyErr_SetString(PyExc_TypeError, "history entries must be (black, white, kings, turn) tuples");
            goto fail;
        }
        Position p;
        if (parse_position(PyTuple_GET_ITEM(it, 0), PyTuple_GET_ITEM(it, 1), PyTuple_GET_ITEM(it, 2),
                           PyTuple_GET_ITEM(it, 3), NULL, NULL, &p))
            goto fail;
        (*keys)[(*n)++] = p.key;
    }
    Py_DECREF(seq);
    return 0;
fail:
    Py_DECREF(seq);
    PyMem_Free(*keys);
    *keys = NULL;
    return -1;
}

typedef struct {
    PyObject *callback;
    int failed;
} CallbackData;

static PyObject *pv_list(const Move *pv, int n) {
    PyObject *l = PyList_New(n);
    for (int i = 0; l && i < n; i++) {
        PyObject *mt = move_tuple(&pv[i]);
        if (!mt) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, i, mt);
    }
    return l;
}

static PyObject *info_tuple(const SearchInfo *info) {
    PyObject *pv = pv_list(info->pv, info->pv_len);
    if (!pv) return NULL;
    /* multi-PV: [(score, pv)] of every line, the best first */
    PyObject *lines = PyList_New(info->lines);
    for (int i = 0; lines && i < info->lines; i++) {
        PyObject *lpv = pv_list(info->line[i].pv, info->line[i].pv_len);
        PyObject *item = lpv ? Py_BuildValue("(iN)", info->line[i].score, lpv) : NULL;
        if (!item) {
            Py_CLEAR(lines);
            break;
        }
        PyList_SET_ITEM(lines, i, item);
    }
    if (!lines) {
        Py_DECREF(pv);
        return NULL;
    }
    return Py_BuildValue("(iiLdNN)", info->depth, info->score, (long long)info->nodes, info->time, pv,
                         lines);
}

/* Runs on the search thread without the GIL: take it to call Python. */
static int info_callback(const SearchInfo *info, void *userdata) {
    CallbackData *cd = userdata;
    if (!cd->callback || cd->failed) return cd->failed;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *t = info_tuple(info);
    PyObject *r = t ? PyObject_CallOneArg(cd->callback, t) : NULL;
    Py_XDECREF(t);
    int stop = 0;
    if (!r) {
        cd->failed = 1; /* the exception stays set and is raised when the search returns */
        stop = 1;
    } else {
        stop = PyObject_IsTrue(r) == 1;
        Py_DECREF(r);
    }
    PyGILState_Release(g);
    return stop;
}

/* Runs on the search thread every 2^20 nodes: let Python run its signal
 * handlers (Ctrl-C); an exception they raise stops the search. */
static int poll_signals(void *userdata) {
    CallbackData *cd = userdata;
    if (cd->failed) return 1;
    PyGILState_STATE g = PyGILState_Ensure();
    if (PyErr_CheckSignals() < 0) cd->failed = 1;
    PyGILState_Release(g);
    return cd->failed;
}

/* The common start of a search request: parses the position (with its R18/R19
 * counters), the rules and the history, then takes the searcher for this
 * request (give it back with done() and free *keys).  On error a Python
 * exception is set, nothing is held, and -1 is returned. */
static int begin_request(SearcherObject *self, PyObject *const position[6], PyObject *hist,
                         PyObject *rules, Position *pos, uint64_t **keys, int *nkeys) {
    RuleOptions r;
    if (parse_position(position[0], position[1], position[2], position[3], position[4], position[5],
                       pos) ||
        parse_rules(rules, &r))
        return -1;
    if (parse_history(hist, keys, nkeys)) return -1;
    if (ready(self)) {
        PyMem_Free(*keys);
        return -1;
    }
    self->s->rules = r;
    return 0;
}

static PyObject *Searcher_search(SearcherObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"black", "white", "kings", "turn", "halfmove", "three_kings", "history",
                             "rules", "depth", "nodes", "time", "callback", "multipv", "soft_time",
                             NULL};
    PyObject *b, *w, *k, *t, *h, *tk, *hist = NULL, *rules = NULL, *cb = NULL;
    int depth = 0, multipv = 1;
    long long nodes = 0;
    double tlim = 0, soft = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOO|OOiLdOid", kwlist, &b, &w, &k, &t, &h, &tk,
                                     &hist, &rules, &depth, &nodes, &tlim, &cb, &multipv, &soft))
        return NULL;
    if (multipv < 1 || multipv > PC_MAX_MULTIPV) {
        PyErr_Format(PyExc_ValueError, "multipv must be in 1..%d", PC_MAX_MULTIPV);
        return NULL;
    }
    if (!(soft >= 0) || soft > 1e9) {
        PyErr_SetString(PyExc_ValueError, "soft_time must be a number of seconds >= 0");
        return NULL;
    }
    if (cb == Py_None) cb = NULL;
    if (cb && !PyCallable_Check(cb)) {
        PyErr_SetString(PyExc_TypeError, "callback must be callable");
        return NULL;
    }
    if (depth < 0 || nodes < 0 || !(tlim >= 0) || tlim > 1e9) {
        PyErr_SetString(PyExc_ValueError, "limits must be non-negative (depth, nodes, time)");
        return NULL;
    }
    Position pos;
    uint64_t *keys;
    int nkeys;
    if (begin_request(self, (PyObject *[]){b, w, k, t, h, tk}, hist, rules, &pos, &keys, &nkeys))
        return NULL;
    Searcher *s = self->s;
    SearchLimits lim = {depth, (int64_t)nodes, tlim, multipv, soft};
    SearchInfo *info = PyMem_Malloc(sizeof(SearchInfo));
    if (!info) {
        done(self);
        PyMem_Free(keys);
        return PyErr_NoMemory();
    }
    CallbackData cd = {cb, 0};
    int rc;
    s->poll = poll_signals;
    s->poll_data = &cd;
    Py_BEGIN_ALLOW_THREADS
    rc = pc_search(s, &pos, keys, nkeys, &lim, info_callback, &cd, info);
    Py_END_ALLOW_THREADS
    s->poll = NULL;
    s->poll_data = NULL;
    done(self);
    PyMem_Free(keys);
    PyObject *out = NULL;
    if (cd.failed) {
        /* the callback's exception is set */
    } else if (rc == -1) {
        PyErr_SetString(PyExc_ValueError, "the side to move has no legal move: the game is over (R16)");
    } else if (rc == -2) {
        overflow_error();
    } else {
        out = info_tuple(info);
    }
    PyMem_Free(info);
    return out;
}

static PyObject *Searcher_root_scores(SearcherObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"black", "white", "kings", "turn", "halfmove", "three_kings", "history",
                             "rules", "depth", "time", NULL};
    PyObject *b, *w, *k, *t, *h, *tk, *hist = NULL, *rules = NULL;
    int depth = 1;
    double tlim = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOO|OOid", kwlist, &b, &w, &k, &t, &h, &tk, &hist,
                                     &rules, &depth, &tlim))
        return NULL;
    if (depth < 1 || depth > 64) {
        PyErr_SetString(PyExc_ValueError, "depth must be in 1..64");
        return NULL;
    }
    if (!(tlim >= 0) || tlim > 1e9) {
        PyErr_SetString(PyExc_ValueError, "time must be a number of seconds >= 0");
        return NULL;
    }
    Position pos;
    uint64_t *keys;
    int nkeys;
    if (begin_request(self, (PyObject *[]){b, w, k, t, h, tk}, hist, rules, &pos, &keys, &nkeys))
        return NULL;
    Searcher *s = self->s;
    MoveList *list = PyMem_Malloc(sizeof(MoveList));
    int *scores = PyMem_Malloc(sizeof(int) * PC_MAX_MOVES);
    if (!list || !scores) {
        done(self);
        PyMem_Free(keys);
        PyMem_Free(list);
        PyMem_Free(scores);
        return PyErr_NoMemory();
    }
    int n;
    CallbackData cd = {NULL, 0};
    s->poll = poll_signals;
    s->poll_data = &cd;
    Py_BEGIN_ALLOW_THREADS
    n = pc_root_scores(s, &pos, keys, nkeys, depth, tlim, list, scores);
    Py_END_ALLOW_THREADS
    s->poll = NULL;
    s->poll_data = NULL;
    done(self);
    PyMem_Free(keys);
    PyObject *out = NULL;
    if (cd.failed) {
        /* a signal handler's exception is set */
    } else if (n == -1) PyErr_SetString(PyExc_ValueError, "the side to move has no legal move: the game is over (R16)");
    else if (n < 0) overflow_error();
    else {
        PyObject *l = PyList_New(n);
        for (int i = 0; l && i < n; i++) {
            PyObject *it = Py_BuildValue("(Ni)", move_tuple(&list->m[i]), scores[i]);
            if (!it) {
                Py_CLEAR(l);
                break;
            }
            PyList_SET_ITEM(l, i, it);
        }
        if (l) out = Py_BuildValue("(LN)", (long long)s->nodes, l);
    }
    PyMem_Free(list);
    PyMem_Free(scores);
    return out;
}

static PyObject *Searcher_stop(SearcherObject *self, PyObject *noargs) {
    (void)noargs;
    if (self->s && atomic_load(&self->busy)) atomic_store(&self->s->stop, 1);
    Py_RETURN_NONE;
}

static PyObject *Searcher_set_threads(SearcherObject *self, PyObject *arg) {
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 1 || n > PC_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be in 1..%d", PC_MAX_THREADS);
        return NULL;
    }
    if (ready(self)) return NULL;
    int rc = pc_searcher_set_threads(self->s, (int)n);
    done(self);
    if (rc != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Searcher_clear(SearcherObject *self, PyObject *noargs) {
    (void)noargs;
    if (ready(self)) return NULL;
    pc_searcher_clear(self->s);
    done(self);
    Py_RETURN_NONE;
}

static PyObject *Searcher_get_weights(SearcherObject *self, PyObject *noargs) {
    (void)noargs;
    if (!self->s) {
        PyErr_SetString(PyExc_RuntimeError, "Searcher not initialised");
        return NULL;
    }
    return weights_dict(&self->s->weights);
}

static PyObject *Searcher_set_weights(SearcherObject *self, PyObject *arg) {
    if (!PyDict_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "weights must be a dict of name -> int");
        return NULL;
    }
    EvalWeights w = self->s ? self->s->weights : pc_default_weights();
    int *base = (int *)&w;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(arg, &pos, &key, &value)) {
        const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (!name) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "weight names must be strings");
            return NULL;
        }
        int idx = -1;
        for (int i = 0; i < pc_weight_count; i++)
            if (strcmp(pc_weight_names[i].name, name) == 0) idx = pc_weight_names[i].offset;
        if (idx < 0) {
            PyErr_Format(PyExc_ValueError, "unknown evaluation weight %R", key);
            return NULL;
        }
        int v;
        if (to_int_range(value, name, -100000, 100000, &v)) return NULL;
        base[idx] = v;
    }
    if (ready(self)) return NULL;
    self->s->weights = w;
    done(self);
    Py_RETURN_NONE;
}

static PyObject *Searcher_evaluate(SearcherObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"black", "white", "kings", "turn", "halfmove", "three_kings", "rules", NULL};
    PyObject *b, *w, *k, *t, *h = NULL, *tk = NULL, *rules = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|OOO", kwlist, &b, &w, &k, &t, &h, &tk, &rules))
        return NULL;
    Position pos;
    RuleOptions r;
    if (parse_position(b, w, k, t, h, tk, &pos) || parse_rules(rules, &r)) return NULL;
    if (!self->s) {
        PyErr_SetString(PyExc_RuntimeError, "Searcher not initialised");
        return NULL;
    }
    if (self->s->net) {
        /* An accumulator of its own (a search in another thread uses the searcher's). */
        NnueAcc *scratch = malloc(sizeof(NnueAcc));
        if (!scratch) return PyErr_NoMemory();
        scratch->net_id = 0;
        int v = pc_evaluate_nnue(&pos, &self->s->weights, self->s->net, scratch, 0);
        free(scratch);
        return PyLong_FromLong(v);
    }
    return PyLong_FromLong(pc_evaluate(&pos, &self->s->weights, &r));
}

/* set_network(data): evaluate with the network of a weights file's bytes (nnue.h),
 * or with the pattern evaluation again for None.  A file that cannot be read raises
 * ValueError saying why, and the searcher keeps its evaluation. */
static PyObject *Searcher_set_network(SearcherObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"data", "always_refresh", NULL};
    PyObject *arg;
    int always_refresh = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p", kwlist, &arg, &always_refresh)) return NULL;
    NnueNet *net = NULL;
    if (arg != Py_None) {
        Py_buffer view;
        if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) != 0) return NULL;
        net = malloc(sizeof(NnueNet));
        if (!net) {
            PyBuffer_Release(&view);
            return PyErr_NoMemory();
        }
        const char *why = pc_nnue_parse(view.buf, (size_t)view.len, net);
        PyBuffer_Release(&view);
        if (why) {
            free(net);
            PyErr_SetString(PyExc_ValueError, why);
            return NULL;
        }
        net->always_refresh = always_refresh != 0;
    }
    if (ready(self)) {
        free(net);
        return NULL;
    }
    NnueNet *old = self->net;
    self->net = net;
    self->s->net = net;
    for (int i = 0; i < self->s->threads - 1; i++) self->s->helpers[i]->net = net;
    done(self);
    free(old);
    Py_RETURN_NONE;
}

/* network() -> None, or (hidden, l2): the shape of the network in use. */
static PyObject *Searcher_network(SearcherObject *self, PyObject *noargs) {
    (void)noargs;
    if (!self->net) Py_RETURN_NONE;
    return Py_BuildValue("(ii)", self->net->hidden, self->net->l2);
}

/* nnue_line(positions, plies) -> [(incremental, refreshed, features)]: the network's
 * output (1/8128 of a man, side to move's view) of each position, with its
 * accumulator brought from the searcher's accumulators of nearby plies (position i
 * at plies[i]) and computed from scratch, and the features the update changed.
 * For the tests: the two must always agree. */
static PyObject *Searcher_nnue_line(SearcherObject *self, PyObject *args) {
    PyObject *positions, *plies;
    if (!PyArg_ParseTuple(args, "OO", &positions, &plies)) return NULL;
    if (!self->net) {
        PyErr_SetString(PyExc_RuntimeError, "the searcher has no network (set_network)");
        return NULL;
    }
    PyObject *ps = PySequence_Fast(positions, "positions must be a sequence of (black, white, kings, turn)");
    if (!ps) return NULL;
    PyObject *ls = PySequence_Fast(plies, "plies must be a sequence of ints");
    if (!ls) {
        Py_DECREF(ps);
        return NULL;
    }
    PyObject *out = NULL;
    NnueAcc *scratch = malloc(sizeof(NnueAcc));
    Py_ssize_t n = PySequence_Fast_GET_SIZE(ps);
    if (!scratch) {
        PyErr_NoMemory();
        goto end;
    }
    if (PySequence_Fast_GET_SIZE(ls) != n) {
        PyErr_SetString(PyExc_ValueError, "positions and plies must have the same length");
        goto end;
    }
    if (ready(self)) goto end;
    out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        PyObject *it = PySequence_Fast_GET_ITEM(ps, i);
        Position pos;
        int ply;
        if (!PyTuple_Check(it) || PyTuple_GET_SIZE(it) != 4) {
            PyErr_SetString(PyExc_TypeError, "positions must be (black, white, kings, turn) tuples");
            Py_CLEAR(out);
        } else if (parse_position(PyTuple_GET_ITEM(it, 0), PyTuple_GET_ITEM(it, 1), PyTuple_GET_ITEM(it, 2),
                                  PyTuple_GET_ITEM(it, 3), NULL, NULL, &pos) ||
                   to_int_range(PySequence_Fast_GET_ITEM(ls, i), "ply", 0, PC_MAX_PLY, &ply)) {
            Py_CLEAR(out);
        } else {
            int changed = pc_nnue_update(self->net, &pos, self->s->nnue, ply);
            int32_t inc = pc_nnue_forward(self->net, &self->s->nnue[ply], pos.stm);
            pc_nnue_refresh(self->net, &pos, scratch);
            int32_t full = pc_nnue_forward(self->net, scratch, pos.stm);
            PyList_SET_ITEM(out, i, Py_BuildValue("(lli)", (long)inc, (long)full, changed));
        }
    }
    done(self);
end:
    free(scratch);
    Py_DECREF(ps);
    Py_DECREF(ls);
    return out;
}

static PyMethodDef Searcher_methods[] = {
    {"search", (PyCFunction)(void (*)(void))Searcher_search, METH_VARARGS | METH_KEYWORDS,
     "search(black, white, kings, turn, halfmove, three_kings, history=None, rules=None, depth=0, "
     "nodes=0, time=0.0, callback=None) -> (depth, score, nodes, seconds, pv)"},
    {"root_scores", (PyCFunction)(void (*)(void))Searcher_root_scores, METH_VARARGS | METH_KEYWORDS,
     "root_scores(black, white, kings, turn, halfmove, three_kings, history=None, rules=None, depth=1, "
     "time=0.0) "
     "-> (nodes, [((from, to, captured), score)])"},
    {"stop", (PyCFunction)Searcher_stop, METH_NOARGS, "Stop a running search (thread-safe)."},
    {"clear", (PyCFunction)Searcher_clear, METH_NOARGS, "Clear the hash table and move ordering."},
    {"set_threads", (PyCFunction)Searcher_set_threads, METH_O,
     "Search with n threads (lazy SMP, one shared hash table)."},
    {"get_weights", (PyCFunction)Searcher_get_weights, METH_NOARGS, "Evaluation weights as a dict."},
    {"set_weights", (PyCFunction)Searcher_set_weights, METH_O, "Set some evaluation weights."},
    {"evaluate", (PyCFunction)(void (*)(void))Searcher_evaluate, METH_VARARGS | METH_KEYWORDS,
     "Static evaluation, side to move's view."},
    {"set_network", (PyCFunction)(void (*)(void))Searcher_set_network, METH_VARARGS | METH_KEYWORDS,
     "set_network(data, always_refresh=False): evaluate with the network of a weights file's bytes "
     "(None: the pattern evaluation); always_refresh computes every accumulator from scratch."},
    {"network", (PyCFunction)Searcher_network, METH_NOARGS, "None, or the network's (hidden, l2)."},
    {"nnue_line", (PyCFunction)Searcher_nnue_line, METH_VARARGS,
     "nnue_line(positions, plies) -> [(incremental, refreshed, features changed)]"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SearcherType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "poolcheckers._core.Searcher",
    .tp_basicsize = sizeof(SearcherObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Native search: alpha-beta with a transposition table of hash_mb megabytes.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Searcher_init,
    .tp_dealloc = (destructor)Searcher_dealloc,
    .tp_methods = Searcher_methods,
};

static PyMethodDef core_methods[] = {
    {"legal_moves", (PyCFunction)(void (*)(void))core_legal_moves, METH_VARARGS | METH_KEYWORDS,
     "legal_moves(black, white, kings, turn, rules=None) -> [(from, to, captured)]"},
    {"perft", (PyCFunction)(void (*)(void))core_perft, METH_VARARGS | METH_KEYWORDS,
     "perft(black, white, kings, turn, depth, rules=None) -> int"},
    {"perft_divide", (PyCFunction)(void (*)(void))core_perft_divide, METH_VARARGS | METH_KEYWORDS,
     "perft_divide(black, white, kings, turn, depth, rules=None) -> [(from, to, captured, count)]"},
    {"bench", (PyCFunction)core_bench, METH_VARARGS,
     "bench(depth, network=None) -> (nodes, seconds); network: a weights file's bytes"},
    {"bench_positions", (PyCFunction)core_bench_positions, METH_NOARGS,
     "bench_positions() -> [(black, white, kings, turn)]"},
    {"default_weights", (PyCFunction)core_default_weights, METH_NOARGS, "The default evaluation weights."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core", "Native core of poolcheckers: move generation, perft, search.", -1,
    core_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void) {
    pc_init();
    pc_eval_init();
    if (PyType_Ready(&SearcherType) < 0) return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    Py_INCREF(&SearcherType);
    if (PyModule_AddObject(m, "Searcher", (PyObject *)&SearcherType) < 0 ||
        PyModule_AddIntConstant(m, "MATE", PC_MATE) < 0 ||
        PyModule_AddIntConstant(m, "MATE_BOUND", PC_MATE_BOUND) < 0 ||
        PyModule_AddIntConstant(m, "MAX_PLY", PC_MAX_PLY) < 0 || pc_egdb_add_to_module(m) < 0) {
        Py_DECREF(&SearcherType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
