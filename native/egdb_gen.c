/* egdb_gen.c -- the generator: retrograde analysis of one material at a time.
 *
 * Order: a capture leads to fewer pieces, a crowning (R15) to fewer men with
 * as many pieces, a man move (R6) to another men configuration of the same
 * material with a higher "progress" (eg_men_progress).  So materials are
 * solved by (pieces, men) and, within one, the men configurations by falling
 * progress; configurations of equal progress are independent and are solved
 * together, split in chunks over the threads.
 *
 * Within a men configuration only kings move.  Each state first gets its
 * zeroing moves (captures, man moves) valued from the fresh values of their
 * children; then the distances are spread backwards level by level: a state
 * one of whose king moves reaches a loss in k plies is a win in k + 1; a state
 * all of whose king moves reach wins (and whose zeroing moves all lose) is a
 * loss in one more than its longest.  Levels stop at the largest budget that
 * fresh counts leave (R18: 2L plies; R19: 25 or 26), so a position won only
 * in more plies is a draw (docs/EGDB.md: a win that needs more king-only
 * plies than the counts allow is a draw).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "egdb.h"

struct EgSet {
    RuleOptions rules;
    EgTable *tab[6561];
};

EgSet *eg_set_new(const RuleOptions *rules) {
    eg_init();
    EgSet *s = calloc(1, sizeof *s);
    if (s) s->rules = *rules;
    return s;
}

void eg_set_free(EgSet *s) {
    if (!s) return;
    for (int i = 0; i < 6561; i++) eg_table_free(s->tab[i]);
    free(s);
}

EgTable *eg_set_get(EgSet *s, EgMaterial m) { return s->tab[eg_material_id(m)]; }

void eg_set_put(EgSet *s, EgTable *t) {
    int id = eg_material_id(t->ix.mat);
    if (s->tab[id] && s->tab[id] != t) eg_table_free(s->tab[id]);
    s->tab[id] = t;
}

const RuleOptions *eg_set_rules(const EgSet *s) { return &s->rules; }

void eg_table_free(EgTable *t) {
    if (!t) return;
    free(t->code);
    free(t->btab);
    free(t);
}

int eg_set_code(EgSet *s, uint32_t black, uint32_t white, uint32_t kings, int stm) {
    uint32_t own = stm == PC_BLACK ? black : white, opp = stm == PC_BLACK ? white : black;
    if (!own) return EG_LOSS(0); /* R16: no pieces, no move */
    if (!opp) return -1;
    EgMaterial m = eg_material_of(black, white, kings);
    if (!eg_is_canonical(m)) {
        uint32_t b = eg_flip32(white), w = eg_flip32(black);
        black = b;
        white = w;
        kings = eg_flip32(kings);
        stm ^= 1;
        m = eg_mirror(m);
    }
    EgTable *t = s->tab[eg_material_id(m)];
    if (!t) return -1;
    uint64_t i = eg_index_of(&t->ix, black, white, kings, stm);
    if (i >= t->ix.size) return -1;
    return t->code[i];
}

/* ---------- one group of independent men configurations ---------- */

typedef struct {
    uint64_t men, base, cnt_off;
    uint32_t bmen, wmen;
    EgKingFrame frame;
} Slice;

typedef struct {
    int slice;
    uint32_t j0, j1;
} Chunk;

typedef struct {
    EgSet *set;
    EgTable *t;
    const RuleOptions *rules;
    uint8_t *code;
    uint8_t *cnt;
    Slice *slices;
    Chunk *chunks;
    int nchunks;
    int draw_wins_for; /* B game: a zeroing draw counts as a win for this colour, else -1 */
    int phase;         /* 0: zeroing moves; 1: level `level` */
    int level;
    atomic_int next;
    atomic_llong found;
    atomic_int error;
    atomic_int missing; /* material id + 1 of a successor table found missing */
    volatile uint64_t *done;
    volatile int *cancel;
} Ctx;

static inline Bitboard ray_free(int s, int d, Bitboard occ) {
    Bitboard r = pc_ray[s][d];
    Bitboard b = r & occ;
    if (!b) return r;
    int f = d < 2 ? pc_lsb(b) : pc_msb(b);
    return r & ~(pc_ray[f][d] | BIT(f));
}

