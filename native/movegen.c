/* movegen.c -- the fast generator of the native core.
 *
 * Men step forward (R6) and capture forward and backward (R7); kings fly
 * (R8) and capture at a distance (R9) landing where the capture goes on if
 * such a square exists (R10).  Capturing is compulsory (R11) with free choice
 * (R12); sequences are completed (R13); jumped pieces stay on the board as
 * blockers and cannot be jumped twice, and the origin square is empty during
 * its own sequence (R14).  A man ending on its king row is crowned (R15); with
 * crown_during_capture = "stop" it is crowned and stops on reaching it.
 */
#include "movegen.h"

#include <stddef.h>

static inline int first_blocker(Bitboard b, int d) { return d < 2 ? pc_lsb(b) : pc_msb(b); }

/* Squares strictly before the first occupied square along a ray. */
static inline Bitboard ray_attacks(int s, int d, Bitboard occ) {
    Bitboard r = pc_ray[s][d];
    Bitboard b = r & occ;
    if (!b) return r;
    int f = first_blocker(b, d);
    return r & ~(pc_ray[f][d] | BIT(f));
}

typedef struct {
    Bitboard occ; /* every piece except the capturing one (R14: origin is empty) */
    Bitboard opp; /* opposing pieces */
    int from;
    int us;
    bool crown_stop;
    MoveList *list;
    int start; /* first move of this origin in the list (for dedup) */
    Bitboard jumps; /* squares from which a man might jump on (a superset) */
    Bitboard more;  /* the same with a jump onto the empty origin (R14) */
} CapCtx;

static void emit(CapCtx *c, int to, Bitboard cap, bool man) {
    MoveList *l = c->list;
    /* R4: same origin, destination and captured set is one move. */
    for (int i = c->start; i < l->n; i++)
        if (l->m[i].to == to && l->m[i].cap == cap) return;
    if (l->n >= PC_MAX_MOVES) {
        l->overflow = 1;
        return;
    }
    Move *m = &l->m[l->n++];
    m->cap = cap;
    m->from = (uint8_t)c->from;
    m->to = (uint8_t)to;
    m->crown = (uint8_t)(man && (BIT(to) & pc_promo[c->us]) != 0);
    m->pad = 0;
}

/* R7, R13, R15: a man jumps adjacent opposing pieces in any direction. */
static bool man_dfs(CapCtx *c, int s, Bitboard cap) {
    Bitboard avail = c->opp & ~cap;
    Bitboard empty = PC_VALID & ~c->occ;
    Bitboard sb = BIT(s);
    /* Landing squares of the four jumps (+4, +5, -4, -5 steps twice). */
    Bitboard land[4] = {(((sb << 4) & avail) << 4) & empty, (((sb << 5) & avail) << 5) & empty,
                        (((sb >> 4) & avail) >> 4) & empty, (((sb >> 5) & avail) >> 5) & empty};
    if (!(land[0] | land[1] | land[2] | land[3])) return false;
    static const int step[4] = {4, 5, -4, -5};
    for (int d = 0; d < 4; d++) {
        if (!land[d]) continue;
        int l = s + 2 * step[d];
        Bitboard ncap = cap | BIT(s + step[d]);
        if (c->crown_stop && (land[d] & pc_promo[c->us])) {
            emit(c, l, ncap, true); /* option "stop": crowned, the move ends */
        } else if (!(land[d] & (cap ? c->more : c->jumps)) || !man_dfs(c, l, ncap)) {
            emit(c, l, ncap, true);
        }
    }
    return true;
}

/* Whether a king standing on s can jump again (R9), not back along `from_dir`. */
static inline bool king_can_capture(const CapCtx *c, int s, Bitboard cap, int from_dir) {
    Bitboard avail = c->opp & ~cap;
    for (int d = 0; d < 4; d++) {
        if (d == (from_dir ^ 2)) continue; /* back towards the piece just jumped: blocked (R14) */
        Bitboard b = pc_ray[s][d] & c->occ;
        if (!b) continue;
        int f = first_blocker(b, d);
        if (!(avail & BIT(f))) continue;
        int l = pc_nb[f][d];
        if (l >= 0 && !(c->occ & BIT(l))) return true;
    }
    return false;
}

