/* movegen.h -- legal move generation, RULES.md R6-R15. */
#ifndef PC_MOVEGEN_H
#define PC_MOVEGEN_H

#include "position.h"

/* A move: origin, destination (internal bit indices) and the set of jumped
 * pieces.  Two capture sequences with the same origin, destination and
 * captured set are one move (R4); the path is not needed to play it. */
typedef struct {
    Bitboard cap;
    uint8_t from, to;
    uint8_t crown; /* a man ends on its king row (R15) */
    uint8_t pad;
} Move;

#define PC_MAX_MOVES 1024

typedef struct {
    int n;
    int overflow; /* set when a position has more than PC_MAX_MOVES moves */
    Move m[PC_MAX_MOVES];
} MoveList;

/* All legal moves of the side to move (captures only when one exists, R11). */
int pc_gen_moves(const Position *pos, const RuleOptions *rules, MoveList *list);
/* Men of `men` that have a first jump (R7): shifts over opposing pieces to empty squares. */
static inline Bitboard men_jumpers(Bitboard men, Bitboard opp, Bitboard empty) {
    return men & (((opp & (empty >> 4)) >> 4) | ((opp & (empty >> 5)) >> 5) |
                  ((opp & (empty << 4)) << 4) | ((opp & (empty << 5)) << 5));
}
/* Whether a king of the side to move has a capture (R9). */
bool pc_kings_have_capture(const Position *pos);
/* Whether the side to move has a capture (R11): the men by shifts, the kings along their rays. */
static inline bool pc_has_capture(const Position *pos) {
    int us = pos->stm;
    Bitboard own = pos->bb[us], opp = pos->bb[us ^ 1];
    Bitboard empty = PC_VALID & ~(own | opp);
    if (men_jumpers(own & ~pos->kings, opp, empty)) return true;
    return (own & pos->kings) && pc_kings_have_capture(pos);
}
/* Whether the side to move has a non-capturing move: a man with an empty
 * square diagonally forward (R6), a king with any empty neighbour (R8).  With
 * no capture either (R11), the side to move has no legal move and loses (R16).
 * Every diagonal step is a constant shift (position.h), ghosts never empty. */
static inline bool pc_has_quiet_move(const Position *pos) {
    int us = pos->stm;
    Bitboard own = pos->bb[us];
    Bitboard empty = PC_VALID & ~(own | pos->bb[us ^ 1]);
    Bitboard down = (empty >> 4) | (empty >> 5); /* squares with an empty square +4 or +5 */
    Bitboard up = (empty << 4) | (empty << 5);   /* squares with an empty square -4 or -5 */
    Bitboard men_can = us == PC_BLACK ? down : up; /* Black men move down, White men up */
    return ((own & ~pos->kings & men_can) | (own & pos->kings & (down | up))) != 0;
}

/* Capture moves of the men of `from_set` (the side to move's men that can jump,
 * R7, R13-R15), in no particular order (perft); false when a sequence may take
 * a fourth piece (the list is then undefined: generate with pc_gen_moves). */
bool pc_gen_men_captures_short(const Position *pos, const RuleOptions *rules, Bitboard from_set,
                               MoveList *list);

int pc_count_moves_slow(const Position *pos, const RuleOptions *rules, MoveList *scratch);
/* Number of capture moves of the men in `from_set` (the side to move has no kings). */
int pc_count_men_captures(const Position *pos, const RuleOptions *rules, Bitboard from_set,
                          MoveList *scratch);

