//! Choosing the device through the binary. On a machine without a CUDA driver:
//! `--device auto` says so in one line and runs the CPU twin; `--device cuda` and
//! `REQUIRE_GPU=1` refuse (exit status 3), never panic. On a machine with a device:
//! the device's answer is the CPU twin's, byte for byte. `STEP13_BIN` names another
//! binary to test (the device check's prebuilt one).

use std::process::{Command, Output};

use step13::device::{FALLBACK, driver_present, gpu_required};

fn bin() -> String {
    std::env::var("STEP13_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_step13").into())
}

fn file() -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("step13-device-{}.csv", std::process::id()));
    let mut csv = b"category,value\n".to_vec();
    for i in 0..3000 {
        csv.extend_from_slice(format!("c{},{}.25\n", i % 7, i).as_bytes());
    }
    std::fs::write(&path, csv).unwrap();
    path
}

fn run(args: &[&str], require_gpu: bool) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args).env_remove("REQUIRE_GPU");
    if require_gpu {
        cmd.env("REQUIRE_GPU", "1");
    }
    cmd.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_missing_device_falls_back_only_when_allowed() {
    let path = file();
    let p = path.to_str().unwrap();
    let cpu = run(&[p, "--json", "--runs", "1", "--device", "cpu"], false);
    assert!(cpu.status.success(), "{}", text(&cpu.stderr));
    let auto = run(&[p, "--json", "--runs", "1"], false);
    assert!(auto.status.success(), "{}", text(&auto.stderr));
    assert_eq!(auto.stdout, cpu.stdout);
    let cuda = run(&[p, "--json", "--runs", "1", "--device", "cuda"], false);
    let required = run(&[p, "--json", "--runs", "1"], true);
    for out in [&auto, &cuda, &required] {
        assert!(
            !text(&out.stderr).contains("panicked"),
            "{}",
            text(&out.stderr)
        );
    }
    if driver_present() && cuda.status.success() {
        // A device: its answer is the twin's.
        assert_eq!(cuda.stdout, cpu.stdout, "{}", text(&cuda.stderr));
        assert_eq!(required.stdout, cpu.stdout, "{}", text(&required.stderr));
    } else {
        // This test's own runs drop REQUIRE_GPU to see both behaviours; under
        // REQUIRE_GPU=1 itself, a missing device fails it too.
        assert!(
            !gpu_required(),
            "REQUIRE_GPU=1 but no device: {}",
            text(&cuda.stderr)
        );
        assert!(
            text(&auto.stderr).contains(FALLBACK),
            "{}",
            text(&auto.stderr)
        );
        for out in [&cuda, &required] {
            assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
            assert!(
                text(&out.stderr).contains("no CUDA device"),
                "{}",
                text(&out.stderr)
            );
            // `--json` keeps its promise: the error as JSON on stdout.
            let json: serde_json::Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{e}: {:?}", text(&out.stdout)));
            assert_eq!(json["error"], "options", "{json}");
            assert!(json["message"].as_str().unwrap().contains("no CUDA device"));
        }
        assert!(text(&required.stderr).contains("REQUIRE_GPU=1"));
    }
    std::fs::remove_file(path).unwrap();
}
