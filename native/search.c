/* search.c -- iterative deepening, PVS alpha-beta with a transposition
 * table, capture quiescence (captures are compulsory, R11, so the search goes
 * on while the side to move must capture), killer and history move ordering,
 * mate scores as wins in N plies, and the draw rules scored inside the tree:
 * R16 (no move loses), R18 (king-only move limit), R19 (3 kings v 1 king
 * count) and repetition of a position (scored as a draw).
 */
#define _POSIX_C_SOURCE 200809L
#include "search.h"

#include <pthread.h>

#include "egdb_search.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Late move reductions: lmr[depth][move number] in plies, from ln(depth)·ln(n). */
static int8_t lmr_table[64][64];
static bool lmr_ready = false;

/* ln(x) for x >= 1 by the series of 2·atanh((x-1)/(x+1)) (no libm needed). */
static double ln(double x) {
    double y = (x - 1.0) / (x + 1.0), y2 = y * y, term = y, sum = 0.0;
    for (int k = 1; k < 400; k += 2) {
        sum += term / k;
        term *= y2;
    }
    return 2.0 * sum;
}

static void lmr_init(void) {
    if (lmr_ready) return;
    for (int d = 0; d < 64; d++)
        for (int n = 0; n < 64; n++) {
            double r = (d < 1 || n < 1) ? 0.0 : 0.5 + ln((double)d) * ln((double)n) / 1.75;
            lmr_table[d][n] = (int8_t)(r < 0 ? 0 : r);
        }
    lmr_ready = true;
}

/* Tunable search margins (centi-men). */
#define RFP_DEPTH 3
#define RFP_MARGIN 70
#define ASPIRATION 30
#define HISTORY_MAX 16384
/* Ordering keys of the two killers; a key at or above KILLER2_KEY is the hash move or a killer. */
#define KILLER1_KEY (1 << 23)
#define KILLER2_KEY ((1 << 23) - 1)
#define IIR_DEPTH 4
#define FUTILITY_DEPTH 2
#define FUTILITY_MARGIN 90
#define LMP_DEPTH 3
#define LMP_BASE 4
/* Singular extension: at a node of at least SE_DEPTH whose table move has a
 * lower bound of nearly the same depth, the other moves are searched at half
 * depth against that bound less SE_MARGIN per ply; when none comes near it,
 * the table move is the only good one and is searched a ply deeper. */
#define SE_DEPTH 6
#define SE_MARGIN 3
/* Lazy SMP: nodes of at least this depth defer moves another thread is searching. */
#define DEFER_DEPTH 3
#define MAX_DEFERRED 64 /* moves a node defers at most (the rest are searched in turn) */
/* Under a clock, no new depth past this share of the hard limit: the next depth
 * would not finish. */
#define TIME_CAP 0.5

double pc_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

Searcher *pc_searcher_new(size_t hash_mb) {
    pc_init();
    pc_eval_init();
    lmr_init();
    Searcher *s = calloc(1, sizeof(Searcher));
    if (!s) return NULL;
    if (pc_tt_init(&s->tt, hash_mb) != 0) {
        free(s);
        return NULL;
    }
    s->owns_tt = true;
    s->threads = 1;
    s->weights = pc_default_weights();
    s->rules = pc_default_rules();
    atomic_init(&s->stop, 0);
    return s;
}

void pc_searcher_free(Searcher *s) {
    if (!s) return;
    for (int i = 0; i < s->threads - 1; i++) pc_searcher_free(s->helpers[i]);
    if (s->owns_tt) pc_tt_free(&s->tt);
    free(s);
}

void pc_searcher_clear(Searcher *s) {
    if (s->owns_tt) pc_tt_clear(&s->tt);
    memset(s->killers, 0, sizeof s->killers);
    memset(s->history, 0, sizeof s->history);
    for (int i = 0; i < s->threads - 1; i++) pc_searcher_clear(s->helpers[i]);
}

int pc_searcher_set_threads(Searcher *s, int threads) {
    if (threads < 1) threads = 1;
    if (threads > PC_MAX_THREADS) threads = PC_MAX_THREADS;
    for (int i = s->threads - 1; i < threads - 1; i++) {
        Searcher *h = calloc(1, sizeof(Searcher));
        if (!h) {
            s->threads = i + 1;
            return -1;
        }
        h->tt = s->tt; /* the same table: lazy SMP */
        h->owns_tt = false;
        h->threads = 1;
        h->helper_id = i + 1;
        atomic_init(&h->stop, 0);
        s->helpers[i] = h;
    }
    for (int i = threads - 1; i < s->threads - 1; i++) {
        pc_searcher_free(s->helpers[i]);
        s->helpers[i] = NULL;
    }
    s->threads = threads;
    return 0;
}

