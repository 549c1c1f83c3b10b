/* perft.h -- move path enumeration counts (duplicates dropped, R4). */
#ifndef PC_PERFT_H
#define PC_PERFT_H

#include "movegen.h"

/* Leaves at `depth` plies, counting the last two plies in bulk (perft.c).
 * Returns -1 if a position exceeds the move list capacity. */
int64_t pc_perft(const Position *pos, const RuleOptions *rules, int depth);

#endif
