/* perft.c -- perft with bulk counting at the last two plies.
 *
 * The last ply counts moves without playing them (pc_count_moves); the ply
 * before it counts the replies to all the man steps of a direction at once
 * where it can (replies_of_steps); the men's captures of up to three jumps
 * are made from bitboards, in no particular order (pc_gen_men_captures_short).
 * Counts only: the order of moves, which the search depends on, is that of
 * pc_gen_moves and is not used here. */
#include "perft.h"

#include <stdlib.h>

/* Bit x of the result is bit x+k of b: the square k steps of index away. */
static inline __attribute__((always_inline)) Bitboard at(Bitboard b, int k) {
    return k >= 0 ? b >> k : b << -k;
}

/* Replies to every man step of one direction s at once (R6), when the
 * opponent has men only and no jump before the step.  A reply jump then
 * takes the man that stepped or lands on the square it left (R7, R11); the
 * other steps leave the opponent his quiet moves, those of the position with
 * the square left added and the square reached removed.
 *
 * go[e] holds the squares from which an opposing man that arrived by
 * direction e (+4, +5, -4, -5) could jump on in the position before the step
 * (not straight back, and not from his king row with the option "stop",
 * R15).  After the step it still tells whether the first reply jump goes on:
 * a man that jumps the one that stepped lands where no other jump involves
 * the two squares the step changed, except back over it (ruled out, R14), and
 * a man that lands on the square left may also jump the one that stepped
 * (the `over` term).  A step whose reply jumps all end at once has as many
 * replies as first jumps (R13); the others are counted one by one. */
static inline __attribute__((always_inline)) int64_t replies_of_steps(
    const Position *pos, const RuleOptions *rules, MoveList *scratch, Bitboard men, Bitboard own,
    Bitboard opp, Bitboard empty, const Bitboard *go, Bitboard keep, int s, int t1, int t2,
    int64_t quiet0) {
    Bitboard steps = men & at(empty, s); /* x -> x + s */
    if (!steps) return 0;
    static const int jumps[4] = {4, 5, -4, -5};
    Bitboard first[7]; /* the steps allowing each kind of first reply jump */
    int k = 0;
    Bitboard hit = 0, more = 0;
    Bitboard over = at(empty, 2 * s) & keep; /* from x over x + s */
    for (int e = 0; e < 4; e++) {
        int j = jumps[e];
        Bitboard f;
        if (j == -s) { /* the man beyond x + s jumps back onto x */
            f = steps & at(opp, 2 * s);
            more |= f & go[e];
        } else { /* onto x, over a piece next to it */
            f = steps & at(opp, -2 * j) & at(own, -j);
            more |= f & (go[e] | over);
        }
        first[k++] = f;
        hit |= f;
        if (j != s && j != -s) { /* over x + s, onto x + s + j */
            f = steps & at(opp, s - j) & at(empty, s + j);
            more |= f & at(go[e], s + j);
            first[k++] = f;
            hit |= f;
        }
    }
    Bitboard plain = steps & ~hit;
    int64_t total = (int64_t)pc_popcount(plain) * quiet0;
    /* the opponent steps t1, t2 (R6): onto x now, no longer onto x + s */
    total += pc_popcount(plain & at(opp, -t1)) + pc_popcount(plain & at(opp, -t2));
    total -= pc_popcount(plain & at(opp, s - t1)) + pc_popcount(plain & at(opp, s - t2));
    for (int i = 0; i < k; i++) total += pc_popcount(first[i] & ~more);
    if (more) {
        Position next;
        int us = pos->stm;
        next.bb[us ^ 1] = opp;
        next.stm = us ^ 1;
        Bitboard promo = pc_promo[us];
        for (; more; more &= more - 1) {
            Bitboard fb = more & -more;
            Bitboard tb = at(fb, -s);
            next.bb[us] = own ^ fb ^ tb;
            next.kings = pos->kings | (tb & promo);
            /* the opponent has men only, and a jump (R11) */
            Bitboard jumpers = men_jumpers(opp, next.bb[us], PC_VALID & ~(opp | next.bb[us]));
            total += pc_count_men_captures(&next, rules, jumpers, scratch);
        }
    }
    return total;
}

/* Depth 2 from a position without captures: play each quiet move straight
 * from the shift masks (R6, R8) and count the replies. */
