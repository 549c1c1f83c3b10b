/* position.c -- geometry tables (R1, R2), Zobrist keys and position set-up. */
#include "position.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

int8_t pc_sq_to_idx[33];
int8_t pc_idx_to_sq[64];
int8_t pc_nb[64][4];
Bitboard pc_ray[64][4];
Bitboard pc_promo[2];
uint64_t pc_zobrist[4][64];
uint64_t pc_zobrist_side;
uint64_t pc_zobrist_counter[64];

static bool initialised = false;

static uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* R2: square s lies on row (s-1)/4; on even rows its column is 2*((s-1)%4)+1,
 * on odd rows 2*((s-1)%4). */
static int square_at(int row, int col) {
    if (row < 0 || row > 7 || col < 0 || col > 7) return 0;
    if (((row + col) & 1) == 0) return 0; /* light square */
    return row * 4 + col / 2 + 1;
}

void pc_init(void) {
    if (initialised) return;
    static const int drow[4] = {1, 1, -1, -1};
    static const int dcol[4] = {-1, 1, 1, -1};
    memset(pc_idx_to_sq, 0, sizeof pc_idx_to_sq);
    memset(pc_nb, -1, sizeof pc_nb);
    memset(pc_ray, 0, sizeof pc_ray);
    for (int s = 1; s <= 32; s++) {
        int r = (s - 1) / 4, k = (s - 1) % 4;
        int idx = 4 * r + k + r / 2;
        pc_sq_to_idx[s] = (int8_t)idx;
        pc_idx_to_sq[idx] = (int8_t)s;
    }
    pc_sq_to_idx[0] = -1;
    for (int s = 1; s <= 32; s++) {
        int r = (s - 1) / 4, k = (s - 1) % 4;
        int col = (r % 2 == 0) ? 2 * k + 1 : 2 * k;
        int idx = pc_sq_to_idx[s];
        for (int d = 0; d < 4; d++) {
            int t = square_at(r + drow[d], col + dcol[d]);
            pc_nb[idx][d] = t ? pc_sq_to_idx[t] : -1;
            int rr = r + drow[d], cc = col + dcol[d];
            Bitboard ray = 0;
            for (int u; (u = square_at(rr, cc)) != 0; rr += drow[d], cc += dcol[d])
                ray |= BIT(pc_sq_to_idx[u]);
            pc_ray[idx][d] = ray;
        }
    }
    pc_promo[PC_BLACK] = pc_from_bits32(0xF0000000u); /* squares 29-32 */
    pc_promo[PC_WHITE] = pc_from_bits32(0x0000000Fu); /* squares 1-4 */
    uint64_t st = 0x5EED0F9C4EC8E125ULL;
    for (int p = 0; p < 4; p++)
        for (int i = 0; i < 64; i++) pc_zobrist[p][i] = splitmix(&st);
    pc_zobrist_side = splitmix(&st);
    for (int i = 0; i < 64; i++) pc_zobrist_counter[i] = splitmix(&st);
    initialised = true;
}

RuleOptions pc_default_rules(void) {
    RuleOptions r = {false, false, 25, false};
    return r;
}

/* Square s (bit s - 1 of the public layout) is bit (s - 1) + (s - 1) / 8 inside: each block of
 * eight squares (two rows) moves up by the ghost bits below it. */
Bitboard pc_from_bits32(uint32_t b) {
    return (Bitboard)(b & 0xFFu) | ((Bitboard)(b & 0xFF00u) << 1) | ((Bitboard)(b & 0xFF0000u) << 2) |
           ((Bitboard)(b & 0xFF000000u) << 3);
}

uint32_t pc_to_bits32(Bitboard b) {
    return (uint32_t)((b & 0xFFu) | ((b >> 1) & 0xFF00u) | ((b >> 2) & 0xFF0000u) |
                      ((b >> 3) & 0xFF000000u));
}

uint64_t pc_compute_key(const Position *pos) {
    uint64_t k = 0;
    for (int c = 0; c < 2; c++) {
        Bitboard b = pos->bb[c];
        while (b) {
            int i = pc_lsb(b);
            b &= b - 1;
            k ^= pc_zobrist[c * 2 + ((pos->kings >> i) & 1)][i];
        }
    }
    if (pos->stm == PC_WHITE) k ^= pc_zobrist_side;
    return k;
}

