/* egdb_module.c -- CPython binding of the endgame databases (added to poolcheckers._core).
 *
 *   egdb_build(dir, rules, materials, threads, progress)   build files (GIL released)
 *   egdb_verify(dir, rules, materials, threads, progress)  -> [(material, bad, text)]
 *   egdb_slice_groups(material) -> (kp, [(progress, configurations)])  solve order
 *   egdb_solve_slice(dir, rules, material, progress, first, count, threads)  one slice file
 *   egdb_merge_slices(dir, rules, material, threads)       the table file from its slices
 *   EgdbProbe(dir)                                          open the files of a directory
 *       .probe(black, white, kings, turn, halfmove, three_kings) -> (fresh, dtz, value, b) | None
 *       .probe_many(black, white, kings, turn, halfmove, three_kings) -> bytes
 *                                                           the same for arrays of positions
 *       .code(black, white, kings, turn) -> int | None      raw fresh code
 *       .rules() -> (crown_stop, three_kings_loss, king_only_move_limit)
 *       .materials() -> [(bm, bk, wm, wk)], .max_pieces
 *       .bench(positions, repeats) -> [ns per probe]        timed in C
 *       .use_in_search(flag)                                the native search probes these files
 *   egdb_search_hits() -> int                               probes answered inside the search
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>
#include <time.h>

#include "egdb.h"
#include "egdb_search.h"

static int parse_eg_rules(PyObject *o, RuleOptions *r) {
    *r = pc_default_rules();
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 4) {
        PyErr_SetString(PyExc_TypeError,
                        "rules must be a tuple (crown_stop, three_kings_loss, king_only_move_limit, "
                        "repetition_draw) (RULES.md section 9)");
        return -1;
    }
    int cs = PyObject_IsTrue(PyTuple_GET_ITEM(o, 0));
    int tl = PyObject_IsTrue(PyTuple_GET_ITEM(o, 1));
    int rd = PyObject_IsTrue(PyTuple_GET_ITEM(o, 3));
    long limit = PyLong_AsLong(PyTuple_GET_ITEM(o, 2));
    if (cs < 0 || tl < 0 || rd < 0 || (limit == -1 && PyErr_Occurred())) return -1;
    if (limit < 1 || limit > PC_EGDB_MAX_LIMIT) {
        PyErr_Format(PyExc_ValueError, "king_only_move_limit must be 1..%d for the tables (R18), not %ld",
                     PC_EGDB_MAX_LIMIT, limit);
        return -1;
    }
    r->crown_stop = cs;
    r->three_kings_loss = tl;
    r->king_move_limit = (int)limit;
    r->repetition_draw = rd;
    return 0;
}

static int parse_materials(PyObject *o, EgMaterial **out, Py_ssize_t *n) {
    PyObject *seq = PySequence_Fast(o, "materials must be a sequence of (bm, bk, wm, wk)");
    if (!seq) return -1;
    *n = PySequence_Fast_GET_SIZE(seq);
    *out = PyMem_Malloc(sizeof(EgMaterial) * (size_t)(*n > 0 ? *n : 1));
    if (!*out) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < *n; i++) {
        int v[4];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "iiii", &v[0], &v[1], &v[2], &v[3])) {
            PyMem_Free(*out);
            Py_DECREF(seq);
            return -1;
        }
        int total = v[0] + v[1] + v[2] + v[3];
        if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[3] < 0 || total > PC_EGDB_MAX_PIECES || v[0] + v[1] == 0 ||
            v[2] + v[3] == 0) {
            PyErr_Format(PyExc_ValueError, "bad material (%d, %d, %d, %d): each side needs a piece, at most %d",
                         v[0], v[1], v[2], v[3], PC_EGDB_MAX_PIECES);
            PyMem_Free(*out);
            Py_DECREF(seq);
            return -1;
        }
        (*out)[i] = (EgMaterial){(uint8_t)v[0], (uint8_t)v[1], (uint8_t)v[2], (uint8_t)v[3]};
    }
    Py_DECREF(seq);
    return 0;
}

typedef struct {
    PyObject *cb;
    int failed;
} ProgressData;

static int progress_cb(uint64_t done, uint64_t total, const char *material, void *ud) {
    ProgressData *pd = ud;
    if (!pd->cb || pd->failed) return pd->failed;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = PyObject_CallFunction(pd->cb, "KKs", (unsigned long long)done, (unsigned long long)total,
                                        material);
    if (!r) pd->failed = 1;
    Py_XDECREF(r);
    if (!pd->failed && PyErr_CheckSignals() < 0) pd->failed = 1;
    PyGILState_Release(g);
    return pd->failed;
}

/* The exception of a failed build, slice or merge (`what`): the message the C code wrote into
 * err, or the text of its code rc when it wrote none; `missing` is the type for rc -2 (a table
 * or a slice file is missing), RuntimeError for every other code. */
