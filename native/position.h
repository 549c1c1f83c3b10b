/* position.h -- board representation of the native core.
 *
 * Squares follow RULES.md R2 (1..32, Black at the top).  Internally a square
 * is a bit index in a 64-bit word laid out with "ghost" bits so that every
 * diagonal step is a constant shift:
 *
 *     idx(row r, k) = 4*r + k + r/2      (k = 0..3, position within the row)
 *
 *     +4 = down-left   +5 = down-right   -4 = up-right   -5 = up-left
 *
 * Bits 8, 17 and 26 are ghosts (never a square); bits 0..34 cover the board.
 * "Down" is towards square 32: Black men move down (R6), White men up.
 */
#ifndef PC_POSITION_H
#define PC_POSITION_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t Bitboard;

enum { PC_BLACK = 0, PC_WHITE = 1 };
enum { DIR_DL = 0, DIR_DR = 1, DIR_UR = 2, DIR_UL = 3 }; /* +4, +5, -4, -5 */

#define PC_VALID ((((Bitboard)1 << 35) - 1) & ~(((Bitboard)1 << 8) | ((Bitboard)1 << 17) | ((Bitboard)1 << 26)))
#define BIT(i) ((Bitboard)1 << (i))

/* Rule options of RULES.md section 9. */
typedef struct {
    bool crown_stop;      /* crown_during_capture: false = "pass" (R15), true = "stop" */
    bool three_kings_loss; /* three_kings_limit_result: false = draw (R19), true = loss */
    int king_move_limit;  /* king_only_move_limit in moves per side (R18), default 25 */
    bool repetition_draw; /* repetition_draw option (search scores repeats as draws anyway) */
} RuleOptions;

typedef struct {
    Bitboard bb[2];  /* pieces of each colour (men and kings) */
    Bitboard kings;  /* kings of both colours */
    int stm;         /* side to move, PC_BLACK or PC_WHITE */
    int halfmove;    /* R18: plies since the last man move or capture */
    int tk_count;    /* R19: moves the three-king side has made in 3K v 1K */
    uint64_t key;    /* Zobrist key of (pieces, side to move) */
} Position;

extern int8_t pc_sq_to_idx[33];   /* square 1..32 -> bit index */
extern int8_t pc_idx_to_sq[64];   /* bit index -> square, 0 for ghosts/off-board */
extern int8_t pc_nb[64][4];       /* neighbour of a bit index in a direction, -1 if none */
extern Bitboard pc_ray[64][4];    /* squares strictly beyond a bit index along a direction */
extern Bitboard pc_promo[2];      /* king row of each colour (R15) */
extern uint64_t pc_zobrist[4][64]; /* [colour*2 + is_king][idx] */
extern uint64_t pc_zobrist_side;
extern uint64_t pc_zobrist_counter[64]; /* R19 count and R18 clock, for hash table keys */

void pc_init(void);
RuleOptions pc_default_rules(void);

/* Conversions between the public 32-bit layout (bit s-1 = square s) and the internal one. */
Bitboard pc_from_bits32(uint32_t b);
uint32_t pc_to_bits32(Bitboard b);

uint64_t pc_compute_key(const Position *pos);

/* Build a position from public bitboards; returns 0, or a negative error code
 * (see pc_error_text) when the input is not a position. */
int pc_set(Position *pos, uint32_t black, uint32_t white, uint32_t kings, int turn, int halfmove,
           int tk_count);
const char *pc_error_text(int code);

/* Parse a PDN FEN (R5), e.g. "B:W21,22:B1,K2".  Returns 0 or a negative error code. */
int pc_parse_fen(Position *pos, const char *fen);

/* Material helpers. */
/* Without the POPCNT instruction (the portable build) GCC's builtin is a call into libgcc,
 * which the table generator and the search spend several per cent of their time in; the
 * bit-parallel count inlines to a dozen instructions. */
static inline int pc_popcount(Bitboard b) {
#ifdef __POPCNT__
    return __builtin_popcountll(b);
#else
    b = b - ((b >> 1) & 0x5555555555555555ULL);
    b = (b & 0x3333333333333333ULL) + ((b >> 2) & 0x3333333333333333ULL);
    b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((b * 0x0101010101010101ULL) >> 56);
#endif
}
static inline int pc_lsb(Bitboard b) { return __builtin_ctzll(b); }
static inline int pc_msb(Bitboard b) { return 63 - __builtin_clzll(b); }

/* Colour (0/1) having exactly three kings and no men against one lone king and
 * no men (R19), or -1 when the material is anything else. */
int pc_three_v_one(const Position *pos);

#endif
