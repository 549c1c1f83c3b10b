/* patterns.c -- pattern evaluation over 4x4 windows (see patterns.h).
 *
 * The index of a window comes from the bitboards: the two squares a window
 * holds in a row are neighbours in the internal layout (position.h: index
 * 4r + k + r/2), so one shift and a mask take them, and four rows make an
 * 8-bit word per colour.  Two tables of 256 turn such a word into its part of
 * the base-3 index: for Black's view bit i of the word is cell i; for White's
 * the word is read from the squares turned half round, where the two squares
 * of a row come in the other order, so bit i is cell i ^ 1.
 *
 * Each region of the board is a window of Black's and, turned half round, a
 * window of White's: Black's window (r, k) is White's (4 - r, 2 - k), whose
 * cell 7 - i is Black's cell i with the colours swapped.  The evaluation
 * therefore looks each region up once, from Black's side, in a table built at
 * start: Black's weight of the configuration minus White's of the same men
 * (the generator keeps the window set closed under the half turn).
 */
#include "patterns.h"

#include "pattern_table.h"

#ifdef __BMI2__
#include <immintrin.h>
#endif

static int8_t shift_black[PC_PATTERN_WINDOWS][4]; /* bit index of the row's first square, Black's view */
static int8_t shift_white[PC_PATTERN_WINDOWS][4]; /* the same squares turned half round, White's view */
static Bitboard column_mask[3];  /* squares k and k + 1 of every row (Black's count) */
static int8_t column_shift[3][8]; /* bit index of square k of each row */
static bool column_used[3];      /* whether some window has this k */
static int16_t base3[256], base3_swapped[256];     /* bit i -> 3^i, and bit i -> 3^(i ^ 1) */
/* Black's window j, Black's weight minus White's, for each phase side by side. */
static int16_t region[PC_PATTERN_WINDOWS][PC_PATTERN_CONFIGS][PC_PATTERN_PHASES];
static bool patterns_ready = false;

int pc_pattern_window_count(void) { return PC_PATTERN_WINDOWS; }

int pc_pattern_phase_count(void) { return PC_PATTERN_PHASES; }

void pc_pattern_window(int j, int *row, int *k) {
    *row = pattern_windows[j][0];
    *k = pattern_windows[j][1];
}

void pc_patterns_init(void) {
    if (patterns_ready) return;
    pc_init();
    static const int pow3[PC_PATTERN_CELLS] = {1, 3, 9, 27, 81, 243, 729, 2187};
    for (int b = 0; b < 256; b++) {
        int v = 0, vs = 0;
        for (int i = 0; i < PC_PATTERN_CELLS; i++)
            if (b >> i & 1) v += pow3[i], vs += pow3[i ^ 1];
        base3[b] = (int16_t)v;
        base3_swapped[b] = (int16_t)vs;
    }
    for (int j = 0; j < PC_PATTERN_WINDOWS; j++) {
        int r = pattern_windows[j][0], k = pattern_windows[j][1], turned = -1;
        for (int t = 0; t < PC_PATTERN_WINDOWS; t++)
            if (pattern_windows[t][0] == 4 - r && pattern_windows[t][1] == 2 - k) turned = t;
        for (int c = 0; c < PC_PATTERN_CONFIGS; c++) {
            /* The same men seen from White: cell 7 - i, own and other swapped. */
            int seen = 0;
            for (int i = 0, rest = c; i < PC_PATTERN_CELLS; i++, rest /= 3) {
                int v = rest % 3;
                seen += (v == 0 ? 0 : 3 - v) * pow3[PC_PATTERN_CELLS - 1 - i];
            }
            /* The generator checks the set is closed under the half turn and the
             * weights within +-16000, so the difference fits. */
            for (int ph = 0; ph < PC_PATTERN_PHASES; ph++)
                region[j][c][ph] = (int16_t)(pattern_weights[ph][j][c] -
                                             (turned >= 0 ? pattern_weights[ph][turned][seen] : 0));
        }
        for (int a = 0; a < 4; a++) {
            /* Black: squares 4(r+a)+k+1 and the next; White: those turned half
             * round, 33 - s, of which the lower is 33 - (4(r+a)+k+2). */
            shift_black[j][a] = pc_sq_to_idx[4 * (r + a) + k + 1];
            shift_white[j][a] = pc_sq_to_idx[31 - 4 * (r + a) - k];
        }
    }
    for (int k = 0; k < 3; k++) {
        column_mask[k] = 0;
        column_used[k] = false;
        for (int r = 0; r < 8; r++) {
            column_shift[k][r] = pc_sq_to_idx[4 * r + k + 1];
            column_mask[k] |= (Bitboard)3 << column_shift[k][r];
        }
    }
    for (int j = 0; j < PC_PATTERN_WINDOWS; j++) column_used[pattern_windows[j][1]] = true;
    patterns_ready = true;
}