static PyObject *raise_eg_error(const char *what, int rc, const char *err, PyObject *missing) {
    PyErr_Format(rc == -2 ? missing : PyExc_RuntimeError, "endgame table %s failed: %s", what,
                 err[0] ? err : eg_error_text(rc));
    return NULL;
}

static PyObject *py_egdb_build(PyObject *self, PyObject *args) {
    (void)self;
    const char *dir;
    PyObject *rules_o, *mats_o, *cb = Py_None;
    int threads = 2;
    if (!PyArg_ParseTuple(args, "sOO|iO", &dir, &rules_o, &mats_o, &threads, &cb)) return NULL;
    RuleOptions r;
    EgMaterial *mats;
    Py_ssize_t n;
    if (parse_eg_rules(rules_o, &r) || parse_materials(mats_o, &mats, &n)) return NULL;
    ProgressData pd = {cb == Py_None ? NULL : cb, 0};
    char err[1024];
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = eg_build(dir, &r, mats, (int)n, threads, progress_cb, &pd, err, sizeof err);
    Py_END_ALLOW_THREADS
    PyMem_Free(mats);
    if (pd.failed) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyboardInterrupt, "build cancelled");
        return NULL;
    }
    if (rc) return raise_eg_error("build", rc, err, PyExc_RuntimeError);
    Py_RETURN_NONE;
}

static int parse_material(PyObject *o, EgMaterial *m) {
    int v[4];
    if (!PyArg_ParseTuple(o, "iiii", &v[0], &v[1], &v[2], &v[3])) return -1;
    if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[3] < 0 || v[0] + v[1] + v[2] + v[3] > PC_EGDB_MAX_PIECES ||
        v[0] + v[1] == 0 || v[2] + v[3] == 0) {
        PyErr_Format(PyExc_ValueError, "bad material (%d, %d, %d, %d): each side needs a piece, at most %d",
                     v[0], v[1], v[2], v[3], PC_EGDB_MAX_PIECES);
        return -1;
    }
    *m = (EgMaterial){(uint8_t)v[0], (uint8_t)v[1], (uint8_t)v[2], (uint8_t)v[3]};
    if (!eg_is_canonical(*m)) {
        PyErr_SetString(PyExc_ValueError, "slices are built for the stored (canonical) orientation");
        return -1;
    }
    return 0;
}

static PyObject *py_egdb_slice_groups(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *mat_o;
    EgMaterial m;
    if (!PyArg_ParseTuple(args, "O", &mat_o) || parse_material(mat_o, &m)) return NULL;
    int prog[64];
    uint64_t cnt[64];
    int n;
    Py_BEGIN_ALLOW_THREADS
    n = eg_slice_groups(m, prog, cnt, 64);
    Py_END_ALLOW_THREADS
    if (n < 0) return PyErr_NoMemory();
    PyObject *groups = PyList_New(n);
    for (int i = 0; groups && i < n; i++) {
        PyObject *g = Py_BuildValue("(iK)", prog[i], (unsigned long long)cnt[i]);
        if (!g) Py_CLEAR(groups);
        else PyList_SET_ITEM(groups, i, g);
    }
    if (!groups) return NULL;
    EgIndex ix;
    eg_index_init(&ix, m);
    return Py_BuildValue("(KN)", (unsigned long long)ix.kp, groups);
}

