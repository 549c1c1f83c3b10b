/* egdb.h -- endgame databases: index scheme, generator, files and probing.
 *
 * Definitions (docs/EGDB.md).  A position with *fresh counts* has
 * R18 plies h = 0 and R19 moves c = 0.  Its *value* for the side to move is
 * the result of perfect play with every end rule (R16, R18, R19, R21).  A
 * *zeroing ply* is a capture or a man move.  *DTZ* of a win or loss is the
 * number of plies to the first zeroing ply (that ply counted; no legal move
 * is a loss with DTZ 0), the winner choosing the fastest zeroing that keeps
 * the win, the loser delaying it.
 *
 * Between zeroing plies only kings move and the material and the men stay
 * put, so a position and its king moves form a "phase" game whose end rules
 * are a ply budget r: R18 leaves 2L - h plies, R19 (3 kings v 1 king) up to
 * and including the strong side's (13 - c)-th move.  The side to move wins
 * with budget r exactly when its phase distance D (computed by retrograde
 * analysis ignoring the budget, zeroing moves valued by their children's
 * fresh values) is at most r; so one distance per position answers every
 * budget, and the fresh value keeps only D <= the fresh budget.
 *
 * D depends on the rules beyond its phase (its zeroing children's fresh
 * values do: under king_only_move_limit=10 a crowning into a 3 kings v 1 king
 * won in 22 plies draws, R18), so the tables are built per rule set, the file
 * header records it and a probe under other rules is refused; a probe
 * corrects only for the counts running in the current phase (the budgets
 * above, eg_running_value), which is exact since D is in plies, the unit of
 * R18 (R19's moves turned into plies), and nothing resets a count before the
 * zeroing ply that ends the phase.  Below a limit of 13 moves R18 ends
 * 3 kings v 1 king before R19 does, and its end is a draw under either R19
 * option.
 *
 * With three_kings_limit_result = "loss" the end of the R19 count is a loss
 * for the three-king side, which can then still save the game by giving up a
 * king into a drawn 2 kings v 1 king: a second distance B (the fewest plies in
 * which the three-king side forces a zeroing that is at least a draw for it)
 * is stored for 3 kings v 1 king.
 */
#ifndef PC_EGDB_H
#define PC_EGDB_H

#include <stddef.h>
#include <stdint.h>

#include "movegen.h"
#include "position.h"

#define PC_EGDB_MAX_PIECES 8
#define PC_EGDB_FORMAT_VERSION 1
#define PC_EGDB_MAX_LIMIT 63      /* king_only_move_limit the one-byte codes can hold */
#define PC_EGDB_BLOCK 8192        /* states per compressed block */
#define PC_EGDB_NO_B 0            /* B table: the strong side cannot force a draw in time */
#define PC_EGDB_COUNT_ONLY 255    /* B table: lost only by the R19 count (loss option) */

/* One byte per state: 0 draw; a win in d plies (d >= 1) is 2d - 1; a loss in
 * d plies (d >= 0) is 2d + 2. */
#define EG_WIN(d) ((uint8_t)(2 * (d) - 1))
#define EG_LOSS(d) ((uint8_t)(2 * (d) + 2))
static inline int eg_is_win(uint8_t c) { return c & 1; }
static inline int eg_is_loss(uint8_t c) { return c != 0 && !(c & 1); }
static inline int eg_dist(uint8_t c) { return (c & 1) ? (c + 1) / 2 : (c - 2) / 2; }

enum { EG_VALUE_LOSS = -1, EG_VALUE_DRAW = 0, EG_VALUE_WIN = 1 };

/* Material: men and kings of each colour. */
typedef struct {
    uint8_t bm, bk, wm, wk;
} EgMaterial;

/* Index of a material: state = ((men * 2) + side to move) * kp + kings. */
typedef struct {
    EgMaterial mat;
    uint64_t n_bmen, n_wmen; /* combinations of black men on 1..28, white men on 5..32 */
    uint64_t kp;             /* king placements for one men configuration */
    uint64_t size;           /* states, both sides to move */
} EgIndex;

void eg_init(void);
uint64_t eg_binom(int n, int k);
int eg_material_pieces(EgMaterial m);
EgMaterial eg_mirror(EgMaterial m);
/* Whether the material is stored as is (else its mirror, colours swapped, is). */
int eg_is_canonical(EgMaterial m);
int eg_material_id(EgMaterial m); /* 0 .. 9^4-1 */
void eg_material_name(EgMaterial m, char *out); /* "0301": black men, kings, white men, kings */
void eg_index_init(EgIndex *ix, EgMaterial m);
/* Material of public bitboards. */
EgMaterial eg_material_of(uint32_t black, uint32_t white, uint32_t kings);
/* Rotate the board half a turn and swap the colours (square s -> 33 - s). */
uint32_t eg_flip32(uint32_t b);
/* State index of a position of material ix->mat (public bitboards), or UINT64_MAX when a
 * man stands on its own king row. */
