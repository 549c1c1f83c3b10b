/* egdb_index.c -- materials and the index scheme of the endgame databases.
 *
 * A material is stored in one orientation (eg_is_canonical); its mirror, the
 * board turned half a turn with the colours swapped (square s -> 33 - s, R2),
 * is probed through it.  Within a material a state is
 *
 *     ((men * 2) + side to move) * kp + kings
 *
 * where `men` numbers the black men on squares 1..28 and the white men on
 * 5..32 (a man never stands on its own king row, R15) in the combinatorial
 * number system (configurations where they overlap are unused), and `kings`
 * numbers the black kings among the squares the men leave free, then the
 * white kings among the squares left after that: every king number is a
 * position.  King moves keep `men`, so one men configuration (a "slice") is
 * closed under the non-zeroing plies.
 */
#include <stdio.h>
#include <string.h>

#include "egdb.h"

static uint64_t binom[33][PC_EGDB_MAX_PIECES + 2];
static int eg_ready = 0;

void eg_init(void) {
    if (eg_ready) return;
    pc_init();
    for (int n = 0; n <= 32; n++) {
        binom[n][0] = 1;
        for (int k = 1; k <= PC_EGDB_MAX_PIECES + 1; k++)
            binom[n][k] = n == 0 ? 0 : binom[n - 1][k - 1] + binom[n - 1][k];
    }
    eg_ready = 1;
}

uint64_t eg_binom(int n, int k) {
    if (n < 0 || k < 0 || k > PC_EGDB_MAX_PIECES + 1 || n > 32) return 0;
    return binom[n][k];
}

int eg_material_pieces(EgMaterial m) { return m.bm + m.bk + m.wm + m.wk; }

EgMaterial eg_mirror(EgMaterial m) {
    EgMaterial r = {m.wm, m.wk, m.bm, m.bk};
    return r;
}

int eg_is_canonical(EgMaterial m) {
    int b[3] = {m.bm + m.bk, m.bk, m.bm}, w[3] = {m.wm + m.wk, m.wk, m.wm};
    for (int i = 0; i < 3; i++)
        if (b[i] != w[i]) return b[i] > w[i];
    return 1; /* symmetric: the material is its own mirror */
}

int eg_material_id(EgMaterial m) { return m.bm + 9 * (m.bk + 9 * (m.wm + 9 * m.wk)); }

void eg_material_name(EgMaterial m, char *out) {
    snprintf(out, 5, "%d%d%d%d", m.bm % 10, m.bk % 10, m.wm % 10, m.wk % 10);
}

void eg_index_init(EgIndex *ix, EgMaterial m) {
    eg_init();
    ix->mat = m;
    int nm = m.bm + m.wm;
    ix->n_bmen = eg_binom(28, m.bm);
    ix->n_wmen = eg_binom(28, m.wm);
    ix->kp = eg_binom(32 - nm, m.bk) * eg_binom(32 - nm - m.bk, m.wk);
    ix->size = ix->n_bmen * ix->n_wmen * 2 * ix->kp;
}

EgMaterial eg_material_of(uint32_t black, uint32_t white, uint32_t kings) {
    EgMaterial m;
    m.bm = (uint8_t)pc_popcount(black & ~kings);
    m.bk = (uint8_t)pc_popcount(black & kings);
    m.wm = (uint8_t)pc_popcount(white & ~kings);
    m.wk = (uint8_t)pc_popcount(white & kings);
    return m;
}

uint32_t eg_flip32(uint32_t b) {
    b = ((b >> 1) & 0x55555555u) | ((b & 0x55555555u) << 1);
    b = ((b >> 2) & 0x33333333u) | ((b & 0x33333333u) << 2);
    b = ((b >> 4) & 0x0F0F0F0Fu) | ((b & 0x0F0F0F0Fu) << 4);
    b = ((b >> 8) & 0x00FF00FFu) | ((b & 0x00FF00FFu) << 8);
    return (b >> 16) | (b << 16);
}

/* Colex rank of the set bits of b: sum of C(position, i + 1). */
static inline uint64_t colex(uint32_t b) {
    uint64_t r = 0;
    for (int i = 1; b; i++, b &= b - 1) r += binom[__builtin_ctz(b)][i];
    return r;
}

/* The set of k positions (< n) of colex rank r. */
static inline uint32_t uncolex(uint64_t r, int k, int n) {
    uint32_t b = 0;
    int a = n - 1;
    for (int i = k; i >= 1; i--) {
        while (binom[a][i] > r) a--;
        r -= binom[a][i];
        b |= 1u << a;
        a--;
    }
    return b;
}

/* Ranks of the bits of b among the bits of free (b is a subset of free). */
static inline uint32_t compress_bits(uint32_t b, uint32_t free) {
    uint32_t r = 0;
    for (; b; b &= b - 1) {
        uint32_t low = (b & -b) - 1;
        r |= 1u << pc_popcount(free & low);
    }
    return r;
}

/* The inverse: the bits of free at the ranks set in r. */
static inline uint32_t expand_bits(uint32_t r, uint32_t free) {
    uint32_t out = 0;
    int rank = 0;
    for (; r; r &= r - 1) {
        int t = __builtin_ctz(r);
        for (; rank < t; rank++) free &= free - 1;
        out |= free & -free;
    }
    return out;
}

