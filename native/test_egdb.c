/* test_egdb.c -- C tests of the endgame tables, run under ASan/UBSan by
 * scripts/native-sanitize.sh: index round trips, a build of up to 3 pieces
 * (plus 3 kings v 1 king) written, read back, verified and probed, and a
 * changed value that verify must find; a material built in slices, merged byte for byte into
 * the file eg_build writes, and the errors of a slice whose inputs are missing. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "egdb.h"

static int failures = 0;
#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            failures++;                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                  \
            fprintf(stderr, "\n");                         \
        }                                                  \
    } while (0)

static void test_index_round_trip(void) {
    EgMaterial mats[] = {{0, 1, 0, 1}, {1, 1, 0, 1}, {2, 0, 1, 1}, {0, 3, 0, 1}, {1, 0, 2, 1}};
    for (size_t k = 0; k < sizeof mats / sizeof *mats; k++) {
        EgIndex ix;
        eg_index_init(&ix, mats[k]);
        uint64_t step = ix.size / 5000 + 1, checked = 0;
        for (uint64_t i = 0; i < ix.size; i += step) {
            uint32_t b, w, kk;
            int stm;
            if (eg_unindex(&ix, i, &b, &w, &kk, &stm)) continue; /* men overlap: not a position */
            EgMaterial m = eg_material_of(b, w, kk);
            CHECK(eg_material_id(m) == eg_material_id(mats[k]), "material of state %llu", (unsigned long long)i);
            CHECK(eg_index_of(&ix, b, w, kk, stm) == i, "round trip of state %llu", (unsigned long long)i);
            checked++;
        }
        CHECK(checked > 0, "no state checked");
    }
    /* R15: a man on its own king row is no position */
    EgIndex ix;
    eg_index_init(&ix, (EgMaterial){1, 0, 0, 1});
    CHECK(eg_index_of(&ix, 1u << 30, 1u, 1u, 0) == UINT64_MAX, "black man on 31");
    CHECK(eg_flip32(1u) == 1u << 31 && eg_flip32(eg_flip32(0x12345678u)) == 0x12345678u, "flip (33 - s)");
}

/* Every material of 2 or 3 pieces in both orientations (each side has a piece) into mats;
 * returns how many (16). */
static int small_materials(EgMaterial *mats) {
    int n = 0;
    for (int p = 2; p <= 3; p++)
        for (int bm = 0; bm <= p; bm++)
            for (int bk = 0; bm + bk <= p; bk++)
                for (int wm = 0; bm + bk + wm <= p; wm++) {
                    int wk = p - bm - bk - wm;
                    if (bm + bk && wm + wk) mats[n++] = (EgMaterial){(uint8_t)bm, (uint8_t)bk, (uint8_t)wm, (uint8_t)wk};
                }
    return n;
}

