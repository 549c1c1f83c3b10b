/* nnue.h -- the network evaluation: an efficiently updatable neural network (NNUE).
 *
 * Inputs: for each of the two sides' views, 128 features, one per (piece kind,
 * square): own man, own king, opponent's man, opponent's king, times the 32
 * squares (R2) as that side sees them.  Black sees the board as it is; White sees
 * it turned half round (square s is 33 - s) with the colours swapped, so that a
 * side's men always move towards square 32 of its own view.
 *
 * Layers (integers only, Stockfish style):
 *   feature transformer   128 -> H int16 (weights shared by both views), plus a
 *                          linear term per feature (int32, "psqt");
 *   clipped ReLU           the side to move's H values then the other side's, 0..127;
 *   dense                  2H -> L2, int8 weights, int32 sums, >> 6, clipped 0..127;
 *   output                 L2 -> 1, int8 weights, plus psqt(us) - psqt(them).
 * The output is in 1/PC_NNUE_OUT_DIV of a man; pc_nnue_output converts it to
 * centi-men (a man = 100, side to move's view), the unit of every margin of the
 * search.
 *
 * The accumulators (the feature transformer's sums for both views) are kept one per
 * ply of the search; each records the bitboards it was computed for, so one is
 * brought to another position by the features that differ (removed and added),
 * whichever position it last held: a full refresh gives the same integers.
 */
#ifndef PC_NNUE_H
#define PC_NNUE_H

#include <stddef.h>

#include "eval.h"
#include "position.h"

#define PC_NNUE_INPUTS 128    /* 4 piece kinds x 32 squares */
#define PC_NNUE_MAX_HIDDEN 256 /* accumulator size per view, a multiple of 8 */
#define PC_NNUE_MAX_L2 32
#define PC_NNUE_VERSION 1
#define PC_NNUE_HEADER 24      /* magic "PCNN", version, inputs, hidden, l2, checksum (u32 LE each) */
#define PC_NNUE_CLIP 127       /* clipped ReLU's top: an activation of 1.0 */
#define PC_NNUE_L1_SHIFT 6     /* dense layer's weights are in 1/64 */
#define PC_NNUE_OUT_DIV (127 * 64) /* output units per man */

typedef struct {
    int hidden, l2;
    uint32_t id; /* serial number: an accumulator holds sums of this network only */
    bool always_refresh; /* compute every accumulator from scratch (tests: same results) */
    int16_t ft_b[PC_NNUE_MAX_HIDDEN];
    int16_t ft_w[PC_NNUE_INPUTS][PC_NNUE_MAX_HIDDEN];
    int32_t psqt[PC_NNUE_INPUTS];
    int32_t l1_b[PC_NNUE_MAX_L2];
    int16_t l1_w[PC_NNUE_MAX_L2][2 * PC_NNUE_MAX_HIDDEN]; /* int8 in the file, widened */
    /* The same by pairs of inputs: [pair][output][2], for the pass that skips pairs
     * of inputs the clipped ReLU left at zero (about half of the inputs are 0). */
    int16_t l1_pairs[PC_NNUE_MAX_HIDDEN][PC_NNUE_MAX_L2][2];
    int32_t out_b;
    int32_t out_w[PC_NNUE_MAX_L2];
} NnueNet;

typedef struct {
    uint32_t net_id;         /* the network of these sums; 0: none yet */
    Bitboard bb[2], kings;   /* the position they are the sums of */
    int32_t psqt[2];         /* [view colour] */
    int16_t v[2][PC_NNUE_MAX_HIDDEN] __attribute__((aligned(32))); /* [view colour] */
} NnueAcc;

/* Size in bytes of a weights file of this shape. */
size_t pc_nnue_file_size(int hidden, int l2);

/* Read a weights file's bytes into *net.  Returns NULL, or a sentence saying what
 * is wrong (size, magic, version, shape, checksum, weights that would overflow the
 * 16-bit accumulators); *net is then unchanged. */
const char *pc_nnue_parse(const uint8_t *data, size_t len, NnueNet *net);

/* Feature index of a piece of colour `colour` (king or not) on square `sq` (1..32)
 * as the side `view` sees it. */
int pc_nnue_feature(int view, int colour, bool king, int sq);

/* The accumulator of `pos` computed from scratch. */
void pc_nnue_refresh(const NnueNet *net, const Position *pos, NnueAcc *acc);

/* Make stack[ply] the accumulator of `pos`, from the cheapest of stack[ply],
 * stack[ply - 1], stack[ply - 2] and stack[ply - 3] (whichever positions they hold)
 * by the features that differ, or from scratch when that is cheaper.  Returns the
 * number of features changed (a refresh counts every piece). */
int pc_nnue_update(const NnueNet *net, const Position *pos, NnueAcc *stack, int ply);

/* The network's output for the side to move of the position of `acc`, in
 * 1/PC_NNUE_OUT_DIV of a man, and that in centi-men. */
int32_t pc_nnue_forward(const NnueNet *net, const NnueAcc *acc, int stm);
int pc_nnue_output(const NnueNet *net, const NnueAcc *acc, int stm);

/* The evaluation with the network in place of the positional and material terms;
 * the end rules of pc_evaluate (drawn king endings, 3 kings v 1 king under the R19
 * count, noise of the weaker levels) are applied the same way. */
int pc_evaluate_nnue(const Position *pos, const EvalWeights *w, const NnueNet *net, NnueAcc *stack,
                     int ply);

#endif
