/* test_native.c -- C test driver of the native core, built under ASan/UBSan by
 * scripts/native-sanitize.sh.  Exits non-zero when a test fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "movegen.h"
#include "nnue.h"
#include "patterns.h"
#include "perft.h"
#include "search.h"

static int passed = 0, failed = 0;

#define CHECK(cond, ...)                                 \
    do {                                                 \
        if (cond) {                                      \
            passed++;                                    \
        } else {                                         \
            failed++;                                    \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);  \
            printf(__VA_ARGS__);                         \
            printf("\n");                                \
        }                                                \
    } while (0)

static const char *START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";

static void test_perft_start(int max_depth) {
    static const int64_t expected[] = {1, 7, 49, 302, 1469, 7482, 37986, 190146, 929896, 4570534};
    Position p;
    CHECK(pc_parse_fen(&p, START) == 0, "start FEN parses (R3, R5)");
    RuleOptions r = pc_default_rules();
    for (int d = 0; d <= max_depth; d++) {
        int64_t n = pc_perft(&p, &r, d);
        CHECK(n == expected[d], "perft(%d) from the start = %lld, expected %lld", d, (long long)n,
              (long long)expected[d]);
    }
}

/* Compare generated (from, to) pairs with the expected list "a-b"/"axb...": the
 * first and last squares of each notation (R4). */
static void check_moves(const char *fen, bool crown_stop, const char *const *expected, int n_expected,
                        const char *rule) {
    Position p;
    CHECK(pc_parse_fen(&p, fen) == 0, "FEN %s parses", fen);
    RuleOptions r = pc_default_rules();
    r.crown_stop = crown_stop;
    MoveList *list = malloc(sizeof(MoveList));
    pc_gen_moves(&p, &r, list);
    CHECK(list->n == n_expected, "%s: %s has %d moves, expected %d", rule, fen, list->n, n_expected);
    int used[PC_MAX_MOVES] = {0};
    for (int i = 0; i < n_expected; i++) {
        int from = atoi(expected[i]);
        const char *last = expected[i] + strlen(expected[i]);
        while (last > expected[i] && last[-1] >= '0' && last[-1] <= '9') last--;
        int to = atoi(last);
        int found = -1;
        for (int j = 0; j < list->n && found < 0; j++)
            if (!used[j] && pc_move_from_sq(&list->m[j]) == from && pc_move_to_sq(&list->m[j]) == to)
                found = j;
        CHECK(found >= 0, "%s: %s lacks move %s", rule, fen, expected[i]);
        if (found >= 0) used[found] = 1;
    }
    free(list);
}

static void test_rule_examples(void) {
    /* From /work/shared/rule-examples.json (worked independently of the project). */
    static const char *const e1[] = {"31x2", "31x6", "32x5"};
    check_moves("W:WK7,10,21,K31,K32:B4,9,K19,22", false, e1, 3, "R9, R10");
    static const char *const e2[] = {"15x25", "15x29", "15x4"};
    check_moves("B:WK1,7,8,K19,22,23,24:B5,K15", false, e2, 3, "R14");
    static const char *const e3[] = {"10x1", "11x9"};
    check_moves("W:WK3,K10,11,30:BK6,7,K29,K31", false, e3, 2, "R15 pass");
    static const char *const e3s[] = {"10x1", "11x2"};
    check_moves("W:WK3,K10,11,30:BK6,7,K29,K31", true, e3s, 2, "R15 crown_during_capture=stop");
    static const char *const e4[] = {"3x12x23x32", "3x14x32", "3x3", "3x4", "3x7"};
    check_moves("B:W8,K10,K19,K22,27:BK3", false, e4, 5, "R14, R4");
    /* R6: men move forward only; R11: a capture is compulsory. */
    static const char *const e5[] = {"9x18"};
    check_moves("B:W14,30:B9,1", false, e5, 1, "R7, R11");
    static const char *const e6[] = {"14-9", "14-10"};
    check_moves("W:W14:B1", false, e6, 2, "R6");
}

static void test_fen_errors(void) {
    Position p;
    CHECK(pc_parse_fen(&p, "X:W1:B2") == -10, "bad side to move is rejected (R5)");
    CHECK(pc_parse_fen(&p, "B:W33:B2") == -13, "square 33 is rejected (R2)");
    CHECK(pc_parse_fen(&p, "B:W1:B1") == -14, "a doubly listed square is rejected (R5)");
    CHECK(pc_parse_fen(&p, "B:W1,:B2") == -13, "a dangling comma is rejected (R5)");
    CHECK(pc_set(&p, 1, 1, 0, 0, 0, 0) == -1, "overlapping bitboards are rejected (R2)");
    CHECK(pc_set(&p, 1, 2, 4, 0, 0, 0) == -2, "a king on an empty square is rejected");
}

static void test_make_counters(void) {
    Position p, q;
    RuleOptions r = pc_default_rules();
    MoveList *list = malloc(sizeof(MoveList));
    /* R18: king moves advance the clock, a man move resets it. */
    pc_parse_fen(&p, "B:WK32,28:BK1,5");
    p.halfmove = 7;
    pc_gen_moves(&p, &r, list);
    for (int i = 0; i < list->n; i++) {
        pc_make(&p, &list->m[i], &q);
        bool king = (p.kings & BIT(list->m[i].from)) != 0;
        CHECK(q.halfmove == (king ? 8 : 0), "R18 clock after %d-%d", pc_move_from_sq(&list->m[i]),
              pc_move_to_sq(&list->m[i]));
        CHECK(q.key == pc_compute_key(&q), "incremental Zobrist key");
    }
    /* R19: the strong side's moves are counted in 3K v 1K. */
    pc_parse_fen(&p, "W:WK1,K5,K9:BK32");
    p.tk_count = 4;
    pc_gen_moves(&p, &r, list);
    pc_make(&p, &list->m[0], &q);
    CHECK(q.tk_count == 5, "R19 count goes up on the strong side's move (%d)", q.tk_count);
    free(list);
}