static void test_build_verify_probe(void) {
    char dir[] = "/tmp/pc_egdb_test_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    RuleOptions r = pc_default_rules();
    EgMaterial mats[32];
    int n = small_materials(mats);
    mats[n++] = (EgMaterial){0, 1, 0, 3}; /* 3 kings v 1 king, given in its mirror orientation */
    char err[1024];
    int rc = eg_build(dir, &r, mats, n, 2, NULL, NULL, err, sizeof err);
    CHECK(rc == 0, "build: %s", err);

    /* read every table back and verify them */
    EgSet *set = eg_set_new(&r);
    for (int i = 0; i < n; i++) {
        EgMaterial m = eg_is_canonical(mats[i]) ? mats[i] : eg_mirror(mats[i]);
        if (eg_set_get(set, m)) continue;
        EgTable *t = eg_read_file(dir, m, &r, err, sizeof err);
        CHECK(t != NULL, "read: %s", err);
        if (t) eg_set_put(set, t);
    }
    for (int i = 0; i < n; i++) {
        EgMaterial m = eg_is_canonical(mats[i]) ? mats[i] : eg_mirror(mats[i]);
        EgTable *t = eg_set_get(set, m);
        if (!t) continue;
        int64_t bad = eg_verify_table(set, t, 2, NULL, err, sizeof err);
        CHECK(bad == 0, "verify %d%d%d%d: %lld bad\n%s", m.bm, m.bk, m.wm, m.wk, (long long)bad, err);
    }
    /* a changed value is found */
    EgTable *kk = eg_set_get(set, (EgMaterial){0, 2, 0, 1});
    if (kk) {
        uint64_t i = 12345 % kk->ix.size;
        kk->code[i] = (uint8_t)(kk->code[i] == 0 ? EG_WIN(3) : 0);
        CHECK(eg_verify_table(set, kk, 1, NULL, err, sizeof err) >= 1, "verify missed a changed value");
    }
    eg_set_free(set);

    /* probes */
    RuleOptions got;
    EgProbe *p = eg_probe_open(dir, &got, err, sizeof err);
    CHECK(p != NULL, "open: %s", err);
    if (p) {
        CHECK(eg_probe_max_pieces(p) == 4, "max pieces");
        Position pos;
        EgResult res;
        /* W:W23:B18 -- White's man must capture the last black piece (R11, R16): win in 1 */
        pc_parse_fen(&pos, "W:W23:B18");
        CHECK(eg_probe(p, &pos, &res) == 0 && res.fresh_value == EG_VALUE_WIN && res.dtz == 1, "W:W23:B18");
        /* the same seen from the other colour (mirror orientation) */
        pc_parse_fen(&pos, "B:W15:B10");
        CHECK(eg_probe(p, &pos, &res) == 0 && res.fresh_value == EG_VALUE_WIN && res.dtz == 1, "B:W15:B10");
        /* 3 kings v 1 king: a fresh win becomes a draw near the end of the R19 count */
        pc_parse_fen(&pos, "W:WK3,K7,K10:BK32");
        CHECK(eg_probe(p, &pos, &res) == 0 && res.fresh_value == EG_VALUE_WIN && res.dtz > 2, "3K v 1K win");
        int dtz = res.dtz;
        pos.tk_count = 13 - (dtz + 2) / 2; /* R19 leaves dtz or dtz + 1 plies: the 2(13-c)-1 >= dtz */
        CHECK(eg_probe(p, &pos, &res) == 0 && res.value == EG_VALUE_WIN, "3K v 1K, count just enough");
        pos.tk_count++;
        CHECK(eg_probe(p, &pos, &res) == 0 && res.value == EG_VALUE_DRAW, "3K v 1K, count too short");
        pc_parse_fen(&pos, "B:W1,2,3:B30,31"); /* 5 pieces: not covered */
        CHECK(eg_probe(p, &pos, &res) == -1, "5 pieces");
        eg_probe_close(p);
    }
    /* other rules: the files are refused */
    RuleOptions other = r;
    other.king_move_limit = 15;
    EgTable *t = eg_read_file(dir, (EgMaterial){0, 1, 0, 1}, &other, err, sizeof err);
    CHECK(t == NULL && strstr(err, "other rules"), "other rules accepted");
    eg_table_free(t);
    /* clean up */
    for (int i = 0; i < n; i++) {
        char path[1024];
        eg_file_name(dir, eg_is_canonical(mats[i]) ? mats[i] : eg_mirror(mats[i]), path, sizeof path);
        remove(path);
    }
    rmdir(dir);
}

static long read_all(const char *path, uint8_t **out) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *out = malloc((size_t)n + 1);
    if (!*out || fread(*out, 1, (size_t)n, f) != (size_t)n) n = -1;
    fclose(f);
    return n;
}

static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

/* 1M1K v 1M (its successors have 3 pieces): slices of at most 20 configurations, highest
 * progress first, merged; the same bytes as the whole build. */
