/* patterns.h -- pattern evaluation in the way of Scan's: weights over small
 * board regions.
 *
 * A window is a 4x4 block of the board: 4 rows and 4 columns, 8 playable
 * squares, 2 in each row.  Only men count (kings are left to the scalar
 * terms): each of the 8 squares is empty, holds a man of the side the window
 * is seen from ("own") or one of the other side, so a window has
 * 3^8 = 6561 configurations.
 *
 * Windows are named from the side they are seen from: window (row r, k) covers
 * that side's rows r..r+3 counted from its own back row (row 0) and the
 * squares k and k+1 of each row (k = 0..2, counted from its own left, the
 * squares of a row numbered 0..3 as in RULES.md R2).  For Black, cell
 * i = 2a + b of window (r, k) is square 4(r + a) + (k + b) + 1; for White it
 * is the square turned half round, 33 minus that (R2).  A configuration's
 * index is the sum over the cells of 3^i times 0 (empty), 1 (own man) or
 * 2 (the other side's man).
 *
 * The pattern score of a side is the sum of its windows' weights, each window
 * with its own table; the evaluation adds the side to move's score minus the
 * other side's.  One table serves both colours, so the colour flip (the board
 * turned half round, colours swapped) leaves the evaluation unchanged.
 *
 * With two phases (as Scan has) each window has two tables, one for a full
 * board and one for an empty one, and the score is blended by the pieces on
 * the board: (opening * n + ending * (24 - n)) / 24, n = the number of pieces
 * (at most 24), the division rounding towards 0 as C's does (so the colour
 * flip only changes its sign).
 *
 * The windows and their weights are generated from a data file by
 * scripts/gen_pattern_table.py into pattern_table.h (never edited by hand).
 */
#ifndef PC_PATTERNS_H
#define PC_PATTERNS_H

#include "position.h"

#define PC_PATTERN_CELLS 8
#define PC_PATTERN_CONFIGS 6561 /* 3^8 */
#define PC_PATTERN_FULL 24      /* pieces on a full board: the opening phase's share is pieces / 24 */

/* The number of windows and phases of the shipped table, and window j's row and k. */
int pc_pattern_window_count(void);
int pc_pattern_phase_count(void);
void pc_pattern_window(int j, int *row, int *k);

/* Build the index tables (idempotent; pc_eval_init calls it). */
void pc_patterns_init(void);

/* The configuration index of window j seen from colour c (fast: from the bitboards). */
int pc_pattern_index(const Position *pos, int j, int c);

/* Sum of the shipped weights of colour c's windows in a phase (0 = opening), in
 * centi-men, a window at a time (the definition; the evaluation uses the fast
 * pc_pattern_score). */
int pc_pattern_side(const Position *pos, int c, int phase);

/* The phases' sums (sums[0] the opening's) blended by the pieces on the board. */
int pc_pattern_blend(const Position *pos, const int *sums);

/* Black's pattern score minus White's, in centi-men: each phase's sum of
 * Black's minus White's, blended. */
int pc_pattern_score(const Position *pos);

#endif