static void test_search(void) {
    Searcher *s = pc_searcher_new(4);
    CHECK(s != NULL, "searcher allocates");
    if (!s) return;
    Position p;
    SearchInfo info;
    SearchLimits lim = {6, 0, 0, 1, 0};
    pc_parse_fen(&p, START);
    int rc = pc_search(s, &p, NULL, 0, &lim, NULL, NULL, &info);
    CHECK(rc == 0 && info.depth == 6 && info.pv_len >= 1, "depth-6 search from the start");
    int64_t n1 = info.nodes;
    pc_searcher_clear(s);
    pc_search(s, &p, NULL, 0, &lim, NULL, NULL, &info);
    CHECK(info.nodes == n1, "fixed-depth search is deterministic (%lld vs %lld)", (long long)info.nodes,
          (long long)n1);

    /* R16: capturing the last piece wins at once. */
    pc_parse_fen(&p, "B:W14:B9");
    pc_search(s, &p, NULL, 0, &lim, NULL, NULL, &info);
    CHECK(info.score == PC_MATE - 1, "win in 1 ply found (score %d)", info.score);
    CHECK(pc_move_from_sq(&info.pv[0]) == 9 && pc_move_to_sq(&info.pv[0]) == 18, "the winning capture 9x18");

    /* No legal move at the root (R16). */
    pc_parse_fen(&p, "B:W1:B5");
    pc_parse_fen(&p, "W:W:B5");
    CHECK(pc_search(s, &p, NULL, 0, &lim, NULL, NULL, &info) == -1, "no legal move is reported");

    /* R19: with the count at 12 the strong side's next move draws unless it captures. */
    pc_parse_fen(&p, "W:WK1,K5,K9:BK32");
    p.tk_count = 12;
    pc_search(s, &p, NULL, 0, &lim, NULL, NULL, &info);
    CHECK(info.score == 0, "R19 draw scored (%d)", info.score);
    s->rules.three_kings_loss = true;
    pc_searcher_clear(s);
    pc_search(s, &p, NULL, 0, &lim, NULL, NULL, &info);
    CHECK(info.score < -PC_MATE_BOUND, "R19 with three_kings_limit_result=loss (%d)", info.score);
    s->rules = pc_default_rules();

    /* R19 at count 11: the game ends within three plies, so the score is a
     * draw (0) or a proven result -- even after a search of the same
     * position at count 0 filled the hash table, and even though sacrificing a
     * king would restart the count (2K v 1K is a draw too). */
    {
        static const char *fens[] = {"W:WK4,K5,K9:BK1", "W:WK7,K5,K9:BK1", "W:WK16,K5,K9:BK1",
                                     "W:WK1,K5,K9:BK14"};
        for (int i = 0; i < 4; i++) {
            Position q;
            SearchLimits d10 = {10, 0, 0, 1, 0}, d6 = {6, 0, 0, 1, 0};
            SearchInfo r;
            pc_parse_fen(&q, fens[i]);
            pc_searcher_clear(s);
            pc_search(s, &q, NULL, 0, &d10, NULL, NULL, &r);
            q.tk_count = 11;
            pc_search(s, &q, NULL, 0, &d6, NULL, NULL, &r);
            int a = r.score < 0 ? -r.score : r.score;
            CHECK(r.score == 0 || a > PC_MATE_BOUND, "%s at R19 count 11 scores %d", fens[i], r.score);
        }
    }

    /* R18: at 49 plies any king move ends the game drawn. */
    pc_parse_fen(&p, "B:WK29:BK1,K5");
    p.halfmove = 49;
    pc_searcher_clear(s);
    pc_search(s, &p, NULL, 0, &lim, NULL, NULL, &info);
    CHECK(info.score == 0, "R18 draw scored (%d)", info.score);

    /* A node limit is honoured after depth 1. */
    pc_parse_fen(&p, START);
    SearchLimits nl = {0, 5000, 0, 1, 0};
    pc_search(s, &p, NULL, 0, &nl, NULL, NULL, &info);
    CHECK(s->nodes <= 5000 + 64 && info.depth >= 1, "node limit (%lld nodes)", (long long)s->nodes);

    /* Evaluation is symmetric: the start is balanced apart from the tempo term. */
    pc_parse_fen(&p, START);
    EvalWeights w = pc_default_weights();
    CHECK(pc_evaluate(&p, &w, &s->rules) == w.tempo, "start position evaluates to the tempo bonus");
    pc_parse_fen(&p, "B:WK1:BK5,K9");
    CHECK(pc_evaluate(&p, &w, &s->rules) == 0, "2 kings v 1 king is a draw");
    pc_searcher_free(s);
}

static void test_geometry_and_eval_terms(void) {
    /* R2: 4-8-11-15-18-22-25-29 is one diagonal, from Black's near corner to White's. */
    static const int diag[8] = {4, 8, 11, 15, 18, 22, 25, 29};
    Bitboard mask = 0;
    for (int i = 0; i < 8; i++) mask |= BIT(pc_sq_to_idx[diag[i]]);
    int start = pc_sq_to_idx[4];
    CHECK((pc_ray[start][DIR_DL] | BIT(start)) == mask, "the long diagonal follows R2");
    /* R2 numbering: square 1 is row 0 column 1, square 5 is row 1 column 0. */
    CHECK(pc_idx_to_sq[pc_nb[pc_sq_to_idx[1]][DIR_DL]] == 5, "1 down-left is 5 (R2)");
    CHECK(pc_idx_to_sq[pc_nb[pc_sq_to_idx[1]][DIR_DR]] == 6, "1 down-right is 6 (R2)");
    CHECK(pc_nb[pc_sq_to_idx[5]][DIR_DL] < 0 && pc_nb[pc_sq_to_idx[12]][DIR_DR] < 0, "board edges (R1)");

    /* A runaway man (nothing ahead, no enemy king) is worth more than a blocked one. */
    EvalWeights w = pc_default_weights();
    RuleOptions r = pc_default_rules();
    Position free_run, blocked;
    pc_parse_fen(&free_run, "B:W21,25:B19,1");
    pc_parse_fen(&blocked, "B:W21,27:B19,1");
    CHECK(pc_evaluate(&free_run, &w, &r) > pc_evaluate(&blocked, &w, &r), "runaway man bonus");
    /* A king on the long diagonal is worth more than one in the double corner. */
    Position on, off;
    pc_parse_fen(&on, "B:W21,22:BK15,1");
    pc_parse_fen(&off, "B:W21,22:BK16,1");
    CHECK(pc_evaluate(&on, &w, &r) > pc_evaluate(&off, &w, &r), "long diagonal bonus");
}

static bool same_move(const Move *a, const Move *b) {
    return a->from == b->from && a->to == b->to && a->cap == b->cap;
}

