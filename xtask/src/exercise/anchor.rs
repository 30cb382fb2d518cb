//! An exercise's function in its step's file, found by its anchors: the stub put in
//! its body, its body read, and its whole region (anchor to anchor) put back.
//!
//! Every edit is a splice of byte ranges, so the rest of the file (its line
//! terminators, its last newline or the lack of one) comes back byte for byte: a
//! restored file is the committed file, and `git status` says so.

use std::ops::Range;

use super::catalog::Exercise;
use crate::error::{Result, failed};

/// The text the stub panics with; a check recognises an untouched stub by it.
pub const TODO_PREFIX: &str = "exercise ";

/// Where `e`'s function lies in a file, as byte ranges.
struct Spans {
    /// From the start of the `// ANCHOR:` line to the end of the `// ANCHOR_END:`
    /// line, its line terminator included.
    region: Range<usize>,
    /// From the end of the line that ends the signature with `{` to the start of the
    /// line of the closing `}`.
    body: Range<usize>,
    /// The function's indentation.
    indent: String,
    /// The line terminator of the signature's last line: `\n` or `\r\n`.
    eol: &'static str,
}

/// The lines of `text` with their byte ranges, terminators included.
fn lines(text: &str) -> Vec<(Range<usize>, &str)> {
    let mut at = 0;
    text.split_inclusive('\n')
        .map(|line| {
            let range = at..at + line.len();
            at = range.end;
            (range, line.trim_end_matches(['\n', '\r']))
        })
        .collect()
}

fn is_fn_line(line: &str) -> bool {
    let t = line.trim_start();
    !t.starts_with("//") && !t.starts_with('#') && t.contains("fn ")
}

/// The region holds doc comments and attributes, then one `fn` whose signature ends
/// with the first line that ends in `{`, then the body, then a `}` at the
/// signature's indentation as the region's last line.
fn spans(text: &str, e: &Exercise) -> Result<Spans> {
    let lines = lines(text);
    let name = e.anchor_name();
    let find = |marker: &str| {
        let wanted = format!("// {marker}: {name}");
        lines.iter().position(|(_, l)| l.trim() == wanted)
    };
    let (Some(a), Some(b)) = (find("ANCHOR"), find("ANCHOR_END")) else {
        return Err(failed!(
            "{}: no `// ANCHOR: {name}` … `// ANCHOR_END: {name}` in {}/{}",
            e.name,
            e.step_dir,
            e.file
        ));
    };
    if a + 2 > b {
        return Err(failed!("{}: ANCHOR_END before its ANCHOR", e.name));
    }
    let fn_line = (a + 1..b)
        .find(|&i| is_fn_line(lines[i].1))
        .ok_or_else(|| format!("{}: no fn between its anchors", e.name))?;
    let open = (fn_line..b)
        .find(|&i| lines[i].1.trim_end().ends_with('{'))
        .ok_or_else(|| format!("{}: no `{{` ends its signature", e.name))?;
    let signature = lines[fn_line].1;
    let indent = &signature[..signature.len() - signature.trim_start().len()];
    let close = b - 1;
    if close <= open || lines[close].1 != format!("{indent}}}") {
        return Err(failed!(
            "{}: the line before ANCHOR_END must be the function's `}}`",
            e.name
        ));
    }
    let eol = if text[lines[open].0.clone()].ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    Ok(Spans {
        region: lines[a].0.start..lines[b].0.end,
        body: lines[open].0.end..lines[close].0.start,
        indent: indent.to_string(),
        eol,
    })
}

/// The body's lines as they would be in the stub: `todo!("exercise NAME: HINT")`,
/// the message on a line of its own where one line would pass 100 columns (as
/// rustfmt writes it, so that the stubbed file still passes `cargo fmt --check`).
fn todo_lines(e: &Exercise, indent: &str, eol: &str) -> String {
    let hint = e.hints.first().copied().unwrap_or("see the book");
    let message = format!("{:?}", format!("{TODO_PREFIX}{}: {hint}", e.name));
    let one = format!("{indent}    todo!({message}){eol}");
    if one.trim_end().chars().count() <= 100 {
        return one;
    }
    format!("{indent}    todo!({eol}{indent}        {message}{eol}{indent}    ){eol}")
}

/// `text` with the body of `e`'s function replaced by the stub.
pub fn stub(text: &str, e: &Exercise) -> Result<String> {
    let s = spans(text, e)?;
    Ok([
        &text[..s.body.start],
        &todo_lines(e, &s.indent, s.eol),
        &text[s.body.end..],
    ]
    .concat())
}

/// The body of `e`'s function in `text`: the bytes between its signature's line and
/// the line of its closing `}`.
#[cfg(test)]
fn body<'t>(text: &'t str, e: &Exercise) -> Result<&'t str> {
    Ok(&text[spans(text, e)?.body])
}

