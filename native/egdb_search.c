/* egdb_search.c -- probing the endgame tables from the search (see egdb_search.h). */
#include "egdb_search.h"

#include <stdatomic.h>

#include "egdb.h"

static _Atomic(EgProbe *) active = NULL;
static RuleOptions active_rules;
static atomic_int active_pieces = 0;
static atomic_ullong hits = 0;

void pc_egdb_search_set(EgProbe *p, const RuleOptions *rules) {
    atomic_store(&active, NULL);
    if (!p) return;
    active_rules = *rules;
    atomic_store(&active_pieces, eg_probe_max_pieces(p));
    atomic_store(&active, p);
}

void pc_egdb_search_release(EgProbe *p) {
    EgProbe *cur = p;
    atomic_compare_exchange_strong(&active, &cur, NULL);
}

uint64_t pc_egdb_search_hits(void) { return atomic_load(&hits); }

int pc_egdb_search_probe(const Position *pos, const RuleOptions *rules, int ply, int *score) {
    EgProbe *p = atomic_load_explicit(&active, memory_order_acquire);
    if (!p || pc_popcount(pos->bb[0] | pos->bb[1]) > atomic_load_explicit(&active_pieces, memory_order_relaxed))
        return 0;
    if (rules->crown_stop != active_rules.crown_stop || rules->three_kings_loss != active_rules.three_kings_loss ||
        rules->king_move_limit != active_rules.king_move_limit)
        return 0;
    EgResult r;
    if (eg_probe(p, pos, &r)) return 0;
    atomic_fetch_add_explicit(&hits, 1, memory_order_relaxed);
    int dtz = r.dtz < 0 ? 0 : r.dtz;
    if (r.value == EG_VALUE_WIN) *score = PC_EGDB_WIN - ply - dtz;
    else if (r.value == EG_VALUE_LOSS) *score = -(PC_EGDB_WIN - ply - dtz);
    else *score = 0;
    return 1;
}