/* R9, R10, R13, R14: a flying king's capture sequences. */
static bool king_dfs(CapCtx *c, int s, Bitboard cap, int from_dir) {
    bool found = false;
    Bitboard avail = c->opp & ~cap;
    for (int d = 0; d < 4; d++) {
        if (from_dir >= 0 && d == (from_dir ^ 2)) continue;
        Bitboard b = pc_ray[s][d] & c->occ;
        if (!b) continue;
        int f = first_blocker(b, d);
        if (!(avail & BIT(f))) continue; /* own piece, or a piece already jumped (R14) */
        Bitboard land = ray_attacks(f, d, c->occ);
        if (!land) continue;
        found = true;
        Bitboard ncap = cap | BIT(f);
        Bitboard cont = 0;
        for (Bitboard t = land; t; t &= t - 1) {
            int l = pc_lsb(t);
            if (king_can_capture(c, l, ncap, d)) cont |= BIT(l);
        }
        if (cont) { /* R10: only squares from which the capture goes on */
            for (; cont; cont &= cont - 1) king_dfs(c, pc_lsb(cont), ncap, d);
        } else {
            for (; land; land &= land - 1) emit(c, pc_lsb(land), ncap, false);
        }
    }
    return found;
}

static inline bool king_has_jump(int s, Bitboard occ, Bitboard opp, Bitboard empty) {
    for (int d = 0; d < 4; d++) {
        Bitboard b = pc_ray[s][d] & occ;
        if (!b) continue;
        int f = first_blocker(b, d);
        if (!(opp & BIT(f))) continue;
        int l = pc_nb[f][d];
        if (l >= 0 && (empty & BIT(l))) return true;
    }
    return false;
}

/* Pieces of the side to move that can capture (R11). */
static inline Bitboard capturers(const Position *pos) {
    int us = pos->stm;
    Bitboard occ = pos->bb[0] | pos->bb[1];
    Bitboard empty = PC_VALID & ~occ;
    Bitboard opp = pos->bb[us ^ 1];
    Bitboard r = men_jumpers(pos->bb[us] & ~pos->kings, opp, empty);
    for (Bitboard k = pos->bb[us] & pos->kings; k; k &= k - 1) {
        int s = pc_lsb(k);
        if (king_has_jump(s, occ, opp, empty)) r |= BIT(s);
    }
    return r;
}

bool pc_kings_have_capture(const Position *pos) {
    int us = pos->stm;
    Bitboard occ = pos->bb[0] | pos->bb[1];
    Bitboard empty = PC_VALID & ~occ;
    Bitboard opp = pos->bb[us ^ 1];
    for (Bitboard k = pos->bb[us] & pos->kings; k; k &= k - 1)
        if (king_has_jump(pc_lsb(k), occ, opp, empty)) return true;
    return false;
}

static void gen_captures(const Position *pos, const RuleOptions *rules, MoveList *list,
                         Bitboard from_set) {
    int us = pos->stm;
    Bitboard all = pos->bb[0] | pos->bb[1];
    CapCtx c;
    c.opp = pos->bb[us ^ 1];
    c.us = us;
    c.crown_stop = rules->crown_stop;
    c.list = list;
    /* A man jumps on from a square next to an opposing piece with an empty
     * square behind it, or, after the first jump, from two steps away from
     * its origin (empty during its own sequence, R14). */
    Bitboard empty = PC_VALID & ~all;
    c.jumps = ((c.opp & (empty >> 4)) >> 4) | ((c.opp & (empty >> 5)) >> 5) |
              ((c.opp & (empty << 4)) << 4) | ((c.opp & (empty << 5)) << 5);
    for (Bitboard p = from_set; p; p &= p - 1) {
        int s = pc_lsb(p);
        Bitboard sb = p & -p;
        c.from = s;
        c.occ = all & ~sb;
        c.start = list->n;
        if (pos->kings & sb) {
            king_dfs(&c, s, 0, -1);
        } else {
            c.more = c.jumps | (sb << 8) | (sb << 10) | (sb >> 8) | (sb >> 10);
            man_dfs(&c, s, 0);
        }
    }
}