static inline int score_to_tt(int score, int ply) {
    if (score > PC_MATE_BOUND) return score + ply;
    if (score < -PC_MATE_BOUND) return score - ply;
    return score;
}

static inline int score_from_tt(int score, int ply) {
    if (score > PC_MATE_BOUND) return score - ply;
    if (score < -PC_MATE_BOUND) return score + ply;
    return score;
}

/* Lazy SMP: another thread has completed the depth this one is searching
 * (checked every 1024 nodes); the search of that depth is given up. */
static inline bool overtaken(Searcher *s) {
    if ((s->nodes & 1023) != 0) return false;
    if (atomic_load_explicit(&s->smp->done_depth, memory_order_relaxed) < s->iter_depth) return false;
    s->overtaken = 1;
    return true;
}

static inline bool should_stop(Searcher *s) {
    if (s->helper_id)
        return atomic_load_explicit(&s->smp->abort_all, memory_order_relaxed) != 0 || overtaken(s);
    if (s->completed == 0) return false; /* depth 1 always completes: there is a move to return */
    if (atomic_load_explicit(&s->stop, memory_order_relaxed)) return true;
    if (s->max_nodes && s->nodes >= s->max_nodes) return true;
    if (s->time_limit > 0 && (s->nodes & 1023) == 0 && pc_now() - s->t0 >= s->time_limit) return true;
    if (s->poll && (s->nodes & ((1 << 20) - 1)) == 0 && s->poll(s->poll_data)) return true;
    if (s->smp && overtaken(s)) return true;
    return false;
}

/* A position seen before with the same side to move since the last irreversible move. */
static bool is_repetition(const Searcher *s, const Position *pos, int ply) {
    int cur = s->root_index + ply;
    for (int i = cur - 2; i >= 0 && cur - i <= pos->halfmove; i -= 2)
        if (s->keys[i] == pos->key) return true;
    return false;
}

/* The hash table key: the position, plus the end-rule counters where they
 * decide the result -- the R19 count, and the R18 clock within 24 plies of
 * its limit -- so that a score is never reused under another count. */
static inline uint64_t tt_key(const Searcher *s, const Position *pos) {
    uint64_t k = pos->key;
    if (pos->tk_count) k ^= pc_zobrist_counter[pos->tk_count & 31];
    int left = 2 * s->rules.king_move_limit - pos->halfmove;
    if (left <= 24) k ^= pc_zobrist_counter[32 + (left < 0 ? 0 : left)];
    return k;
}

static inline uint16_t quiet_id(const Move *m) { return (uint16_t)(m->from | (m->to << 8)); }

/* History with gravity: a bonus (or malus) moves the value towards ±HISTORY_MAX. */
static inline void history_update(int32_t *h, int bonus) {
    int b = bonus > HISTORY_MAX ? HISTORY_MAX : (bonus < -HISTORY_MAX ? -HISTORY_MAX : bonus);
    *h += b - *h * (b < 0 ? -b : b) / HISTORY_MAX;
}

/* The end rules inside the tree, after R16 (no legal move, checked by the
 * caller), in the order of R21: R19, then R18, then a repetition, then the
 * endgame tables (exact values under the running counts, egdb_search.h).
 * True with *score set when one of them decides the position. */
static inline bool end_rules(const Searcher *s, const Position *pos, int ply, int *score) {
    int strong = pc_three_v_one(pos);
    if (strong >= 0 && strong != pos->stm && pos->tk_count >= 13) { /* R19 */
        *score = s->rules.three_kings_loss ? PC_MATE - ply : 0;
        return true;
    }
    *score = 0;
    if (pos->halfmove >= 2 * s->rules.king_move_limit) return true; /* R18 */
    if (is_repetition(s, pos, ply)) return true;
    return pc_egdb_search_probe(pos, &s->rules, ply, score) != 0;
}

/* Selection sort, one step at a time (most nodes try few moves): the first
 * of the highest keys among j..n-1 is swapped into place j.  The scan has no
 * branch to mispredict; the order is the one of the plain `if (keys[t] >
 * keys[best]) best = t` scan. */
static inline void select_move(int *keys, int *order, int j, int n) {
    int bj = j, bk = keys[j];
    for (int t = j + 1; t < n; t++) {
        int kt = keys[t];
        bool higher = kt > bk;
        bj = higher ? t : bj;
        bk = higher ? kt : bk;
    }
    keys[bj] = keys[j];
    keys[j] = bk;
    int o = order[j];
    order[j] = order[bj];
    order[bj] = o;
}

/* Select move j, and start loading the table bucket of the position after it. */
static inline void select_ahead(const Searcher *s, const Position *pos, const MoveList *list, int *keys,
                                int *order, int j, int n) {
    select_move(keys, order, j, n);
    Position after;
    pc_make_key(pos, &list->m[order[j]], &after);
    pc_tt_prefetch(&s->tt, tt_key(s, &after));
}

