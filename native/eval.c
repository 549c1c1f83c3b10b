/* eval.c -- evaluation of a position for the search.
 *
 * Terms: material, advancement and back-row guard of men, centre, tempo,
 * king mobility (R8) and control of the long diagonal, runaway men (a man
 * that no piece can stop reaching its king row, R15), and endgame knowledge:
 * with flying kings 2 kings v 1 king is a draw and 3 kings v 1 king is only
 * won when the R19 count allows and the lone king cannot hold the long
 * diagonal.  A pattern term (weights over the men's configurations in 4x4
 * windows, patterns.h) is added with the weight `patterns` (percent; 0 = off).
 */
#include "eval.h"

#include "movegen.h"
#include "patterns.h"

#include <stddef.h>

#define W(field) {#field, (int)(offsetof(EvalWeights, field) / sizeof(int))}

const EvalWeightName pc_weight_names[] = {
    W(man),
    W(king),
    {"adv0", (int)(offsetof(EvalWeights, adv) / sizeof(int)) + 0},
    {"adv1", (int)(offsetof(EvalWeights, adv) / sizeof(int)) + 1},
    {"adv2", (int)(offsetof(EvalWeights, adv) / sizeof(int)) + 2},
    {"adv3", (int)(offsetof(EvalWeights, adv) / sizeof(int)) + 3},
    {"adv4", (int)(offsetof(EvalWeights, adv) / sizeof(int)) + 4},
    {"adv5", (int)(offsetof(EvalWeights, adv) / sizeof(int)) + 5},
    {"adv6", (int)(offsetof(EvalWeights, adv) / sizeof(int)) + 6},
    {"adv7", (int)(offsetof(EvalWeights, adv) / sizeof(int)) + 7},
    W(back_rank),
    W(centre),
    W(king_mobility),
    W(long_diagonal),
    W(runaway),
    W(tempo),
    W(drawish_divisor),
    W(three_v_one_edge),
    W(patterns),
    W(noise),
    W(noise_seed),
};
const int pc_weight_count = (int)(sizeof pc_weight_names / sizeof pc_weight_names[0]);

EvalWeights pc_default_weights(void) {
    EvalWeights w = {
        .man = 100,
        /* Texel-fitted (docs/ENGINE.md "Texel tuning"): king, adv1-adv5,
         * back_rank, centre, king_mobility, long_diagonal and tempo; man,
         * adv6 and runaway hand-set. */
        .king = 202,
        .adv = {0, 3, -13, -12, -15, -2, 18, 0},
        .back_rank = 16,
        .centre = 15,
        .king_mobility = -3,
        .long_diagonal = 42,
        .runaway = 40,
        .tempo = -1,
        .drawish_divisor = 16,
        .three_v_one_edge = 4,
        .patterns = 100,
        .noise = 0,
        .noise_seed = 0,
    };
    return w;
}

static int row_of[64];
static Bitboard back_row[2], centre_mask, long_diag_mask;
static Bitboard row_mask[8]; /* the squares of each row, row 0 = squares 1-4 */
static bool tables_ready = false;

void pc_eval_init(void) {
    if (tables_ready) return;
    pc_init();
    pc_patterns_init();
    for (int s = 1; s <= 32; s++) {
        row_of[pc_sq_to_idx[s]] = (s - 1) / 4;
        row_mask[(s - 1) / 4] |= BIT(pc_sq_to_idx[s]);
    }
    back_row[PC_BLACK] = pc_from_bits32(0x0000000Fu);
    back_row[PC_WHITE] = pc_from_bits32(0xF0000000u);
    centre_mask = pc_from_bits32((1u << 13) | (1u << 14) | (1u << 17) | (1u << 18));
    static const int diag[8] = {4, 8, 11, 15, 18, 22, 25, 29};
    long_diag_mask = 0;
    for (int i = 0; i < 8; i++) long_diag_mask |= BIT(pc_sq_to_idx[diag[i]]);
    tables_ready = true;
}

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Squares whose one or two squares just ahead for a man of colour c (R6)
 * are empty or off the board. */
static inline Bitboard ahead_free(int c, Bitboard occ) {
    return c == PC_BLACK ? ~(occ >> 4) & ~(occ >> 5) : ~(occ << 4) & ~(occ << 5);
}

/* Squares from which a man of colour c has a free path: its whole cone (the
 * squares ahead it could still pass, R6) is empty.  A square's path is free
 * when each square just ahead of it is empty with a free path; the squares of
 * the king row have none ahead.  Starting from every square, round k makes
 * the rows k+1 away from the king row exact, so seven rounds make all exact
 * (every diagonal step is a constant shift, position.h). */