int pc_three_v_one(const Position *pos) {
    Bitboard men = (pos->bb[0] | pos->bb[1]) & ~pos->kings;
    if (men) return -1;
    int nb = pc_popcount(pos->bb[PC_BLACK]), nw = pc_popcount(pos->bb[PC_WHITE]);
    if (nb == 3 && nw == 1) return PC_BLACK;
    if (nw == 3 && nb == 1) return PC_WHITE;
    return -1;
}

int pc_set(Position *pos, uint32_t black, uint32_t white, uint32_t kings, int turn, int halfmove,
           int tk_count) {
    pc_init();
    if (black & white) return -1;
    if (kings & ~(black | white)) return -2;
    if (turn != PC_BLACK && turn != PC_WHITE) return -3;
    if (halfmove < 0 || halfmove > 100000) return -4;
    if (tk_count < 0 || tk_count > 100000) return -5;
    pos->bb[PC_BLACK] = pc_from_bits32(black);
    pos->bb[PC_WHITE] = pc_from_bits32(white);
    pos->kings = pc_from_bits32(kings);
    pos->stm = turn;
    pos->halfmove = halfmove;
    pos->tk_count = tk_count;
    pos->key = pc_compute_key(pos);
    return 0;
}

const char *pc_error_text(int code) {
    switch (code) {
        case 0: return "ok";
        case -1: return "a square holds both a black and a white piece (R2)";
        case -2: return "a king bit is set on an empty square (R2)";
        case -3: return "turn must be 0 (Black) or 1 (White) (R3)";
        case -4: return "the R18 halfmove clock is out of range";
        case -5: return "the R19 three-kings count is out of range";
        case -10: return "FEN: expected side to move 'B' or 'W' (R5)";
        case -11: return "FEN: expected ':' after the side to move (R5)";
        case -12: return "FEN: expected a colour 'B' or 'W' before a piece list (R5)";
        case -13: return "FEN: bad square number, must be 1..32 (R2, R5)";
        case -14: return "FEN: a square is listed twice (R5)";
        case -15: return "FEN: unexpected character (R5)";
        default: return "unknown error";
    }
}

int pc_parse_fen(Position *pos, const char *fen) {
    pc_init();
    uint32_t side[2] = {0, 0}, kings = 0;
    const char *p = fen;
    while (*p == ' ') p++;
    int turn;
    if (*p == 'B' || *p == 'b') turn = PC_BLACK;
    else if (*p == 'W' || *p == 'w') turn = PC_WHITE;
    else return -10;
    p++;
    while (*p) {
        if (*p == '.' || *p == ' ' || *p == '\n' || *p == '\r') { p++; continue; }
        if (*p != ':') return -11;
        p++;
        int colour;
        if (*p == 'B' || *p == 'b') colour = PC_BLACK;
        else if (*p == 'W' || *p == 'w') colour = PC_WHITE;
        else if (*p == '\0' || *p == '.') break;
        else return -12;
        p++;
        bool after_comma = false;
        for (;;) {
            bool king = false;
            if (*p == 'K' || *p == 'k') { king = true; p++; }
            if (!isdigit((unsigned char)*p)) {
                if (!king && !after_comma && (*p == ':' || *p == '\0' || *p == '.' || *p == ' ')) break;
                return -13;
            }
            int s = 0;
            while (isdigit((unsigned char)*p) && s < 1000) s = s * 10 + (*p++ - '0');
            if (s < 1 || s > 32) return -13;
            uint32_t b = 1u << (s - 1);
            if ((side[0] | side[1]) & b) return -14;
            side[colour] |= b;
            if (king) kings |= b;
            if (*p == ',') { p++; after_comma = true; continue; }
            if (*p == ':' || *p == '\0' || *p == '.' || *p == ' ') break;
            return -15;
        }
    }
    return pc_set(pos, side[PC_BLACK], side[PC_WHITE], kings, turn, 0, 0);
}