static void test_multipv_and_threads(void) {
    Searcher *s = pc_searcher_new(4);
    CHECK(s != NULL, "searcher allocates");
    if (!s) return;
    Position p;
    SearchInfo *info = malloc(sizeof(SearchInfo));
    pc_parse_fen(&p, START);
    /* Multi-PV: three lines with three different first moves, best first. */
    SearchLimits three = {7, 0, 0, 3, 0};
    CHECK(pc_search(s, &p, NULL, 0, &three, NULL, NULL, info) == 0 && info->lines == 3, "three lines");
    CHECK(!same_move(&info->line[0].pv[0], &info->line[1].pv[0]) &&
              !same_move(&info->line[0].pv[0], &info->line[2].pv[0]) &&
              !same_move(&info->line[1].pv[0], &info->line[2].pv[0]),
          "the lines begin with different moves");
    CHECK(info->line[0].score >= info->line[1].score && info->line[1].score >= info->line[2].score,
          "lines in score order (%d %d %d)", info->line[0].score, info->line[1].score, info->line[2].score);
    CHECK(same_move(&info->pv[0], &info->line[0].pv[0]) && info->score == info->line[0].score,
          "the best line is the search's answer");
    /* More lines than moves: one per move.  R11: a lone capture is the only line. */
    pc_parse_fen(&p, "B:W14:B9");
    CHECK(pc_search(s, &p, NULL, 0, &three, NULL, NULL, info) == 0 && info->lines == 1, "one legal move, one line");

    /* Lazy SMP: with helpers the answer is still a legal move and a win is still found. */
    CHECK(pc_searcher_set_threads(s, 3) == 0 && s->threads == 3, "three threads");
    pc_parse_fen(&p, START);
    SearchLimits d8 = {8, 0, 0, 1, 0};
    CHECK(pc_search(s, &p, NULL, 0, &d8, NULL, NULL, info) == 0 && info->depth == 8, "threaded depth 8");
    MoveList *list = malloc(sizeof(MoveList));
    pc_gen_moves(&p, &s->rules, list);
    bool legal = false;
    for (int i = 0; i < list->n; i++) legal |= same_move(&list->m[i], &info->pv[0]);
    CHECK(legal, "the threaded search plays a legal move");
    /* ABDADA's deferral: the threads put off moves another is searching, and
     * every position marked as being searched is unmarked when the search ends
     * (also when it is stopped by its node budget); one thread never defers. */
    SearchLimits d14 = {14, 0, 0, 1, 0};
    pc_searcher_clear(s);
    CHECK(pc_search(s, &p, NULL, 0, &d14, NULL, NULL, info) == 0, "threaded depth 14");
    CHECK(s->deferred > 0 && s->marks_left == 0, "threads defer moves (%lld) and unmark all (%d left)",
          (long long)s->deferred, s->marks_left);
    SearchLimits budget = {0, 200000, 0, 1, 0};
    CHECK(pc_search(s, &p, NULL, 0, &budget, NULL, NULL, info) == 0 && s->marks_left == 0,
          "a stopped threaded search unmarks all (%d left)", s->marks_left);
    CHECK(pc_searcher_set_threads(s, 1) == 0, "one thread");
    CHECK(pc_search(s, &p, NULL, 0, &d8, NULL, NULL, info) == 0 && s->deferred == 0, "one thread defers nothing");
    CHECK(pc_searcher_set_threads(s, 3) == 0, "three threads again");
    pc_parse_fen(&p, "W:WK22,K14,K9:BK32,3");
    SearchLimits d12 = {12, 0, 0, 1, 0};
    pc_searcher_clear(s);
    pc_search(s, &p, NULL, 0, &d12, NULL, NULL, info);
    CHECK(info->score > PC_MATE_BOUND, "threaded search finds the win (%d)", info->score);
    CHECK(pc_searcher_set_threads(s, 1) == 0 && s->threads == 1, "back to one thread");
    free(list);
    free(info);
    pc_searcher_free(s);
}

static void test_bench(void) {
    int64_t n1, n2;
    double t;
    CHECK(pc_bench(5, &n1, &t) == 0 && pc_bench(5, &n2, &t) == 0 && n1 == n2 && n1 > 0,
          "bench signature is reproducible (%lld, %lld)", (long long)n1, (long long)n2);
}

/* ---- The search's fast paths against the move generator and pc_make ----
 * Positions: the start, the rule examples above, the bench positions, hand-made
 * ones where the side to move has no legal move (R16), random legal play from
 * the start, and random placements (many kings, few pieces, 3K v 1K with R19
 * counts), each test from a fixed seed. */

static uint64_t rng_state; /* set by each test */
static uint64_t rng_next(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static int rng_below(int n) { return (int)(rng_next() % (uint64_t)n); }

/* PDN FEN of a position (R5), for failure messages. */
static const char *fen_of(const Position *p, char *buf, size_t size) {
    uint32_t side[2] = {pc_to_bits32(p->bb[PC_BLACK]), pc_to_bits32(p->bb[PC_WHITE])};
    uint32_t kings = pc_to_bits32(p->kings);
    size_t n = (size_t)snprintf(buf, size, "%c", p->stm == PC_BLACK ? 'B' : 'W');
    for (int c = 1; c >= 0; c--) {
        n += (size_t)snprintf(buf + n, n < size ? size - n : 0, ":%c", c == PC_BLACK ? 'B' : 'W');
        const char *sep = "";
        for (int s = 1; s <= 32; s++)
            if (side[c] & (1u << (s - 1))) {
                n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s%d", sep,
                                      (kings & (1u << (s - 1))) ? "K" : "", s);
                sep = ",";
            }
    }
    return buf;
}

/* Random placement: each square empty or holding a man or king of either
 * colour with the given chances in percent; no man on its own king row (it
 * would have been crowned, R15). */
static void random_placement(Position *p, int pct_piece, int pct_king) {
    uint32_t side[2] = {0, 0}, kings = 0;
    for (int s = 1; s <= 32; s++) {
        if (rng_below(100) >= pct_piece) continue;
        int c = rng_below(2);
        bool king = rng_below(100) < pct_king;
        if (!king && ((c == PC_BLACK && s >= 29) || (c == PC_WHITE && s <= 4))) king = true;
        side[c] |= 1u << (s - 1);
        if (king) kings |= 1u << (s - 1);
    }
    pc_set(p, side[PC_BLACK], side[PC_WHITE], kings, rng_below(2), rng_below(50), rng_below(14));
}

/* n distinct squares (32-bit layout, bit s-1 = square s) outside `taken`. */
static uint32_t random_kings(int n, uint32_t taken) {
    uint32_t out = 0;
    while (n > 0) {
        uint32_t b = 1u << rng_below(32);
        if ((taken | out) & b) continue;
        out |= b;
        n--;
    }
    return out;
}

#define SAMPLE_MAX 60000

