/* eval.h -- static evaluation; every tunable weight lives in EvalWeights. */
#ifndef PC_EVAL_H
#define PC_EVAL_H

#include "position.h"

typedef struct {
    int man;             /* material: a man */
    int king;            /* material: a king */
    int adv[8];          /* a man on its n-th row counted from its own back row */
    int back_rank;       /* a man still guarding its back row while the opponent has men */
    int centre;          /* a man on one of the four centre squares 14, 15, 18, 19 */
    int king_mobility;   /* each square a king can move to (R8) */
    int long_diagonal;   /* a king on the long diagonal 4-8-11-15-18-22-25-29 */
    int runaway;         /* a man with a free path to its king row, scaled by nearness */
    int tempo;           /* having the move */
    int drawish_divisor; /* divides the score of known drawish king endings (2K v 1K, 3K v 1K) */
    int three_v_one_edge; /* 3K v 1K with the lone king off the long diagonal: bonus per R19 move left */
    int patterns;        /* percent of the pattern table's weights (patterns.h); 0 = no pattern term */
    int noise;           /* amplitude of the deterministic evaluation noise (weaker levels) */
    int noise_seed;      /* seed of that noise */
} EvalWeights;

typedef struct {
    const char *name;
    int offset; /* index of the int inside EvalWeights */
} EvalWeightName;

extern const EvalWeightName pc_weight_names[];
extern const int pc_weight_count;

EvalWeights pc_default_weights(void);

/* Build the evaluation tables (idempotent).  Called once at module import, so
 * that searches in several threads never race to build them. */
void pc_eval_init(void);

/* Score in centi-men from the side to move's point of view (a man is 100). */
int pc_evaluate(const Position *pos, const EvalWeights *w, const RuleOptions *rules);

/* What pc_evaluate makes of a positional and material score (side to move's
 * view): the endgame knowledge that no weight or network learns (drawn king
 * endings, 3 kings v 1 king under the R19 count) and the noise of the weaker
 * levels.  The network evaluation (nnue.h) ends here too. */
int pc_eval_end_rules(const Position *pos, const EvalWeights *w, int score);

#endif
