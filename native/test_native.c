/* test_native.c -- C test driver of the native core, built under ASan/UBSan by
 * scripts/native-sanitize.sh.  Exits non-zero when a test fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "movegen.h"
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

int main(void) {
    pc_init();
    test_perft_start(7);
    test_rule_examples();
    test_fen_errors();
    test_make_counters();
    test_search();
    test_geometry_and_eval_terms();
    test_multipv_and_threads();
    test_bench();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