static PyObject *py_egdb_solve_slice(PyObject *self, PyObject *args) {
    (void)self;
    const char *dir;
    PyObject *rules_o, *mat_o;
    int progress, threads = 1;
    unsigned long long first, count;
    if (!PyArg_ParseTuple(args, "sOOiKK|i", &dir, &rules_o, &mat_o, &progress, &first, &count, &threads))
        return NULL;
    RuleOptions r;
    EgMaterial m;
    if (parse_eg_rules(rules_o, &r) || parse_material(mat_o, &m)) return NULL;
    char err[1024];
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = eg_solve_slice(dir, &r, m, progress, first, count, threads, NULL, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (rc) return raise_eg_error("slice", rc, err, PyExc_FileNotFoundError);
    Py_RETURN_NONE;
}

static PyObject *py_egdb_merge_slices(PyObject *self, PyObject *args) {
    (void)self;
    const char *dir;
    PyObject *rules_o, *mat_o;
    int threads = 1;
    if (!PyArg_ParseTuple(args, "sOO|i", &dir, &rules_o, &mat_o, &threads)) return NULL;
    RuleOptions r;
    EgMaterial m;
    if (parse_eg_rules(rules_o, &r) || parse_material(mat_o, &m)) return NULL;
    char err[1024];
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = eg_merge_slices(dir, &r, m, threads, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (rc) return raise_eg_error("merge", rc, err, PyExc_FileNotFoundError);
    Py_RETURN_NONE;
}

static PyObject *py_egdb_verify(PyObject *self, PyObject *args) {
    (void)self;
    const char *dir;
    PyObject *rules_o, *mats_o, *cb = Py_None;
    int threads = 2;
    if (!PyArg_ParseTuple(args, "sOO|iO", &dir, &rules_o, &mats_o, &threads, &cb)) return NULL;
    RuleOptions r;
    EgMaterial *mats;
    Py_ssize_t n;
    if (parse_eg_rules(rules_o, &r) || parse_materials(mats_o, &mats, &n)) return NULL;
    EgSet *set = eg_set_new(&r);
    if (!set) {
        PyMem_Free(mats);
        return PyErr_NoMemory();
    }
    PyObject *out = PyList_New(0);
    ProgressData pd = {cb == Py_None ? NULL : cb, 0};
    uint64_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        EgIndex ix;
        eg_index_init(&ix, mats[i]);
        total += ix.size;
    }
    uint64_t done = 0;
    char err[4096];
    /* Every table in the directory up to the largest material (successors of each one). */
    int maxp = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (eg_material_pieces(mats[i]) > maxp) maxp = eg_material_pieces(mats[i]);
    for (int pieces = 2; pieces <= maxp && out; pieces++)
        for (int bm = 0; bm <= pieces; bm++)
            for (int bk = 0; bm + bk <= pieces; bk++)
                for (int wm = 0; bm + bk + wm <= pieces; wm++) {
                    EgMaterial m = {(uint8_t)bm, (uint8_t)bk, (uint8_t)wm, (uint8_t)(pieces - bm - bk - wm)};
                    if (bm + bk == 0 || m.wm + m.wk == 0 || !eg_is_canonical(m)) continue;
                    EgTable *t;
                    Py_BEGIN_ALLOW_THREADS
                    t = eg_read_file(dir, m, &r, err, sizeof err);
                    Py_END_ALLOW_THREADS
                    if (t) eg_set_put(set, t);
                }
    for (Py_ssize_t i = 0; i < n && out; i++) {
        EgMaterial m = mats[i];
        if (!eg_is_canonical(m)) m = eg_mirror(m);
        char name[8];
        eg_material_name(m, name);
        EgTable *t = eg_set_get(set, m);
        PyObject *item;
        if (!t) {
            char path[4096];
            eg_file_name(dir, m, path, sizeof path);
            item = Py_BuildValue("(sLs)", name, (long long)-1, "table missing or built under other rules");
        } else {
            int64_t bad;
            Py_BEGIN_ALLOW_THREADS
            bad = eg_verify_table(set, t, threads, &done, err, sizeof err);
            Py_END_ALLOW_THREADS
            item = Py_BuildValue("(sLs)", name, (long long)bad, err);
        }
        if (!item || PyList_Append(out, item) < 0) Py_CLEAR(out);
        Py_XDECREF(item);
        if (out && progress_cb(done, total, name, &pd)) Py_CLEAR(out);
    }
    eg_set_free(set);
    PyMem_Free(mats);
    return out;
}

/* Counts of a stored table: per side to move (wins, draws, losses, longest DTZ of a win, of a
 * loss) with fresh counts, positions only. */
static PyObject *py_egdb_stats(PyObject *self, PyObject *args) {
    (void)self;
    const char *dir;
    PyObject *rules_o;
    int v[4];
    if (!PyArg_ParseTuple(args, "sO(iiii)", &dir, &rules_o, &v[0], &v[1], &v[2], &v[3])) return NULL;
    RuleOptions r;
    if (parse_eg_rules(rules_o, &r)) return NULL;
    EgMaterial m = {(uint8_t)v[0], (uint8_t)v[1], (uint8_t)v[2], (uint8_t)v[3]};
    char err[2048];
    EgTable *t;
    Py_BEGIN_ALLOW_THREADS
    t = eg_read_file(dir, m, &r, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (!t) {
        PyErr_Format(PyExc_FileNotFoundError, "%s", err);
        return NULL;
    }
    unsigned long long n[2][3] = {{0}};
    int longest[2][2] = {{-1, -1}, {-1, -1}};
    Py_BEGIN_ALLOW_THREADS
    uint64_t kp = t->ix.kp;
    for (uint64_t i = 0; i < t->ix.size; i++) {
        uint64_t men = i / kp / 2;
        if (i % (2 * kp) == 0 && !eg_men_valid(&t->ix, men)) {
            i += 2 * kp - 1;
            continue;
        }
        int stm = (int)((i / kp) & 1);
        uint8_t c = t->code[i];
        int kind = c == 0 ? 1 : eg_is_win(c) ? 0 : 2;
        n[stm][kind]++;
        if (kind != 1) {
            int d = eg_dist(c), slot = kind == 0 ? 0 : 1;
            if (d > longest[stm][slot]) longest[stm][slot] = d;
        }
    }
    Py_END_ALLOW_THREADS
    eg_table_free(t);
    return Py_BuildValue("((KKKii)(KKKii))", n[0][0], n[0][1], n[0][2], longest[0][0], longest[0][1], n[1][0],
                         n[1][1], n[1][2], longest[1][0], longest[1][1]);
}

/* ---------- probe object ---------- */

typedef struct {
    PyObject_HEAD EgProbe *p;
    RuleOptions rules;
} ProbeObject;

static int Probe_init(ProbeObject *self, PyObject *args, PyObject *kw) {
    (void)kw;
    const char *dir;
    if (!PyArg_ParseTuple(args, "s", &dir)) return -1;
    char err[1024];
    EgProbe *p;
    Py_BEGIN_ALLOW_THREADS
    p = eg_probe_open(dir, &self->rules, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (!p) {
        PyErr_Format(PyExc_FileNotFoundError, "%s", err);
        return -1;
    }
    if (self->p) {
        pc_egdb_search_release(self->p);
        eg_probe_close(self->p);
    }
    self->p = p;
    return 0;
}

static void Probe_dealloc(ProbeObject *self) {
    if (self->p) {
        pc_egdb_search_release(self->p);
        eg_probe_close(self->p);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ready_probe(ProbeObject *self) {
    if (!self->p) {
        PyErr_SetString(PyExc_RuntimeError, "EgdbProbe is not open");
        return -1;
    }
    return 0;
}

static int parse_bits(PyObject *args, uint32_t *b, uint32_t *w, uint32_t *k, int *t, int *h, int *c) {
    unsigned long long vb, vw, vk;
    *h = 0;
    *c = 0;
    if (!PyArg_ParseTuple(args, "KKKi|ii", &vb, &vw, &vk, t, h, c)) return -1;
    if (vb > 0xFFFFFFFFull || vw > 0xFFFFFFFFull || vk > 0xFFFFFFFFull || (vb & vw) || (vk & ~(vb | vw)) ||
        *t < 0 || *t > 1 || *h < 0 || *c < 0) {
        PyErr_SetString(PyExc_ValueError, "not a position (bitboards of squares 1..32, R2; turn 0/1; counts >= 0)");
        return -1;
    }
    *b = (uint32_t)vb;
    *w = (uint32_t)vw;
    *k = (uint32_t)vk;
    return 0;
}

static PyObject *Probe_probe(ProbeObject *self, PyObject *args) {
    if (ready_probe(self)) return NULL;
    uint32_t b, w, k;
    int t, h, c;
    if (parse_bits(args, &b, &w, &k, &t, &h, &c)) return NULL;
    Position pos;
    if (pc_set(&pos, b, w, k, t, h, c)) {
        PyErr_SetString(PyExc_ValueError, "not a position");
        return NULL;
    }
    EgResult r;
    /* the GIL is kept: a cached probe takes tens of nanoseconds, less than releasing it */
    if (eg_probe(self->p, &pos, &r)) Py_RETURN_NONE;
    return Py_BuildValue("(iiii)", r.fresh_value, r.dtz, r.value, r.b);
}

/* The six columns of probe_many: one-dimensional buffers of 4-byte integers of one length. */
static int many_columns(PyObject *args, Py_buffer view[6], Py_ssize_t *n) {
    PyObject *o[6];
    if (!PyArg_ParseTuple(args, "OOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5])) return -1;
    int got = 0;
    for (; got < 6; got++) {
        if (PyObject_GetBuffer(o[got], &view[got], PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) break;
        const char *f = view[got].format ? view[got].format : "B";
        if (view[got].ndim != 1 || view[got].itemsize != 4 || !strchr("iIlL", f[0]) || f[1] ||
            (got && view[got].shape[0] != view[0].shape[0])) {
            PyErr_SetString(PyExc_TypeError,
                            "probe_many takes six one-dimensional arrays of 4-byte integers of one length "
                            "(black, white, kings, turn, halfmove, three_kings)");
            got++;
            break;
        }
    }
    if (got == 6 && !PyErr_Occurred()) {
        *n = view[0].shape[0];
        return 0;
    }
    for (int i = 0; i < got; i++) PyBuffer_Release(&view[i]);
    return -1;
}

/* probe() for n positions at once: n x 4 int16 (fresh, dtz, value, b) in native byte order;
 * a position no table covers gets fresh = -2. */
static PyObject *Probe_probe_many(ProbeObject *self, PyObject *args) {
    if (ready_probe(self)) return NULL;
    Py_buffer view[6];
    Py_ssize_t n;
    if (many_columns(args, view, &n)) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * 4 * (Py_ssize_t)sizeof(int16_t));
    Py_ssize_t bad = -1;
    if (out) {
        const uint32_t *col[6];
        for (int i = 0; i < 6; i++) col[i] = view[i].buf;
        int16_t *res = (int16_t *)PyBytes_AS_STRING(out);
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) {
            uint32_t b = col[0][i], w = col[1][i], k = col[2][i];
            int t = (int)col[3][i], h = (int)col[4][i], c = (int)col[5][i];
            Position pos;
            EgResult r;
            if (pc_set(&pos, b, w, k, t, h, c)) {
                bad = i;
                break;
            }
            int16_t *o = res + 4 * i;
            if (eg_probe(self->p, &pos, &r)) {
                o[0] = o[1] = o[2] = o[3] = -2;
                continue;
            }
            o[0] = (int16_t)r.fresh_value;
            o[1] = (int16_t)r.dtz;
            o[2] = (int16_t)r.value;
            o[3] = (int16_t)r.b;
        }
        Py_END_ALLOW_THREADS
    }
    for (int i = 0; i < 6; i++) PyBuffer_Release(&view[i]);
    if (out && bad >= 0) {
        Py_CLEAR(out);
        PyErr_Format(PyExc_ValueError,
                     "position %zd is not a position (bitboards of squares 1..32, R2; turn 0/1; counts >= 0)", bad);
    }
    return out;
}

static PyObject *Probe_code(ProbeObject *self, PyObject *args) {
    if (ready_probe(self)) return NULL;
    uint32_t b, w, k;
    int t, h, c;
    if (parse_bits(args, &b, &w, &k, &t, &h, &c)) return NULL;
    int code = eg_probe_code(self->p, b, w, k, t);
    if (code < 0) Py_RETURN_NONE;
    return PyLong_FromLong(code);
}

static PyObject *Probe_rules(ProbeObject *self, PyObject *unused) {
    (void)unused;
    if (ready_probe(self)) return NULL;
    return Py_BuildValue("(OOi)", self->rules.crown_stop ? Py_True : Py_False,
                         self->rules.three_kings_loss ? Py_True : Py_False, self->rules.king_move_limit);
}

static PyObject *Probe_materials(ProbeObject *self, PyObject *unused) {
    (void)unused;
    if (ready_probe(self)) return NULL;
    int n = eg_probe_count(self->p);
    PyObject *out = PyList_New(n);
    for (int i = 0; out && i < n; i++) {
        EgMaterial m = eg_probe_material(self->p, i);
        PyObject *t = Py_BuildValue("(iiii)", m.bm, m.bk, m.wm, m.wk);
        if (!t) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, t);
    }
    return out;
}

static PyObject *Probe_max_pieces(ProbeObject *self, void *closure) {
    (void)closure;
    if (ready_probe(self)) return NULL;
    return PyLong_FromLong(eg_probe_max_pieces(self->p));
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static PyObject *Probe_bench(ProbeObject *self, PyObject *args) {
    if (ready_probe(self)) return NULL;
    PyObject *lst;
    int repeats = 1;
    if (!PyArg_ParseTuple(args, "O|i", &lst, &repeats)) return NULL;
    PyObject *seq = PySequence_Fast(lst, "positions must be a sequence of (black, white, kings, turn)");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    Position *pos = PyMem_Malloc(sizeof(Position) * (size_t)(n > 0 ? n : 1));
    if (!pos) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long long b, w, k;
        int t;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "KKKi", &b, &w, &k, &t) ||
            pc_set(&pos[i], (uint32_t)b, (uint32_t)w, (uint32_t)k, t, 0, 0)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "not a position");
            PyMem_Free(pos);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    double *ns = PyMem_Malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!ns) {
        PyMem_Free(pos);
        return PyErr_NoMemory();
    }
    if (repeats < 1) repeats = 1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        EgResult r;
        eg_probe(self->p, &pos[i], &r); /* fills the block cache */
        double t0 = now_ns();
        for (int rep = 0; rep < repeats; rep++) eg_probe(self->p, &pos[i], &r);
        ns[i] = (now_ns() - t0) / repeats;
    }
    Py_END_ALLOW_THREADS
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) PyList_SET_ITEM(out, i, PyFloat_FromDouble(ns[i]));
    PyMem_Free(ns);
    PyMem_Free(pos);
    return out;
}

static PyObject *Probe_use_in_search(ProbeObject *self, PyObject *flag) {
    if (ready_probe(self)) return NULL;
    int on = PyObject_IsTrue(flag);
    if (on < 0) return NULL;
    if (on) pc_egdb_search_set(self->p, &self->rules);
    else pc_egdb_search_release(self->p);
    Py_RETURN_NONE;
}

static PyObject *py_search_hits(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyLong_FromLongLong((long long)pc_egdb_search_hits());
}

static PyMethodDef Probe_methods[] = {
    {"probe", (PyCFunction)Probe_probe, METH_VARARGS,
     "probe(black, white, kings, turn, halfmove=0, three_kings=0) -> (fresh, dtz, value, b) | None"},
    {"probe_many", (PyCFunction)Probe_probe_many, METH_VARARGS,
     "probe_many(black, white, kings, turn, halfmove, three_kings) -> bytes: probe() of each position, "
     "n x 4 int16 (fresh -2: not covered)"},
    {"code", (PyCFunction)Probe_code, METH_VARARGS, "code(black, white, kings, turn) -> int | None"},
    {"rules", (PyCFunction)Probe_rules, METH_NOARGS, "(crown_stop, three_kings_loss, king_only_move_limit)"},
    {"materials", (PyCFunction)Probe_materials, METH_NOARGS, "[(bm, bk, wm, wk)] of the files"},
    {"bench", (PyCFunction)Probe_bench, METH_VARARGS, "bench(positions, repeats) -> [mean ns per cached probe]"},
    {"use_in_search", (PyCFunction)Probe_use_in_search, METH_O, "Let the native search probe these files."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Probe_getset[] = {
    {"max_pieces", (getter)Probe_max_pieces, NULL, "largest material of the files", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ProbeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "poolcheckers._core.EgdbProbe",
    .tp_basicsize = sizeof(ProbeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The endgame table files of a directory.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Probe_init,
    .tp_dealloc = (destructor)Probe_dealloc,
    .tp_methods = Probe_methods,
    .tp_getset = Probe_getset,
};

static PyMethodDef egdb_methods[] = {
    {"egdb_build", (PyCFunction)py_egdb_build, METH_VARARGS,
     "egdb_build(dir, rules, materials, threads=2, progress=None)"},
    {"egdb_slice_groups", (PyCFunction)py_egdb_slice_groups, METH_VARARGS,
     "egdb_slice_groups(material) -> (kp, [(progress, configurations)]) in solve order"},
    {"egdb_solve_slice", (PyCFunction)py_egdb_solve_slice, METH_VARARGS,
     "egdb_solve_slice(dir, rules, material, progress, first, count, threads=1)"},
    {"egdb_merge_slices", (PyCFunction)py_egdb_merge_slices, METH_VARARGS,
     "egdb_merge_slices(dir, rules, material, threads=1)"},
    {"egdb_verify", (PyCFunction)py_egdb_verify, METH_VARARGS,
     "egdb_verify(dir, rules, materials, threads=2, progress=None) -> [(material, bad, text)]"},
    {"egdb_stats", (PyCFunction)py_egdb_stats, METH_VARARGS,
     "egdb_stats(dir, rules, material) -> per side to move (wins, draws, losses, longest win, longest loss)"},
    {"egdb_search_hits", (PyCFunction)py_search_hits, METH_NOARGS, "tablebase probes answered in the search"},
    {NULL, NULL, 0, NULL},
};

int pc_egdb_add_to_module(PyObject *m);
int pc_egdb_add_to_module(PyObject *m) {
    eg_init();
    if (PyType_Ready(&ProbeType) < 0) return -1;
    if (PyModule_AddFunctions(m, egdb_methods) < 0) return -1;
    Py_INCREF(&ProbeType);
    if (PyModule_AddObject(m, "EgdbProbe", (PyObject *)&ProbeType) < 0) {
        Py_DECREF(&ProbeType);
        return -1;
    }
    return PyModule_AddIntConstant(m, "EGDB_FORMAT_VERSION", PC_EGDB_FORMAT_VERSION);
}