/* The sample positions, deterministic; returns how many were written. */
static int sample_positions(Position *out, MoveList *list) {
    int n = 0;
    RuleOptions r = pc_default_rules();
    static const char *const fixed[] = {
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        "W:WK7,10,21,K31,K32:B4,9,K19,22", "B:WK1,7,8,K19,22,23,24:B5,K15", "W:WK3,K10,11,30:BK6,7,K29,K31",
        "B:W8,K10,K19,K22,27:BK3", "B:W14,30:B9,1", "W:W14:B1",
        /* R16: no legal move -- no pieces, a man or a king blocked, every piece blocked. */
        "W:W:B5", "B:W5:B", "W:W5:B1", "B:W32:B28", "W:WK29:B25,22", "B:W19,24,32:BK28",
        "B:W25,26,27,28,29,30,31,32:B21,22,23,24",
        /* a capture and no quiet move (R11): the man on 28 can only jump */
        "B:W32,24:B28",
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (pc_parse_fen(&out[n], fixed[i]) == 0) n++;
        else CHECK(false, "sample FEN %s parses", fixed[i]);
    for (int i = 0; i < pc_bench_count(); i++)
        if (pc_bench_position(i, &out[n]) == 0) n++;
    /* Random legal play from the start: 200 games of up to 200 plies. */
    for (int g = 0; g < 200; g++) {
        Position p;
        pc_parse_fen(&p, START);
        for (int ply = 0; ply < 200 && n < SAMPLE_MAX; ply++) {
            out[n++] = p;
            pc_gen_moves(&p, &r, list);
            if (list->n == 0) break; /* R16: the game is over */
            Position q;
            pc_make(&p, &list->m[rng_below(list->n)], &q);
            p = q;
        }
    }
    /* Random placements: crowded, sparse, king-heavy. */
    for (int i = 0; i < 3000 && n < SAMPLE_MAX; i++) random_placement(&out[n++], 60, 20);
    for (int i = 0; i < 3000 && n < SAMPLE_MAX; i++) random_placement(&out[n++], 25, 70);
    for (int i = 0; i < 3000 && n < SAMPLE_MAX; i++) random_placement(&out[n++], 10, 60);
    /* 3K v 1K (R19) with a running count, 3K v 1K + 1 man, 2K + 1 man v 1K,
     * 3K v 2K: moves that keep, create or leave the material. */
    for (int i = 0; i < 2000 && n < SAMPLE_MAX; i++) {
        int strong = rng_below(2), kind = i % 4;
        uint32_t s3 = random_kings(kind == 2 ? 2 : 3, 0);
        uint32_t w1 = random_kings(kind == 3 ? 2 : 1, s3);
        uint32_t kings = s3 | w1, man = 0;
        if (kind == 1 || kind == 2) { /* a man of the weak (1) or strong (2) side on 5-28 */
            do man = 1u << (4 + rng_below(24));
            while ((s3 | w1) & man);
            if (kind == 1) w1 |= man;
            else s3 |= man;
        }
        uint32_t side[2];
        side[strong] = s3;
        side[strong ^ 1] = w1;
        pc_set(&out[n++], side[PC_BLACK], side[PC_WHITE], kings, rng_below(2), rng_below(50), rng_below(14));
    }
    return n;
}

/* pc_has_quiet_move by definition, square by square: a man with an empty
 * square diagonally forward (R6), a king with an empty neighbour (R8). */
static bool quiet_move_by_squares(const Position *p) {
    int us = p->stm;
    Bitboard occ = p->bb[0] | p->bb[1];
    for (Bitboard b = p->bb[us]; b; b &= b - 1) {
        int i = pc_lsb(b);
        bool king = (p->kings & BIT(i)) != 0;
        for (int d = 0; d < 4; d++) {
            bool forward = us == PC_BLACK ? (d == DIR_DL || d == DIR_DR) : (d == DIR_UR || d == DIR_UL);
            if ((king || forward) && pc_nb[i][d] >= 0 && !(occ & BIT(pc_nb[i][d]))) return true;
        }
    }
    return false;
}

static void test_fast_paths(void) {
    Position *pos = malloc(SAMPLE_MAX * sizeof(Position));
    MoveList *list = malloc(sizeof(MoveList)), *list_stop = malloc(sizeof(MoveList));
    rng_state = 0x9C0FFEE5EED5ULL;
    int n = sample_positions(pos, list);
    RuleOptions r = pc_default_rules(), stop = pc_default_rules();
    stop.crown_stop = true;
    char fen[160];
    int overflow = 0, bad_capture = 0, bad_quiet = 0, bad_r16 = 0, bad_key = 0, bad_counters = 0, bad_pieces = 0;
    int kind[2][2] = {{0, 0}, {0, 0}}; /* [capture][quiet move] */
    long moves = 0, moves_no_men = 0, with_halfmove = 0, with_tk = 0;
    for (int i = 0; i < n; i++) {
        const Position *p = &pos[i];
        pc_gen_moves(p, &r, list);
        pc_gen_moves(p, &stop, list_stop);
        if ((list->overflow || list_stop->overflow) && !overflow++)
            printf("  move list overflow at %s\n", fen_of(p, fen, sizeof fen));
        /* R11: captures only when one exists, so the first move tells. */
        bool capture = list->n > 0 && list->m[0].cap != 0;
        bool capture_stop = list_stop->n > 0 && list_stop->m[0].cap != 0;
        bool quiet = quiet_move_by_squares(p);
        if (pc_has_capture(p) != capture || capture != capture_stop) {
            if (!bad_capture++)
                printf("  pc_has_capture(%s) = %d, generated list %d moves, first a capture %d (stop %d)\n",
                       fen_of(p, fen, sizeof fen), pc_has_capture(p), list->n, capture, capture_stop);
        }
        if (pc_has_quiet_move(p) != quiet || quiet != (pc_count_quiet(p) > 0)) {
            if (!bad_quiet++)
                printf("  pc_has_quiet_move(%s) = %d, by squares %d, pc_count_quiet %d\n",
                       fen_of(p, fen, sizeof fen), pc_has_quiet_move(p), quiet, pc_count_quiet(p));
        }
        /* R16: no legal move exactly when neither a capture nor a quiet move exists. */
        if ((list->n == 0) != (!pc_has_capture(p) && !pc_has_quiet_move(p))) {
            if (!bad_r16++)
                printf("  %s: %d legal moves, pc_has_capture %d, pc_has_quiet_move %d (R16)\n",
                       fen_of(p, fen, sizeof fen), list->n, pc_has_capture(p), pc_has_quiet_move(p));
        }
        kind[capture][quiet]++;
        bool men = ((p->bb[0] | p->bb[1]) & ~p->kings) != 0;
        for (int j = 0; j < list->n; j++) {
            const Move *m = &list->m[j];
            Position next, k;
            pc_make(p, m, &next);
            memset(&k, 0x5A, sizeof k); /* fields pc_make_key leaves alone stay visibly unset */
            pc_make_key(p, m, &k);
            moves++;
            if (next.halfmove) with_halfmove++;
            if (next.tk_count) with_tk++;
            if (k.key != next.key || next.key != pc_compute_key(&next)) {
                if (!bad_key++)
                    printf("  %s move %d-%d: pc_make_key key %016llx, pc_make %016llx, computed %016llx\n",
                           fen_of(p, fen, sizeof fen), pc_move_from_sq(m), pc_move_to_sq(m),
                           (unsigned long long)k.key, (unsigned long long)next.key,
                           (unsigned long long)pc_compute_key(&next));
            }
            if (k.halfmove != next.halfmove || k.tk_count != next.tk_count) {
                if (!bad_counters++)
                    printf("  %s (R18 %d, R19 %d) move %d-%d: pc_make_key R18 %d R19 %d, pc_make R18 %d R19 %d\n",
                           fen_of(p, fen, sizeof fen), p->halfmove, p->tk_count, pc_move_from_sq(m),
                           pc_move_to_sq(m), k.halfmove, k.tk_count, next.halfmove, next.tk_count);
            }
            /* With no men on the board it plays the whole move (the R19 count needs the pieces). */
            if (!men) {
                moves_no_men++;
                if (k.bb[0] != next.bb[0] || k.bb[1] != next.bb[1] || k.kings != next.kings || k.stm != next.stm) {
                    if (!bad_pieces++)
                        printf("  %s move %d-%d: pc_make_key pieces differ from pc_make's (no men)\n",
                               fen_of(p, fen, sizeof fen), pc_move_from_sq(m), pc_move_to_sq(m));
                }
            }
        }
    }
    CHECK(overflow == 0, "no move list overflows: %d of %d positions", overflow, n);
    CHECK(bad_capture == 0, "pc_has_capture = the generated list's first move captures (R11): %d of %d positions differ",
          bad_capture, n);
    CHECK(bad_quiet == 0, "pc_has_quiet_move = some man steps forward (R6) or king steps (R8): %d of %d differ",
          bad_quiet, n);
    CHECK(bad_r16 == 0, "no legal move (R16) = no capture and no quiet move: %d of %d differ", bad_r16, n);
    CHECK(bad_key == 0, "pc_make_key's key = pc_make's = computed: %d of %ld moves differ", bad_key, moves);
    CHECK(bad_counters == 0, "pc_make_key's R18 clock and R19 count = pc_make's: %d of %ld moves differ",
          bad_counters, moves);
    CHECK(bad_pieces == 0, "pc_make_key plays the move when no men are on the board: %d of %ld differ", bad_pieces,
          moves_no_men);
    /* The sample reaches every case: each capture/quiet combination, R18 and R19 counts running. */
    CHECK(kind[0][0] > 0 && kind[0][1] > 0 && kind[1][0] > 0 && kind[1][1] > 0 && moves_no_men > 0 &&
              with_halfmove > 0 && with_tk > 0,
          "sample covers no move %d, quiet only %d, capture only %d, both %d; %ld moves without men, %ld with an "
          "R18 clock, %ld with an R19 count",
          kind[0][0], kind[0][1], kind[1][0], kind[1][1], moves_no_men, with_halfmove, with_tk);
    printf("fast paths: %d positions (no move %d, quiet only %d, capture only %d, both %d), %ld moves\n", n,
           kind[0][0], kind[0][1], kind[1][0], kind[1][1], moves);
    free(list_stop);
    free(list);
    free(pos);
}

static uint32_t reverse32(uint32_t x) {
    uint32_t r = 0;
    for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}

/* The position seen from the other side: square s becomes 33 - s (the board
 * turned half round, R2), the colours and the side to move swap. */
static void colour_flip(const Position *p, Position *out) {
    pc_set(out, reverse32(pc_to_bits32(p->bb[PC_WHITE])), reverse32(pc_to_bits32(p->bb[PC_BLACK])),
           reverse32(pc_to_bits32(p->kings)), p->stm ^ 1, p->halfmove, p->tk_count);
}

/* The advancement and runaway terms of colour c by their definitions, a man at
 * a time: adv[n] for a man on its n-th row; a runaway man (no opposing king,
 * and every square it could still pass on its way to the king row empty, R6)
 * earns runaway * (n + 1) / 7. */
static int advancement_by_men(const Position *p, const EvalWeights *w, int c) {
    int s = 0;
    for (Bitboard m = p->bb[c] & ~p->kings; m; m &= m - 1) {
        int row = (pc_idx_to_sq[pc_lsb(m)] - 1) / 4;
        s += w->adv[c == PC_BLACK ? row : 7 - row];
    }
    return s;
}
static int runaway_by_men(const Position *p, const EvalWeights *w, int c) {
    if (p->bb[c ^ 1] & p->kings) return 0;
    Bitboard occ = p->bb[0] | p->bb[1];
    int s = 0;
    for (Bitboard m = p->bb[c] & ~p->kings; m; m &= m - 1) {
        int i = pc_lsb(m);
        Bitboard frontier = BIT(i), cone = 0;
        while (frontier) {
            Bitboard next = 0;
            for (Bitboard f = frontier; f; f &= f - 1)
                for (int d = (c == PC_BLACK ? DIR_DL : DIR_UR); d <= (c == PC_BLACK ? DIR_DR : DIR_UL); d++)
                    if (pc_nb[pc_lsb(f)][d] >= 0) next |= BIT(pc_nb[pc_lsb(f)][d]);
            cone |= next;
            frontier = next;
        }
        int row = (pc_idx_to_sq[i] - 1) / 4, adv = c == PC_BLACK ? row : 7 - row;
        if (!(cone & occ)) s += w->runaway * (adv + 1) / 7;
    }
    return s;
}

/* The evaluation rewrite (advancement by rows, runaway men by one bitboard
 * pass) against the per-man definitions, and the evaluation's colour symmetry
 * (every term is the same for both colours; the noise term is off). */
static void test_eval_terms_and_symmetry(void) {
    Position *pos = malloc(SAMPLE_MAX * sizeof(Position));
    MoveList *list = malloc(sizeof(MoveList));
    rng_state = 0x5EEDE7A1ULL;
    int n = sample_positions(pos, list);
    RuleOptions r = pc_default_rules();
    EvalWeights def = pc_default_weights(), rnd = def;
    /* A second weight set, none of them alike, so that no two terms can cancel out. */
    rnd.man = 97, rnd.king = 151, rnd.back_rank = 7, rnd.centre = 5, rnd.king_mobility = 3;
    rnd.long_diagonal = 11, rnd.runaway = 43, rnd.tempo = 2, rnd.drawish_divisor = 9, rnd.three_v_one_edge = 5;
    for (int i = 0; i < 8; i++) rnd.adv[i] = 1 + 3 * i + (i * i) % 5;
    const EvalWeights *sets[2] = {&def, &rnd};
    char fen[160], fen_flip[160];
    int bad_flip = 0, bad_adv = 0, bad_run = 0, runaway_seen = 0;
    for (int i = 0; i < n; i++) {
        const Position *p = &pos[i];
        Position f;
        colour_flip(p, &f);
        bool flip_ok = true, adv_ok = true, run_ok = true;
        for (int k = 0; k < 2; k++) {
            const EvalWeights *w = sets[k];
            int e = pc_evaluate(p, w, &r), ef = pc_evaluate(&f, w, &r);
            flip_ok &= e == ef;
            if (e != ef && bad_flip == 0)
                printf("  eval %d of %s, %d of its colour flip %s (weights %d)\n", e, fen_of(p, fen, sizeof fen), ef,
                       fen_of(&f, fen_flip, sizeof fen_flip), k);
            EvalWeights no_adv = *w, no_run = *w;
            memset(no_adv.adv, 0, sizeof no_adv.adv);
            no_run.runaway = 0;
            int us = p->stm;
            int adv = advancement_by_men(p, w, us) - advancement_by_men(p, w, us ^ 1);
            int run = runaway_by_men(p, w, us) - runaway_by_men(p, w, us ^ 1);
            /* The evaluation is linear in these weights (with men on the board;
             * without men both terms are 0), so a term is a difference of two. */
            int adv_term = e - pc_evaluate(p, &no_adv, &r), run_term = e - pc_evaluate(p, &no_run, &r);
            adv_ok &= adv_term == adv;
            run_ok &= run_term == run;
            if (adv_term != adv && bad_adv == 0)
                printf("  %s: advancement term %d, by men %d\n", fen_of(p, fen, sizeof fen), adv_term, adv);
            if (run_term != run && bad_run == 0)
                printf("  %s: runaway term %d, by men %d\n", fen_of(p, fen, sizeof fen), run_term, run);
            runaway_seen += run != 0 && k == 0;
        }
        bad_flip += !flip_ok;
        bad_adv += !adv_ok;
        bad_run += !run_ok;
    }
    CHECK(bad_flip == 0, "evaluation unchanged by the colour flip: %d of %d positions differ", bad_flip, n);
    CHECK(bad_adv == 0, "advancement by rows = per man: %d of %d differ", bad_adv, n);
    CHECK(bad_run == 0 && runaway_seen > 0, "runaway men by bitboards = per man by their cones: %d of %d differ (%d "
          "with a runaway term)", bad_run, n, runaway_seen);
    printf("eval terms: %d positions and their colour flips, 2 weight sets, %d with a runaway term\n", n,
           runaway_seen);
    free(list);
    free(pos);
}

/* The configuration of window (row, k) seen from colour c, square by square
 * (patterns.h): cell i = 2a + b is square 4(row + a) + k + b + 1 for Black and
 * 33 minus it for White (R2, the board turned half round); 3^i times 0 for an
 * empty square or a king, 1 for a man of c, 2 for a man of the other side. */
static int pattern_index_by_squares(const Position *p, int row, int k, int c) {
    uint32_t men = pc_to_bits32((p->bb[0] | p->bb[1]) & ~p->kings);
    uint32_t own = pc_to_bits32(p->bb[c]) & men, other = pc_to_bits32(p->bb[c ^ 1]) & men;
    int index = 0, pow3 = 1;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 2; b++, pow3 *= 3) {
            int sq = 4 * (row + a) + k + b + 1;
            if (c == PC_WHITE) sq = 33 - sq;
            uint32_t bit = 1u << (sq - 1);
            index += pow3 * ((own & bit) ? 1 : (other & bit) ? 2 : 0);
        }
    return index;
}