/* The static evaluation: the pattern evaluation, or the network's (nnue.h) when the
 * searcher has one, its accumulator brought to this position from a nearby ply's. */
static inline int evaluate(Searcher *s, const Position *pos, int ply) {
    if (s->net) return pc_evaluate_nnue(pos, &s->weights, s->net, s->nnue, ply);
    return pc_evaluate(pos, &s->weights, &s->rules);
}

static int pvs(Searcher *s, const Position *pos, int depth, int alpha, int beta, int ply) {
    s->pv_len[ply] = 0;
    if (s->aborted) return 0;
    if (should_stop(s)) {
        s->aborted = 1;
        return 0;
    }
    s->nodes++;
    s->keys[s->root_index + ply] = pos->key;
    int ended;

    /* Quiet leaf (depth <= 0, no capture, R11): its score is the static
     * evaluation, so its moves are not generated; bitboard tests tell whether
     * it has a capture and whether it has a move at all (R16), and the end
     * rules are checked in the same order as below.  Same tree, less work. */
    if (depth <= 0 && !pc_has_capture(pos)) {
        if (!pc_has_quiet_move(pos)) return -PC_MATE + ply; /* R16: no legal move loses */
        if (ply > 0 && end_rules(s, pos, ply, &ended)) return ended;
        return evaluate(s, pos, ply); /* quiet: stand pat */
    }

    MoveList *list = &s->lists[ply];
    pc_gen_moves(pos, &s->rules, list);
    if (list->overflow) {
        s->error = 1;
        s->aborted = 1;
        return 0;
    }
    if (list->n == 0) return -PC_MATE + ply; /* R16: no legal move loses */
    if (ply > 0 && end_rules(s, pos, ply, &ended)) return ended;
    if (ply >= PC_MAX_PLY - 1) return evaluate(s, pos, ply);

    bool capture = list->m[0].cap != 0;
    if (depth <= 0 && !capture) return evaluate(s, pos, ply); /* quiet: stand pat */
    if (depth < 0) depth = 0;

    bool pv_node = beta - alpha > 1;
    int tt_move = -1;
    int skip = s->skipped[ply] - 1; /* the move a singular test leaves out (-1: none) */
    s->skipped[ply] = 0;
    uint64_t hkey = tt_key(s, pos);
    const TTEntry *e = skip >= 0 ? NULL : pc_tt_probe(&s->tt, hkey);
    if (e) {
        tt_move = e->move;
        if (!pv_node && ply > 0 && e->depth >= depth) {
            int v = score_from_tt(e->score, ply);
            if (e->bound == TT_EXACT || (e->bound == TT_LOWER && v >= beta) ||
                (e->bound == TT_UPPER && v <= alpha))
                return v;
        }
    }

    bool have_eval = false; /* the static evaluation, computed once for both prunings */
    int static_eval = 0;
    /* Reverse futility pruning (there is no null move in a game where passing is
     * not allowed, R16): at a shallow quiet node far above beta, the static
     * evaluation stands. */
    if (!pv_node && ply > 0 && skip < 0 && !capture && depth <= RFP_DEPTH && beta < PC_MATE_BOUND &&
        beta > -PC_MATE_BOUND) {
        static_eval = evaluate(s, pos, ply);
        have_eval = true;
        if (static_eval - RFP_MARGIN * depth >= beta) return static_eval;
    }

    /* Internal iterative reduction: a node the table knows nothing of is
     * searched a ply shallower (its move ordering is a guess). */
    if (tt_move < 0 && !capture && depth >= IIR_DEPTH) depth--;
    /* Futility: at a shallow quiet node far below alpha, late quiet moves are
     * not searched (a quiet move rarely gains this much). */
    bool futile = false;
    if (!pv_node && ply > 0 && !capture && depth <= FUTILITY_DEPTH && alpha > -PC_MATE_BOUND &&
        alpha < PC_MATE_BOUND) {
        if (!have_eval) static_eval = evaluate(s, pos, ply);
        futile = static_eval + FUTILITY_MARGIN * depth <= alpha;
    }

    /* Singular extension (see SE_DEPTH). */
    int extend_move = -1;
    if (ply > 0 && skip < 0 && e && tt_move >= 0 && tt_move < list->n && list->n > 1 && depth >= SE_DEPTH &&
        e->depth >= depth - 3 && (e->bound == TT_LOWER || e->bound == TT_EXACT) && ply < 2 * s->iter_depth) {
        int tt_score = score_from_tt(e->score, ply);
        if (tt_score > -PC_EGDB_WIN / 2 && tt_score < PC_EGDB_WIN / 2) {
            int sbeta = tt_score - SE_MARGIN * depth;
            s->skipped[ply] = (int16_t)(tt_move + 1);
            int v = pvs(s, pos, (depth - 1) / 2, sbeta - 1, sbeta, ply);
            s->skipped[ply] = 0;
            if (s->aborted) return 0;
            if (v < sbeta) extend_move = tt_move;
        }
        s->pv_len[ply] = 0;
    }

    /* Move ordering: TT move, captures by size, killers, history. */
    int n = list->n;
    int *order = s->order[ply];
    int *keys = s->sortkeys[ply];
    for (int i = 0; i < n; i++) {
        const Move *m = &list->m[i];
        int k;
        if (i == tt_move) k = 1 << 30;
        else if (m->cap) k = (1 << 24) + pc_popcount(m->cap) * 1000 + pc_popcount(m->cap & pos->kings) * 300;
        else if (quiet_id(m) == s->killers[ply][0]) k = KILLER1_KEY;
        else if (quiet_id(m) == s->killers[ply][1]) k = KILLER2_KEY;
        else k = s->history[m->from][m->to];
        if (m->crown) k += 1 << 20;
        order[i] = i;
        keys[i] = k;
    }

    int best = -PC_INF, best_i = -1, orig_alpha = alpha;
    Position next;
    /* Lazy SMP with ABDADA's deferral: a move (not the first) whose position
     * another thread is searching is put off until the node's other moves are
     * searched; by then its result is likely in the table.  The positions
     * being searched are marked in the shared `busy` table. */
    bool defer = s->smp != NULL && depth >= DEFER_DEPTH;
    int deferred[MAX_DEFERRED], ndeferred = 0;
    /* The moves are selected one step ahead: while move j is searched, the
     * table bucket of the position after move j + 1 is on its way (a node
     * waits on that memory more than on anything else); the first move's
     * bucket is asked for here, so no move's bucket is asked for twice. */
    if (n > 0) select_ahead(s, pos, list, keys, order, 0, n);
    for (int step = 0; step < n + ndeferred; step++) {
        int j = step < n ? step : deferred[step - n]; /* the move's place in the order */
        if (step + 1 < n) select_ahead(s, pos, list, keys, order, step + 1, n);
        int i = order[j];
        if (ply == 0 && s->excluding && s->root_excluded[i]) continue; /* multi-PV */
        if (i == skip) continue;
        const Move *m = &list->m[i];
        bool quiet = !capture && !m->crown;
        if (step < n && quiet && best > -PC_MATE_BOUND && !pv_node && keys[j] < KILLER2_KEY) {
            if (futile) continue;
            if (depth <= LMP_DEPTH && j >= LMP_BASE + depth * depth) continue; /* late move pruning */
        }
        pc_make(pos, m, &next);
        _Atomic uint64_t *slot = NULL;
        if (defer) {
            slot = &s->smp->busy[next.key & (PC_BUSY_SLOTS - 1)];
            if (step < n && best != -PC_INF && ndeferred < MAX_DEFERRED &&
                atomic_load_explicit(slot, memory_order_relaxed) == next.key) {
                deferred[ndeferred++] = j;
                s->deferred++;
                continue;
            }
            atomic_store_explicit(slot, next.key, memory_order_relaxed);
        }
        /* A forced capture costs no depth. */
        int new_depth = (capture && n == 1) || i == extend_move ? depth : depth - 1;
        int score;
        if (best == -PC_INF) {
            score = -pvs(s, &next, new_depth, -beta, -alpha, ply + 1);
        } else {
            int reduction = 0;
            if (quiet && depth >= 3 && j >= 1) {
                reduction = lmr_table[depth < 64 ? depth : 63][j < 64 ? j : 63];
                if (pv_node) reduction--;
                if (keys[j] >= KILLER2_KEY) reduction--; /* a killer */
                else if (keys[j] > HISTORY_MAX / 2) reduction--;
                else if (keys[j] < -HISTORY_MAX / 2) reduction++;
                if (reduction < 0) reduction = 0;
                if (reduction > new_depth - 1) reduction = new_depth - 1 > 0 ? new_depth - 1 : 0;
            }
            score = -pvs(s, &next, new_depth - reduction, -alpha - 1, -alpha, ply + 1);
            if (!s->aborted && score > alpha && reduction)
                score = -pvs(s, &next, new_depth, -alpha - 1, -alpha, ply + 1);
            if (!s->aborted && score > alpha && score < beta)
                score = -pvs(s, &next, new_depth, -beta, -alpha, ply + 1);
        }
        if (slot) { /* unmarked unless another thread has marked the slot since */
            uint64_t mine = next.key;
            atomic_compare_exchange_strong_explicit(slot, &mine, 0, memory_order_relaxed, memory_order_relaxed);
        }
        if (s->aborted) return 0;
        if (score > best) {
            best = score;
            best_i = i;
            if (score > alpha) {
                alpha = score;
                if (ply == 0) s->root_score = score;
                s->pv[ply][0] = *m;
                memcpy(&s->pv[ply][1], s->pv[ply + 1], sizeof(Move) * (size_t)s->pv_len[ply + 1]);
                s->pv_len[ply] = s->pv_len[ply + 1] + 1;
                if (alpha >= beta) {
                    if (!m->cap) {
                        uint16_t id = quiet_id(m);
                        if (s->killers[ply][0] != id) {
                            s->killers[ply][1] = s->killers[ply][0];
                            s->killers[ply][0] = id;
                        }
                        int bonus = depth * depth * 8;
                        history_update(&s->history[m->from][m->to], bonus);
                        /* the quiet moves tried before it failed: a malus */
                        for (int q = 0; q < j; q++) {
                            const Move *o = &list->m[order[q]];
                            history_update(&s->history[o->from][o->to], -bonus);
                        }
                    }
                    break;
                }
            }
        }
    }
    if (ply == 0 && s->excluding) return best; /* not the position's own best: not stored */
    if (skip >= 0) return best == -PC_INF ? alpha : best; /* a move was left out: not the position's value */
    int bound = best >= beta ? TT_LOWER : (best > orig_alpha ? TT_EXACT : TT_UPPER);
    pc_tt_store(&s->tt, hkey, score_to_tt(best, ply), best_i, depth, bound);
    return best;
}

