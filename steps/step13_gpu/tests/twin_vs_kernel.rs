//! The kernels against their CPU twins, intermediate by intermediate: bitmaps (after
//! the repair), row counts, transition functions, speculated and exact start states,
//! first rows, offsets, the final state, and per-group counts and sums (and, where
//! the table cannot overflow, the fallback rows), on the conformance corpus, on
//! multi-tile documents and on generated files; then the answer with row staging
//! forced on and off. Runs where a CUDA device opens; elsewhere it says so and
//! passes, unless `REQUIRE_GPU=1` (the device check sets it).

use std::collections::BTreeMap;

use gen_csv::{Config, generate_in_memory};
use harness::query::groups_to_json;
use step13::device::{Cuda, Device, Staging, gpu_required};
use step13::groupby::{self, Query};
use step13::query::{self, Summary};
use step13::tiles::{self, GPU};

fn device() -> Option<Cuda> {
    match Cuda::open() {
        Ok(cuda) => Some(cuda),
        Err(why) => {
            assert!(!gpu_required(), "REQUIRE_GPU=1 but no device: {why}");
            println!("skipped: no CUDA device ({why})");
            None
        }
    }
}

fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<(String, Vec<u8>)> = harness::gate::cases::load_all()
        .unwrap()
        .into_iter()
        .filter(|c| GPU.tiles(harness::dialect::bom_len(&c.input), c.input.len()) > 0)
        .map(|c| (c.name, c.input))
        .collect();
    for (seed, quoted, crlf) in [(1, 5.0, false), (2, 100.0, true), (3, 0.0, false)] {
        let config = Config {
            rows: 60_000, // about 3 MB: about 90 tiles
            seed,
            quoted_pct: quoted,
            crlf,
        };
        all.push((format!("gen {config:?}"), generate_in_memory(&config).0));
    }
    // One quoted field over many tiles: every tile but the first is repaired.
    let mut one = b"category,value\na,\"".to_vec();
    one.extend(std::iter::repeat_n(&b"x,\r\n"[..], 100_000).flatten());
    one.extend_from_slice(b"\"\nb,2\n");
    all.push(("one quoted field".into(), one));
    all
}

#[test]
fn every_intermediate_equals_its_twin() {
    let Some(cuda) = device() else { return };
    for (name, input) in inputs() {
        let got = cuda.intermediates(&input, Query::default()).unwrap();
        // The twins, stage by stage.
        let origin = harness::dialect::bom_len(&input);
        let mut twin = tiles::speculate_tiles(&input, origin, GPU, b',');
        let scan = tiles::scan_tile_states(&twin);
        tiles::repair_tiles(&input, &mut twin, &scan);
        let (first_rows, total) = tiles::scan_tile_counts(&twin.counts);
        let offsets = tiles::bitmaps_to_offsets(&twin, &first_rows, total);
        let index = tiles::RowIndex {
            offsets: offsets.clone(),
            final_state: scan.final_state,
            stats: Default::default(),
        };
        let summary = Summary::of(&index);
        assert_eq!(got.tiles.speculated, twin.speculated, "{name}: speculated");
        assert_eq!(got.tiles.functions, twin.functions, "{name}: functions");
        assert_eq!(got.exact, scan.exact, "{name}: exact start states");
        assert_eq!(
            got.summary.final_state, scan.final_state,
            "{name}: final state"
        );
        assert_eq!(got.tiles.bitmaps, twin.bitmaps, "{name}: bitmaps");
        assert_eq!(got.tiles.counts, twin.counts, "{name}: counts");
        assert_eq!(got.first_rows, first_rows, "{name}: first rows");
        assert_eq!(got.offsets, offsets, "{name}: offsets");
        assert_eq!(got.summary, summary, "{name}: summary");
        let plan = match (query::plan(&input, summary, Query::default()), &got.decoded) {
            (Ok(plan), Ok(_)) => plan,
            (Err(twin), Err(device)) => {
                assert_eq!(device, &twin, "{name}: query error");
                continue;
            }
            (twin, device) => panic!("{name}: device {device:?}, twin {twin:?}"),
        };
        let twin_decoded = groupby::decode_aggregate(&input, &offsets, 1..plan.end, plan.columns);
        let dev_decoded = got.decoded.as_ref().expect("matched above");
        let by_key = |d: &groupby::Decoded| -> BTreeMap<_, _> {
            d.table
                .groups(&input)
                .into_iter()
                .map(|(k, a)| (k, (a.count, a.values, a.sum.to_f64().to_bits())))
                .collect()
        };
        assert_eq!(by_key(dev_decoded), by_key(&twin_decoded), "{name}: groups");
        if by_key(&twin_decoded).len() <= 32 {
            let sorted = |d: &groupby::Decoded| {
                let mut f = d.fallback.clone();
                f.sort_unstable();
                f
            };
            assert_eq!(
                sorted(dev_decoded),
                sorted(&twin_decoded),
                "{name}: fallback"
            );
        }
    }
}

#[test]
fn staged_and_unstaged_rows_give_the_twins_answer() {
    let Some(cuda) = device() else { return };
    let device = Device::Cuda(Box::new(cuda));
    for (name, input) in inputs() {
        let twin = Device::Cpu.run(&input, Query::default(), false).unwrap();
        let json = |o: &step13::device::Outcome| match o {
            Ok((groups, _)) => groups_to_json(groups).to_string(),
            Err(e) => e.to_json().to_string(),
        };
        for staging in [Staging::Always, Staging::Never, Staging::Auto] {
            let Device::Cuda(cuda) = &device else {
                unreachable!()
            };
            cuda.set_staging(staging);
            let got = device.run(&input, Query::default(), false).unwrap();
            assert_eq!(json(&got), json(&twin), "{name}: {staging:?}");
        }
    }
}
