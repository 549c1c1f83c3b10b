/* egdb_verify.c -- re-derive every stored state from its successors.
 *
 * Forward, not retrograde: for each state the legal moves are generated (the
 * core's generator, R6-R15), zeroing moves are valued by the fresh codes of
 * their children and king moves by the stored codes of this table, and the
 * state's code must be what the definitions give:
 *   win in d  = the fastest move to a lost child (a zeroing one counts 1),
 *   loss in d = every move to a won child, the slowest one, and
 *   d within the budget fresh counts leave (R18 2L; R19 25/26), else a draw.
 * For 3 kings v 1 king with the "loss" option the B table is re-derived the
 * same way (a zeroing draw counting for the three-king side) and the fresh
 * value is then fixed as the generator does.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egdb.h"

#define INF 100000

typedef struct {
    EgSet *set;
    const EgTable *t;
    int strong;
    atomic_ullong next;
    atomic_llong bad;
    volatile uint64_t *done;
    pthread_mutex_t lock;
    char *errbuf;
    size_t errlen;
    size_t used;
} VCtx;

static inline int loss_for_strong(int stm, int strong, uint8_t c) {
    return c && ((stm == strong) ? eg_is_loss(c) : eg_is_win(c));
}

static uint8_t expected(VCtx *v, uint64_t i, MoveList *list, uint8_t *exp_b) {
    const EgTable *t = v->t;
    const RuleOptions *rules = eg_set_rules(v->set);
    uint32_t black, white, kings;
    int stm;
    *exp_b = 0;
    if (eg_unindex(&t->ix, i, &black, &white, &kings, &stm)) return 0;
    Position pos;
    pc_set(&pos, black, white, kings, stm, 0, 0);
    int n = pc_gen_moves(&pos, rules, list);
    int strong = v->strong;
    int wd = INF, ld = 0, b_best = stm == strong ? INF : 0;
    if (n == 0) {
        if (t->btab) *exp_b = stm == strong ? PC_EGDB_NO_B : 1;
        return EG_LOSS(0);
    }
    for (int k = 0; k < n; k++) {
        const Move *m = &list->m[k];
        Position ch;
        pc_make_fast(&pos, m, &ch);
        uint32_t cb = pc_to_bits32(ch.bb[PC_BLACK]), cw = pc_to_bits32(ch.bb[PC_WHITE]);
        uint32_t ck = pc_to_bits32(ch.kings);
        int zero = m->cap || !(pos.kings & BIT(m->from));
        int cc = eg_set_code(v->set, cb, cw, ck, ch.stm);
        if (cc < 0) return 0xFE; /* missing successor: reported as a mismatch */
        uint8_t c = (uint8_t)cc;
        int child_b = INF; /* B of the child (B game) */
        if (zero) {
            if (eg_is_loss(c)) wd = 1;
            if (!eg_is_win(c)) ld = INF; /* a draw or a win: no loss this way */
            else if (ld < 1) ld = 1;
            /* B game: a zeroing ply is good for the strong side unless it loses. */
            child_b = loss_for_strong(ch.stm, strong, c) ? INF : 0;
        } else {
            uint64_t ci = eg_index_of(&t->ix, cb, cw, ck, ch.stm);
            uint8_t bb = t->btab ? t->btab[ci] : 0;
            int count_only = t->btab && bb == PC_EGDB_COUNT_ONLY;
            if (eg_is_loss(c) && !count_only && eg_dist(c) + 1 < wd) wd = eg_dist(c) + 1;
            if (eg_is_win(c) && !count_only) {
                if (ld < eg_dist(c) + 1) ld = eg_dist(c) + 1;
            } else {
                ld = INF;
            }
            if (t->btab && bb >= 1 && bb < PC_EGDB_COUNT_ONLY) child_b = bb - 1;
        }
        if (t->btab) {
            int cand = child_b >= INF ? INF : child_b + 1;
            if (stm == strong) {
                if (cand < b_best) b_best = cand;
            } else if (cand > b_best) {
                b_best = cand;
            }
        }
    }
    int r = eg_fresh_budget(t->ix.mat, stm, rules);
    if (!t->btab) {
        if (wd <= r) return EG_WIN(wd);
        if (ld <= r) return EG_LOSS(ld);
        return 0;
    }
    /* 3 kings v 1 king, option "loss" (as finish_three_v_one in egdb_gen.c). */
    int b = b_best <= 26 ? b_best : -1;
    *exp_b = (uint8_t)(b >= 0 ? b + 1 : PC_EGDB_NO_B);
    int a = stm == strong ? wd : ld;  /* the strong side wins */
    int dw = stm == strong ? ld : wd; /* the lone king wins by a zeroing ply */
    if (a <= r) return stm == strong ? EG_WIN(a) : EG_LOSS(a);
    if (25 + (stm != strong) > 2 * rules->king_move_limit) { /* R18 ends first */
        if (dw <= r) return stm == strong ? EG_LOSS(dw) : EG_WIN(dw);
        return 0;
    }
    if (b >= 0 && b <= r) return 0;
    if (dw <= r) return stm == strong ? EG_LOSS(dw) : EG_WIN(dw);
    *exp_b = PC_EGDB_COUNT_ONLY;
    return stm == strong ? EG_LOSS(r) : EG_WIN(r);
}