static int setup_history(Searcher *s, const Position *root, const uint64_t *history, int nhistory) {
    if (nhistory > PC_MAX_HISTORY) {
        history += nhistory - PC_MAX_HISTORY;
        nhistory = PC_MAX_HISTORY;
    }
    if (nhistory < 0) nhistory = 0;
    for (int i = 0; i < nhistory; i++) s->keys[i] = history[i];
    s->root_index = nhistory;
    s->keys[nhistory] = root->key;
    return 0;
}

static void reset_counters(Searcher *s) {
    s->aborted = 0;
    s->error = 0;
    s->nodes = 0;
    s->deferred = 0;
    s->completed = 0;
    s->t0 = pc_now();
}

/* One depth at the root: an aspiration window around `prev` for the first line. */
static int root_search(Searcher *s, int d, int prev, bool aspire) {
    int window = ASPIRATION, score;
    int alpha = -PC_INF, beta = PC_INF;
    if (aspire && d >= 5 && prev > -PC_MATE_BOUND && prev < PC_MATE_BOUND) {
        alpha = prev - window;
        beta = prev + window;
    }
    for (;;) {
        score = pvs(s, &s->root, d, alpha, beta, 0);
        if (s->aborted || s->error) return score;
        if (score <= alpha && alpha > -PC_INF) {
            window *= 3;
            alpha = window > 800 ? -PC_INF : score - window;
        } else if (score >= beta && beta < PC_INF) {
            window *= 3;
            beta = window > 800 ? PC_INF : score + window;
        } else {
            return score;
        }
    }
}