/* Number of legal moves, without building quiet moves (bulk counting). */
static inline int pc_count_moves(const Position *pos, const RuleOptions *rules, MoveList *scratch) {
    int us = pos->stm;
    Bitboard own = pos->bb[us];
    if (!(own & pos->kings)) { /* fast path: men only (R6, R7) */
        Bitboard opp = pos->bb[us ^ 1];
        Bitboard empty = PC_VALID & ~(own | opp);
        /* squares from which a jump in each direction exists (+4, +5, -4, -5) */
        Bitboard j0 = (opp & (empty >> 4)) >> 4, j1 = (opp & (empty >> 5)) >> 5;
        Bitboard j2 = (opp & (empty << 4)) << 4, j3 = (opp & (empty << 5)) << 5;
        Bitboard from_any = j0 | j1 | j2 | j3;
        if (!(own & from_any)) {
            if (us == PC_BLACK) return pc_popcount((own << 4) & empty) + pc_popcount((own << 5) & empty);
            return pc_popcount((own >> 4) & empty) + pc_popcount((own >> 5) & empty);
        }
        /* The common case, all first jumps at once (R7): when no landing square
         * has a jump of its own, every first jump is a whole move (R13). */
        Bitboard l0 = (own & j0) << 8, l1 = (own & j1) << 10, l2 = (own & j2) >> 8, l3 = (own & j3) >> 10;
        if (!((l0 | l1 | l2 | l3) & from_any))
            return pc_popcount(l0) + pc_popcount(l1) + pc_popcount(l2) + pc_popcount(l3);
        return pc_count_men_captures(pos, rules, own & from_any, scratch);
    }
    return pc_count_moves_slow(pos, rules, scratch);
}
/* Number of non-capturing moves of the side to move (R6, R8). */
int pc_count_quiet(const Position *pos);
/* Quiet (non-capture) moves of the kings of the given colour. */
int pc_king_mobility(const Position *pos, int colour);

/* Play a move: pieces, side to move, Zobrist key and the R18/R19 counters. */
void pc_make(const Position *pos, const Move *m, Position *out);

/* Play a move, pieces and side to move only (perft). */
static inline void pc_make_fast(const Position *p, const Move *m, Position *o) {
    int us = p->stm, them = us ^ 1;
    Bitboard fb = BIT(m->from), tb = BIT(m->to);
    o->bb[us] = (p->bb[us] & ~fb) | tb;
    o->bb[them] = p->bb[them] & ~m->cap;
    Bitboard k = p->kings & ~m->cap;
    if (k & fb) k = (k & ~fb) | tb;
    else if (tb & pc_promo[us]) k |= tb;
    o->kings = k;
    o->stm = them;
}

/* The Zobrist key of the position after move m (pieces and side to move). */
static inline uint64_t pc_move_key(const Position *pos, const Move *m) {
    int us = pos->stm, them = us ^ 1;
    Bitboard fb = BIT(m->from), tb = BIT(m->to);
    bool was_king = (pos->kings & fb) != 0;
    bool king_after = was_king || (tb & pc_promo[us]) != 0; /* R15 */
    uint64_t key = pos->key ^ pc_zobrist_side ^ pc_zobrist[us * 2 + was_king][m->from];
    for (Bitboard c = m->cap; c; c &= c - 1) {
        int i = pc_lsb(c);
        key ^= pc_zobrist[them * 2 + ((pos->kings >> i) & 1)][i];
    }
    return key ^ pc_zobrist[us * 2 + king_after][m->to];
}

/* The key and the R18/R19 counters of the position after move m, as pc_make
 * sets them; its pieces only when the R19 count needs them (no men on the
 * board).  What the hash table needs before the move is played. */
static inline void pc_make_key(const Position *pos, const Move *m, Position *out) {
    if (!((pos->bb[0] | pos->bb[1]) & ~pos->kings)) {
        pc_make(pos, m, out);
        return;
    }
    out->key = pc_move_key(pos, m);
    /* R18: plies since the last man move or capture. */
    out->halfmove = (m->cap || !(pos->kings & BIT(m->from))) ? 0 : pos->halfmove + 1;
    out->tk_count = 0; /* R19: with men on the board before the move, no count after it */
}

/* Squares (1..32) of a move, for the binding and the tests. */
static inline int pc_move_from_sq(const Move *m) { return pc_idx_to_sq[m->from]; }
static inline int pc_move_to_sq(const Move *m) { return pc_idx_to_sq[m->to]; }

#endif