/* A piece has at most 13 quiet moves (a king on a long diagonal, R8), so the
 * quiet moves of any position fit in the list. */
_Static_assert(PC_MAX_MOVES >= 32 * 13, "room for every quiet move");

static inline void add_quiet(MoveList *list, int from, int to, bool crown) {
    list->m[list->n++] = (Move){0, (uint8_t)from, (uint8_t)to, (uint8_t)crown, 0};
}

/* Men steps to the squares of t, each from `back` bit indices away (R6, R15). */
static inline void add_steps(MoveList *list, Bitboard t, int back, Bitboard promo) {
    for (; t; t &= t - 1) add_quiet(list, pc_lsb(t) + back, pc_lsb(t), (t & -t & promo) != 0);
}

static void gen_quiet(const Position *pos, MoveList *list) {
    int us = pos->stm;
    Bitboard occ = pos->bb[0] | pos->bb[1];
    Bitboard empty = PC_VALID & ~occ;
    Bitboard men = pos->bb[us] & ~pos->kings;
    Bitboard promo = pc_promo[us];
    /* R6: men one square forward. */
    if (us == PC_BLACK) {
        add_steps(list, (men << 4) & empty, -4, promo);
        add_steps(list, (men << 5) & empty, -5, promo);
    } else {
        add_steps(list, (men >> 4) & empty, 4, promo);
        add_steps(list, (men >> 5) & empty, 5, promo);
    }
    /* R8: flying kings. */
    for (Bitboard k = pos->bb[us] & pos->kings; k; k &= k - 1) {
        int s = pc_lsb(k);
        for (int d = 0; d < 4; d++)
            for (Bitboard t = ray_attacks(s, d, occ); t; t &= t - 1) add_quiet(list, s, pc_lsb(t), false);
    }
}

int pc_gen_moves(const Position *pos, const RuleOptions *rules, MoveList *list) {
    list->n = 0;
    list->overflow = 0;
    Bitboard from_set = capturers(pos);
    if (from_set) gen_captures(pos, rules, list, from_set); /* R11 */
    else gen_quiet(pos, list);
    return list->n;
}

int pc_count_quiet(const Position *pos) {
    int us = pos->stm;
    Bitboard occ = pos->bb[0] | pos->bb[1];
    Bitboard empty = PC_VALID & ~occ;
    Bitboard men = pos->bb[us] & ~pos->kings;
    int n;
    if (us == PC_BLACK) n = pc_popcount((men << 4) & empty) + pc_popcount((men << 5) & empty);
    else n = pc_popcount((men >> 4) & empty) + pc_popcount((men >> 5) & empty);
    for (Bitboard k = pos->bb[us] & pos->kings; k; k &= k - 1) {
        int s = pc_lsb(k);
        for (int d = 0; d < 4; d++) n += pc_popcount(ray_attacks(s, d, occ));
    }
    return n;
}

int pc_king_mobility(const Position *pos, int colour) {
    Bitboard occ = pos->bb[0] | pos->bb[1];
    int n = 0;
    for (Bitboard k = pos->bb[colour] & pos->kings; k; k &= k - 1) {
        int s = pc_lsb(k);
        for (int d = 0; d < 4; d++) n += pc_popcount(ray_attacks(s, d, occ));
    }
    return n;
}

/* Landing squares of jumps in direction d (+4, +5, -4, -5) from the squares of
 * b, and the step of a direction in bit indices. */