/* Lazy SMP: publish a completed depth (its line becomes the search's answer
 * when no thread completes a deeper one). */
static void smp_publish(SmpShared *sh, int depth, int score, const Move *pv, int pv_len) {
    pthread_mutex_lock(&sh->lock);
    if (depth > atomic_load_explicit(&sh->done_depth, memory_order_relaxed)) {
        sh->done_score = score;
        sh->done.score = score;
        sh->done.pv_len = pv_len;
        memcpy(sh->done.pv, pv, sizeof(Move) * (size_t)pv_len);
        atomic_store_explicit(&sh->done_depth, depth, memory_order_release);
    }
    pthread_mutex_unlock(&sh->lock);
}

/* A helper thread of lazy SMP: iterative deepening on the shared table until
 * the main thread raises abort_all.  A helper searches a depth beyond the one
 * the main thread is on, so that its entries are there when the main thread
 * gets to it, and gives up a depth that another thread completes first (its
 * work is in the table) for the next one; the deepest completed depth is the
 * answer. */
static void *helper_main(void *arg) {
    Searcher *h = arg;
    SmpShared *sh = h->smp;
    int prev = 0;
    int d = 1 + (h->helper_id & 1);
    while (d <= h->max_depth) {
        h->iter_depth = d;
        int score = root_search(h, d, prev, true);
        if (h->error) break;
        if (h->aborted) {
            if (!h->overtaken || atomic_load_explicit(&sh->abort_all, memory_order_relaxed)) break;
            h->aborted = 0;
            h->overtaken = 0;
        } else {
            smp_publish(sh, d, score, h->pv[0], h->pv_len[0]);
            prev = score;
        }
        int next = d + 1;
        int done = atomic_load_explicit(&sh->done_depth, memory_order_acquire) + 1;
        int ahead = atomic_load_explicit(&sh->main_depth, memory_order_relaxed) + 1;
        if (done > next) next = done;
        if (ahead > next) next = ahead;
        d = next;
    }
    return NULL;
}