static void test_slices(void) {
    char dir[] = "/tmp/pc_egdb_slices_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    RuleOptions r = pc_default_rules();
    r.king_move_limit = 10;
    EgMaterial mats[32];
    int n = small_materials(mats);
    char err[1024];
    CHECK(eg_build(dir, &r, mats, n, 2, NULL, NULL, err, sizeof err) == 0, "build: %s", err);
    EgMaterial m = {1, 1, 1, 0};
    CHECK(eg_build(dir, &r, &m, 1, 2, NULL, NULL, err, sizeof err) == 0, "build 1110: %s", err);
    char path[1024], whole_path[1100];
    eg_file_name(dir, m, path, sizeof path);
    snprintf(whole_path, sizeof whole_path, "%s.whole", path);
    CHECK(rename(path, whole_path) == 0, "rename");

    int prog[64];
    uint64_t cnt[64];
    int ng = eg_slice_groups(m, prog, cnt, 64);
    CHECK(ng == 13 && prog[0] == 12 && prog[ng - 1] == 0, "groups of 1110: %d", ng);
    /* the lowest progress before the others: its inputs are missing */
    int rc = eg_solve_slice(dir, &r, m, prog[ng - 1], 0, cnt[ng - 1], 1, NULL, err, sizeof err);
    CHECK(rc == -2 && strstr(err, "slice missing") && strstr(err, "progress 1"), "missing slice: %d %s", rc, err);
    /* without a successor's table */
    char succ[1024], aside[1100];
    eg_file_name(dir, (EgMaterial){0, 2, 1, 0}, succ, sizeof succ);
    snprintf(aside, sizeof aside, "%s.aside", succ);
    CHECK(rename(succ, aside) == 0, "rename");
    rc = eg_solve_slice(dir, &r, m, prog[0], 0, cnt[0], 1, NULL, err, sizeof err);
    CHECK(rc == -2 && strstr(err, "egdb_0210.pcdb"), "missing material: %d %s", rc, err);
    CHECK(rename(aside, succ) == 0, "rename back");
    /* no slices of a kings-only material, none out of range */
    CHECK(eg_solve_slice(dir, &r, (EgMaterial){0, 2, 0, 1}, 0, 0, 1, 1, NULL, err, sizeof err) == -9, "kings only");
    CHECK(eg_solve_slice(dir, &r, m, prog[0], cnt[0], 1, 1, NULL, err, sizeof err) == -10, "out of range");
    int slices = 0;
    uint64_t done = 0;
    for (int g = 0; g < ng; g++)
        for (uint64_t first = 0; first < cnt[g]; first += 20) {
            uint64_t c = cnt[g] - first < 20 ? cnt[g] - first : 20;
            rc = eg_solve_slice(dir, &r, m, prog[g], first, c, 2, &done, err, sizeof err);
            CHECK(rc == 0, "slice p%d %llu: %s", prog[g], (unsigned long long)first, err);
            slices++;
        }
    CHECK(slices > ng, "some progress value in several slices");
    EgIndex ix;
    eg_index_init(&ix, m);
    uint64_t valid = 0;
    for (int g = 0; g < ng; g++) valid += cnt[g] * 2 * ix.kp;
    /* every state counted twice, as in eg_build: its zeroing moves, then its levels */
    CHECK(done == 2 * valid, "states done %llu of %llu", (unsigned long long)done, (unsigned long long)valid);
    CHECK(eg_merge_slices(dir, &r, m, 2, err, sizeof err) == 0, "merge: %s", err);
    uint8_t *a = NULL, *b = NULL;
    long na = read_all(whole_path, &a), nb = read_all(path, &b);
    CHECK(na > 0 && na == nb && memcmp(a, b, (size_t)na) == 0, "merged file differs: %ld %ld bytes", na, nb);
    free(a);
    free(b);
    remove_dir(dir);
}

int main(void) {
    eg_init();
    test_index_round_trip();
    test_build_verify_probe();
    test_slices();
    if (failures) {
        fprintf(stderr, "test_egdb: %d failures\n", failures);
        return 1;
    }
    printf("test_egdb: all tests passed\n");
    return 0;
}
