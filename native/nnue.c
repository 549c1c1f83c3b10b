/* nnue.c -- the network evaluation (see nnue.h): the weights file, the
 * accumulators and the forward pass, in integers only.
 *
 * The weights file, little-endian throughout:
 *   header   "PCNN", version, inputs (128), hidden H, l2, FNV-1a of the payload (u32 each)
 *   payload  ft_b int16[H], ft_w int16[128][H], psqt int32[128],
 *            l1_b int32[l2], l1_w int8[l2][2H], out_b int32, out_w int8[l2]
 * The sizes are read from the header and checked against the length, so a file
 * of another shape or a truncated one is refused with a sentence, never read past.
 */
#include "nnue.h"

#include <stdatomic.h>
#include <string.h>

/* The accumulator loops are compiled twice, for AVX2 and for any x86-64, and the
 * loader picks the one this CPU runs (the build stays portable, setup.py); the
 * dense layer has an AVX2 path of its own (below). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define PC_HOT __attribute__((target_clones("avx2", "default")))
#else
#define PC_HOT
#endif

static atomic_uint next_net_id = 1;

size_t pc_nnue_file_size(int hidden, int l2) {
    size_t h = (size_t)hidden, l = (size_t)l2;
    return PC_NNUE_HEADER + 2 * h + 2 * PC_NNUE_INPUTS * h + 4 * PC_NNUE_INPUTS + 4 * l + 2 * h * l + 4 + l;
}

static uint32_t u32_at(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int16_t i16_at(const uint8_t *p) { return (int16_t)(uint16_t)((unsigned)p[0] | (unsigned)p[1] << 8); }

static int32_t i32_at(const uint8_t *p) { return (int32_t)u32_at(p); }

static uint32_t fnv1a(const uint8_t *p, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static int abs32(int32_t x) { return x < 0 ? -x : x; }

const char *pc_nnue_parse(const uint8_t *data, size_t len, NnueNet *net) {
    if (len < PC_NNUE_HEADER) return "too short for the header of a weights file";
    if (memcmp(data, "PCNN", 4) != 0) return "not a network weights file (no PCNN magic)";
    uint32_t version = u32_at(data + 4), inputs = u32_at(data + 8);
    uint32_t hidden = u32_at(data + 12), l2 = u32_at(data + 16);
    if (version != PC_NNUE_VERSION) return "weights file of another format version (this engine reads version 1)";
    if (inputs != PC_NNUE_INPUTS) return "weights file with another number of inputs (this engine has 128)";
    if (hidden < 8 || hidden > PC_NNUE_MAX_HIDDEN || hidden % 8 != 0)
        return "weights file with an accumulator size that is not a multiple of 8 in 8..256";
    if (l2 < 1 || l2 > PC_NNUE_MAX_L2) return "weights file with a dense layer size not in 1..32";
    int h = (int)hidden, l = (int)l2;
    if (len != pc_nnue_file_size(h, l)) return "weights file of the wrong size for the shape in its header";
    const uint8_t *p = data + PC_NNUE_HEADER;
    if (fnv1a(p, len - PC_NNUE_HEADER) != u32_at(data + 20)) return "weights file damaged (checksum mismatch)";
    /* The 16-bit accumulators hold a bias and at most 32 features (a piece on
     * every square): refuse weights that could overflow them, before touching *net. */
    for (int i = 0; i < h; i++) {
        int32_t top = 0;
        for (int f = 0; f < PC_NNUE_INPUTS; f++) {
            int32_t a = abs32(i16_at(p + 2 * h + 2 * ((size_t)f * h + i)));
            if (a > top) top = a;
        }
        if (abs32(i16_at(p + 2 * i)) + 32 * top > 32767)
            return "weights file whose feature weights could overflow the 16-bit accumulators";
    }
    const uint8_t *q = p + 2 * h + 2 * PC_NNUE_INPUTS * h;
    for (int f = 0; f < PC_NNUE_INPUTS; f++)
        if (abs32(i32_at(q + 4 * f)) >= 1 << 24) return "weights file with a linear weight beyond 2^24";
    const uint8_t *r = q + 4 * PC_NNUE_INPUTS;
    for (int j = 0; j < l; j++)
        if (abs32(i32_at(r + 4 * j)) >= 1 << 24) return "weights file with a dense bias beyond 2^24";
    if (abs32(i32_at(r + 4 * l + 2 * h * l)) >= 1 << 24) return "weights file with an output bias beyond 2^24";

    memset(net, 0, sizeof *net);
    net->hidden = h;
    net->l2 = l;
    for (int i = 0; i < h; i++) net->ft_b[i] = i16_at(p + 2 * i);
    p += 2 * h;
    for (int f = 0; f < PC_NNUE_INPUTS; f++)
        for (int i = 0; i < h; i++, p += 2) net->ft_w[f][i] = i16_at(p);
    for (int f = 0; f < PC_NNUE_INPUTS; f++, p += 4) net->psqt[f] = i32_at(p);
    for (int j = 0; j < l; j++, p += 4) net->l1_b[j] = i32_at(p);
    for (int j = 0; j < l; j++)
        for (int i = 0; i < 2 * h; i++, p++) {
            net->l1_w[j][i] = (int8_t)*p;
            net->l1_pairs[i / 2][j][i % 2] = (int8_t)*p;
        }
    net->out_b = i32_at(p);
    p += 4;
    for (int j = 0; j < l; j++, p++) net->out_w[j] = (int8_t)*p;
    net->id = atomic_fetch_add(&next_net_id, 1);
    if (net->id == 0) net->id = atomic_fetch_add(&next_net_id, 1); /* 0 means "no network" */
    return NULL;
}