static int root_index_of(const MoveList *list, const Move *m) {
    for (int i = 0; i < list->n; i++)
        if (list->m[i].from == m->from && list->m[i].to == m->to && list->m[i].cap == m->cap) return i;
    return -1;
}

int pc_search(Searcher *s, const Position *root, const uint64_t *history, int nhistory,
              const SearchLimits *limits, SearchCallback cb, void *userdata, SearchInfo *out) {
    setup_history(s, root, history, nhistory);
    reset_counters(s);
    s->max_nodes = limits->nodes > 0 ? limits->nodes : 0;
    s->time_limit = limits->time > 0 ? limits->time : 0;
    /* A clock (soft_time given): no new depth after the soft share nor after
     * TIME_CAP of the hard stop.  A fixed time per move: time left over is
     * lost, so the search goes on to the hard stop. */
    bool clocked = limits->soft_time > 0;
    double soft = clocked ? limits->soft_time : s->time_limit;
    if (s->time_limit > 0 && soft > s->time_limit) soft = s->time_limit;
    pc_tt_new_search(&s->tt);
    memset(s->killers, 0, sizeof s->killers);
    s->root = *root;
    s->excluding = false;
    s->smp = NULL;
    s->overtaken = 0;

    MoveList *rootlist = &s->lists[0];
    pc_gen_moves(root, &s->rules, rootlist);
    if (rootlist->overflow) return -2;
    if (rootlist->n == 0) return -1;
    int root_moves = rootlist->n;
    MoveList roots = *rootlist; /* lists[0] is reused by every root search */
    int lines = limits->multipv > 1 ? limits->multipv : 1;
    if (lines > PC_MAX_MULTIPV) lines = PC_MAX_MULTIPV;
    if (lines > root_moves) lines = root_moves;

    int max_depth = limits->depth > 0 ? limits->depth : PC_MAX_PLY - 8;
    if (max_depth > PC_MAX_PLY - 8) max_depth = PC_MAX_PLY - 8;
    s->max_depth = max_depth;
    memset(out, 0, sizeof *out);
    out->pv_len = 1;
    out->pv[0] = roots.m[0];
    out->lines = 1;
    out->line[0].pv_len = 1;
    out->line[0].pv[0] = roots.m[0];

    /* Lazy SMP: the helpers search the same root on the same table. */
    SmpShared sh;
    atomic_init(&sh.abort_all, 0);
    atomic_init(&sh.done_depth, 0);
    atomic_init(&sh.main_depth, 1);
    pthread_mutex_init(&sh.lock, NULL);
    sh.done_score = 0;
    sh.done.pv_len = 0;
    if (s->threads > 1)
        for (int i = 0; i < PC_BUSY_SLOTS; i++) atomic_init(&sh.busy[i], 0);
    pthread_t tids[PC_MAX_THREADS];
    int started = 0;
    for (int i = 0; i < s->threads - 1 && root_moves > 1; i++) {
        Searcher *h = s->helpers[i];
        h->tt = s->tt;
        h->weights = s->weights;
        h->net = s->net;
        h->rules = s->rules;
        h->root = *root;
        h->max_depth = max_depth;
        h->excluding = false;
        h->smp = &sh;
        h->overtaken = 0;
        h->poll = NULL;
        memcpy(h->keys, s->keys, sizeof(uint64_t) * (size_t)(s->root_index + 1));
        h->root_index = s->root_index;
        reset_counters(h);
        h->max_nodes = 0;
        h->time_limit = 0;
        memset(h->killers, 0, sizeof h->killers);
        if (pthread_create(&tids[i], NULL, helper_main, h) != 0) break;
        started++;
    }

    /* One line: the answer is the deepest depth completed by any thread, and
     * a depth a helper completes first is taken from it, not searched again. */
    bool use_smp = started > 0 && lines == 1;
    if (use_smp) s->smp = &sh;
    int prev = 0, partial_depth = 0;
    SearchLine found[PC_MAX_MULTIPV];
    for (int d = 1; d <= max_depth; d++) {
        int score = 0, got = 0;
        bool adopted = false;
        if (use_smp && atomic_load_explicit(&sh.done_depth, memory_order_acquire) >= d) {
            pthread_mutex_lock(&sh.lock);
            d = atomic_load_explicit(&sh.done_depth, memory_order_relaxed);
            found[0] = sh.done;
            pthread_mutex_unlock(&sh.lock);
            got = 1;
            adopted = true;
            goto completed;
        }
        s->iter_depth = d;
        if (use_smp) atomic_store_explicit(&sh.main_depth, d, memory_order_relaxed);
        memset(s->root_excluded, 0, sizeof(bool) * (size_t)root_moves);
        for (int k = 0; k < lines; k++) {
            s->excluding = k > 0;
            int v = root_search(s, d, k == 0 ? prev : 0, k == 0);
            if (s->aborted || s->error) break;
            if (s->pv_len[0] == 0) break; /* every move excluded (cannot happen: lines <= moves) */
            found[k].score = v;
            found[k].pv_len = s->pv_len[0];
            memcpy(found[k].pv, s->pv[0], sizeof(Move) * (size_t)s->pv_len[0]);
            int ri = root_index_of(&roots, &s->pv[0][0]);
            if (ri >= 0) s->root_excluded[ri] = true;
            if (k == 0) score = v;
            got++;
        }
        s->excluding = false;
        if (s->error) break;
        if (s->aborted && s->overtaken) { /* a helper completed this depth: take its line */
            s->aborted = 0;
            s->overtaken = 0;
            d--;
            continue;
        }
        if (s->aborted && got == 0 && d > 1 && lines == 1 && s->pv_len[0] > 0) {
            partial_depth = d;
            /* An unfinished depth: a root move whose search ended above the
             * window's lower bound beat every move searched before it, the
             * last depth's best first, so it is played (its score is a bound). */
            out->score = s->root_score;
            out->pv_len = s->pv_len[0];
            memcpy(out->pv, s->pv[0], sizeof(Move) * (size_t)s->pv_len[0]);
            out->line[0].score = s->root_score;
            out->line[0].pv_len = s->pv_len[0];
            memcpy(out->line[0].pv, s->pv[0], sizeof(Move) * (size_t)s->pv_len[0]);
            break;
        }
        if (s->aborted && (got == 0 || d > 1)) break; /* keep the last complete depth */
        /* lines in score order (a later line may have searched higher: it is then the best) */
        for (int a = 1; a < got; a++)
            for (int b = a; b > 0 && found[b].score > found[b - 1].score; b--) {
                SearchLine t = found[b];
                found[b] = found[b - 1];
                found[b - 1] = t;
            }
        if (got > 0) score = found[0].score;
        if (use_smp && !s->aborted) smp_publish(&sh, d, score, found[0].pv, found[0].pv_len);
    completed:
        if (adopted) score = found[0].score;
        prev = score;
        s->completed = d;
        out->depth = d;
        out->score = score;
        out->nodes = s->nodes;
        for (int i = 0; i < started; i++) out->nodes += __atomic_load_n(&s->helpers[i]->nodes, __ATOMIC_RELAXED);
        out->time = pc_now() - s->t0;
        out->pv_len = found[0].pv_len;
        memcpy(out->pv, found[0].pv, sizeof(Move) * (size_t)found[0].pv_len);
        out->lines = got;
        memcpy(out->line, found, sizeof(SearchLine) * (size_t)got);
        if (s->aborted) break;
        if (cb && cb(out, userdata)) break;
        if (atomic_load_explicit(&s->stop, memory_order_relaxed)) break;
        if (s->max_nodes && s->nodes >= s->max_nodes) break;
        bool timed = s->time_limit > 0;
        double spent = pc_now() - s->t0;
        if (timed && spent >= soft) break; /* no new depth after the soft limit */
        if (timed && clocked && spent >= TIME_CAP * s->time_limit) break; /* the next depth would not finish */
        if (timed && root_moves == 1) break;              /* a forced move */
        int a = score < 0 ? -score : score;
        if (a > PC_MATE_BOUND && d >= (PC_MATE - a) + 4) break; /* a proven result */
    }
    atomic_store(&sh.abort_all, 1);
    for (int i = 0; i < started; i++) pthread_join(tids[i], NULL);
    for (int i = 0; i < started; i++) {
        s->nodes += s->helpers[i]->nodes;
        s->deferred += s->helpers[i]->deferred;
    }
    s->marks_left = 0; /* every mark is taken back, also by a search that was stopped */
    for (int i = 0; started > 0 && i < PC_BUSY_SLOTS; i++)
        s->marks_left += atomic_load_explicit(&sh.busy[i], memory_order_relaxed) != 0;
    s->smp = NULL;
    /* a helper's deeper complete depth beats the main thread's last one (and
     * an unfinished depth no deeper than it) */
    int done = atomic_load(&sh.done_depth);
    if (use_smp && !s->error && done > out->depth && done >= partial_depth) {
        out->depth = done;
        out->score = sh.done.score;
        out->pv_len = sh.done.pv_len;
        memcpy(out->pv, sh.done.pv, sizeof(Move) * (size_t)sh.done.pv_len);
        out->lines = 1;
        out->line[0] = sh.done;
    }
    pthread_mutex_destroy(&sh.lock);
    if (s->error) return -2;
    out->nodes = s->nodes;
    out->time = pc_now() - s->t0;
    return 0;
}