static int64_t perft2_quiet(const Position *pos, const RuleOptions *rules, MoveList *scratch) {
    int us = pos->stm;
    Bitboard occ = pos->bb[0] | pos->bb[1];
    Bitboard empty = PC_VALID & ~occ;
    Bitboard men = pos->bb[us] & ~pos->kings;
    Bitboard promo = pc_promo[us];
    Bitboard own = pos->bb[us], opp = pos->bb[us ^ 1];
    int64_t total = 0;
    Position next;
    next.bb[us ^ 1] = opp;
    next.stm = us ^ 1;
    /* the opponent's jumps over our pieces (+4, +5, -4, -5) */
    Bitboard jump[4] = {(own & (empty >> 4)) >> 4, (own & (empty >> 5)) >> 5,
                        (own & (empty << 4)) << 4, (own & (empty << 5)) << 5};
    if (!(opp & pos->kings) && !(opp & (jump[0] | jump[1] | jump[2] | jump[3]))) {
        Bitboard keep = rules->crown_stop ? ~pc_promo[us ^ 1] : ~(Bitboard)0;
        Bitboard go[4];
        for (int e = 0; e < 4; e++) go[e] = (jump[(e + 3) & 3] | jump[e] | jump[(e + 1) & 3]) & keep;
        if (us == PC_BLACK) { /* Black steps +4, +5; White replies -4, -5 */
            int64_t q0 = pc_popcount(opp & (empty << 4)) + pc_popcount(opp & (empty << 5));
            total += replies_of_steps(pos, rules, scratch, men, own, opp, empty, go, keep, 4, -4, -5, q0);
            total += replies_of_steps(pos, rules, scratch, men, own, opp, empty, go, keep, 5, -4, -5, q0);
        } else {
            int64_t q0 = pc_popcount(opp & (empty >> 4)) + pc_popcount(opp & (empty >> 5));
            total += replies_of_steps(pos, rules, scratch, men, own, opp, empty, go, keep, -4, 4, 5, q0);
            total += replies_of_steps(pos, rules, scratch, men, own, opp, empty, go, keep, -5, 4, 5, q0);
        }
    } else {
        for (int sh = 4; sh <= 5; sh++) {
            Bitboard t = us == PC_BLACK ? (men << sh) & empty : (men >> sh) & empty;
            for (; t; t &= t - 1) {
                Bitboard tb = t & -t;
                Bitboard fb = us == PC_BLACK ? tb >> sh : tb << sh;
                next.bb[us] = own ^ fb ^ tb;
                next.kings = pos->kings | (tb & promo);
                total += pc_count_moves(&next, rules, scratch);
            }
        }
    }
    for (Bitboard k = own & pos->kings; k; k &= k - 1) {
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
                next.bb[us] = own ^ fb ^ tb;
                next.kings = pos->kings ^ fb ^ tb;
                total += pc_count_moves(&next, rules, scratch);
            }
        }
    }
    return scratch->overflow ? -1 : total;
}

/* The moves of a position for perft, in any order (lists[0]), or the count of
 * its leaves two plies down when it has no capture (perft2_quiet): returns
 * -2 when the moves are in the list, else the count (-1: too many moves). */
static inline int64_t perft_moves(const Position *pos, const RuleOptions *rules, bool two,
                                  MoveList *lists) {
    MoveList *list = &lists[0];
    int us = pos->stm;
    Bitboard own = pos->bb[us];
    if (!(own & pos->kings)) { /* men only: their captures straight from the bitboards */
        Bitboard opp = pos->bb[us ^ 1];
        Bitboard jumpers = men_jumpers(own, opp, PC_VALID & ~(own | opp));
        if (!jumpers) {
            if (two) return perft2_quiet(pos, rules, &lists[1]);
            pc_gen_moves(pos, rules, list);
        } else if (!pc_gen_men_captures_short(pos, rules, jumpers, list)) {
            pc_gen_moves(pos, rules, list); /* a fourth jump: the generator deduplicates (R4) */
        }
    } else {
        if (two && !pc_has_capture(pos)) return perft2_quiet(pos, rules, &lists[1]);
        pc_gen_moves(pos, rules, list);
    }
    return list->overflow ? -1 : -2;
}

/* Leaves two plies below pos. */
static int64_t perft2(const Position *pos, const RuleOptions *rules, MoveList *lists) {
    int64_t r = perft_moves(pos, rules, true, lists);
    if (r != -2) return r;
    MoveList *list = &lists[0];
    int64_t total = 0;
    Position next;
    for (int i = 0; i < list->n; i++) {
        pc_make_fast(pos, &list->m[i], &next);
        total += pc_count_moves(&next, rules, &lists[1]);
    }
    return lists[1].overflow ? -1 : total;
}

static int64_t perft_rec(const Position *pos, const RuleOptions *rules, int depth, MoveList *lists) {
    if (depth == 1) {
        int n = pc_count_moves(pos, rules, &lists[0]);
        return lists[0].overflow ? -1 : n;
    }
    if (depth == 2) return perft2(pos, rules, lists);
    int64_t r = perft_moves(pos, rules, false, lists);
    if (r != -2) return r;
    MoveList *list = &lists[0];
    int64_t total = 0;
    Position next;
    for (int i = 0; i < list->n; i++) {
        pc_make_fast(pos, &list->m[i], &next);
        int64_t sub = depth == 3 ? perft2(&next, rules, lists + 1)
                                 : perft_rec(&next, rules, depth - 1, lists + 1);
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