uint64_t eg_kings_index(const EgIndex *ix, uint32_t men, uint32_t bk, uint32_t wk) {
    uint32_t free = ~men;
    uint32_t free2 = free & ~bk;
    int nm = ix->mat.bm + ix->mat.wm;
    uint64_t rb = colex(compress_bits(bk, free));
    uint64_t rw = colex(compress_bits(wk, free2));
    return rb * eg_binom(32 - nm - ix->mat.bk, ix->mat.wk) + rw;
}

void eg_kings_unindex(const EgIndex *ix, uint32_t men, uint64_t k, uint32_t *bk, uint32_t *wk) {
    int nm = ix->mat.bm + ix->mat.wm;
    uint64_t nw = eg_binom(32 - nm - ix->mat.bk, ix->mat.wk);
    uint32_t free = ~men;
    *bk = expand_bits(uncolex(k / nw, ix->mat.bk, 32 - nm), free);
    *wk = expand_bits(uncolex(k % nw, ix->mat.wk, 32 - nm - ix->mat.bk), free & ~*bk);
}

uint64_t eg_index_of(const EgIndex *ix, uint32_t black, uint32_t white, uint32_t kings, int stm) {
    uint32_t bm = black & ~kings, wm = white & ~kings;
    if ((bm & 0xF0000000u) || (wm & 0x0000000Fu)) return UINT64_MAX; /* R15 */
    uint64_t men = colex(bm) * ix->n_wmen + colex(wm >> 4);
    uint64_t k = eg_kings_index(ix, bm | wm, black & kings, white & kings);
    return ((men * 2) + (uint64_t)stm) * ix->kp + k;
}

void eg_men_unindex(const EgIndex *ix, uint64_t men, uint32_t *bm, uint32_t *wm) {
    *bm = uncolex(men / ix->n_wmen, ix->mat.bm, 28);
    *wm = uncolex(men % ix->n_wmen, ix->mat.wm, 28) << 4;
}

int eg_men_valid(const EgIndex *ix, uint64_t men) {
    uint32_t bm, wm;
    eg_men_unindex(ix, men, &bm, &wm);
    return (bm & wm) == 0;
}

int eg_men_progress(const EgIndex *ix, uint64_t men) {
    uint32_t bm, wm;
    eg_men_unindex(ix, men, &bm, &wm);
    int p = 0;
    for (; bm; bm &= bm - 1) p += __builtin_ctz(bm) / 4;       /* rows towards 29..32 */
    for (; wm; wm &= wm - 1) p += 7 - __builtin_ctz(wm) / 4;   /* rows towards 1..4 */
    return p;
}

int eg_unindex(const EgIndex *ix, uint64_t state, uint32_t *black, uint32_t *white, uint32_t *kings,
               int *stm) {
    if (state >= ix->size) return -1;
    uint64_t k = state % ix->kp;
    uint64_t rest = state / ix->kp;
    *stm = (int)(rest & 1);
    uint64_t men = rest >> 1;
    uint32_t bm, wm, bk, wk;
    eg_men_unindex(ix, men, &bm, &wm);
    if (bm & wm) return -1;
    eg_kings_unindex(ix, bm | wm, k, &bk, &wk);
    *black = bm | bk;
    *white = wm | wk;
    *kings = bk | wk;
    return 0;
}

void eg_frame_init(EgKingFrame *f, const EgIndex *ix, uint32_t men) {
    memset(f, 0, sizeof *f);
    f->men = men;
    f->kb = ix->mat.bk;
    f->kw = ix->mat.wk;
    int nm = ix->mat.bm + ix->mat.wm;
    f->n1 = 32 - nm;
    f->n2 = f->n1 - f->kb;
    f->nw = eg_binom(f->n2, f->kw);
    int r = 0;
    for (int s = 0; s < 32; s++)
        if (!(men >> s & 1)) {
            f->sq[r] = (uint8_t)s;
            f->rank[s] = (uint8_t)r++;
        }
}

void eg_frame_split(const EgKingFrame *f, uint64_t k, uint32_t *cb, uint32_t *cw) {
    *cb = uncolex(k / f->nw, f->kb, f->n1);
    *cw = uncolex(k % f->nw, f->kw, f->n2);
}

uint64_t eg_frame_index(const EgKingFrame *f, uint32_t bk, uint32_t wk) {
    uint32_t cb = 0;
    for (uint32_t x = bk; x; x &= x - 1) cb |= 1u << f->rank[__builtin_ctz(x)];
    uint64_t rw = 0;
    int i = 1;
    for (uint32_t x = wk; x; x &= x - 1, i++) {
        int r = f->rank[__builtin_ctz(x)];
        /* rank among the squares the black kings leave (ascending in r, as colex needs) */
        r -= pc_popcount(cb & ((1u << r) - 1));
        rw += binom[r][i];
    }
    return colex(cb) * f->nw + rw;
}

int eg_fresh_budget(EgMaterial m, int stm, const RuleOptions *rules) {
    int r18 = 2 * rules->king_move_limit;
    int strong = -1;
    if (m.bm == 0 && m.wm == 0) {
        if (m.bk == 3 && m.wk == 1) strong = PC_BLACK;
        if (m.bk == 1 && m.wk == 3) strong = PC_WHITE;
    }
    if (strong < 0) return r18;
    int r19 = stm == strong ? 25 : 26; /* R19: up to and including the 13th move */
    return r19 < r18 ? r19 : r18;
}