static inline void set_position(const Slice *sl, int stm, uint32_t bk, uint32_t wk, Position *pos) {
    pos->bb[PC_BLACK] = pc_from_bits32(sl->bmen | bk);
    pos->bb[PC_WHITE] = pc_from_bits32(sl->wmen | wk);
    pos->kings = pc_from_bits32(bk | wk);
    pos->stm = stm;
    pos->halfmove = 0;
    pos->tk_count = 0;
    pos->key = 0;
}

static inline void state_position(const Ctx *c, const Slice *sl, uint32_t j, Position *pos,
                                  uint32_t *bk, uint32_t *wk) {
    uint64_t kp = c->t->ix.kp;
    uint32_t cb, cw;
    eg_frame_split(&sl->frame, j % kp, &cb, &cw);
    eg_frame_expand(&sl->frame, cb, cw, bk, wk);
    set_position(sl, (int)(j / kp), *bk, *wk, pos);
}

/* The next set of as many elements in colex order (Gosper's hack; colex order is numeric). */
static inline uint32_t next_set(uint32_t v) {
    uint32_t t = v | (v - 1);
    return (t + 1) | (uint32_t)((((uint64_t)(~t & (t + 1))) - 1) >> (__builtin_ctz(v) + 1));
}

static void init_state(Ctx *c, const Slice *sl, uint32_t j, const Position *at, MoveList *list) {
    Position pos = *at;
    uint8_t *code = &c->code[sl->base + j];
    uint8_t *cnt = &c->cnt[sl->cnt_off + j];
    int n = pc_gen_moves(&pos, c->rules, list);
    if (list->overflow) {
        atomic_store(&c->error, -3);
        return;
    }
    if (n == 0) { /* R16 */
        *code = EG_LOSS(0);
        *cnt = 0;
        return;
    }
    int nz = 0, best = -2;
    for (int i = 0; i < n; i++) {
        const Move *m = &list->m[i];
        if (!m->cap && (pos.kings & BIT(m->from))) {
            nz++;
            continue;
        }
        Position ch;
        pc_make_fast(&pos, m, &ch);
        int cc = eg_set_code(c->set, pc_to_bits32(ch.bb[PC_BLACK]), pc_to_bits32(ch.bb[PC_WHITE]),
                             pc_to_bits32(ch.kings), ch.stm);
        if (cc < 0) {
            EgMaterial cm = eg_material_of(pc_to_bits32(ch.bb[PC_BLACK]), pc_to_bits32(ch.bb[PC_WHITE]),
                                           pc_to_bits32(ch.kings));
            atomic_store(&c->missing, eg_material_id(eg_is_canonical(cm) ? cm : eg_mirror(cm)) + 1);
            atomic_store(&c->error, -2);
            return;
        }
        int v = cc == 0 ? 0 : eg_is_loss((uint8_t)cc) ? 1 : -1;
        if (v == 0 && c->draw_wins_for >= 0) v = pos.stm == c->draw_wins_for ? 1 : -1;
        if (v > best) best = v;
        if (best == 1) break;
    }
    if (best == 1) {
        *code = EG_WIN(1);
        *cnt = 0;
        return;
    }
    *cnt = best == 0 ? 0xFF : (uint8_t)nz;
    *code = (nz == 0 && best == -1) ? EG_LOSS(1) : 0;
}