uint64_t eg_index_of(const EgIndex *ix, uint32_t black, uint32_t white, uint32_t kings, int stm);
/* Men configuration number of a state and whether it is valid (men do not overlap). */
int eg_men_valid(const EgIndex *ix, uint64_t men);
/* Position of a state (fresh counts); returns 0, or -1 if the state is not a position. */
int eg_unindex(const EgIndex *ix, uint64_t state, uint32_t *black, uint32_t *white, uint32_t *kings,
               int *stm);
/* Kings number of a placement given the men, and back. */
uint64_t eg_kings_index(const EgIndex *ix, uint32_t men, uint32_t bk, uint32_t wk);
void eg_kings_unindex(const EgIndex *ix, uint32_t men, uint64_t k, uint32_t *bk, uint32_t *wk);
/* Men of a configuration number (black men, white men). */
void eg_men_unindex(const EgIndex *ix, uint64_t men, uint32_t *bm, uint32_t *wm);
/* Men progress of a configuration: a man move raises it by exactly one. */
int eg_men_progress(const EgIndex *ix, uint64_t men);

/* The king squares of one men configuration, for indexing its states fast: the generator
 * visits every state of a configuration, and ranking a king among the free squares by
 * counting bits was a fifth of its time.  sq[r] is the r-th free square (0-based bit of the
 * public layout), rank[s] the rank of free square s. */
typedef struct {
    uint32_t men;
    int kb, kw, n1, n2; /* kings of each colour; free squares for the black, the white kings */
    uint64_t nw;        /* white king placements: C(n2, kw) */
    uint8_t sq[32];
    uint8_t rank[32];
} EgKingFrame;

void eg_frame_init(EgKingFrame *f, const EgIndex *ix, uint32_t men);
/* Compressed king sets (bit r = the r-th free square; white among the squares the black kings
 * leave) of king number k, and the king bitboards of compressed sets. */
void eg_frame_split(const EgKingFrame *f, uint64_t k, uint32_t *cb, uint32_t *cw);
static inline void eg_frame_expand(const EgKingFrame *f, uint32_t cb, uint32_t cw, uint32_t *bk,
                                   uint32_t *wk) {
    uint32_t b = 0, w = 0;
    for (uint32_t x = cb; x; x &= x - 1) b |= 1u << f->sq[__builtin_ctz(x)];
    for (uint32_t x = cw; x; x &= x - 1) {
        int r = __builtin_ctz(x);
        /* the r-th square left by the black kings: skip each black rank at or below it */
        for (uint32_t y = cb; y; y &= y - 1) r += __builtin_ctz(y) <= r;
        w |= 1u << f->sq[r];
    }
    *bk = b;
    *wk = w;
}
uint64_t eg_frame_index(const EgKingFrame *f, uint32_t bk, uint32_t wk);

/* Budget in plies that fresh counts leave in material m for the side to move
 * (R18 2L; R19 in 3 kings v 1 king 25 for the strong side to move, 26 else). */
int eg_fresh_budget(EgMaterial m, int stm, const RuleOptions *rules);

/* ---------- tables in memory ---------- */

typedef struct {
    EgIndex ix;
    uint8_t *code;  /* ix.size codes (fresh values and DTZ) */
    uint8_t *btab;  /* 3 kings v 1 king with the loss option: B + 1 per state, or NULL */
} EgTable;

typedef struct EgSet EgSet;
EgSet *eg_set_new(const RuleOptions *rules);
void eg_set_free(EgSet *s);
EgTable *eg_set_get(EgSet *s, EgMaterial canonical);
/* Take ownership of a solved table. */
void eg_set_put(EgSet *s, EgTable *t);
/* Fresh code of a position (public bitboards) from the tables of the set;
 * a side without pieces to move is LOSS(0).  Returns -1 if the table is missing. */
int eg_set_code(EgSet *s, uint32_t black, uint32_t white, uint32_t kings, int stm);
const RuleOptions *eg_set_rules(const EgSet *s);

/* ---------- generator ---------- */

/* Progress: called from the calling thread about ten times a second with the states done
 * and the total; a non-zero return cancels the build. */
typedef int (*EgProgress)(uint64_t done, uint64_t total, const char *material, void *userdata);

/* Build the given materials (any order, any orientation) in dependency order with
 * `threads` threads, writing one file per canonical material into dir.  Materials needed
 * and not in the list are read from dir.  Returns 0, or a negative code (eg_error_text). */
int eg_build(const char *dir, const RuleOptions *rules, const EgMaterial *mats, int n, int threads,
             EgProgress progress, void *userdata, char *errbuf, size_t errlen);
/* Solve one canonical material into t (tables of its successors in s). */
int eg_solve(EgSet *s, EgMaterial m, int threads, EgTable **out, volatile uint64_t *done,
             volatile int *cancel);
/* Threads a table build or check runs on: the number asked, within 1..EG_MAX_THREADS. */
#define EG_MAX_THREADS 16
static inline int eg_thread_count(int threads) {
    return threads < 1 ? 1 : threads > EG_MAX_THREADS ? EG_MAX_THREADS : threads;
}

