/* tt.h -- transposition table keyed by Zobrist keys. */
#ifndef PC_TT_H
#define PC_TT_H

#include <stddef.h>

#include "position.h"

enum { TT_NONE = 0, TT_UPPER = 1, TT_LOWER = 2, TT_EXACT = 3 };

typedef struct {
    uint64_t key;
    int16_t score;
    int16_t move;  /* index of the best move in the generated move list, -1 if none */
    int8_t depth;
    uint8_t bound;
    uint8_t age;
    uint8_t pad;
} TTEntry;

#define TT_BUCKET 4 /* 4 x 16 bytes: one cache line */

typedef struct {
    TTEntry *table;
    size_t buckets; /* a power of two */
    uint8_t age;
} TT;

/* Allocate about `mb` megabytes (at least one bucket); returns 0 or -1 on failure. */
int pc_tt_init(TT *tt, size_t mb);
void pc_tt_free(TT *tt);
void pc_tt_clear(TT *tt);
void pc_tt_new_search(TT *tt);
/* Start loading the bucket of `key` into the cache. */
static inline void pc_tt_prefetch(const TT *tt, uint64_t key) {
    __builtin_prefetch(&tt->table[(key & (tt->buckets - 1)) * TT_BUCKET]);
}

/* The entry for `key`, or NULL (inline: it is called at nearly every node). */
static inline const TTEntry *pc_tt_probe(const TT *tt, uint64_t key) {
    const TTEntry *b = &tt->table[(key & (tt->buckets - 1)) * TT_BUCKET];
    for (int i = 0; i < TT_BUCKET; i++)
        if (b[i].key == key && b[i].bound != TT_NONE) return &b[i];
    return NULL;
}
void pc_tt_store(TT *tt, uint64_t key, int score, int move, int depth, int bound);

#endif
