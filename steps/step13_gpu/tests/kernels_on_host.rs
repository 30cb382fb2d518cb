//! The CUDA kernels, run on the CPU: their source (`kernels/*.cu`, unchanged but for
//! the geometry, 64 slices a tile, and the dynamic shared memory) is compiled by the
//! host's C++ compiler against `tests/simt/simt.h`, which runs a block as one
//! thread per CUDA thread with barriers for `__syncthreads` and the warp intrinsics.
//! `tests/simt/main.cpp` then runs every kernel on documents whose intermediates the
//! CPU twins wrote (speculated states, transition functions, counts, bitmaps, exact
//! states, the final state, offsets, the fields of every row (its word-at-a-time
//! seek included), the parsed limbs, the
//! groups and the fallback rows, with row staging on and off), and compares.
//!
//! It checks the kernels' logic, not the device: not its memory model, timing or
//! occupancy (`tests/twin_vs_kernel.rs` does that where a GPU is). Needs a C++20
//! compiler (`$CXX`, else `c++`); without one it says so and passes, unless
//! `REQUIRE_CXX=1`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use gen_csv::{Config, generate_in_memory};
use step13::device::{LAYOUT, SOURCES};
use step13::exact::{Number, parse_number};
use step13::limbs::limbs_of;
use step13::record::split_record;
use step13::tiles::{self, Geometry};

use crate::document;

/// The geometry the host build uses: `TILE_SLICES` 64, two warps a tile.
const HOST: Geometry = Geometry {
    slice: 32,
    slices: 64,
};

fn documents() -> Vec<Vec<u8>> {
    let mut docs = Vec::new();
    for seed in 0..20u64 {
        let len = 300 + (seed as usize * 531) % 9000;
        docs.push(document(seed, len, b"a1.-+,\"\r\n\n9e0\"\""));
        docs.push(document(seed + 1000, len, b"ab1.,,,\n\n\n-2"));
    }
    for seed in 0..8u64 {
        // Long unquoted and quoted fields: the field seek's word-at-a-time path.
        let len = 2000 + seed as usize * 1500;
        docs.push(document(
            seed + 2000,
            len,
            b"abcdefghijklmnopqrstuvwxyz012345,\n\"",
        ));
    }
    let mut generated = generate_in_memory(&Config {
        rows: 1500,
        seed: 5,
        quoted_pct: 30.0,
        crlf: true,
    })
    .0;
    generated.splice(0..0, *b"\xEF\xBB\xBF"); // a BOM: tile 0 starts at byte 3
    docs.push(generated);
    let mut one = b"k,\"".to_vec(); // one quoted field over ten tiles
    one.extend(document(3, 20_000, b"x,\n\r"));
    one.extend_from_slice(b"\"\nlast,row,1\n");
    docs.push(one);
    docs
}