int pc_nnue_feature(int view, int colour, bool king, int sq) {
    int seen = view == PC_BLACK ? sq : 33 - sq;
    int kind = (colour == view ? 0 : 2) + (king ? 1 : 0);
    return kind * 32 + seen - 1;
}

/* Add (sign 1) or take away (sign -1) the features of a piece in both views. */
static inline void apply_piece(const NnueNet *net, NnueAcc *acc, int colour, bool king, int idx, int sign) {
    int sq = pc_idx_to_sq[idx], h = net->hidden;
    for (int view = 0; view < 2; view++) {
        int f = pc_nnue_feature(view, colour, king, sq);
        const int16_t *w = net->ft_w[f];
        int16_t *v = acc->v[view];
        if (sign > 0) {
            acc->psqt[view] += net->psqt[f];
            for (int i = 0; i < h; i++) v[i] = (int16_t)(v[i] + w[i]);
        } else {
            acc->psqt[view] -= net->psqt[f];
            for (int i = 0; i < h; i++) v[i] = (int16_t)(v[i] - w[i]);
        }
    }
}

/* The four piece sets: Black's men, Black's kings, White's men, White's kings. */
static inline Bitboard piece_set(Bitboard bb, Bitboard kings, int king) { return king ? bb & kings : bb & ~kings; }

PC_HOT void pc_nnue_refresh(const NnueNet *net, const Position *pos, NnueAcc *acc) {
    int h = net->hidden;
    for (int view = 0; view < 2; view++) {
        memcpy(acc->v[view], net->ft_b, sizeof(int16_t) * (size_t)h);
        acc->psqt[view] = 0;
    }
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 2; k++)
            for (Bitboard b = piece_set(pos->bb[c], pos->kings, k); b; b &= b - 1)
                apply_piece(net, acc, c, k, pc_lsb(b), 1);
    acc->bb[0] = pos->bb[0];
    acc->bb[1] = pos->bb[1];
    acc->kings = pos->kings;
    acc->net_id = net->id;
}

/* About the features that differ between the position an accumulator holds and
 * `pos`: the squares whose colour or kind changed (a crowning move counts three
 * for its two features), near enough to choose the nearest accumulator. */
static inline int diff_cost(const NnueAcc *a, const Position *pos) {
    return pc_popcount(a->bb[0] ^ pos->bb[0]) + pc_popcount(a->bb[1] ^ pos->bb[1]) +
           pc_popcount(a->kings ^ pos->kings);
}

PC_HOT int pc_nnue_update(const NnueNet *net, const Position *pos, NnueAcc *stack, int ply) {
    int full = pc_popcount(pos->bb[0] | pos->bb[1]);
    int best = -1, best_cost = full; /* a refresh unless some accumulator is nearer */
    for (int q = ply; q >= 0 && q >= ply - 3 && !net->always_refresh; q--) {
        if (stack[q].net_id != net->id) continue;
        int c = diff_cost(&stack[q], pos);
        if (c < best_cost) {
            best_cost = c;
            best = q;
            if (c == 0) break;
        }
    }
    NnueAcc *acc = &stack[ply];
    if (best < 0) {
        pc_nnue_refresh(net, pos, acc);
        return full;
    }
    if (best != ply) {
        const NnueAcc *from = &stack[best];
        for (int view = 0; view < 2; view++) {
            memcpy(acc->v[view], from->v[view], sizeof(int16_t) * (size_t)net->hidden);
            acc->psqt[view] = from->psqt[view];
        }
        acc->bb[0] = from->bb[0];
        acc->bb[1] = from->bb[1];
        acc->kings = from->kings;
        acc->net_id = net->id;
    }
    int changed = 0;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 2; k++) {
            Bitboard was = piece_set(acc->bb[c], acc->kings, k), now = piece_set(pos->bb[c], pos->kings, k);
            for (Bitboard b = was & ~now; b; b &= b - 1, changed++) apply_piece(net, acc, c, k, pc_lsb(b), -1);
            for (Bitboard b = now & ~was; b; b &= b - 1, changed++) apply_piece(net, acc, c, k, pc_lsb(b), 1);
        }
    acc->bb[0] = pos->bb[0];
    acc->bb[1] = pos->bb[1];
    acc->kings = pos->kings;
    return changed;
}