static void *vworker(void *arg) {
    VCtx *v = arg;
    /* On the stack (16 KB of a thread's megabytes): a worker that could not allocate
     * its list would claim no states, and a verification with no worker left would
     * report a table of unchecked states as consistent. */
    MoveList storage;
    MoveList *list = &storage;
    const uint64_t step = 4096;
    for (;;) {
        uint64_t lo = atomic_fetch_add(&v->next, step);
        if (lo >= v->t->ix.size) break;
        uint64_t hi = lo + step < v->t->ix.size ? lo + step : v->t->ix.size;
        for (uint64_t i = lo; i < hi; i++) {
            uint64_t men = i / v->t->ix.kp / 2;
            if (!eg_men_valid(&v->t->ix, men)) {
                i = (men + 1) * 2 * v->t->ix.kp - 1;
                continue;
            }
            uint8_t eb;
            uint8_t e = expected(v, i, list, &eb);
            uint8_t got = v->t->code[i], gotb = v->t->btab ? v->t->btab[i] : 0;
            if (e != got || eb != gotb) {
                atomic_fetch_add(&v->bad, 1);
                pthread_mutex_lock(&v->lock);
                if (v->used + 160 < v->errlen) {
                    uint32_t b, w, k;
                    int stm;
                    eg_unindex(&v->t->ix, i, &b, &w, &k, &stm);
                    v->used += (size_t)snprintf(v->errbuf + v->used, v->errlen - v->used,
                                                "state %llu (black %08x white %08x kings %08x %s): stored %u/%u, "
                                                "derived %u/%u\n",
                                                (unsigned long long)i, b, w, k, stm ? "W" : "B", got, gotb, e, eb);
                }
                pthread_mutex_unlock(&v->lock);
            }
        }
        if (v->done) __atomic_add_fetch(v->done, hi - lo, __ATOMIC_RELAXED);
    }
    return NULL;
}

int64_t eg_verify_table(EgSet *s, const EgTable *t, int threads, volatile uint64_t *done, char *errbuf,
                        size_t errlen) {
    VCtx v;
    memset(&v, 0, sizeof v);
    v.set = s;
    v.t = t;
    EgMaterial m = t->ix.mat;
    v.strong = (m.bm || m.wm) ? -1 : (m.bk == 3 && m.wk == 1) ? PC_BLACK : (m.bk == 1 && m.wk == 3) ? PC_WHITE : -1;
    v.done = done;
    v.errbuf = errbuf;
    v.errlen = errlen;
    if (errlen) errbuf[0] = 0;
    pthread_mutex_init(&v.lock, NULL);
    eg_run_threads(vworker, &v, threads);
    pthread_mutex_destroy(&v.lock);
    return atomic_load(&v.bad);
}