/// `e`'s region in `text`, from its `ANCHOR` line to its `ANCHOR_END` line.
pub fn region<'t>(text: &'t str, e: &Exercise) -> Result<&'t str> {
    Ok(&text[spans(text, e)?.region])
}

/// The lines of `e`'s region in `text`, numbered from 1 as the compiler numbers them.
pub fn region_lines(text: &str, e: &Exercise) -> Result<std::ops::RangeInclusive<usize>> {
    let region = spans(text, e)?.region;
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    Ok(line_of(region.start)..=line_of(region.end - 1))
}

/// `current` with `e`'s region replaced by the one in `from`: the stub put back, or
/// the step's function, while whatever else the learner wrote in the file (a test of
/// their own, say) stays.
pub fn with_region_of(current: &str, from: &str, e: &Exercise) -> Result<String> {
    let here = spans(current, e)?.region;
    Ok([
        &current[..here.start],
        region(from, e)?,
        &current[here.end..],
    ]
    .concat())
}

/// True when `e`'s function in `text` has the stub's body.
pub fn is_stubbed(text: &str, e: &Exercise) -> bool {
    let Ok(s) = spans(text, e) else {
        return false;
    };
    text[s.body] == todo_lines(e, &s.indent, s.eol)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exercise::catalog::EXERCISES;
    use crate::workspace_root;

    const TEXT: &str = "\
//! A file.

    // ANCHOR: exercise_record_buf_field
    /// Field k.
    #[inline]
    pub fn field(
        &self,
        k: usize,
    ) -> &[u8] {
        let a = 1;
        &self.bytes[a..]
    }
    // ANCHOR_END: exercise_record_buf_field
fn after() {}
";

    #[test]
    fn a_stub_keeps_the_signature_and_docs() {
        let e = &EXERCISES[0];
        let out = stub(TEXT, e).unwrap();
        let expected = "\
    // ANCHOR: exercise_record_buf_field
    /// Field k.
    #[inline]
    pub fn field(
        &self,
        k: usize,
    ) -> &[u8] {
        todo!(";
        assert!(out.contains(expected), "{out}");
        assert!(out.contains("\"exercise step2-record-buf-field: "), "{out}");
        assert!(!out.contains("let a = 1"));
        assert!(
            out.ends_with("\n    }\n    // ANCHOR_END: exercise_record_buf_field\nfn after() {}\n")
        );
        assert!(is_stubbed(&out, e));
        assert!(!is_stubbed(TEXT, e));
        assert_eq!(
            body(TEXT, e).unwrap(),
            "        let a = 1;\n        &self.bytes[a..]\n"
        );
    }

    #[test]
    fn stub_then_restore_gives_the_file_back_byte_for_byte() {
        let e = &EXERCISES[0];
        let crlf = TEXT.replace('\n', "\r\n");
        let no_last_newline = TEXT.trim_end().to_string();
        let at_the_end = TEXT.replace("fn after() {}\n", "");
        for text in [TEXT, &crlf, &no_last_newline, &at_the_end] {
            let stubbed = stub(text, e).unwrap();
            assert_ne!(stubbed, text);
            assert!(is_stubbed(&stubbed, e), "{stubbed:?}");
            assert_eq!(with_region_of(&stubbed, text, e).unwrap(), text);
        }
        assert!(stub(&crlf, e).unwrap().contains("todo!(\r\n"));
    }

    #[test]
    fn every_exercise_round_trips_in_its_step() {
        let root = workspace_root();
        for e in EXERCISES {
            let path = root.join(e.step_dir).join(e.file);
            let text = std::fs::read_to_string(&path).unwrap();
            let stubbed = stub(&text, e).unwrap();
            assert!(is_stubbed(&stubbed, e), "{}", e.name);
            assert!(!is_stubbed(&text, e), "{}", e.name);
            assert!(stubbed.contains(&format!("\"{TODO_PREFIX}{}: ", e.name)));
            assert_eq!(
                with_region_of(&stubbed, &text, e).unwrap(),
                text,
                "{}",
                e.name
            );
            // The stub put back over the learner's body keeps what they added outside.
            let learner = stubbed.replace(&format!("{TODO_PREFIX}{}: ", e.name), "mine: ")
                + "\n// a test of the learner's own\n";
            let reset = with_region_of(&learner, &stubbed, e).unwrap();
            assert_eq!(
                reset,
                stubbed.clone() + "\n// a test of the learner's own\n"
            );
        }
    }

    #[test]
    fn the_region_s_lines_are_numbered_from_1() {
        assert_eq!(region_lines(TEXT, &EXERCISES[0]).unwrap(), 3..=13);
    }

    #[test]
    fn a_region_without_its_closing_brace_is_refused() {
        let e = &EXERCISES[0];
        let text = "// ANCHOR: exercise_record_buf_field\nfn f() {\n}\nfn g() {}\n// ANCHOR_END: exercise_record_buf_field\n";
        assert!(stub(text, e).is_err());
        assert!(stub("fn f() {}\n", e).is_err());
    }
}