static inline void clip_into(int16_t *restrict dst, const int16_t *restrict src, int n) {
    for (int i = 0; i < n; i++) {
        int16_t x = src[i];
        x = x > 0 ? x : 0;
        dst[i] = x < PC_NNUE_CLIP ? x : PC_NNUE_CLIP;
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PC_NNUE_AVX2
#include <immintrin.h>

static inline bool cpu_has_avx2(void) {
    static int known = -1; /* the same answer for every thread: a benign race */
    if (known < 0) known = __builtin_cpu_supports("avx2") ? 1 : 0;
    return known == 1;
}

/* The dense layer of the shipped shape (16 outputs) with AVX2: the 16 sums stay in
 * two registers; each pair of inputs is broadcast and multiplied with its 16 pairs
 * of weights (vpmaddwd: a·w_a + b·w_b per output), and a pair the clipped ReLU left
 * at zero (about a quarter of them) is skipped. */
__attribute__((target("avx2"))) static void dense16_avx2(const NnueNet *net, const int16_t *in, int h,
                                                        int32_t *sums) {
    __m256i s0 = _mm256_loadu_si256((const __m256i *)&net->l1_b[0]);
    __m256i s1 = _mm256_loadu_si256((const __m256i *)&net->l1_b[8]);
    for (int p = 0; p < h; p++) {
        int32_t pair;
        memcpy(&pair, in + 2 * p, sizeof pair);
        if (pair == 0) continue;
        __m256i x = _mm256_set1_epi32(pair);
        const __m256i *w = (const __m256i *)net->l1_pairs[p];
        s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(x, _mm256_loadu_si256(w)));
        s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(x, _mm256_loadu_si256(w + 1)));
    }
    _mm256_storeu_si256((__m256i *)&sums[0], s0);
    _mm256_storeu_si256((__m256i *)&sums[8], s1);
}
#endif

int32_t pc_nnue_forward(const NnueNet *net, const NnueAcc *acc, int stm) {
    int h = net->hidden;
    int16_t in[2 * PC_NNUE_MAX_HIDDEN];
    clip_into(in, acc->v[stm], h);
    clip_into(in + h, acc->v[stm ^ 1], h);
    int32_t out = net->out_b + acc->psqt[stm] - acc->psqt[stm ^ 1];
    int32_t sums[PC_NNUE_MAX_L2];
#ifdef PC_NNUE_AVX2
    if (net->l2 == 16 && cpu_has_avx2()) {
        dense16_avx2(net, in, h, sums);
    } else
#endif
    {
        for (int j = 0; j < net->l2; j++) {
            const int16_t *w = net->l1_w[j];
            int32_t s = net->l1_b[j];
            for (int i = 0; i < 2 * h; i++) s += (int32_t)in[i] * w[i];
            sums[j] = s;
        }
    }
    for (int j = 0; j < net->l2; j++) {
        /* Clipped at 0 first, so the shift never meets a negative number. */
        int32_t x = sums[j] <= 0 ? 0 : sums[j] >> PC_NNUE_L1_SHIFT;
        if (x > PC_NNUE_CLIP) x = PC_NNUE_CLIP;
        out += x * net->out_w[j];
    }
    return out;
}

int pc_nnue_output(const NnueNet *net, const NnueAcc *acc, int stm) {
    /* Truncated towards zero (C division), as the numpy reference does. */
    return (int)((int64_t)pc_nnue_forward(net, acc, stm) * 100 / PC_NNUE_OUT_DIV);
}

int pc_evaluate_nnue(const Position *pos, const EvalWeights *w, const NnueNet *net, NnueAcc *stack,
                     int ply) {
    pc_eval_init();
    pc_nnue_update(net, pos, stack, ply);
    return pc_eval_end_rules(pos, w, pc_nnue_output(net, &stack[ply], pos->stm));
}