int pc_root_scores(Searcher *s, const Position *root, const uint64_t *history, int nhistory,
                   int depth, double time_limit, MoveList *moves, int *scores) {
    setup_history(s, root, history, nhistory);
    reset_counters(s);
    s->max_nodes = 0;
    s->time_limit = time_limit > 0 ? time_limit : 0;
    pc_tt_new_search(&s->tt);
    pc_gen_moves(root, &s->rules, moves);
    if (moves->overflow) return -2;
    if (moves->n == 0) return -1;
    if (depth < 1) depth = 1;
    if (depth > PC_MAX_PLY - 8) depth = PC_MAX_PLY - 8;
    int *current = malloc(sizeof(int) * (size_t)moves->n);
    if (!current) return -2;
    Position next;
    for (int d = 1; d <= depth; d++) {
        for (int i = 0; i < moves->n && !s->aborted; i++) {
            pc_make(root, &moves->m[i], &next);
            current[i] = -pvs(s, &next, d - 1, -PC_INF, PC_INF, 1);
        }
        if (s->error) {
            free(current);
            return -2;
        }
        if (s->aborted) break; /* keep the scores of the last full depth */
        memcpy(scores, current, sizeof(int) * (size_t)moves->n);
        s->completed = d; /* depth 1 always completes; then stop() and time apply */
        if (s->time_limit > 0 && pc_now() - s->t0 >= 0.5 * s->time_limit) break;
    }
    free(current);
    return moves->n;
}

