// Runs the CUDA kernels of kernels/ on the host through simt.h, on the vectors that
// tests/kernels_on_host.rs writes from the CPU twins, and compares every
// intermediate. Usage: kernels_on_host SCAN_BLOCK VECTORS
#include "kernels.h"
#include <map>
#include <string>
#include <array>
#include <algorithm>
typedef unsigned long long U64;
static int failures = 0;
#define CHECK(c, ...) do { if (!(c)) { if (failures++ < 20) { fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } } } while (0)

struct RowV { U64 start; int n; U64 ks, ke; int kx; U64 vs, ve; int vx; int parsed; unsigned l[5]; bool open; };

int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: kernels_on_host SCAN_BLOCK VECTORS\n"); return 2; }
    unsigned scan_block = atoi(argv[1]);
    FILE* f = fopen(argv[2], "rb");
    if (!f) { perror(argv[2]); return 2; }
    char tag[16];
    int docs = 0;
    while (fscanf(f, "%15s", tag) == 1) {
        if (strcmp(tag, "DOC")) { fprintf(stderr, "bad tag %s\n", tag); return 2; }
        U64 len; fscanf(f, "%llu", &len); fgetc(f);
        // 16-aligned copy, like a device buffer
        u8* in = (u8*)aligned_alloc(256, (len + 256) & ~255ull);
        fread(in, 1, len, f); fgetc(f);
        unsigned tiles; fscanf(f, "%15s %u", tag, &tiles);
        std::vector<unsigned> spec(tiles), func(tiles), cnt(tiles), bm(tiles * 64);
        for (unsigned k = 0; k < tiles; k++) {
            fscanf(f, "%u %u %u", &spec[k], &func[k], &cnt[k]);
            for (int j = 0; j < 64; j++) fscanf(f, "%u", &bm[k * 64 + j]);
        }
        std::vector<unsigned> exact(tiles);
        fscanf(f, "%15s", tag);
        for (unsigned k = 0; k < tiles; k++) fscanf(f, "%u", &exact[k]);
        U64 rows; unsigned fin; fscanf(f, "%15s %llu %u", tag, &rows, &fin);
        std::vector<RowV> rv(rows);
        for (U64 r = 0; r < rows; r++) {
            fscanf(f, "%15s", tag);
            RowV& x = rv[r];
            x.open = !strcmp(tag, "OPEN");
            if (x.open) { fscanf(f, "%llu", &x.start); continue; }
            fscanf(f, "%llu %d %llu %llu %d %llu %llu %d %d %u %u %u %u %u", &x.start, &x.n, &x.ks, &x.ke, &x.kx,
                   &x.vs, &x.ve, &x.vx, &x.parsed, &x.l[0], &x.l[1], &x.l[2], &x.l[3], &x.l[4]);
        }
        docs++;
        U64 origin = (len >= 3 && in[0] == 0xEF && in[1] == 0xBB && in[2] == 0xBF) ? 3 : 0;
        U64 n = len;
        // --- index kernels
        std::vector<u32> bitmaps(tiles * 64), counts(tiles);
        std::vector<u16> functions(tiles);
        std::vector<u8> speculated(tiles), ex(tiles);
        u8 final_state = 0;
        launch(tiles, 64, [&] { speculate_tiles(in, n, origin, tiles, bitmaps.data(), counts.data(), functions.data(), speculated.data()); });
        for (unsigned k = 0; k < tiles; k++) {
            CHECK(speculated[k] == spec[k], "doc %d tile %u speculated %u vs %u", docs, k, speculated[k], spec[k]);
            CHECK(functions[k] == func[k], "doc %d tile %u function %u vs %u", docs, k, functions[k], func[k]);
            CHECK(counts[k] == cnt[k], "doc %d tile %u count %u vs %u", docs, k, counts[k], cnt[k]);
            for (int j = 0; j < 64; j++) CHECK(bitmaps[k * 64 + j] == bm[k * 64 + j], "doc %d tile %u slice %d bitmap", docs, k, j);
        }
        launch(1, scan_block, [&] { scan_tile_states(functions.data(), tiles, ex.data(), &final_state); });
        for (unsigned k = 0; k < tiles; k++) CHECK(ex[k] == exact[k], "doc %d tile %u exact %u vs %u", docs, k, ex[k], exact[k]);
        CHECK(final_state == fin, "doc %d final %u vs %u", docs, final_state, fin);
        launch(tiles, 64, [&] { repair_tiles(in, n, origin, tiles, ex.data(), speculated.data(), bitmaps.data(), counts.data(), functions.data()); });
        std::vector<U64> first(tiles); U64 total = 0;
        launch(1, scan_block, [&] { scan_tile_counts(counts.data(), tiles, first.data(), &total); });
        CHECK(total == rows, "doc %d rows %llu vs %llu", docs, total, rows);
        std::vector<U64> offsets(std::max<U64>(total, 1));
        launch(tiles, 64, [&] { bitmaps_to_offsets(bitmaps.data(), first.data(), origin, tiles, offsets.data()); });
        for (U64 r = 0; r < std::min(total, rows); r++) CHECK(offsets[r] == rv[r].start, "doc %d row %llu offset %llu vs %llu", docs, r, offsets[r], rv[r].start);
        if (total != rows || rows < 2) { free(in); continue; }
        // --- seek_fields and parse_fixed, row by row
        View v = {in, 0};
        for (U64 r = 0; r < rows; r++) {
            const RowV& x = rv[r];
            if (x.open) continue;
            Span k = {0, 0, false}, val = {0, 0, false};
            u32 nf = seek_fields(v, n, n, x.start, 1, 2, &k, &val);
            CHECK((int)nf == x.n, "doc %d row %llu fields %u vs %d", docs, r, nf, x.n);
            if (x.n > 1) CHECK(k.start == x.ks && k.end == x.ke && (int)k.escaped == x.kx, "doc %d row %llu key span", docs, r);
            if (x.n > 2) {
                CHECK(val.start == x.vs && val.end == x.ve && (int)val.escaped == x.vx, "doc %d row %llu value span", docs, r);
                if (!val.escaped) {
                    u32 l[5] = {0, 0, 0, 0, 0};
                    int p = parse_fixed(v, val, l);
                    CHECK(p == x.parsed, "doc %d row %llu parsed %d vs %d", docs, r, p, x.parsed);
                    if (p == 1) for (int j = 0; j < 5; j++) CHECK(l[j] == x.l[j], "doc %d row %llu limb %d", docs, r, j);
                }
            }
        }
        // --- decode_aggregate: width 3, key 1, value 2; staged and not
        U64 end = rv.back().open ? rows - 1 : rows;
        if (end < 2) { free(in); continue; }
        for (u32 stage_bytes : {0u, 24u << 10, 256u}) {
            std::vector<U64> keys(SLOTS), gc(SLOTS), gv(SLOTS), gl(SLOTS * 5), fb(2 * end);
            u32 fcount = 0;
            U64 data_rows = end - 1;
            unsigned grid = (data_rows + 255) / 256;
            launch(grid, 256, [&] { decode_aggregate(in, n, offsets.data(), rows, 1, end, 1, 2, 3, stage_bytes, keys.data(), gc.data(), gv.data(), gl.data(), fb.data(), &fcount); });
            // expected, from the twin's rows
            std::map<std::string, std::array<U64, 7>> want;
            std::vector<U64> want_fb;
            for (U64 r = 1; r < end; r++) {
                const RowV& x = rv[r];
                bool ok = x.n == 3 && !x.kx && !x.vx && x.parsed >= 0;
                if (!ok) { want_fb.push_back(r); continue; }
                auto& a = want[std::string((char*)in + x.ks, x.ke - x.ks)];
                a[0]++; a[1] += x.parsed == 1;
                for (int j = 0; j < 5; j++) a[2 + j] += x.l[j];
            }
            std::map<std::string, std::array<U64, 7>> got;
            for (int s = 0; s < SLOTS; s++) {
                if (!keys[s]) continue;
                U64 w = keys[s] - 1, st = w >> 24, ln = w & 0xFFFFFF;
                auto& a = got[std::string((char*)in + st, ln)];
                a[0] = gc[s]; a[1] = gv[s];
                for (int j = 0; j < 5; j++) a[2 + j] = gl[s * 5 + j];
            }
            std::vector<U64> got_fb;
            for (u32 i = 0; i < fcount; i++) { got_fb.push_back(fb[2 * i]); CHECK(fb[2 * i + 1] == rv[fb[2 * i]].start, "fallback offset"); }
            std::sort(got_fb.begin(), got_fb.end());
            CHECK(got == want, "doc %d stage %u: groups differ (%zu vs %zu)", docs, stage_bytes, got.size(), want.size());
            if (want.size() <= 32) CHECK(got_fb == want_fb, "doc %d stage %u: fallback rows differ (%zu vs %zu)", docs, stage_bytes, got_fb.size(), want_fb.size());
        }
        free(in);
    }
    printf("%d documents, %d failures (scan block %u)\n", docs, failures, scan_block);
    return failures != 0;
}