/* Pattern term: the fast index from the bitboards = the per-square definition
 * for every window and colour; the colour flip gives the other colour the same
 * configurations, so the pattern score changes sign and the evaluation with
 * patterns on stays the same; the term is linear in the `patterns` weight. */
static void test_patterns(void) {
    Position *pos = malloc(SAMPLE_MAX * sizeof(Position));
    MoveList *list = malloc(sizeof(MoveList));
    rng_state = 0x9A77E125ULL;
    int n = sample_positions(pos, list);
    RuleOptions r = pc_default_rules();
    EvalWeights off = pc_default_weights(), on = off, third = off;
    off.patterns = 0, on.patterns = 100, third.patterns = 37;
    int windows = pc_pattern_window_count();
    char fen[160];
    int bad_index = 0, bad_flip_index = 0, bad_score = 0, bad_eval = 0, bad_linear = 0, nonzero = 0;
    for (int i = 0; i < n; i++) {
        const Position *p = &pos[i];
        Position f;
        colour_flip(p, &f);
        for (int j = 0; j < windows; j++) {
            int row, k;
            pc_pattern_window(j, &row, &k);
            for (int c = 0; c < 2; c++) {
                int fast = pc_pattern_index(p, j, c), slow = pattern_index_by_squares(p, row, k, c);
                if (fast != slow && !bad_index++)
                    printf("  %s window (%d, %d) colour %d: index %d, by squares %d\n", fen_of(p, fen, sizeof fen),
                           row, k, c, fast, slow);
                if (pc_pattern_index(&f, j, c ^ 1) != fast && !bad_flip_index++)
                    printf("  %s window (%d, %d) colour %d: index %d, colour flip's %d\n",
                           fen_of(p, fen, sizeof fen), row, k, c, fast, pc_pattern_index(&f, j, c ^ 1));
            }
        }
        int score = pc_pattern_score(p), sums[2] = {0, 0}, phases = pc_pattern_phase_count();
        for (int ph = 0; ph < phases; ph++) sums[ph] = pc_pattern_side(p, PC_BLACK, ph) - pc_pattern_side(p, PC_WHITE, ph);
        /* The blend by its definition: the opening's share is pieces / 24 (at most 1). */
        int pieces = pc_popcount(p->bb[0] | p->bb[1]), share = pieces < 24 ? pieces : 24;
        int blended = phases == 1 ? sums[0] : (sums[0] * share + sums[1] * (24 - share)) / 24;
        nonzero += score != 0;
        if ((score != blended || pc_pattern_score(&f) != -score) && !bad_score++)
            printf("  %s: pattern score %d, by sides %d (phases %d, %d), colour flip's %d\n",
                   fen_of(p, fen, sizeof fen), score, blended, sums[0], sums[1], pc_pattern_score(&f));
        int e_on = pc_evaluate(p, &on, &r), e_third = pc_evaluate(p, &third, &r);
        if ((e_on != pc_evaluate(&f, &on, &r) || e_third != pc_evaluate(&f, &third, &r)) && !bad_eval++)
            printf("  %s: eval with patterns %d, its colour flip's %d\n", fen_of(p, fen, sizeof fen), e_on,
                   pc_evaluate(&f, &on, &r));
        /* With men on the board (the king endings are scored apart). */
        if ((p->bb[0] | p->bb[1]) & ~p->kings) {
            int term = p->stm == PC_BLACK ? score : -score, e_off = pc_evaluate(p, &off, &r);
            if ((e_on - e_off != term || e_third - e_off != term * 37 / 100) && !bad_linear++)
                printf("  %s: eval %d with patterns, %d at 37 %%, %d without; term %d\n", fen_of(p, fen, sizeof fen),
                       e_on, e_third, e_off, term);
        }
    }
    CHECK(bad_index == 0, "pattern index from the bitboards = by squares: %d of %d positions differ", bad_index, n);
    CHECK(bad_flip_index == 0, "colour flip: the other colour sees the same windows: %d of %d differ",
          bad_flip_index, n);
    CHECK(bad_score == 0, "pattern score = Black's side - White's in each phase, blended, and changes sign in the "
          "colour flip: %d of %d differ", bad_score, n);
    CHECK(bad_eval == 0, "evaluation with patterns unchanged by the colour flip: %d of %d differ", bad_eval, n);
    CHECK(bad_linear == 0, "evaluation with patterns = without + patterns%% of the term: %d of %d differ", bad_linear,
          n);
    CHECK(nonzero > n / 2, "the shipped table scores most positions: %d of %d", nonzero, n);
    printf("patterns: %d windows, %d phase(s), %d positions and their colour flips, %d with a pattern score\n", windows, pc_pattern_phase_count(), n,
           nonzero);
    free(list);
    free(pos);
}