static inline unsigned gather(Bitboard b, const int8_t *shift) {
    return (unsigned)((b >> shift[0]) & 3) | (unsigned)((b >> shift[1]) & 3) << 2 |
           (unsigned)((b >> shift[2]) & 3) << 4 | (unsigned)((b >> shift[3]) & 3) << 6;
}

int pc_pattern_index(const Position *pos, int j, int c) {
    Bitboard black = pos->bb[PC_BLACK] & ~pos->kings, white = pos->bb[PC_WHITE] & ~pos->kings;
    if (c == PC_BLACK) return base3[gather(black, shift_black[j])] + 2 * base3[gather(white, shift_black[j])];
    return base3_swapped[gather(white, shift_white[j])] + 2 * base3_swapped[gather(black, shift_white[j])];
}

int pc_pattern_side(const Position *pos, int c, int phase) {
    int s = 0;
    for (int j = 0; j < PC_PATTERN_WINDOWS; j++) s += pattern_weights[phase][j][pc_pattern_index(pos, j, c)];
    return s;
}

int pc_pattern_blend(const Position *pos, const int *sums) {
    if (PC_PATTERN_PHASES == 1) return sums[0];
    int pieces = pc_popcount(pos->bb[PC_BLACK] | pos->bb[PC_WHITE]);
    int share = pieces < PC_PATTERN_FULL ? pieces : PC_PATTERN_FULL;
    return (sums[0] * share + sums[PC_PATTERN_PHASES - 1] * (PC_PATTERN_FULL - share)) / PC_PATTERN_FULL;
}

/* The squares k and k + 1 of all eight rows of colour bitboard b as a 16-bit
 * word, bit 2r + b for row r's square k + b: Black's window (r, k) is its
 * bits 2r to 2r + 7.  The squares come in that order in the internal layout,
 * so with BMI2 one parallel bit extract takes them. */
static inline unsigned column_pair(Bitboard b, int k) {
#ifdef __BMI2__
    return (unsigned)_pext_u64(b, column_mask[k]);
#else
    unsigned v = 0;
    for (int r = 0; r < 8; r++) v |= (unsigned)((b >> column_shift[k][r]) & 3) << (2 * r);
    return v;
#endif
}

int pc_pattern_score(const Position *pos) {
    Bitboard black = pos->bb[PC_BLACK] & ~pos->kings, white = pos->bb[PC_WHITE] & ~pos->kings;
    unsigned cb[3] = {0, 0, 0}, cw[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
        if (column_used[k]) cb[k] = column_pair(black, k), cw[k] = column_pair(white, k);
    int sums[PC_PATTERN_PHASES] = {0};
    for (int j = 0; j < PC_PATTERN_WINDOWS; j++) {
        int r = pattern_windows[j][0], k = pattern_windows[j][1];
        const int16_t *w = region[j][base3[(cb[k] >> (2 * r)) & 0xFF] + 2 * base3[(cw[k] >> (2 * r)) & 0xFF]];
        for (int ph = 0; ph < PC_PATTERN_PHASES; ph++) sums[ph] += w[ph];
    }
    return pc_pattern_blend(pos, sums);
}
