//! What cargo's test run said, in a few lines: green, the compiler's first error, or
//! the failure that shows it best (the gate's smallest failing case), and one line
//! per test target.

use std::ops::RangeInclusive;
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

/// Where the learner's function lies: its file from the workspace root, and the lines
/// of its region. A panic there is their code's own (an overflow, an index out of
/// range), and the report shows its line.
pub(super) struct Function<'a> {
    pub file: &'a str,
    pub lines: RangeInclusive<usize>,
}

impl Function<'_> {
    /// True when `location` (`FILE:LINE:COLUMN`, as a panic says it) is in the
    /// function.
    fn holds(&self, location: &str) -> bool {
        let mut parts = location.rsplitn(3, ':');
        let (_, line, file) = (parts.next(), parts.next(), parts.next());
        file == Some(self.file)
            && line
                .and_then(|l| l.parse().ok())
                .is_some_and(|l| self.lines.contains(&l))
    }
}

pub(super) fn verdict(out: &Output, function: &Function) -> Verdict {
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
    let (test, message) = first_failure(&stdout, function).unwrap_or_else(|| {
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
fn first_failure(stdout: &str, function: &Function) -> Option<(String, String)> {
    let all = failures(stdout, function);
    let gate = all
        .iter()
        .filter(|(_, message)| message.contains("failed the gate"))
        .min_by_key(|(_, message)| input_bytes(message));
    gate.or(all.first()).cloned()
}

/// Every `---- NAME stdout ----` section: the test and its panic message (without
/// the backtrace, and without the `panicked at` line unless the panic is in the
/// learner's function: `panicked in your function, at steps/…/digits.rs:266:14`).
fn failures(stdout: &str, function: &Function) -> Vec<(String, String)> {
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
        let message: Vec<String> = section
            .lines()
            .skip(1)
            .take_while(|l| {
                !l.starts_with("---- ") && !l.starts_with("failures:") && *l != "stack backtrace:"
            })
            .filter(|l| !l.starts_with("note: run with `RUST_BACKTRACE"))
            .filter_map(|l| match l.split_once("panicked at ") {
                Some((_, at)) => {
                    let at = at.trim_end_matches(':');
                    function
                        .holds(at)
                        .then(|| format!("panicked in your function, at {at}"))
                }
                None => Some(l.to_string()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_in_the_exercise_s_file_keeps_its_line_and_others_do_not() {
        let stdout = "\nfailures:\n\n---- digits::tests::all stdout ----\n\n\
            thread 'digits::tests::all' (7) panicked at steps/step7_cost/src/digits.rs:266:14:\n\
            attempt to multiply with overflow\n\
            note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\
            ---- value::tests::table stdout ----\n\n\
            thread 'value::tests::table' (8) panicked at steps/step7_cost/digits.rs:300:13:\n\
            assertion failed: parse_value(\"1\") gives 2.0\n\nfailures:\n";
        let function = Function {
            file: "steps/step7_cost/src/digits.rs",
            lines: 260..=270,
        };
        let all = failures(stdout, &function);
        assert_eq!(
            all,
            [
                (
                    "digits::tests::all".to_string(),
                    "panicked in your function, at steps/step7_cost/src/digits.rs:266:14\n\
                     attempt to multiply with overflow"
                        .to_string()
                ),
                (
                    "value::tests::table".to_string(),
                    "assertion failed: parse_value(\"1\") gives 2.0".to_string()
                ),
            ]
        );
    }
}
