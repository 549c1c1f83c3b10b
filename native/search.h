/* search.h -- iterative deepening PVS alpha-beta search. */
#ifndef PC_SEARCH_H
#define PC_SEARCH_H

#include <pthread.h>
#include <stdatomic.h>

#include "eval.h"
#include "movegen.h"
#include "nnue.h"
#include "tt.h"

#define PC_MAX_PLY 128
#define PC_MATE 30000
#define PC_MATE_BOUND 29000 /* |score| above this is a win/loss in (PC_MATE - |score|) plies */
#define PC_INF 32000
#define PC_MAX_HISTORY 4096
#define PC_MAX_THREADS 64  /* lazy SMP: the searching thread and up to 63 helpers */
#define PC_MAX_MULTIPV 8   /* lines a multi-PV search reports */
#define PC_BUSY_SLOTS 4096 /* lazy SMP: slots of the table of positions being searched */

typedef struct {
    int depth;     /* maximum depth in plies, 0 = no limit */
    int64_t nodes; /* node budget, 0 = no limit (deterministic) */
    double time;   /* seconds, <= 0 = no limit: the hard stop */
    int multipv;   /* lines to report (best first), 0 or 1 = the best only */
    double soft_time; /* no new depth after this (scaled by the stability of the best
                       * move) nor after half of `time`; <= 0: a fixed time per move,
                       * searched to the hard stop */
} SearchLimits;

typedef struct {
    int score;
    int pv_len;
    Move pv[PC_MAX_PLY];
} SearchLine;

typedef struct {
    int depth;
    int score; /* centi-men, side to move's point of view; mate scores beyond PC_MATE_BOUND */
    int64_t nodes;
    double time;
    int pv_len;
    Move pv[PC_MAX_PLY];
    int lines;                         /* multi-PV: lines in `line`, the first is score/pv */
    SearchLine line[PC_MAX_MULTIPV];
} SearchInfo;

/* Called once per finished depth; a non-zero return stops the search. */
typedef int (*SearchCallback)(const SearchInfo *info, void *userdata);

/* Called every 2^20 nodes (e.g. to let Python handle signals); a non-zero
 * return stops the search. */
typedef int (*SearchPoll)(void *userdata);

typedef struct Searcher Searcher;

/* Lazy SMP: what the threads of one search share (on the main thread's stack).
 * The deepest depth completed by any thread is published with its line;
 * a thread searching a depth that another has completed moves on. */
typedef struct {
    atomic_int abort_all;  /* set by the main thread when its search ends */
    atomic_int done_depth; /* the deepest depth completed by any thread (0: none) */
    atomic_int main_depth; /* the depth the main thread is searching */
    pthread_mutex_t lock;  /* guards done_score and done */
    int done_score;
    SearchLine done;       /* the line of done_depth */
    /* ABDADA's deferral: the keys of the positions the threads are searching
     * (children of nodes of depth >= DEFER_DEPTH, search.c), one slot per
     * key's low bits; 0 = free.  Set only when there are helpers. */
    _Atomic uint64_t busy[PC_BUSY_SLOTS];
} SmpShared;

struct Searcher {
    TT tt;
    bool owns_tt; /* false for a helper thread's searcher, which shares its main one's */
    int threads;  /* 1 + number of helpers (lazy SMP) */
    Searcher *helpers[PC_MAX_THREADS - 1];
    SmpShared *smp; /* lazy SMP: helpers always, the main thread when it takes a helper's depth */
    int helper_id;  /* 0 for the main searcher */
    int iter_depth; /* lazy SMP: the depth being searched (given up when smp->done_depth reaches it) */
    int overtaken;  /* lazy SMP: the search of iter_depth was given up because another thread completed it */
    int64_t deferred; /* lazy SMP: moves put off because another thread was searching them (all threads) */
    int marks_left;   /* lazy SMP: `busy` slots still marked when the search ended (always 0) */
    Position root;
    int max_depth;
    bool root_excluded[PC_MAX_MOVES]; /* multi-PV: root moves of lines already found */
    bool excluding;
    SearchPoll poll;
    void *poll_data;
    EvalWeights weights;
    const NnueNet *net;            /* the network evaluation (nnue.h); NULL: the pattern evaluation */
    NnueAcc nnue[PC_MAX_PLY + 1];  /* the network's accumulators, one per ply */
    RuleOptions rules;
    atomic_int stop;
    int aborted;
    int error;
    int64_t nodes, max_nodes;
    double t0, time_limit;
    int completed;
    uint16_t killers[PC_MAX_PLY][2];
    int16_t skipped[PC_MAX_PLY + 1]; /* singular extension: 1 + the move left out of this ply's search, 0 = none */
    int32_t history[64][64];
    uint64_t keys[PC_MAX_HISTORY + PC_MAX_PLY + 2];
    int root_index; /* index of the root position in keys */
    MoveList lists[PC_MAX_PLY + 1];
    int order[PC_MAX_PLY + 1][PC_MAX_MOVES];
    int sortkeys[PC_MAX_PLY + 1][PC_MAX_MOVES];
    Move pv[PC_MAX_PLY + 1][PC_MAX_PLY + 1];
    int pv_len[PC_MAX_PLY + 1];
    int root_score; /* the score of pv[0] while a root search runs (an unfinished depth's best) */
};

/* A searcher with a transposition table of about hash_mb megabytes, or NULL. */
Searcher *pc_searcher_new(size_t hash_mb);
void pc_searcher_free(Searcher *s);
/* Forget everything learnt (TT, killers, history): the next search is reproducible. */
void pc_searcher_clear(Searcher *s);
/* Search with `threads` threads (lazy SMP: helpers share the hash table);
 * returns 0, or -1 when a helper cannot be allocated (the count is unchanged). */
int pc_searcher_set_threads(Searcher *s, int threads);

/* Search `root`.  `history` holds the keys of the positions since the last
 * irreversible move, oldest first, without the root (repetitions are draws in
 * search).  Returns 0 with the result in *out, -1 when the side to move has no
 * legal move (R16), -2 on an internal limit (move list overflow). */
int pc_search(Searcher *s, const Position *root, const uint64_t *history, int nhistory,
              const SearchLimits *limits, SearchCallback cb, void *userdata, SearchInfo *out);

/* Score every root move with full-window searches of 1..`depth` plies (used
 * by the weaker levels); with a time limit (seconds, 0 = none) or stop() the
 * scores of the last complete depth are kept.  Fills moves and scores;
 * returns the number of moves or a negative code as pc_search. */
int pc_root_scores(Searcher *s, const Position *root, const uint64_t *history, int nhistory,
                   int depth, double time_limit, MoveList *moves, int *scores);

/* The fixed bench: searches each bench position to `depth` with a fresh
 * searcher; returns total nodes (the signature of the search) and seconds. */
int pc_bench(int depth, int64_t *nodes, double *seconds);
/* The same with the network evaluation `net` (NULL: the pattern evaluation). */
int pc_bench_with(int depth, const NnueNet *net, int64_t *nodes, double *seconds);
/* Number of bench positions and the i-th one. */
int pc_bench_count(void);
int pc_bench_position(int i, Position *pos);

double pc_now(void);

#endif
