/* perft.c -- perft with bulk counting at the last ply. */
#include "perft.h"

#include <stdlib.h>

/* Depth 2 from a position without captures: play each quiet move straight
 * from the shift masks (R6, R8) and count the replies. */
static int64_t perft2_quiet(const Position *pos, const RuleOptions *rules, MoveList *scratch) {
    int us = pos->stm;
    Bitboard occ = pos->bb[0] | pos->bb[1];
    Bitboard empty = PC_VALID & ~occ;
    Bitboard men = pos->bb[us] & ~pos->kings;
    Bitboard promo = pc_promo[us];
    int64_t total = 0;
    Position next;
    next.bb[us ^ 1] = pos->bb[us ^ 1];
    next.stm = us ^ 1;
    for (int sh = 4; sh <= 5; sh++) {
        Bitboard t = us == PC_BLACK ? (men << sh) & empty : (men >> sh) & empty;
        for (; t; t &= t - 1) {
            Bitboard tb = t & -t;
            Bitboard fb = us == PC_BLACK ? tb >> sh : tb << sh;
            next.bb[us] = pos->bb[us] ^ fb ^ tb;
            next.kings = pos->kings | (tb & promo);
            total += pc_count_moves(&next, rules, scratch);
        }
    }
    for (Bitboard k = pos->bb[us] & pos->kings; k; k &= k - 1) {
        int s = pc_lsb(k);
        Bitboard fb = BIT(s);
        for (int d = 0; d < 4; d++) {
            Bitboard r = pc_ray[s][d];
            Bitboard b = r & occ;
            if (b) {
                int f = d < 2 ? pc_lsb(b) : pc_msb(b);
                r &= ~(pc_ray[f][d] | BIT(f));
            }
            for (; r; r &= r - 1) {
                Bitboard tb = r & -r;
                next.bb[us] = pos->bb[us] ^ fb ^ tb;
                next.kings = pos->kings ^ fb ^ tb;
                total += pc_count_moves(&next, rules, scratch);
            }
        }
    }
    return scratch->overflow ? -1 : total;
}

static int64_t perft_rec(const Position *pos, const RuleOptions *rules, int depth, MoveList *lists) {
    MoveList *list = &lists[0];
    if (depth == 1) {
        int n = pc_count_moves(pos, rules, list);
        return list->overflow ? -1 : n;
    }
    if (depth == 2 && !pc_has_capture(pos)) return perft2_quiet(pos, rules, &lists[1]);
    pc_gen_moves(pos, rules, list);
    if (list->overflow) return -1;
    int64_t total = 0;
    Position next;
    if (depth == 2) {
        for (int i = 0; i < list->n; i++) {
            pc_make_fast(pos, &list->m[i], &next);
            total += pc_count_moves(&next, rules, &lists[1]);
            if (lists[1].overflow) return -1;
        }
        return total;
    }
    for (int i = 0; i < list->n; i++) {
        pc_make_fast(pos, &list->m[i], &next);
        int64_t sub = perft_rec(&next, rules, depth - 1, lists + 1);
        if (sub < 0) return -1;
        total += sub;
    }
    return total;
}

int64_t pc_perft(const Position *pos, const RuleOptions *rules, int depth) {
    if (depth <= 0) return 1;
    MoveList *lists = malloc(sizeof(MoveList) * (size_t)depth);
    if (!lists) return -1;
    for (int i = 0; i < depth; i++) lists[i].n = lists[i].overflow = 0;
    int64_t r = perft_rec(pos, rules, depth, lists);
    free(lists);
    return r;
}
