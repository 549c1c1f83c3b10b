/* egdb_io.c -- table files and probing.
 *
 * File `egdb_<bm><bk><wm><wk>.pcdb` (one per stored material), little-endian:
 *
 *   0  magic "PCEGDB\r\n"          8 bytes
 *   8  format version             u32 (PC_EGDB_FORMAT_VERSION)
 *  12  material bm bk wm wk       4 x u8
 *  16  crown_stop, three_kings_loss, repetition_draw, 0     4 x u8 (RULES.md section 9)
 *  20  king_only_move_limit       u16, then u16 0
 *  24  states                     u64
 *  32  states per block           u32
 *  36  blocks per table           u32
 *  40  tables                     u32 (1, or 2 with the B table of 3 kings v 1 king)
 *  44  0                          20 bytes, header of 64 bytes
 *  64  block offsets              (blocks + 1) x u64 per table, from the start of the data
 *      data                       zlib streams, one per block of codes
 *
 * A probe reads and inflates one block (at most PC_EGDB_BLOCK bytes) and keeps
 * it in a direct-mapped cache.  repetition_draw is recorded but not compared:
 * it changes no value (along the winner's fastest line the distance falls at
 * every ply, so no position repeats before the zeroing ply).
 */
#define _POSIX_C_SOURCE 200809L /* opendir: the slice files of a progress value */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "egdb.h"

static const char MAGIC[8] = {'P', 'C', 'E', 'G', 'D', 'B', '\r', '\n'};
#define HEADER 64