static inline Bitboard free_paths(int c, Bitboard occ) {
    Bitboard f = PC_VALID;
    for (int k = 0; k < 7; k++) {
        Bitboard g = f & ~occ;
        if (c == PC_BLACK)
            f = PC_VALID & (~(PC_VALID >> 4) | (g >> 4)) & (~(PC_VALID >> 5) | (g >> 5));
        else
            f = PC_VALID & (~(PC_VALID << 4) | (g << 4)) & (~(PC_VALID << 5) | (g << 5));
    }
    return f;
}

static int side_score(const Position *pos, const EvalWeights *w, int c) {
    int them = c ^ 1;
    Bitboard men = pos->bb[c] & ~pos->kings;
    Bitboard kings = pos->bb[c] & pos->kings;
    Bitboard occ = pos->bb[0] | pos->bb[1];
    Bitboard their_men = pos->bb[them] & ~pos->kings;
    bool they_have_kings = (pos->bb[them] & pos->kings) != 0;
    int s = pc_popcount(men) * w->man + pc_popcount(kings) * w->king;
    /* Advancement, a row at a time: adv[n] for each man on its n-th row. */
    for (int r = 0; r < 8; r++) s += pc_popcount(men & row_mask[r]) * w->adv[c == PC_BLACK ? r : 7 - r];
    /* Runaway: nothing stands anywhere ahead of it, and no king can come to meet
     * it (the full test only when some man has the squares just ahead free). */
    if (!they_have_kings && (men & ahead_free(c, occ))) {
        for (Bitboard m = men & free_paths(c, occ); m; m &= m - 1) {
            int i = pc_lsb(m);
            int adv = c == PC_BLACK ? row_of[i] : 7 - row_of[i];
            s += w->runaway * (adv + 1) / 7;
        }
    }
    if (their_men) s += pc_popcount(men & back_row[c]) * w->back_rank;
    s += pc_popcount(men & centre_mask) * w->centre;
    if (kings) {
        s += pc_king_mobility(pos, c) * w->king_mobility;
        s += pc_popcount(kings & long_diag_mask) * w->long_diagonal;
    }
    return s;
}

/* ---- Pattern term: the weights of the men's
 * configurations in 4x4 windows (patterns.h), scaled by w->patterns percent;
 * with no men on the board every window is empty for both sides and the term
 * is 0. */
static inline int pattern_term(const Position *pos, const EvalWeights *w) {
    int p = pc_pattern_score(pos);
    if (pos->stm == PC_WHITE) p = -p;
    return w->patterns == 100 ? p : p * w->patterns / 100;
}

int pc_evaluate(const Position *pos, const EvalWeights *w, const RuleOptions *rules) {
    (void)rules;
    pc_eval_init();
    int us = pos->stm;
    int score = side_score(pos, w, us) - side_score(pos, w, us ^ 1) + w->tempo;
    if (w->patterns) score += pattern_term(pos, w);
    return pc_eval_end_rules(pos, w, score);
}

int pc_eval_end_rules(const Position *pos, const EvalWeights *w, int score) {
    int us = pos->stm;
    Bitboard men = (pos->bb[0] | pos->bb[1]) & ~pos->kings;
    if (!men) {
        int n_us = pc_popcount(pos->bb[us]), n_them = pc_popcount(pos->bb[us ^ 1]);
        int strong = n_us > n_them ? us : us ^ 1;
        int n_strong = n_us > n_them ? n_us : n_them, n_weak = n_us > n_them ? n_them : n_us;
        int div = w->drawish_divisor > 0 ? w->drawish_divisor : 1;
        if (n_weak >= 1 && n_strong <= 2) {
            /* 1K v 1K, 2K v 1K, 2K v 2K: drawn with flying kings.  Exactly 0, so
             * that no line trades into them to dodge the R19 count. */
            return 0;
        } else if (n_weak == 1 && n_strong == 3) {
            Bitboard lone = pos->bb[strong ^ 1];
            if (lone & long_diag_mask) {
                score /= div; /* the lone king holds the long diagonal: drawish (R19) */
            } else {
                /* Winnable only while the R19 count leaves moves. */
                int left = 13 - pos->tk_count;
                if (left < 0) left = 0;
                int edge = w->three_v_one_edge * left;
                score = score / div + (strong == us ? edge : -edge);
            }
        }
    }
    if (w->noise > 0) {
        uint64_t h = mix64(pos->key ^ ((uint64_t)(uint32_t)w->noise_seed * 0x9E3779B97F4A7C15ULL));
        score += (int)(h % (uint64_t)(2 * w->noise + 1)) - w->noise;
    }
    return score;
}