/* Run fn(arg) on eg_thread_count(threads) threads at once, the calling thread one of them,
 * and return when every one has returned.  fn shares out the work itself (a counter in arg),
 * so a thread that cannot be started is one fewer: the others, at least the caller, do its
 * part. */
void eg_run_threads(void *(*fn)(void *), void *arg, int threads);

/* ---------- slices: one material built in parts (docs/EGDB.md, "7 pieces on a cluster") ----------
 *
 * The men configurations of one progress value read only the other materials' tables and the
 * configurations of progress + 1 (man moves), so a material with men can be solved one
 * progress value at a time, and the configurations of one progress value in any contiguous
 * parts, each on another machine.  A part is a "slice": material, progress, and the
 * configurations first .. first + count - 1 of that progress (in increasing configuration
 * number).  Its codes go to `egdb_<material>.p<progress>.<first>.slice` in the directory; the
 * merge assembles the slice files into the table file, the same bytes eg_build writes. */

/* Progress values of a material's men configurations in solve order (falling): progress[i],
 * with count[i] configurations of 2 * kp states each.  Returns how many (at most max). */
int eg_slice_groups(EgMaterial canonical, int *progress, uint64_t *count, int max);
/* Solve one slice of a canonical material with men from the files in dir: the other materials'
 * tables and the slice files of progress + 1.  Returns 0, or a negative code with a message
 * naming what is missing in errbuf. */
int eg_solve_slice(const char *dir, const RuleOptions *rules, EgMaterial canonical, int progress,
                   uint64_t first, uint64_t count, int threads, volatile uint64_t *done, char *errbuf,
                   size_t errlen);
/* Write the material's table file from its slice files (every configuration covered). */
int eg_merge_slices(const char *dir, const RuleOptions *rules, EgMaterial canonical, int threads,
                    char *errbuf, size_t errlen);
/* Slice files (egdb_io.c): the codes of configurations men[0 .. count - 1] of table t (their
 * numbers), which are first .. of the n of progress `progress`. */
int eg_write_slice(const char *dir, const RuleOptions *rules, const EgTable *t, int progress,
                   uint64_t first, uint64_t n, const uint64_t *men, uint64_t count, char *errbuf,
                   size_t errlen);
/* Read every slice file of progress `progress` in dir into t->code; men: the numbers of the n
 * configurations of that progress in order.  -2 with the uncovered configurations in errbuf
 * when the files do not cover them all. */
int eg_read_slices(const char *dir, const RuleOptions *rules, EgTable *t, int progress,
                   const uint64_t *men, uint64_t n, char *errbuf, size_t errlen);

/* ---------- files ---------- */

int eg_write_file(const char *dir, const RuleOptions *rules, const EgTable *t, int threads, char *errbuf,
                  size_t errlen);
/* Read a whole table from dir; NULL with a message in errbuf if absent or different rules. */
EgTable *eg_read_file(const char *dir, EgMaterial canonical, const RuleOptions *rules, char *errbuf,
                      size_t errlen);
void eg_table_free(EgTable *t);
void eg_file_name(const char *dir, EgMaterial m, char *out, size_t len);

/* ---------- probing ---------- */

typedef struct EgProbe EgProbe;
/* Open every table file of dir; NULL (message in errbuf) when none can be read.  The rules of
 * the files are in *rules_out.  Thread-safe probing. */
EgProbe *eg_probe_open(const char *dir, RuleOptions *rules_out, char *errbuf, size_t errlen);
void eg_probe_close(EgProbe *p);
int eg_probe_max_pieces(const EgProbe *p);
/* Number of tables and the material of the i-th one. */
int eg_probe_count(const EgProbe *p);
EgMaterial eg_probe_material(const EgProbe *p, int i);

typedef struct {
    int fresh_value; /* EG_VALUE_* with fresh counts */
    int dtz;         /* DTZ of the fresh value, -1 for a draw */
    int value;       /* with the position's running counts (halfmove, tk_count) */
    int b;           /* 3 kings v 1 king, option "loss": B (fewest plies to a saving zeroing
                        ply of the three-king side), -1 when none in time or not stored */
} EgResult;

/* Probe a position (counts from pos->halfmove and pos->tk_count).  Returns 0, or -1 when no
 * table covers it. */
int eg_probe(EgProbe *p, const Position *pos, EgResult *out);
/* Fresh code only (for the search): -1 if not covered. */
int eg_probe_code(EgProbe *p, uint32_t black, uint32_t white, uint32_t kings, int stm);
/* Value with running counts from a code (and the B code for 3 kings v 1 king). */
int eg_running_value(EgMaterial canonical_mat, int stm, uint8_t code, int bcode, int halfmove,
                     int tk_count, const RuleOptions *rules);

/* ---------- verification ---------- */

/* Re-derive every state of table t from its successors (tables in s); returns the number of
 * states that disagree (the first few printed into errbuf). */
int64_t eg_verify_table(EgSet *s, const EgTable *t, int threads, volatile uint64_t *done, char *errbuf,
                        size_t errlen);

const char *eg_error_text(int code);

#endif
