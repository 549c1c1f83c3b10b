/* tt.c -- a bucketed transposition table: depth-preferred, replacing old searches first. */
#define _DEFAULT_SOURCE /* madvise */
#include "tt.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

int pc_tt_init(TT *tt, size_t mb) {
    size_t bytes = mb * 1024 * 1024;
    size_t buckets = 1;
    while (buckets * 2 * sizeof(TTEntry) * TT_BUCKET <= bytes) buckets *= 2;
    /* One bucket is one 64-byte cache line; large tables are aligned to 2 MB
     * and asked to live on huge pages, which saves most TLB misses. */
    size_t total = buckets * TT_BUCKET * sizeof(TTEntry);
    size_t align = total >= ((size_t)2 << 20) ? ((size_t)2 << 20) : 64;
    tt->table = aligned_alloc(align, total);
    if (!tt->table) {
        tt->buckets = 0;
        return -1;
    }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (align > 64) madvise(tt->table, total, MADV_HUGEPAGE);
#endif
    memset(tt->table, 0, total);
    tt->buckets = buckets;
    tt->age = 0;
    return 0;
}

void pc_tt_free(TT *tt) {
    free(tt->table);
    tt->table = NULL;
    tt->buckets = 0;
}

void pc_tt_clear(TT *tt) {
    if (tt->table) memset(tt->table, 0, tt->buckets * TT_BUCKET * sizeof(TTEntry));
    tt->age = 0;
}

void pc_tt_new_search(TT *tt) { tt->age++; }

void pc_tt_store(TT *tt, uint64_t key, int score, int move, int depth, int bound) {
    TTEntry *b = &tt->table[(key & (tt->buckets - 1)) * TT_BUCKET];
    TTEntry *victim = NULL;
    int worst = 1 << 30;
    for (int i = 0; i < TT_BUCKET; i++) {
        if (b[i].key == key || b[i].bound == TT_NONE) {
            victim = &b[i];
            if (b[i].key == key && move < 0) move = b[i].move; /* keep the old best move */
            break;
        }
        /* Prefer to replace entries of older searches, then shallow ones. */
        int value = b[i].depth - (b[i].age != tt->age ? 64 : 0);
        if (value < worst) {
            worst = value;
            victim = &b[i];
        }
    }
    if (depth < -1) depth = -1;
    if (depth > 127) depth = 127;
    victim->key = key;
    victim->score = (int16_t)score;
    victim->move = (int16_t)move;
    victim->depth = (int8_t)depth;
    victim->bound = (uint8_t)bound;
    victim->age = tt->age;
    victim->pad = 0;
}