/* Predecessors by a king move of the side not to move in (pos), same men. */
static void spread(Ctx *c, const Slice *sl, uint32_t j, int win_next) {
    Position q;
    uint32_t bk, wk;
    state_position(c, sl, j, &q, &bk, &wk);
    int mover = q.stm ^ 1;
    uint64_t kp = c->t->ix.kp;
    Bitboard occ = q.bb[0] | q.bb[1];
    uint8_t target = win_next ? EG_WIN(c->level + 1) : EG_LOSS(c->level + 1);
    for (Bitboard ks = q.bb[mover] & q.kings; ks; ks &= ks - 1) {
        int x = pc_lsb(ks);
        uint32_t xb = 1u << (pc_idx_to_sq[x] - 1);
        for (int d = 0; d < 4; d++) {
            for (Bitboard ys = ray_free(x, d, occ); ys; ys &= ys - 1) {
                int y = pc_lsb(ys);
                /* fields set one by one: copying the whole Position just written stalled on
                 * store forwarding, a third of the time of this loop */
                Position p;
                p.bb[mover] = q.bb[mover] ^ (BIT(x) | BIT(y));
                p.bb[mover ^ 1] = q.bb[mover ^ 1];
                p.kings = q.kings ^ (BIT(x) | BIT(y));
                p.stm = mover;
                if (pc_has_capture(&p)) continue; /* R11: the king move was not legal */
                uint32_t yb = 1u << (pc_idx_to_sq[y] - 1);
                uint32_t pbk = bk, pwk = wk;
                if (mover == PC_BLACK) pbk ^= xb | yb;
                else pwk ^= xb | yb;
                uint64_t pj = (uint64_t)mover * kp + eg_frame_index(&sl->frame, pbk, pwk);
                uint8_t *pc = &c->code[sl->base + pj];
                if (__atomic_load_n(pc, __ATOMIC_RELAXED) != 0) continue;
                if (win_next) {
                    uint8_t zero = 0;
                    __atomic_compare_exchange_n(pc, &zero, target, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
                } else {
                    uint8_t *pn = &c->cnt[sl->cnt_off + pj];
                    if (__atomic_load_n(pn, __ATOMIC_RELAXED) == 0xFF) continue;
                    if (__atomic_sub_fetch(pn, 1, __ATOMIC_RELAXED) == 0)
                        __atomic_store_n(pc, target, __ATOMIC_RELAXED);
                }
            }
        }
    }
}

/* The zeroing moves of states j0..j1 - 1 of a slice, visited in index order: the kings step
 * from one placement to the next instead of being unranked for every state. */
static void init_chunk(Ctx *c, const Slice *sl, uint32_t j0, uint32_t j1, MoveList *list) {
    const EgKingFrame *f = &sl->frame;
    uint64_t kp = c->t->ix.kp;
    uint64_t k = j0 % kp;
    int stm = (int)(j0 / kp);
    uint32_t cb, cw;
    eg_frame_split(f, k, &cb, &cw);
    const uint32_t low_b = (uint32_t)((1ULL << f->kb) - 1), low_w = (uint32_t)((1ULL << f->kw) - 1);
    const uint64_t end_w = 1ULL << f->n2;
    for (uint32_t j = j0; j < j1; j++) {
        Position pos;
        uint32_t bk, wk;
        eg_frame_expand(f, cb, cw, &bk, &wk);
        set_position(sl, stm, bk, wk, &pos);
        init_state(c, sl, j, &pos, list);
        if (++k == kp) {
            k = 0;
            stm++;
            cb = low_b;
            cw = low_w;
        } else if (f->kw && (cw = next_set(cw)) < end_w) {
            /* next white placement */
        } else {
            cw = low_w;
            cb = next_set(cb);
        }
    }
}

/* Whether a byte of w equals b. */
static inline int has_byte(uint64_t w, uint8_t b) {
    uint64_t x = w ^ (0x0101010101010101ULL * b);
    return ((x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL) != 0;
}

static void *worker(void *arg) {
    Ctx *c = arg;
    MoveList *list = malloc(sizeof *list);
    if (!list) {
        atomic_store(&c->error, -1);
        return NULL;
    }
    long long found = 0;
    uint8_t lw = EG_WIN(c->level > 0 ? c->level : 1), ll = EG_LOSS(c->level);
    for (;;) {
        int i = atomic_fetch_add(&c->next, 1);
        if (i >= c->nchunks || atomic_load(&c->error) || (c->cancel && *c->cancel)) break;
        const Chunk *ch = &c->chunks[i];
        const Slice *sl = &c->slices[ch->slice];
        if (c->phase == 0) {
            init_chunk(c, sl, ch->j0, ch->j1, list);
            if (c->done) __atomic_add_fetch(c->done, ch->j1 - ch->j0, __ATOMIC_RELAXED);
        } else {
            const uint8_t *row = &c->code[sl->base];
            for (uint32_t j = ch->j0; j < ch->j1; j++) {
                /* Most states are not at this level: skip eight at a time.  Codes written
                 * meanwhile are of the next level, which this pass does not look for. */
                if (!((uintptr_t)(row + j) & 7) && j + 8 <= ch->j1) {
                    uint64_t w = __atomic_load_n((const uint64_t *)(const void *)(row + j),
                                                 __ATOMIC_RELAXED);
                    if (!has_byte(w, ll) && (c->level == 0 || !has_byte(w, lw))) {
                        j += 7;
                        continue;
                    }
                }
                uint8_t v = __atomic_load_n(&row[j], __ATOMIC_RELAXED);
                if (v == ll) {
                    spread(c, sl, j, 1);
                    found++;
                } else if (v == lw && c->level > 0) {
                    spread(c, sl, j, 0);
                    found++;
                }
            }
        }
    }
    atomic_fetch_add(&c->found, found);
    free(list);
    return NULL;
}

void eg_run_threads(void *(*fn)(void *), void *arg, int threads) {
    pthread_t tid[EG_MAX_THREADS];
    int started = 0;
    for (int i = 1; i < eg_thread_count(threads); i++)
        if (pthread_create(&tid[started], NULL, fn, arg) == 0) started++;
    fn(arg);
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
}

static void run_phase(Ctx *c, int threads) {
    atomic_store(&c->next, 0);
    eg_run_threads(worker, c, threads);
}

/* Solve the slices of one group into c->code (zeroing moves, then levels up to cap). */
static int solve_group(Ctx *c, int threads, int cap) {
    c->phase = 0;
    c->level = 0;
    run_phase(c, threads);
    if (atomic_load(&c->error)) return atomic_load(&c->error);
    c->phase = 1;
    for (int k = 0; k < cap; k++) {
        c->level = k;
        atomic_store(&c->found, 0);
        run_phase(c, threads);
        if (atomic_load(&c->error)) return atomic_load(&c->error);
        if (c->cancel && *c->cancel) return -4;
        if (k >= 1 && atomic_load(&c->found) == 0) break;
    }
    return 0;
}

typedef struct {
    uint64_t men;
    int progress;
} MenCfg;

static int cmp_cfg(const void *a, const void *b) {
    const MenCfg *x = a, *y = b;
    if (x->progress != y->progress) return y->progress - x->progress;
    return x->men < y->men ? -1 : x->men > y->men;
}

static int three_v_one_strong(EgMaterial m) {
    if (m.bm || m.wm) return -1;
    if (m.bk == 3 && m.wk == 1) return PC_BLACK;
    if (m.bk == 1 && m.wk == 3) return PC_WHITE;
    return -1;
}

#define CHUNK 2048

static int solve_slices(EgSet *s, EgTable *t, uint8_t *code, const MenCfg *cfg, int ncfg, int threads,
                        int cap, int draw_wins_for, volatile uint64_t *done, volatile int *cancel,
                        int *missing) {
    uint64_t kp = t->ix.kp;
    Ctx c;
    memset(&c, 0, sizeof c);
    c.set = s;
    c.t = t;
    c.rules = eg_set_rules(s);
    c.code = code;
    c.draw_wins_for = draw_wins_for;
    c.done = done;
    c.cancel = cancel;
    uint64_t per = (2 * kp + CHUNK - 1) / CHUNK;
    c.slices = calloc((size_t)ncfg, sizeof *c.slices);
    c.chunks = calloc((size_t)(ncfg * per), sizeof *c.chunks);
    c.cnt = malloc((size_t)(ncfg * 2 * kp));
    if (!c.slices || !c.chunks || !c.cnt) {
        free(c.slices);
        free(c.chunks);
        free(c.cnt);
        return -1;
    }
    int nch = 0;
    for (int i = 0; i < ncfg; i++) {
        Slice *sl = &c.slices[i];
        sl->men = cfg[i].men;
        sl->base = cfg[i].men * 2 * kp;
        sl->cnt_off = (uint64_t)i * 2 * kp;
        eg_men_unindex(&t->ix, sl->men, &sl->bmen, &sl->wmen);
        eg_frame_init(&sl->frame, &t->ix, sl->bmen | sl->wmen);
        for (uint64_t j = 0; j < 2 * kp; j += CHUNK) {
            c.chunks[nch].slice = i;
            c.chunks[nch].j0 = (uint32_t)j;
            c.chunks[nch].j1 = (uint32_t)(j + CHUNK < 2 * kp ? j + CHUNK : 2 * kp);
            nch++;
        }
    }
    c.nchunks = nch;
    int r = solve_group(&c, threads, cap);
    if (missing) *missing = atomic_load(&c.missing);
    if (done) __atomic_add_fetch(done, (uint64_t)ncfg * 2 * kp, __ATOMIC_RELAXED);
    free(c.slices);
    free(c.chunks);
    free(c.cnt);
    return r;
}

/* The valid men configurations of a material in solve order: falling progress, then number.
 * Returns how many, or -1. */
static int men_order(const EgIndex *ix, MenCfg **out) {
    uint64_t nmen = ix->n_bmen * ix->n_wmen;
    MenCfg *cfg = malloc((size_t)nmen * sizeof *cfg);
    if (!cfg) return -1;
    int ncfg = 0;
    for (uint64_t i = 0; i < nmen; i++) {
        if (!eg_men_valid(ix, i)) continue;
        cfg[ncfg].men = i;
        cfg[ncfg].progress = eg_men_progress(ix, i);
        ncfg++;
    }
    qsort(cfg, (size_t)ncfg, sizeof *cfg, cmp_cfg);
    *out = cfg;
    return ncfg;
}

/* The largest fresh budget of a material: the levels stop there. */
static int level_cap(EgMaterial m, const RuleOptions *rules) {
    int cap = eg_fresh_budget(m, PC_BLACK, rules);
    int capw = eg_fresh_budget(m, PC_WHITE, rules);
    return capw > cap ? capw : cap;
}

/* Fresh values of 3 kings v 1 king from the distances (A in t->code, the B game in t->btab). */
static void finish_three_v_one(EgTable *t, int strong, const RuleOptions *rules) {
    for (uint64_t i = 0; i < t->ix.size; i++) {
        int stm = (int)((i / t->ix.kp) & 1);
        int r = eg_fresh_budget(t->ix.mat, stm, rules);
        int r19 = stm == strong ? 25 : 26;
        uint8_t c = t->code[i];
        int sw = c && ((stm == strong) ? eg_is_win(c) : eg_is_loss(c)); /* the strong side wins */
        if (!t->btab) {
            if (c && eg_dist(c) > r) t->code[i] = 0;
            continue;
        }
        uint8_t bc = t->btab[i];
        int b = -1;
        if (bc && ((stm == strong) ? eg_is_win(bc) : eg_is_loss(bc))) b = eg_dist(bc);
        t->btab[i] = (uint8_t)(b >= 0 ? b + 1 : PC_EGDB_NO_B);
        if (r19 > 2 * rules->king_move_limit) { /* R18 ends first: its end is a draw */
            if (c && eg_dist(c) > r) t->code[i] = 0;
            continue;
        }
        /* The R19 count ends first: a loss for the three-king side (option "loss"). */
        if (sw && eg_dist(c) <= r) continue;
        if (b >= 0 && b <= r) {
            t->code[i] = 0;
            continue;
        }
        if (c && !sw && eg_dist(c) <= r) continue; /* the lone king wins by a zeroing ply */
        t->code[i] = stm == strong ? EG_LOSS(r) : EG_WIN(r);
        t->btab[i] = PC_EGDB_COUNT_ONLY;
    }
}

int eg_solve(EgSet *s, EgMaterial m, int threads, EgTable **out, volatile uint64_t *done,
             volatile int *cancel) {
    const RuleOptions *rules = eg_set_rules(s);
    if (rules->king_move_limit < 1 || rules->king_move_limit > PC_EGDB_MAX_LIMIT) return -5;
    EgTable *t = calloc(1, sizeof *t);
    if (!t) return -1;
    eg_index_init(&t->ix, m);
    t->code = calloc((size_t)t->ix.size, 1);
    MenCfg *cfg = NULL;
    int ncfg = t->code ? men_order(&t->ix, &cfg) : -1;
    if (ncfg < 0) {
        eg_table_free(t);
        return -1;
    }
    int cap = level_cap(m, rules);
    if (eg_set_get(s, m)) {
        free(cfg);
        eg_table_free(t);
        return -6;
    }
    eg_set_put(s, t); /* man moves read the configurations solved before */
    int r = 0;
    for (int g = 0; g < ncfg && !r;) {
        int e = g;
        while (e < ncfg && cfg[e].progress == cfg[g].progress) e++;
        r = solve_slices(s, t, t->code, cfg + g, e - g, threads, cap, -1, done, cancel, NULL);
        g = e;
    }
    int strong = three_v_one_strong(m);
    if (!r && strong >= 0 && rules->three_kings_loss) {
        t->btab = calloc((size_t)t->ix.size, 1);
        if (!t->btab) r = -1;
        else r = solve_slices(s, t, t->btab, cfg, ncfg, threads, 26, strong, NULL, cancel, NULL);
    }
    if (!r && strong >= 0) finish_three_v_one(t, strong, rules);
    free(cfg);
    if (r) {
        s->tab[eg_material_id(m)] = NULL;
        eg_table_free(t);
        return r;
    }
    *out = t;
    return 0;
}

const char *eg_error_text(int code) {
    switch (code) {
        case 0: return "ok";
        case -1: return "out of memory";
        case -2: return "a table the material depends on is missing (build smaller materials first)";
        case -3: return "a position has more legal moves than the generator supports";
        case -4: return "cancelled";
        case -5: return "king_only_move_limit must be 1..63 for the tables (R18; DTZ is one byte)";
        case -6: return "material solved twice";
        case -7: return "cannot write the table file";
        case -8: return "bad material (both sides need a piece; at most 8 pieces)";
        case -9: return "a material without men is one configuration: build it whole, not in slices";
        case -10: return "no such slice (progress value or configurations out of range)";
        default: return "unknown error";
    }
}

/* ---------- the whole build ---------- */

static int cmp_mat(const void *a, const void *b) {
    const EgMaterial *x = a, *y = b;
    int px = eg_material_pieces(*x), py = eg_material_pieces(*y);
    if (px != py) return px - py;
    int mx = x->bm + x->wm, my = y->bm + y->wm;
    if (mx != my) return mx - my;
    return eg_material_id(*x) - eg_material_id(*y);
}

typedef struct {
    const char *dir;
    EgSet *set;
    EgMaterial *mats;
    int n, threads;
    volatile uint64_t done;
    volatile int cancel;
    volatile int finished;
    volatile int current;
    int result;
    char *errbuf;
    size_t errlen;
} Build;

/* Load the canonical tables that one move of material m leads to and that are not in the set:
 * the mover keeps its men or crowns one (R15: a move crowns at most one man), the opponent
 * keeps any of its men and any of its kings (captures).  Only these: a task's memory is
 * mostly its successor tables, and the materials where both sides lost pieces, which no
 * single move reaches, were three quarters of them for the largest 7-piece materials. */
static void load_successors(const char *dir, EgSet *set, EgMaterial m) {
    for (int side = 0; side < 2; side++) {
        int om = side ? m.wm : m.bm, ok = side ? m.wk : m.bk, xm = side ? m.bm : m.wm, xk = side ? m.bk : m.wk;
        for (int crown = 0; crown <= (om > 0); crown++)
            for (int a = 0; a <= xm; a++)
                for (int b = 0; b <= xk; b++) {
                    if (a + b == 0) continue; /* every piece captured: no table (R16) */
                    uint8_t mm = (uint8_t)(om - crown), mk = (uint8_t)(ok + crown);
                    EgMaterial s = side ? (EgMaterial){(uint8_t)a, (uint8_t)b, mm, mk}
                                        : (EgMaterial){mm, mk, (uint8_t)a, (uint8_t)b};
                    if (!eg_is_canonical(s)) s = eg_mirror(s);
                    if (eg_material_id(s) == eg_material_id(m) || eg_set_get(set, s)) continue;
                    char err[256];
                    EgTable *t = eg_read_file(dir, s, eg_set_rules(set), err, sizeof err);
                    if (t) eg_set_put(set, t);
                }
    }
}

static void *build_main(void *arg) {
    Build *b = arg;
    b->result = 0;
    for (int i = 0; i < b->n && !b->result; i++) {
        b->current = i;
        load_successors(b->dir, b->set, b->mats[i]);
        EgTable *t = NULL;
        int r = eg_solve(b->set, b->mats[i], b->threads, &t, &b->done, &b->cancel);
        if (r) {
            char name[8];
            eg_material_name(b->mats[i], name);
            snprintf(b->errbuf, b->errlen, "material %s: %s", name, eg_error_text(r));
            b->result = r;
            break;
        }
        if (eg_write_file(b->dir, eg_set_rules(b->set), t, b->threads, b->errbuf, b->errlen)) b->result = -7;
    }
    __atomic_store_n(&b->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

int eg_build(const char *dir, const RuleOptions *rules, const EgMaterial *mats, int n, int threads,
             EgProgress progress, void *userdata, char *errbuf, size_t errlen) {
    eg_init();
    Build b;
    memset(&b, 0, sizeof b);
    b.dir = dir;
    b.threads = eg_thread_count(threads);
    b.errbuf = errbuf;
    b.errlen = errlen;
    if (errlen) errbuf[0] = 0;
    if (rules->king_move_limit < 1 || rules->king_move_limit > PC_EGDB_MAX_LIMIT) {
        snprintf(errbuf, errlen, "%s", eg_error_text(-5));
        return -5;
    }
    b.mats = malloc(sizeof(EgMaterial) * (size_t)(n > 0 ? n : 1));
    if (!b.mats) return -1;
    for (int i = 0; i < n; i++) {
        EgMaterial m = mats[i];
        int p = eg_material_pieces(m);
        if (p > PC_EGDB_MAX_PIECES || m.bm + m.bk == 0 || m.wm + m.wk == 0) {
            free(b.mats);
            snprintf(errbuf, errlen, "%s", eg_error_text(-8));
            return -8;
        }
        if (!eg_is_canonical(m)) m = eg_mirror(m);
        int dup = 0;
        for (int j = 0; j < b.n; j++) dup |= eg_material_id(b.mats[j]) == eg_material_id(m);
        if (!dup) b.mats[b.n++] = m;
    }
    qsort(b.mats, (size_t)b.n, sizeof *b.mats, cmp_mat);
    b.set = eg_set_new(rules);
    if (!b.set) {
        free(b.mats);
        return -1;
    }
    uint64_t total = 0;
    for (int i = 0; i < b.n; i++) {
        EgIndex ix;
        eg_index_init(&ix, b.mats[i]);
        total += 2 * ix.size;
    }
    pthread_t th;
    if (pthread_create(&th, NULL, build_main, &b) != 0) {
        build_main(&b);
    } else {
        while (!__atomic_load_n(&b.finished, __ATOMIC_ACQUIRE)) {
            struct timespec ts = {0, 100 * 1000 * 1000};
            nanosleep(&ts, NULL);
            if (progress) {
                char name[8];
                eg_material_name(b.mats[b.current], name);
                if (progress(__atomic_load_n(&b.done, __ATOMIC_RELAXED), total, name, userdata)) b.cancel = 1;
            }
        }
        pthread_join(th, NULL);
    }
    if (progress && !b.result) progress(total, total, "", userdata);
    if (b.cancel && !b.result) b.result = -4;
    if (b.result == -4 && errlen) snprintf(errbuf, errlen, "%s", eg_error_text(-4));
    eg_set_free(b.set);
    free(b.mats);
    return b.result;
}

/* ---------- slices (egdb.h): one progress value, or part of one, on its own ---------- */

static int slice_checks(const RuleOptions *rules, EgMaterial m, char *errbuf, size_t errlen) {
    eg_init();
    if (errlen) errbuf[0] = 0;
    int r = 0;
    if (rules->king_move_limit < 1 || rules->king_move_limit > PC_EGDB_MAX_LIMIT) r = -5;
    else if (eg_material_pieces(m) > PC_EGDB_MAX_PIECES || m.bm + m.bk == 0 || m.wm + m.wk == 0 ||
             !eg_is_canonical(m))
        r = -8;
    else if (m.bm + m.wm == 0) r = -9;
    if (r) {
        char name[8];
        eg_material_name(m, name);
        snprintf(errbuf, errlen, "material %s: %s", name, eg_error_text(r));
    }
    return r;
}

/* The whole table of m in memory, zero, and its configurations in solve order.  The codes are
 * calloc'ed whole so that configuration men sits at men * 2 kp as in eg_solve, which the man
 * moves' indices assume; the pages of the configurations a slice never touches are never
 * committed, so a slice task holds only its own and the next progress value's states. */
static EgTable *slice_table(EgMaterial m, MenCfg **cfg, int *ncfg) {
    EgTable *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    eg_index_init(&t->ix, m);
    t->code = calloc((size_t)t->ix.size, 1);
    *ncfg = t->code ? men_order(&t->ix, cfg) : -1;
    if (*ncfg < 0) {
        eg_table_free(t);
        return NULL;
    }
    return t;
}

/* Configurations [*g, *e) of progress p in cfg (empty when there are none). */
static void progress_group(const MenCfg *cfg, int ncfg, int p, int *g, int *e) {
    *g = 0;
    while (*g < ncfg && cfg[*g].progress > p) (*g)++;
    *e = *g;
    while (*e < ncfg && cfg[*e].progress == p) (*e)++;
}

static int read_group(const char *dir, const RuleOptions *rules, EgTable *t, const MenCfg *cfg, int g,
                      int e, char *errbuf, size_t errlen) {
    if (e <= g) return 0;
    uint64_t *men = malloc(sizeof *men * (size_t)(e - g));
    if (!men) return -1;
    for (int i = g; i < e; i++) men[i - g] = cfg[i].men;
    int r = eg_read_slices(dir, rules, t, cfg[g].progress, men, (uint64_t)(e - g), errbuf, errlen);
    free(men);
    return r;
}

int eg_slice_groups(EgMaterial m, int *progress, uint64_t *count, int max) {
    eg_init();
    EgIndex ix;
    eg_index_init(&ix, m);
    MenCfg *cfg;
    int ncfg = men_order(&ix, &cfg);
    if (ncfg < 0) return -1;
    int n = 0;
    for (int g = 0; g < ncfg && n < max;) {
        int e = g;
        while (e < ncfg && cfg[e].progress == cfg[g].progress) e++;
        progress[n] = cfg[g].progress;
        count[n++] = (uint64_t)(e - g);
        g = e;
    }
    free(cfg);
    return n;
}

int eg_solve_slice(const char *dir, const RuleOptions *rules, EgMaterial m, int progress,
                   uint64_t first, uint64_t count, int threads, volatile uint64_t *done, char *errbuf,
                   size_t errlen) {
    int r = slice_checks(rules, m, errbuf, errlen);
    if (r) return r;
    char name[8];
    eg_material_name(m, name);
    MenCfg *cfg = NULL;
    int ncfg;
    EgTable *t = slice_table(m, &cfg, &ncfg);
    EgSet *s = t ? eg_set_new(rules) : NULL;
    if (!s) {
        eg_table_free(t);
        free(cfg);
        snprintf(errbuf, errlen, "material %s: %s", name, eg_error_text(-1));
        return -1;
    }
    int g, e, ng, ne;
    progress_group(cfg, ncfg, progress, &g, &e);
    progress_group(cfg, ncfg, progress + 1, &ng, &ne);
    uint64_t n = (uint64_t)(e - g);
    if (count == 0 || first >= n || count > n - first) {
        snprintf(errbuf, errlen, "material %s, progress %d, configurations %llu + %llu of %llu: %s", name,
                 progress, (unsigned long long)first, (unsigned long long)count, (unsigned long long)n,
                 eg_error_text(-10));
        r = -10;
    }
    if (!r) {
        load_successors(dir, s, m);
        eg_set_put(s, t); /* man moves read the configurations of progress + 1 from t */
        r = read_group(dir, rules, t, cfg, ng, ne, errbuf, errlen);
    } else {
        eg_table_free(t);
    }
    if (!r) {
        int missing = 0;
        int threads1 = eg_thread_count(threads);
        r = solve_slices(s, t, t->code, cfg + g + first, (int)count, threads1, level_cap(m, rules), -1, done,
                         NULL, &missing);
        if (r == -2 && missing) {
            char mn[8];
            int id = missing - 1; /* eg_material_id: bm + 9 (bk + 9 (wm + 9 wk)) */
            EgMaterial mm = {(uint8_t)(id % 9), (uint8_t)(id / 9 % 9), (uint8_t)(id / 81 % 9), (uint8_t)(id / 729)};
            eg_material_name(mm, mn);
            snprintf(errbuf, errlen, "material %s: the table of material %s (egdb_%s.pcdb) is missing in %s",
                     name, mn, mn, dir);
        } else if (r) {
            snprintf(errbuf, errlen, "material %s: %s", name, eg_error_text(r));
        }
    }
    if (!r) {
        uint64_t *men = malloc(sizeof *men * (size_t)count);
        if (!men) r = -1;
        for (uint64_t i = 0; men && i < count; i++) men[i] = cfg[(uint64_t)g + first + i].men;
        if (men) r = eg_write_slice(dir, rules, t, progress, first, n, men, count, errbuf, errlen);
        free(men);
    }
    free(cfg);
    eg_set_free(s);
    return r;
}

int eg_merge_slices(const char *dir, const RuleOptions *rules, EgMaterial m, int threads, char *errbuf,
                    size_t errlen) {
    int r = slice_checks(rules, m, errbuf, errlen);
    if (r) return r;
    MenCfg *cfg = NULL;
    int ncfg;
    EgTable *t = slice_table(m, &cfg, &ncfg);
    if (!t) return -1;
    for (int g = 0; g < ncfg && !r;) {
        int e = g;
        while (e < ncfg && cfg[e].progress == cfg[g].progress) e++;
        r = read_group(dir, rules, t, cfg, g, e, errbuf, errlen);
        g = e;
    }
    if (!r) r = eg_write_file(dir, rules, t, eg_thread_count(threads), errbuf, errlen);
    free(cfg);
    eg_table_free(t);
    return r;
}