/* Bench positions: the start, positions reached by fixed pseudo-random play
 * from it, and king endings (including the rule examples). */
static const char *bench_fens[] = {
    "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "W:WK7,10,21,K31,K32:B4,9,K19,22",
    "B:WK1,7,8,K19,22,23,24:B5,K15",
    "W:WK3,K10,11,30:BK6,7,K29,K31",
    "B:W8,K10,K19,K22,27:BK3",
    "W:WK1,K5,K9:BK32",
    "B:W18,19,26,27,30:B6,10,13,K25",
};
#define N_FENS ((int)(sizeof bench_fens / sizeof bench_fens[0]))
#define N_PLAYED 9

int pc_bench_count(void) { return N_FENS + N_PLAYED; }

int pc_bench_position(int i, Position *pos) {
    if (i < 0 || i >= pc_bench_count()) return -1;
    if (i < N_FENS) return pc_parse_fen(pos, bench_fens[i]);
    /* Played positions: 6, 10, ... plies of a fixed linear congruential sequence. */
    int k = i - N_FENS;
    pc_parse_fen(pos, bench_fens[0]);
    RuleOptions rules = pc_default_rules();
    uint32_t seed = 12345u + 7919u * (uint32_t)k;
    int plies = 6 + 4 * k;
    MoveList *list = malloc(sizeof(MoveList));
    if (!list) return -1;
    Position next;
    for (int p = 0; p < plies; p++) {
        pc_gen_moves(pos, &rules, list);
        if (list->n == 0) break;
        seed = seed * 1103515245u + 12345u;
        pc_make(pos, &list->m[(seed >> 16) % (uint32_t)list->n], &next);
        if (next.bb[0] == 0 || next.bb[1] == 0) break;
        *pos = next;
    }
    free(list);
    pos->halfmove = 0;
    pos->tk_count = 0;
    return 0;
}

int pc_bench(int depth, int64_t *nodes, double *seconds) { return pc_bench_with(depth, NULL, nodes, seconds); }

int pc_bench_with(int depth, const NnueNet *net, int64_t *nodes, double *seconds) {
    Searcher *s = pc_searcher_new(16);
    if (!s) return -1;
    s->net = net;
    int64_t total = 0;
    double t0 = pc_now();
    for (int i = 0; i < pc_bench_count(); i++) {
        Position pos;
        if (pc_bench_position(i, &pos) != 0) continue;
        pc_searcher_clear(s);
        SearchLimits lim = {depth, 0, 0, 1, 0};
        SearchInfo info;
        int r = pc_search(s, &pos, NULL, 0, &lim, NULL, NULL, &info);
        if (r == -2) {
            pc_searcher_free(s);
            return -2;
        }
        total += s->nodes;
    }
    *seconds = pc_now() - t0;
    *nodes = total;
    pc_searcher_free(s);
    return 0;
}