#define PC_JUMP2(b, d) ((d) == 0 ? (b) << 8 : (d) == 1 ? (b) << 10 : (d) == 2 ? (b) >> 8 : (b) >> 10)
#define PC_STEP(d) ((d) == 0 ? 4 : (d) == 1 ? 5 : (d) == 2 ? -4 : -5)
#define PC_INLINE static inline __attribute__((always_inline))

/* What the counting of men captures shares: jump[e], the squares from which
 * a man could jump in direction e; go[d], those from which a sequence that
 * arrived by direction d goes on (any way but straight back, and not with the
 * option "stop" on the king row, R15); opp and keep for the cycle test.
 * `out` is NULL to count the moves, or the list that receives them. */
typedef struct {
    Bitboard jump[4], go[4], opp, keep, promo;
    MoveList *out;
} MenJumps;

/* The sequences ending on the squares of `ends` after the jumps of
 * directions d, e, f (e, f < 0: fewer jumps): counted, or added to the list. */
PC_INLINE void men_ends(const MenJumps *j, Bitboard ends, int d, int e, int f, int *n) {
    if (!j->out) {
        *n += pc_popcount(ends);
        return;
    }
    MoveList *l = j->out;
    for (; ends; ends &= ends - 1) {
        int to = pc_lsb(ends), at = to;
        Bitboard cap = 0;
        if (f >= 0) {
            cap |= BIT(at - PC_STEP(f));
            at -= 2 * PC_STEP(f);
        }
        if (e >= 0) {
            cap |= BIT(at - PC_STEP(e));
            at -= 2 * PC_STEP(e);
        }
        cap |= BIT(at - PC_STEP(d));
        at -= 2 * PC_STEP(d);
        Move *m = &l->m[l->n++];
        m->cap = cap;
        m->from = (uint8_t)at;
        m->to = (uint8_t)to;
        m->crown = (uint8_t)((BIT(to) & j->promo) != 0); /* R15 */
        m->pad = 0;
    }
}

/* Third jumps (direction f) after d, e: counted; true when one may go on. */
PC_INLINE bool men_third(const MenJumps *j, Bitboard c2, int d, int e, int f, int *n) {
    Bitboard b3 = PC_JUMP2(c2 & j->jump[f], f);
    if (!b3) return false;
    men_ends(j, b3, d, e, f, n);
    /* A fourth jump: one of go[f], or back onto the empty origin closing the
     * square d, e, -d, -e (R14). */
    Bitboard c3 = b3 & j->go[f];
    if (f == (d ^ 2) && (e & 1) != (d & 1)) {
        Bitboard adj = e == 0 ? j->opp << 4 : e == 1 ? j->opp << 5 : e == 2 ? j->opp >> 4 : j->opp >> 5;
        c3 |= b3 & adj & j->keep;
    }
    return c3 != 0;
}

/* Second jumps (direction e) after d, and the third ones. */
PC_INLINE bool men_second(const MenJumps *j, Bitboard c1, int d, int e, int *n) {
    Bitboard b2 = PC_JUMP2(c1 & j->jump[e], e);
    if (!b2) return false;
    Bitboard c2 = b2 & j->go[e];
    men_ends(j, b2 ^ c2, d, e, -1, n);
    if (!c2) return false;
    return men_third(j, c2, d, e, (e + 3) & 3, n) | men_third(j, c2, d, e, e, n) |
           men_third(j, c2, d, e, (e + 1) & 3, n);
}

/* First jumps (direction d) of the men of from_set, and the ones after. */
PC_INLINE bool men_first(const MenJumps *j, Bitboard from_set, int d, int *n) {
    Bitboard b1 = PC_JUMP2(from_set & j->jump[d], d);
    if (!b1) return false;
    Bitboard c1 = b1 & j->go[d];
    men_ends(j, b1 ^ c1, d, -1, -1, n);
    if (!c1) return false;
    return men_second(j, c1, d, (d + 3) & 3, n) | men_second(j, c1, d, d, n) |
           men_second(j, c1, d, (d + 1) & 3, n);
}

