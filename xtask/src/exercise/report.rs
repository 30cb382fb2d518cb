//! What cargo's test run said, in a few lines: green, the compiler's first error, or
//! the failure that shows it best (the gate's smallest failing case), and one line
//! per test target.

use std::path::Path;
use std::process::Output;

/// The tests' verdict, from cargo's output.
pub(super) enum Verdict {
    Green,
    /// It does not compile: the first error.
    DoesNotCompile(String),
    /// A test failed: its name and what it said.
    Failed {
        test: String,
        message: String,
        failed: usize,
    },
}

pub(super) fn verdict(out: &Output) -> Verdict {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        return Verdict::Green;
    }
    // The first line that starts with `error`: the warnings before it (a stub leaves
    // its parameters and helpers unused) may say `error` too, in a path or a name.
    let first_error = stderr
        .lines()
        .position(|l| l.starts_with("error[") || l.starts_with("error:"));
    if let Some(start) = first_error
        && !stdout.contains("test result:")
    {
        let text: Vec<&str> = stderr.lines().skip(start).take(25).collect();
        return Verdict::DoesNotCompile(text.join("\n"));
    }
    let failed = stdout.lines().filter(|l| l.ends_with("... FAILED")).count();
    let (test, message) = first_failure(&stdout).unwrap_or_else(|| {
        let tail: Vec<&str> = stderr.lines().rev().take(15).collect();
        (
            "(no test output)".into(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        )
    });
    Verdict::Failed {
        test,
        message,
        failed: failed.max(1),
    }
}

/// The failure to show: the gate's smallest failing case when the gate failed (its
/// message shows the input with escapes, and what was expected and got), else the
/// first failing test.
fn first_failure(stdout: &str) -> Option<(String, String)> {
    let all = failures(stdout);
    let gate = all
        .iter()
        .filter(|(_, message)| message.contains("failed the gate"))
        .min_by_key(|(_, message)| input_bytes(message));
    gate.or(all.first()).cloned()
}

/// Every `---- NAME stdout ----` section: the test and its panic message (without
/// the `panicked at` line and the backtrace).
fn failures(stdout: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = stdout;
    while let Some(start) = rest.find("\n---- ") {
        let section = &rest[start + 1..];
        let header = section.lines().next().unwrap_or_default();
        let test = header
            .trim_start_matches("---- ")
            .trim_end_matches(" ----")
            .trim_end_matches(" stdout")
            .to_string();
        let message: Vec<&str> = section
            .lines()
            .skip(1)
            .take_while(|l| {
                !l.starts_with("---- ") && !l.starts_with("failures:") && *l != "stack backtrace:"
            })
            .filter(|l| {
                !l.starts_with("note: run with `RUST_BACKTRACE") && !l.contains("panicked at")
            })
            .filter(|l| !l.trim().is_empty())
            .take(30)
            .collect();
        out.push((test, message.join("\n")));
        rest = &section[header.len()..];
    }
    out
}

/// `N` of the gate's `input (N bytes)`, or the largest number when there is none.
fn input_bytes(message: &str) -> usize {
    message
        .split_once("input (")
        .and_then(|(_, after)| after.split_once(' '))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or(usize::MAX)
}

/// One line of what ran: `lib: 10 passed · gate: 109 passed, 2 failed`, from cargo's
/// `Running …` lines (stderr) and the `test result:` lines (stdout), in order.
pub(super) fn suites(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let names = stderr.lines().filter_map(|l| {
        let target = l.trim().strip_prefix("Running ")?;
        let path = target.split(" (").next()?.trim_start_matches("unittests ");
        Some(if path.starts_with("src/") {
            "unit tests".to_string()
        } else {
            Path::new(path).file_stem()?.to_string_lossy().into_owned()
        })
    });
    let results = stdout.lines().filter_map(|l| {
        let counts = l.strip_prefix("test result: ")?;
        let count = |word: &str| -> u64 {
            counts
                .split(';')
                .find_map(|part| {
                    part.trim()
                        .strip_suffix(word)?
                        .trim()
                        .rsplit(' ')
                        .next()?
                        .parse()
                        .ok()
                })
                .unwrap_or(0)
        };
        Some((count("passed"), count("failed")))
    });
    let parts: Vec<String> = names
        .zip(results)
        .map(|(name, (passed, failed))| match failed {
            0 => format!("{name}: {passed} passed"),
            _ => format!("{name}: {passed} passed, {failed} FAILED"),
        })
        .collect();
    parts.join(" · ")
}

pub(super) fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
