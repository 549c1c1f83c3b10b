/* egdb_search.h -- the endgame tables inside the native search.
 *
 * Scores: a table win is PC_EGDB_WIN - ply - dtz (below the mate scores,
 * above any evaluation), a loss its negation, a draw 0; the value is the one
 * under the position's running counts (R18, R19), so it is exact.
 */
#ifndef PC_EGDB_SEARCH_H
#define PC_EGDB_SEARCH_H

#include <stdint.h>

#include "position.h"

#define PC_EGDB_WIN 20000

struct EgProbe;
/* Use these tables in every search whose rules match theirs (NULL: none). */
void pc_egdb_search_set(struct EgProbe *p, const RuleOptions *rules);
/* Stop using p (no search may be running with it). */
void pc_egdb_search_release(struct EgProbe *p);
/* 1 with the exact score in *score when the tables cover pos (not called at the root). */
int pc_egdb_search_probe(const Position *pos, const RuleOptions *rules, int ply, int *score);
uint64_t pc_egdb_search_hits(void);

#endif