/* The public 32-bit layout (bit s - 1 = square s, R2) and the internal one with ghost bits
 * agree square by square, both ways, and the bit count matches a plain loop. */
static void test_layout_and_count(void) {
    uint32_t all = 0;
    for (int s = 1; s <= 32; s++) {
        uint32_t b = 1u << (s - 1);
        CHECK(pc_from_bits32(b) == BIT(pc_sq_to_idx[s]), "square %d into the internal layout", s);
        CHECK(pc_to_bits32(BIT(pc_sq_to_idx[s])) == b, "square %d back to the public layout", s);
        all |= b;
    }
    CHECK(pc_from_bits32(all) == PC_VALID, "the 32 squares are exactly the valid bits");
    CHECK(pc_to_bits32(~(Bitboard)0) == all, "ghost and off-board bits are dropped");
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 1000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int n = 0;
        for (Bitboard y = x; y; y &= y - 1) n++;
        CHECK(pc_popcount(x) == n, "popcount of %llx", (unsigned long long)x);
    }
}


/* ---- The network evaluation (nnue.h). */

static uint32_t test_fnv1a(const uint8_t *p, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A weights file of random weights (a fixed sequence), with its checksum. */
static uint8_t *random_network(int hidden, int l2, size_t *len) {
    *len = pc_nnue_file_size(hidden, l2);
    uint8_t *d = calloc(1, *len);
    if (!d) return NULL;
    memcpy(d, "PCNN", 4);
    put32(d + 4, PC_NNUE_VERSION);
    put32(d + 8, PC_NNUE_INPUTS);
    put32(d + 12, (uint32_t)hidden);
    put32(d + 16, (uint32_t)l2);
    uint32_t seed = 2024;
    uint8_t *p = d + PC_NNUE_HEADER;
#define NEXT() (seed = seed * 1103515245u + 12345u, (int)((seed >> 16) & 0x7FFF))
    for (int i = 0; i < hidden; i++, p += 2) { /* ft_b: -300..300 */
        int v = NEXT() % 601 - 300;
        p[0] = (uint8_t)(v & 0xFF), p[1] = (uint8_t)((v >> 8) & 0xFF);
    }
    for (int i = 0; i < PC_NNUE_INPUTS * hidden; i++, p += 2) { /* ft_w: -200..200 */
        int v = NEXT() % 401 - 200;
        p[0] = (uint8_t)(v & 0xFF), p[1] = (uint8_t)((v >> 8) & 0xFF);
    }
    for (int f = 0; f < PC_NNUE_INPUTS; f++, p += 4) put32(p, (uint32_t)(NEXT() % 20001 - 10000));
    for (int j = 0; j < l2; j++, p += 4) put32(p, (uint32_t)(NEXT() % 20001 - 10000));
    for (int i = 0; i < 2 * hidden * l2; i++, p++) *p = (uint8_t)(int8_t)(NEXT() % 255 - 127);
    put32(p, (uint32_t)(NEXT() % 2001 - 1000));
    p += 4;
    for (int j = 0; j < l2; j++, p++) *p = (uint8_t)(int8_t)(NEXT() % 255 - 127);
#undef NEXT
    put32(d + 20, test_fnv1a(d + PC_NNUE_HEADER, *len - PC_NNUE_HEADER));
    return d;
}

/* Bad files are refused with a sentence and leave the network as it was. */
static void test_nnue_file(void) {
    size_t len;
    uint8_t *d = random_network(32, 8, &len);
    NnueNet *net = malloc(sizeof(NnueNet)), *before = malloc(sizeof(NnueNet));
    CHECK(d && net && before, "allocations");
    if (!d || !net || !before) goto end;
    CHECK(pc_nnue_parse(d, len, net) == NULL, "a well-formed weights file is read");
    CHECK(net->hidden == 32 && net->l2 == 8 && net->id != 0, "its shape is the header's");
    memcpy(before, net, sizeof(NnueNet));
    CHECK(pc_nnue_parse(d, len - 1, net) != NULL, "a truncated file is refused");
    CHECK(pc_nnue_parse(d, 10, net) != NULL, "a file shorter than the header is refused");
    d[0] = 'X';
    CHECK(pc_nnue_parse(d, len, net) != NULL, "a wrong magic is refused");
    d[0] = 'P';
    d[4] = 2;
    CHECK(pc_nnue_parse(d, len, net) != NULL, "another format version is refused");
    d[4] = 1;
    d[len - 1] ^= 1;
    const char *why = pc_nnue_parse(d, len, net);
    CHECK(why && strstr(why, "checksum"), "a damaged payload is refused by its checksum");
    d[len - 1] ^= 1;
    /* A feature weight of 2000: 32 of them overflow an int16 accumulator. */
    uint8_t *w = d + PC_NNUE_HEADER + 2 * 32;
    w[0] = 2000 & 0xFF, w[1] = 2000 >> 8;
    put32(d + 20, test_fnv1a(d + PC_NNUE_HEADER, len - PC_NNUE_HEADER));
    why = pc_nnue_parse(d, len, net);
    CHECK(why && strstr(why, "overflow"), "weights that could overflow the accumulators are refused");
    CHECK(memcmp(before, net, sizeof(NnueNet)) == 0, "a refused file leaves the network unchanged");
end:
    free(d);
    free(net);
    free(before);
}

/* Along random games, an accumulator updated from whichever ply's accumulator is
 * nearest equals one computed from scratch, integer for integer; the network sees
 * a position and its colour-swapped half turn alike. */
static void test_nnue_incremental(void) {
    size_t len;
    uint8_t *d = random_network(64, 16, &len);
    NnueNet *net = malloc(sizeof(NnueNet));
    NnueAcc *stack = calloc(PC_MAX_PLY + 1, sizeof(NnueAcc)), *fresh = malloc(sizeof(NnueAcc));
    MoveList *list = malloc(sizeof(MoveList));
    CHECK(d && net && stack && fresh && list && pc_nnue_parse(d, len, net) == NULL, "setup");
    if (!d || !net || !stack || !fresh || !list) goto end;
    RuleOptions rules = pc_default_rules();
    uint32_t seed = 77;
    int mismatches = 0, mirrored = 0, updates = 0;
    for (int game = 0; game < 40; game++) {
        Position pos, next;
        pc_parse_fen(&pos, START);
        for (int move = 0; move < 120; move++) {
            seed = seed * 1103515245u + 12345u;
            int ply = (int)((seed >> 16) % 12);
            if (pc_nnue_update(net, &pos, stack, ply) < pc_popcount(pos.bb[0] | pos.bb[1])) updates++;
            pc_nnue_refresh(net, &pos, fresh);
            for (int v = 0; v < 2; v++)
                if (memcmp(stack[ply].v[v], fresh->v[v], sizeof(int16_t) * 64) != 0 ||
                    stack[ply].psqt[v] != fresh->psqt[v])
                    mismatches++;
            /* The half turn: square s -> 33 - s, colours and side to move swapped. */
            uint32_t b = pc_to_bits32(pos.bb[0]), w = pc_to_bits32(pos.bb[1]), k = pc_to_bits32(pos.kings);
            uint32_t rb = 0, rw = 0, rk = 0;
            for (int s = 0; s < 32; s++) {
                rb |= (w >> s & 1u) << (31 - s);
                rw |= (b >> s & 1u) << (31 - s);
                rk |= (k >> s & 1u) << (31 - s);
            }
            Position turned;
            pc_set(&turned, rb, rw, rk, pos.stm ^ 1, 0, 0);
            NnueAcc *t = malloc(sizeof(NnueAcc));
            if (t) {
                pc_nnue_refresh(net, &turned, t);
                if (pc_nnue_forward(net, t, turned.stm) != pc_nnue_forward(net, fresh, pos.stm)) mirrored++;
                free(t);
            }
            pc_gen_moves(&pos, &rules, list);
            if (list->n == 0) break;
            pc_make(&pos, &list->m[(seed >> 8) % (uint32_t)list->n], &next);
            pos = next;
        }
    }
    CHECK(mismatches == 0, "incremental accumulators equal a full refresh (%d differ)", mismatches);
    CHECK(updates > 1000, "most accumulators came by update, not refresh (%d)", updates);
    CHECK(mirrored == 0, "the half-turned position has the same output (%d differ)", mirrored);
end:
    free(d);
    free(net);
    free(stack);
    free(fresh);
    free(list);
}

/* A search with the network finds the same move and score whether its
 * accumulators are updated or computed from scratch at every node; the end rules
 * still rule the king endings. */
static void test_nnue_search(void) {
    size_t len;
    uint8_t *d = random_network(64, 16, &len);
    NnueNet *net = malloc(sizeof(NnueNet));
    Searcher *s = pc_searcher_new(4);
    CHECK(d && net && s && pc_nnue_parse(d, len, net) == NULL, "setup");
    if (!d || !net || !s) goto end;
    s->net = net;
    const char *fens[] = {START, "W:W18,19,26,27,30:B6,10,13,K25", "B:W8,K10,K19,K22,27:BK3"};
    for (int i = 0; i < 3; i++) {
        Position pos;
        pc_parse_fen(&pos, fens[i]);
        SearchLimits lim = {7, 0, 0, 1, 0};
        SearchInfo a, b;
        net->always_refresh = false;
        pc_searcher_clear(s);
        int ra = pc_search(s, &pos, NULL, 0, &lim, NULL, NULL, &a);
        net->always_refresh = true;
        pc_searcher_clear(s);
        int rb = pc_search(s, &pos, NULL, 0, &lim, NULL, NULL, &b);
        CHECK(ra == 0 && rb == 0 && a.score == b.score && a.nodes == b.nodes && a.pv_len > 0 &&
                  a.pv[0].from == b.pv[0].from && a.pv[0].to == b.pv[0].to && a.pv[0].cap == b.pv[0].cap,
              "%s: the same search with updated and refreshed accumulators", fens[i]);
    }
    EvalWeights w = pc_default_weights();
    Position kk;
    pc_parse_fen(&kk, "W:WK1,K5:BK32"); /* 2 kings v 1: drawn with flying kings */
    NnueAcc *one = calloc(1, sizeof(NnueAcc));
    if (one) CHECK(pc_evaluate_nnue(&kk, &w, net, one, 0) == 0, "2K v 1K stays exactly 0 with the network");
    free(one);
end:
    pc_searcher_free(s);
    free(net);
    free(d);
}

int main(void) {
    pc_init();
    test_layout_and_count();
    test_perft_start(7);
    test_rule_examples();
    test_fen_errors();
    test_make_counters();
    test_search();
    test_geometry_and_eval_terms();
    test_multipv_and_threads();
    test_bench();
    test_fast_paths();
    test_eval_terms_and_symmetry();
    test_patterns();
    test_nnue_file();
    test_nnue_incremental();
    test_nnue_search();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
