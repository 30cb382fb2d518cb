//! `--threads` and `--chunk` have bounds that keep memory proportional to the input:
//! outside them, clap's error names the option and the range, and the exit status is 2.

use std::process::Command;

fn refused(args: &[&str], option: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_step10"))
        .args(args)
        .arg("../../data/edge.csv")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(option), "{args:?}: {stderr}");
}

#[test]
fn threads_outside_1_to_1024_are_refused() {
    refused(&["--threads", "0"], "--threads");
    refused(&["--threads", "1025"], "--threads");
    refused(&["--threads", "many"], "--threads");
}

#[test]
fn chunks_below_4096_bytes_are_refused() {
    refused(&["--chunk", "1"], "--chunk");
    refused(&["--chunk", "4095"], "--chunk");
}

#[test]
fn the_bounds_themselves_are_taken() {
    let path = std::env::temp_dir().join(format!("step10-options-{}.csv", std::process::id()));
    std::fs::write(&path, "category,value\na,1\nb,2\na,3\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_step10"))
        .args([
            "--threads",
            "1024",
            "--chunk",
            "4096",
            "--runs",
            "1",
            "--json",
        ])
        .arg(&path)
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(r#""a":{"count":2,"sum":4.0}"#), "{stdout}");
}