/// What the twins compute, in the format `main.cpp` reads.
fn write_vectors(path: &Path) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for doc in documents() {
        writeln!(f, "DOC {}", doc.len()).unwrap();
        f.write_all(&doc).unwrap();
        writeln!(f).unwrap();
        let origin = harness::dialect::bom_len(&doc);
        let mut t = tiles::speculate_tiles(&doc, origin, HOST, b',');
        writeln!(f, "SPEC {}", t.counts.len()).unwrap();
        for k in 0..t.counts.len() {
            write!(
                f,
                "{} {} {}",
                t.speculated[k], t.functions[k].0, t.counts[k]
            )
            .unwrap();
            for w in &t.bitmaps[k * 64..(k + 1) * 64] {
                write!(f, " {w}").unwrap();
            }
            writeln!(f).unwrap();
        }
        let scan = tiles::scan_tile_states(&t);
        write!(f, "EXACT").unwrap();
        for e in &scan.exact {
            write!(f, " {e}").unwrap();
        }
        writeln!(f).unwrap();
        tiles::repair_tiles(&doc, &mut t, &scan);
        let index = tiles::index(&doc, HOST, b',');
        writeln!(f, "ROWS {} {}", index.offsets.len(), index.final_state).unwrap();
        let mut spans = Vec::new();
        for &start in &index.offsets {
            if split_record(&doc, start as usize, &mut spans, b',').is_err() {
                writeln!(f, "OPEN {start}").unwrap();
                continue;
            }
            let span = |k: usize| {
                spans
                    .get(k)
                    .map_or((0, 0, 0), |s| (s.start, s.end, u8::from(s.needs_unescape)))
            };
            let ((ks, ke, kx), (vs, ve, vx)) = (span(1), span(2));
            let (parsed, l) = match spans.get(2) {
                Some(s) if !s.needs_unescape => match parse_number(&doc[s.start..s.end]) {
                    Ok(None) => (0, [0; 5]),
                    Ok(Some(Number::Fixed(x))) => (1, limbs_of(x)),
                    _ => (-1, [0; 5]),
                },
                _ => (-2, [0; 5]),
            };
            let n = spans.len();
            writeln!(
                f,
                "ROW {start} {n} {ks} {ke} {kx} {vs} {ve} {vx} {parsed} {} {} {} {} {}",
                l[0], l[1], l[2], l[3], l[4]
            )
            .unwrap();
        }
    }
}

/// The kernels' source for the host: the geometry of [`HOST`], and the dynamic
/// shared memory as a static buffer. Fails if the kernels no longer have the lines
/// it replaces.
fn kernels_for_host() -> String {
    let replace = |text: &str, from: &str, to: &str| {
        assert!(
            text.contains(from),
            "the kernels no longer contain {from:?}"
        );
        text.replace(from, to)
    };
    let layout = replace(LAYOUT, "#define TILE_SLICES 1024", "#define TILE_SLICES 64");
    let mut src = format!(
        "#include \"simt.h\"\n{}",
        layout.replace("#pragma once", "")
    );
    for (name, text, _) in SOURCES {
        let mut text = replace(text, "#include \"layout.cuh\"", "");
        if name == "groupby.cu" {
            text = replace(
                &text,
                "extern __shared__ uint4 stage[];",
                "uint4* stage = (uint4*)dyn_shared;",
            );
        }
        src += &text;
    }
    src
}

fn compiler() -> Option<String> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let ok = Command::new(&cxx)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(cxx)
}

#[test]
fn the_kernels_on_the_host_give_every_twins_intermediate() {
    let Some(cxx) = compiler() else {
        let required = std::env::var("REQUIRE_CXX").is_ok_and(|v| v == "1");
        assert!(!required, "REQUIRE_CXX=1 but no C++ compiler (set CXX)");
        println!("skipped: no C++ compiler (set CXX; REQUIRE_CXX=1 makes this a failure)");
        return;
    };
    let dir: PathBuf = std::env::temp_dir().join(format!("step13-simt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kernels.h"), kernels_for_host()).unwrap();
    let vectors = dir.join("vectors.txt");
    write_vectors(&vectors);
    let simt = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/simt");
    let exe = dir.join("kernels_on_host");
    let built = Command::new(&cxx)
        .args(["-std=c++20", "-O1", "-pthread", "-w", "-I"])
        .arg(&dir)
        .arg("-I")
        .arg(&simt)
        .arg("-o")
        .arg(&exe)
        .arg(simt.join("main.cpp"))
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{cxx} cannot build the kernels for the host:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    // The scans with one warp and with two, side by side: the emulation's threads
    // spend most of their time waiting at barriers, so two runs share the cores well.
    let runs = ["32", "64"].map(|scan_block| {
        let run = Command::new(&exe)
            .arg(scan_block)
            .arg(&vectors)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        (scan_block, run)
    });
    for (scan_block, run) in runs {
        let out = run.wait_with_output().unwrap();
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && report.contains("50 documents, 0 failures"),
            "scan block {scan_block}: {report}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