/* Every sequence of up to three jumps of the men of from_set at once, one
 * bitboard per path of directions; true when a sequence may take a fourth
 * piece.  Up to three jumps the board seen by a sequence is the position's
 * (R14): a man cannot jump a piece it already took, nor land on its own
 * origin, before the fourth jump, and only the square just jumped is ruled
 * out (it is straight back), so `jump[e]` tells whether a sequence goes on.
 * Two sequences can only be one move (R4) with a cycle of at least four
 * jumps, so up to three jumps each sequence is a move of its own. */
PC_INLINE bool men_captures(const Position *pos, const RuleOptions *rules, Bitboard from_set,
                            MoveList *out, int *n) {
    int us = pos->stm;
    Bitboard opp = pos->bb[us ^ 1];
    Bitboard empty = PC_VALID & ~(pos->bb[0] | pos->bb[1]);
    MenJumps j;
    j.jump[0] = (opp & (empty >> 4)) >> 4;
    j.jump[1] = (opp & (empty >> 5)) >> 5;
    j.jump[2] = (opp & (empty << 4)) << 4;
    j.jump[3] = (opp & (empty << 5)) << 5;
    j.keep = rules->crown_stop ? ~pc_promo[us] : ~(Bitboard)0;
    j.opp = opp;
    j.promo = pc_promo[us];
    j.out = out;
    for (int d = 0; d < 4; d++) j.go[d] = (j.jump[(d + 3) & 3] | j.jump[d] | j.jump[(d + 1) & 3]) & j.keep;
    return men_first(&j, from_set, 0, n) | men_first(&j, from_set, 1, n) |
           men_first(&j, from_set, 2, n) | men_first(&j, from_set, 3, n);
}

int pc_count_men_captures(const Position *pos, const RuleOptions *rules, Bitboard from_set,
                          MoveList *scratch) {
    int n = 0;
    if (!men_captures(pos, rules, from_set, NULL, &n)) return n;
    scratch->n = 0;
    scratch->overflow = 0;
    gen_captures(pos, rules, scratch, from_set);
    return scratch->n;
}

/* Paths of up to three jumps: 4 + 4*3 + 4*3*3; each holds a sequence per man at most. */
#define PC_SHORT_PATHS 52

bool pc_gen_men_captures_short(const Position *pos, const RuleOptions *rules, Bitboard from_set,
                               MoveList *list) {
    int n = 0;
    list->n = 0;
    list->overflow = 0;
    if (pc_popcount(from_set) * PC_SHORT_PATHS > PC_MAX_MOVES) return false;
    return !men_captures(pos, rules, from_set, list, &n);
}

int pc_count_moves_slow(const Position *pos, const RuleOptions *rules, MoveList *scratch) {
    Bitboard from_set = capturers(pos);
    if (!from_set) return pc_count_quiet(pos);
    if (!(from_set & pos->kings)) return pc_count_men_captures(pos, rules, from_set, scratch);
    scratch->n = 0;
    scratch->overflow = 0;
    gen_captures(pos, rules, scratch, from_set);
    return scratch->n;
}

void pc_make(const Position *pos, const Move *m, Position *out) {
    int us = pos->stm;
    /* R19 needs no men on the board: most positions have some */
    int before = ((pos->bb[0] | pos->bb[1]) & ~pos->kings) ? -1 : pc_three_v_one(pos);
    bool was_king = (pos->kings & BIT(m->from)) != 0;
    out->key = pc_move_key(pos, m);
    pc_make_fast(pos, m, out);
    /* R18: plies since the last man move or capture. */
    out->halfmove = (m->cap || !was_king) ? 0 : pos->halfmove + 1;
    /* R19: moves of the three-king side in 3K v 1K; the move creating the material is not counted. */
    int after = ((out->bb[0] | out->bb[1]) & ~out->kings) ? -1 : pc_three_v_one(out);
    if (after < 0) out->tk_count = 0;
    else if (before == after && !m->cap) out->tk_count = pos->tk_count + (us == after ? 1 : 0);
    else out->tk_count = 0;
}