void eg_file_name(const char *dir, EgMaterial m, char *out, size_t len) {
    char name[8];
    eg_material_name(m, name);
    snprintf(out, len, "%s/egdb_%s.pcdb", dir, name);
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint64_t get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static void header_rules(const uint8_t *h, RuleOptions *r) {
    *r = pc_default_rules();
    r->crown_stop = h[16] != 0;
    r->three_kings_loss = h[17] != 0;
    r->repetition_draw = h[18] != 0;
    r->king_move_limit = h[20] | (h[21] << 8);
}

/* Blocks are compressed by `threads` workers into buffers of their exact size and written in
 * order by the caller: the same bytes as one thread writes (zlib level 9 is deterministic), and
 * the compression, a fifth of a build's time, no longer runs on one core alone. */
typedef struct {
    const EgTable *t;
    uint32_t nblocks;
    int ntab;
    uint8_t **out;  /* ntab * nblocks compressed blocks */
    uLongf *len;
    atomic_uint next;
    atomic_int failed;
} Deflate;

static void *deflate_worker(void *arg) {
    Deflate *d = arg;
    uLong cap = compressBound(PC_EGDB_BLOCK);
    uint8_t *buf = malloc(cap);
    if (!buf) {
        atomic_store(&d->failed, 1);
        return NULL;
    }
    uint32_t total = d->nblocks * (uint32_t)d->ntab;
    for (;;) {
        uint32_t i = atomic_fetch_add(&d->next, 1);
        if (i >= total || atomic_load(&d->failed)) break;
        uint32_t tb = i / d->nblocks, b = i % d->nblocks;
        const uint8_t *src = tb == 0 ? d->t->code : d->t->btab;
        uint64_t lo = (uint64_t)b * PC_EGDB_BLOCK, size = d->t->ix.size;
        uint64_t n = size - lo < PC_EGDB_BLOCK ? size - lo : PC_EGDB_BLOCK;
        uLongf dl = cap;
        if (compress2(buf, &dl, src + lo, (uLong)n, Z_DEFAULT_COMPRESSION) != Z_OK || !(d->out[i] = malloc(dl))) {
            atomic_store(&d->failed, 1);
            break;
        }
        memcpy(d->out[i], buf, dl);
        d->len[i] = dl;
    }
    free(buf);
    return NULL;
}

int eg_write_file(const char *dir, const RuleOptions *rules, const EgTable *t, int threads,
                  char *errbuf, size_t errlen) {
    char path[1024], tmp[1100];
    eg_file_name(dir, t->ix.mat, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    uint64_t size = t->ix.size;
    uint32_t nblocks = (uint32_t)((size + PC_EGDB_BLOCK - 1) / PC_EGDB_BLOCK);
    int ntab = t->btab ? 2 : 1;
    size_t nall = (size_t)nblocks * (size_t)ntab;
    uint64_t *off = calloc((size_t)(nblocks + 1) * (size_t)ntab, sizeof *off);
    Deflate d;
    memset(&d, 0, sizeof d);
    d.t = t;
    d.nblocks = nblocks;
    d.ntab = ntab;
    d.out = calloc(nall ? nall : 1, sizeof *d.out);
    d.len = calloc(nall ? nall : 1, sizeof *d.len);
    int ok = off && d.out && d.len;
    if (ok) {
        eg_run_threads(deflate_worker, &d, threads);
        ok = !atomic_load(&d.failed);
    }
    FILE *f = ok ? fopen(tmp, "wb") : NULL;
    if (!f) {
        if (ok) snprintf(errbuf, errlen, "cannot write %s: %s", tmp, strerror(errno));
        else snprintf(errbuf, errlen, "cannot write %s: out of memory", tmp);
        for (size_t i = 0; d.out && i < nall; i++) free(d.out[i]);
        free(d.out);
        free(d.len);
        free(off);
        return -7;
    }
    uint8_t h[HEADER];
    memset(h, 0, sizeof h);
    memcpy(h, MAGIC, 8);
    put32(h + 8, PC_EGDB_FORMAT_VERSION);
    h[12] = t->ix.mat.bm;
    h[13] = t->ix.mat.bk;
    h[14] = t->ix.mat.wm;
    h[15] = t->ix.mat.wk;
    h[16] = rules->crown_stop ? 1 : 0;
    h[17] = rules->three_kings_loss ? 1 : 0;
    h[18] = rules->repetition_draw ? 1 : 0;
    h[20] = (uint8_t)(rules->king_move_limit & 0xFF);
    h[21] = (uint8_t)(rules->king_move_limit >> 8);
    put64(h + 24, size);
    put32(h + 32, PC_EGDB_BLOCK);
    put32(h + 36, nblocks);
    put32(h + 40, (uint32_t)ntab);
    size_t idx_bytes = (size_t)(nblocks + 1) * (size_t)ntab * 8;
    ok = fwrite(h, 1, HEADER, f) == HEADER;
    ok = ok && fseek(f, (long)(HEADER + idx_bytes), SEEK_SET) == 0;
    uint64_t pos = 0;
    for (int tb = 0; tb < ntab && ok; tb++) {
        for (uint32_t b = 0; b < nblocks && ok; b++) {
            size_t i = (size_t)tb * nblocks + b;
            ok = fwrite(d.out[i], 1, d.len[i], f) == d.len[i];
            off[(size_t)tb * (nblocks + 1) + b] = pos;
            pos += d.len[i];
        }
        off[(size_t)tb * (nblocks + 1) + nblocks] = pos;
    }
    for (size_t i = 0; i < nall; i++) free(d.out[i]);
    free(d.out);
    free(d.len);
    if (ok) {
        uint8_t *ib = malloc(idx_bytes);
        ok = ib != NULL;
        if (ok) {
            for (size_t i = 0; i < idx_bytes / 8; i++) put64(ib + 8 * i, off[i]);
            ok = fseek(f, HEADER, SEEK_SET) == 0 && fwrite(ib, 1, idx_bytes, f) == idx_bytes;
            free(ib);
        }
    }
    ok = (fclose(f) == 0) && ok;
    free(off);
    if (!ok || rename(tmp, path) != 0) {
        snprintf(errbuf, errlen, "cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        return -7;
    }
    return 0;
}

typedef struct {
    EgMaterial mat;
    EgIndex ix;
    RuleOptions rules;
    FILE *f;
    uint32_t nblocks;
    int ntab;
    uint64_t data;    /* file offset of the data */
    uint64_t *off;    /* (nblocks + 1) * ntab */
} EgFile;

static int open_file(const char *path, EgFile *ef, char *errbuf, size_t errlen) {
    memset(ef, 0, sizeof *ef);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(errbuf, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    uint8_t h[HEADER];
    if (fread(h, 1, HEADER, f) != HEADER || memcmp(h, MAGIC, 8) != 0) {
        snprintf(errbuf, errlen, "%s is not an endgame table file", path);
        fclose(f);
        return -1;
    }
    if (get32(h + 8) != PC_EGDB_FORMAT_VERSION) {
        snprintf(errbuf, errlen, "%s has format version %u, this program reads %d", path, get32(h + 8),
                 PC_EGDB_FORMAT_VERSION);
        fclose(f);
        return -1;
    }
    EgMaterial m = {h[12], h[13], h[14], h[15]};
    eg_index_init(&ef->ix, m);
    ef->mat = m;
    header_rules(h, &ef->rules);
    ef->nblocks = get32(h + 36);
    ef->ntab = (int)get32(h + 40);
    if (get64(h + 24) != ef->ix.size || get32(h + 32) != PC_EGDB_BLOCK || ef->ntab < 1 || ef->ntab > 2 ||
        ef->nblocks != (ef->ix.size + PC_EGDB_BLOCK - 1) / PC_EGDB_BLOCK) {
        snprintf(errbuf, errlen, "%s: header does not match its material", path);
        fclose(f);
        return -1;
    }
    size_t n = (size_t)(ef->nblocks + 1) * (size_t)ef->ntab;
    uint8_t *ib = malloc(n * 8);
    ef->off = malloc(n * sizeof *ef->off);
    if (!ib || !ef->off || fread(ib, 8, n, f) != n) {
        snprintf(errbuf, errlen, "%s: truncated index", path);
        free(ib);
        free(ef->off);
        fclose(f);
        return -1;
    }
    for (size_t i = 0; i < n; i++) ef->off[i] = get64(ib + 8 * i);
    free(ib);
    ef->data = HEADER + n * 8;
    ef->f = f;
    return 0;
}

static void close_file(EgFile *ef) {
    if (ef->f) fclose(ef->f);
    free(ef->off);
    ef->f = NULL;
    ef->off = NULL;
}

/* Inflate block b of table tb into out (returns the number of codes, or -1). */
static long read_block(EgFile *ef, int tb, uint32_t b, uint8_t *out, uint8_t *scratch, size_t scratch_len) {
    const uint64_t *o = ef->off + (size_t)tb * (ef->nblocks + 1);
    uint64_t len = o[b + 1] - o[b];
    if (len > scratch_len) return -1;
    if (fseek(ef->f, (long)(ef->data + o[b]), SEEK_SET) != 0) return -1;
    if (fread(scratch, 1, len, ef->f) != len) return -1;
    uint64_t lo = (uint64_t)b * PC_EGDB_BLOCK;
    uLongf n = (uLongf)(ef->ix.size - lo < PC_EGDB_BLOCK ? ef->ix.size - lo : PC_EGDB_BLOCK);
    uLongf got = n;
    if (uncompress(out, &got, scratch, (uLong)len) != Z_OK || got != n) return -1;
    return (long)got;
}

EgTable *eg_read_file(const char *dir, EgMaterial m, const RuleOptions *rules, char *errbuf, size_t errlen) {
    eg_init();
    char path[1024];
    eg_file_name(dir, m, path, sizeof path);
    EgFile ef;
    if (open_file(path, &ef, errbuf, errlen)) return NULL;
    if (rules && !(ef.rules.crown_stop == rules->crown_stop && ef.rules.three_kings_loss == rules->three_kings_loss &&
                   ef.rules.king_move_limit == rules->king_move_limit)) {
        snprintf(errbuf, errlen, "%s was built under other rules", path);
        close_file(&ef);
        return NULL;
    }
    EgTable *t = calloc(1, sizeof *t);
    uLong cap = compressBound(PC_EGDB_BLOCK);
    uint8_t *scratch = malloc(cap);
    if (t) {
        t->ix = ef.ix;
        t->code = malloc((size_t)ef.ix.size);
        if (ef.ntab == 2) t->btab = malloc((size_t)ef.ix.size);
    }
    int ok = t && scratch && t->code && (ef.ntab == 1 || t->btab);
    for (int tb = 0; tb < ef.ntab && ok; tb++)
        for (uint32_t b = 0; b < ef.nblocks && ok; b++)
            ok = read_block(&ef, tb, b, (tb ? t->btab : t->code) + (uint64_t)b * PC_EGDB_BLOCK, scratch, cap) >= 0;
    free(scratch);
    close_file(&ef);
    if (!ok) {
        snprintf(errbuf, errlen, "%s: cannot read (corrupt or out of memory)", path);
        eg_table_free(t);
        return NULL;
    }
    return t;
}

/* ---------- slice files ----------
 *
 * `egdb_<material>.p<progress>.<first>.slice`, little-endian, the codes of some men
 * configurations of one progress value as the generator left them (uncompressed: a slice file
 * lives only until its material is merged):
 *
 *   0  magic "PCEGSLC\n"            8 bytes
 *   8  format version               u32 (1)
 *  12  material bm bk wm wk         4 x u8
 *  16  rules                        as bytes 16..23 of a table file
 *  24  progress                     u32, then u32 0
 *  32  first, count, n              u64 each: configurations first .. first + count - 1 of
 *                                   the n of this progress
 *  56  kp                           u64 (a configuration holds 2 kp codes)
 *  64  codes                        count x 2 kp bytes
 */
static const char SLICE_MAGIC[8] = {'P', 'C', 'E', 'G', 'S', 'L', 'C', '\n'};

static void slice_header(uint8_t *h, const RuleOptions *rules, const EgIndex *ix, int progress,
                         uint64_t first, uint64_t count, uint64_t n) {
    memset(h, 0, HEADER);
    memcpy(h, SLICE_MAGIC, 8);
    put32(h + 8, 1);
    h[12] = ix->mat.bm;
    h[13] = ix->mat.bk;
    h[14] = ix->mat.wm;
    h[15] = ix->mat.wk;
    h[16] = rules->crown_stop ? 1 : 0;
    h[17] = rules->three_kings_loss ? 1 : 0;
    h[18] = rules->repetition_draw ? 1 : 0;
    h[20] = (uint8_t)(rules->king_move_limit & 0xFF);
    h[21] = (uint8_t)(rules->king_move_limit >> 8);
    put32(h + 24, (uint32_t)progress);
    put64(h + 32, first);
    put64(h + 40, count);
    put64(h + 48, n);
    put64(h + 56, ix->kp);
}

int eg_write_slice(const char *dir, const RuleOptions *rules, const EgTable *t, int progress,
                   uint64_t first, uint64_t n, const uint64_t *men, uint64_t count, char *errbuf,
                   size_t errlen) {
    char name[8], path[1024], tmp[1100];
    eg_material_name(t->ix.mat, name);
    snprintf(path, sizeof path, "%s/egdb_%s.p%d.%llu.slice", dir, name, progress, (unsigned long long)first);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    uint8_t h[HEADER];
    slice_header(h, rules, &t->ix, progress, first, count, n);
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(h, 1, HEADER, f) == HEADER;
    size_t len = (size_t)(2 * t->ix.kp);
    for (uint64_t i = 0; i < count && ok; i++) ok = fwrite(t->code + men[i] * len, 1, len, f) == len;
    if (f) ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(errbuf, errlen, "cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        return -7;
    }
    return 0;
}

int eg_read_slices(const char *dir, const RuleOptions *rules, EgTable *t, int progress,
                   const uint64_t *men, uint64_t n, char *errbuf, size_t errlen) {
    char name[8], prefix[64];
    eg_material_name(t->ix.mat, name);
    int plen = snprintf(prefix, sizeof prefix, "egdb_%s.p%d.", name, progress);
    uint8_t *covered = calloc((size_t)(n ? n : 1), 1);
    if (!covered) return -1;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(errbuf, errlen, "cannot read the directory %s: %s", dir, strerror(errno));
        free(covered);
        return -2;
    }
    uint8_t want[HEADER];
    slice_header(want, rules, &t->ix, progress, 0, 0, n);
    size_t len = (size_t)(2 * t->ix.kp);
    int r = 0;
    for (struct dirent *e; !r && (e = readdir(d)) != NULL;) {
        size_t el = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, (size_t)plen) != 0 || el < 6 || strcmp(e->d_name + el - 6, ".slice") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        uint8_t h[HEADER];
        if (!f || fread(h, 1, HEADER, f) != HEADER) {
            snprintf(errbuf, errlen, "cannot read %s: %s", path, f ? "truncated" : strerror(errno));
            r = -2;
        } else if (memcmp(h, want, 24) != 0 || memcmp(h + 24, want + 24, 8) != 0 ||
                   memcmp(h + 48, want + 48, 16) != 0) {
            /* the rules are compared whole: slices are merged byte for byte */
            snprintf(errbuf, errlen, "%s belongs to another build (material, rules or layout differ)", path);
            r = -2;
        } else {
            uint64_t first = get64(h + 32), count = get64(h + 40);
            if (first > n || count > n - first) {
                snprintf(errbuf, errlen, "%s: configurations %llu.. out of range", path, (unsigned long long)first);
                r = -2;
            }
            for (uint64_t i = 0; i < count && !r; i++) {
                if (fread(t->code + men[first + i] * len, 1, len, f) != len) {
                    snprintf(errbuf, errlen, "%s: truncated", path);
                    r = -2;
                }
                covered[first + i] = 1;
            }
        }
        if (f) fclose(f);
    }
    closedir(d);
    for (uint64_t i = 0; i < n && !r; i++) {
        if (covered[i]) continue;
        uint64_t j = i;
        while (j + 1 < n && !covered[j + 1]) j++;
        snprintf(errbuf, errlen,
                 "material %s: slice missing: configurations %llu..%llu of the %llu of progress %d are in "
                 "no slice file (%s/%s*.slice): solve that slice first",
                 name, (unsigned long long)i, (unsigned long long)j, (unsigned long long)n, progress, dir,
                 prefix);
        r = -2;
    }
    free(covered);
    return r;
}

/* ---------- probing ---------- */

#define CACHE_SLOTS 512

typedef struct {
    int32_t file, tb;
    uint32_t block;
    uint8_t data[PC_EGDB_BLOCK];
} CacheSlot;

struct EgProbe {
    RuleOptions rules;
    int nfiles;
    EgFile files[256];
    int16_t by_id[6561];
    int max_pieces;
    pthread_mutex_t lock;
    CacheSlot *cache;
    uint8_t *scratch;
    size_t scratch_len;
};

EgProbe *eg_probe_open(const char *dir, RuleOptions *rules_out, char *errbuf, size_t errlen) {
    eg_init();
    EgProbe *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    memset(p->by_id, -1, sizeof p->by_id);
    p->scratch_len = compressBound(PC_EGDB_BLOCK);
    p->scratch = malloc(p->scratch_len);
    p->cache = malloc(sizeof(CacheSlot) * CACHE_SLOTS);
    if (!p->scratch || !p->cache) {
        eg_probe_close(p);
        return NULL;
    }
    for (int i = 0; i < CACHE_SLOTS; i++) p->cache[i].file = -1;
    pthread_mutex_init(&p->lock, NULL);
    errbuf[0] = 0;
    for (int pieces = 2; pieces <= PC_EGDB_MAX_PIECES; pieces++)
        for (int bm = 0; bm <= pieces; bm++)
            for (int bk = 0; bm + bk <= pieces; bk++)
                for (int wm = 0; bm + bk + wm <= pieces; wm++) {
                    int wk = pieces - bm - bk - wm;
                    EgMaterial m = {(uint8_t)bm, (uint8_t)bk, (uint8_t)wm, (uint8_t)wk};
                    if (bm + bk == 0 || wm + wk == 0 || !eg_is_canonical(m)) continue;
                    char path[1024], err[2048];
                    eg_file_name(dir, m, path, sizeof path);
                    FILE *f = fopen(path, "rb");
                    if (!f) continue;
                    fclose(f);
                    EgFile ef;
                    if (open_file(path, &ef, err, sizeof err)) {
                        snprintf(errbuf, errlen, "%s", err);
                        continue;
                    }
                    if (p->nfiles == 0) p->rules = ef.rules;
                    if (eg_material_id(ef.mat) != eg_material_id(m) || p->nfiles >= 256 ||
                        ef.rules.crown_stop != p->rules.crown_stop ||
                        ef.rules.three_kings_loss != p->rules.three_kings_loss ||
                        ef.rules.king_move_limit != p->rules.king_move_limit) {
                        snprintf(errbuf, errlen, "%s: other rules or material than the other files", path);
                        close_file(&ef);
                        continue;
                    }
                    p->by_id[eg_material_id(m)] = (int16_t)p->nfiles;
                    p->files[p->nfiles++] = ef;
                    if (pieces > p->max_pieces) p->max_pieces = pieces;
                }
    if (p->nfiles == 0) {
        if (!errbuf[0]) snprintf(errbuf, errlen, "no endgame table files (egdb_*.pcdb) in %s", dir);
        eg_probe_close(p);
        return NULL;
    }
    if (rules_out) *rules_out = p->rules;
    return p;
}

void eg_probe_close(EgProbe *p) {
    if (!p) return;
    for (int i = 0; i < p->nfiles; i++) close_file(&p->files[i]);
    if (p->cache) pthread_mutex_destroy(&p->lock);
    free(p->cache);
    free(p->scratch);
    free(p);
}

int eg_probe_max_pieces(const EgProbe *p) { return p->max_pieces; }
int eg_probe_count(const EgProbe *p) { return p->nfiles; }
EgMaterial eg_probe_material(const EgProbe *p, int i) { return p->files[i].mat; }

/* Code of state i of table tb of file fi (-1 on a read error). */
static int cached_code(EgProbe *p, int fi, int tb, uint64_t i) {
    uint32_t block = (uint32_t)(i / PC_EGDB_BLOCK);
    uint32_t slot = (block * 2654435761u + (uint32_t)fi * 40503u + (uint32_t)tb * 977u) % CACHE_SLOTS;
    pthread_mutex_lock(&p->lock);
    CacheSlot *c = &p->cache[slot];
    if (c->file != fi || c->tb != tb || c->block != block) {
        c->file = -1;
        if (read_block(&p->files[fi], tb, block, c->data, p->scratch, p->scratch_len) < 0) {
            pthread_mutex_unlock(&p->lock);
            return -1;
        }
        c->file = fi;
        c->tb = tb;
        c->block = block;
    }
    int v = c->data[i % PC_EGDB_BLOCK];
    pthread_mutex_unlock(&p->lock);
    return v;
}

/* Locate a position: file, state, and the orientation's side to move. */
static int locate(const EgProbe *p, uint32_t black, uint32_t white, uint32_t kings, int stm, int *fi,
                  uint64_t *state, EgMaterial *mat, int *cstm) {
    EgMaterial m = eg_material_of(black, white, kings);
    if (!eg_is_canonical(m)) {
        uint32_t b = eg_flip32(white), w = eg_flip32(black);
        black = b;
        white = w;
        kings = eg_flip32(kings);
        stm ^= 1;
        m = eg_mirror(m);
    }
    int f = p->by_id[eg_material_id(m)];
    if (f < 0) return -1;
    uint64_t i = eg_index_of(&p->files[f].ix, black, white, kings, stm);
    if (i >= p->files[f].ix.size) return -1;
    *fi = f;
    *state = i;
    *mat = m;
    *cstm = stm;
    return 0;
}

int eg_probe_code(EgProbe *p, uint32_t black, uint32_t white, uint32_t kings, int stm) {
    if (black & white) return -1;
    uint32_t own = stm == PC_BLACK ? black : white, opp = stm == PC_BLACK ? white : black;
    if (!own) return EG_LOSS(0);
    if (!opp || pc_popcount(black | white) > p->max_pieces) return -1;
    int fi, cstm;
    uint64_t i;
    EgMaterial m;
    if (locate(p, black, white, kings, stm, &fi, &i, &m, &cstm)) return -1;
    return cached_code(p, fi, 0, i);
}

static int strong_side(EgMaterial m) {
    if (m.bm || m.wm) return -1;
    if (m.bk == 3 && m.wk == 1) return PC_BLACK;
    if (m.bk == 1 && m.wk == 3) return PC_WHITE;
    return -1;
}

int eg_running_value(EgMaterial m, int stm, uint8_t code, int bcode, int halfmove, int tk_count,
                     const RuleOptions *rules) {
    if (code == EG_LOSS(0)) return EG_VALUE_LOSS; /* R16 comes first (R21) */
    int v = code == 0 ? EG_VALUE_DRAW : eg_is_win(code) ? EG_VALUE_WIN : EG_VALUE_LOSS;
    int d = code ? eg_dist(code) : 0;
    int r18 = 2 * rules->king_move_limit - halfmove;
    int strong = strong_side(m);
    if (strong < 0) return (v != EG_VALUE_DRAW && d <= r18) ? v : EG_VALUE_DRAW;
    int strong_lost = stm == strong ? EG_VALUE_LOSS : EG_VALUE_WIN;
    if (tk_count >= 13) /* R19 ends the game before R18 (Board.outcome order) */
        return rules->three_kings_loss ? strong_lost : EG_VALUE_DRAW;
    if (r18 <= 0) return EG_VALUE_DRAW;
    int r19 = stm == strong ? 2 * (13 - tk_count) - 1 : 2 * (13 - tk_count);
    int r = r19 < r18 ? r19 : r18;
    int sw = v != EG_VALUE_DRAW && (stm == strong) == (v == EG_VALUE_WIN);
    if (!rules->three_kings_loss) return (v != EG_VALUE_DRAW && d <= r) ? v : EG_VALUE_DRAW;
    if (sw && d <= r) return v;
    if (r19 <= r18) { /* the count ends first: a loss for the three-king side */
        int b = (bcode >= 1 && bcode < PC_EGDB_COUNT_ONLY) ? bcode - 1 : -1;
        return (b >= 0 && b <= r) ? EG_VALUE_DRAW : strong_lost;
    }
    if (v != EG_VALUE_DRAW && !sw && bcode != PC_EGDB_COUNT_ONLY && d <= r) return v;
    return EG_VALUE_DRAW;
}

int eg_probe(EgProbe *p, const Position *pos, EgResult *out) {
    uint32_t black = pc_to_bits32(pos->bb[PC_BLACK]), white = pc_to_bits32(pos->bb[PC_WHITE]);
    uint32_t kings = pc_to_bits32(pos->kings);
    uint32_t own = pos->stm == PC_BLACK ? black : white, opp = pos->stm == PC_BLACK ? white : black;
    if (!own) {
        out->fresh_value = out->value = EG_VALUE_LOSS;
        out->dtz = 0;
        out->b = -1;
        return 0;
    }
    if (!opp || pc_popcount(black | white) > p->max_pieces) return -1;
    int fi, cstm;
    uint64_t i;
    EgMaterial m;
    if (locate(p, black, white, kings, pos->stm, &fi, &i, &m, &cstm)) return -1;
    int code = cached_code(p, fi, 0, i);
    if (code < 0) return -1;
    int bcode = p->files[fi].ntab > 1 ? cached_code(p, fi, 1, i) : 0;
    if (bcode < 0) return -1;
    out->fresh_value = code == 0 ? EG_VALUE_DRAW : eg_is_win((uint8_t)code) ? EG_VALUE_WIN : EG_VALUE_LOSS;
    out->dtz = code == 0 ? -1 : eg_dist((uint8_t)code);
    out->value = eg_running_value(m, cstm, (uint8_t)code, bcode, pos->halfmove, pos->tk_count, &p->rules);
    out->b = (bcode >= 1 && bcode < PC_EGDB_COUNT_ONLY) ? bcode - 1 : -1;
    return 0;
}
