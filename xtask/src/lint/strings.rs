//! `Result<_, String>`: an error that is only text. A caller can print it but not tell
//! one failure from another, and a test can only search its words; an error type
//! (an enum, `thiserror` for its messages) says what failed and where. Found by
//! reading each `Result<…>` in the code (not in comments, strings or tests) and its
//! last type argument, however deep the first one nests (`Result<Vec<u8>, String>`).

/// Where a `Result<_, String>` is: 1-based line, and the type as written.
#[derive(Debug, PartialEq, Eq)]
pub struct Found {
    /// 1-based line of `Result`.
    pub line: usize,
    /// The type, its whitespace collapsed: `Result<Vec<u8>, String>`.
    pub text: String,
}

/// Every `Result<…>` in `code` (already blanked by
/// [`library_code`](super::source::library_code)) whose error type is `String`.
pub fn string_errors(code: &str) -> Vec<Found> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("Result") {
        let start = from + at;
        from = start + "Result".len();
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `IoResult`, `my_Result`
        }
        let rest = &code[from..];
        let Some(open) = rest.find(|c: char| !c.is_whitespace()) else {
            break;
        };
        if !rest[open..].starts_with('<') {
            continue; // `Result::Ok`, `io::Result;`
        }
        let Some((arguments, len)) = type_arguments(&rest[open + 1..]) else {
            continue;
        };
        // One argument is an alias's `Result<T>` (`io::Result`), whose error is fixed.
        if arguments.len() >= 2 && arguments.last().is_some_and(|e| is_string(e)) {
            let written = &code[start..from + open + 1 + len];
            found.push(Found {
                line: code[..start].matches('\n').count() + 1,
                text: written.split_whitespace().collect::<Vec<_>>().join(" "),
            });
        }
    }
    found
}

/// The type arguments of `text`, which starts right after a `<`, split at the commas
/// of that level, and the length up to and with the matching `>`; `None` when it
/// does not close (a comparison `a < b`, cut off).
fn type_arguments(text: &str) -> Option<(Vec<&str>, usize)> {
    let mut depth = 1usize;
    let mut arguments = Vec::new();
    let mut start = 0;
    let mut previous = ' ';
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            // `->` in `Fn(u8) -> u8` closes nothing.
            '>' if previous == '-' => {}
            '>' | ')' | ']' => {
                depth -= 1;
                if depth == 0 {
                    let last = text[start..i].trim();
                    if !last.is_empty() || arguments.is_empty() {
                        arguments.push(last); // not after a trailing comma
                    }
                    return Some((arguments, i + 1));
                }
            }
            ',' if depth == 1 => {
                arguments.push(text[start..i].trim());
                start = i + 1;
            }
            ';' | '{' | '}' => return None,
            _ => {}
        }
        previous = c;
    }
    None
}

/// `String` as an error type: `String`, `std::string::String`, and a default
/// (`E = String`).
fn is_string(argument: &str) -> bool {
    let ty = argument.rsplit('=').next().unwrap_or(argument).trim();
    matches!(
        ty.split_whitespace().collect::<String>().as_str(),
        "String" | "std::string::String" | "alloc::string::String" | "::std::string::String"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::source::library_code;

    fn lines(source: &str) -> Vec<(usize, String)> {
        string_errors(&library_code(source).0)
            .into_iter()
            .map(|f| (f.line, f.text))
            .collect()
    }

    #[test]
    fn a_string_error_is_found_however_its_value_nests() {
        let source = "fn a() -> Result<u8, String> {}\n\
                      fn b() -> Result<Vec<Vec<u8>>, String> {}\n\
                      fn c() -> Option<Result<(), std::string::String>> {}\n\
                      fn d() -> Result<\n    impl Fn(u8) -> u8,\n    String,\n> {}\n\
                      type R<T, E = String> = Result<T, E>;\n\
                      type S<T> = std::result::Result<T, String>;";
        assert_eq!(
            lines(source),
            [
                (1, "Result<u8, String>".to_string()),
                (2, "Result<Vec<Vec<u8>>, String>".to_string()),
                (3, "Result<(), std::string::String>".to_string()),
                (4, "Result< impl Fn(u8) -> u8, String, >".to_string()),
                (9, "Result<T, String>".to_string()),
            ]
        );
    }

    #[test]
    fn typed_errors_comments_strings_and_tests_are_not_found() {
        let source = "fn a() -> Result<u8, Error> {}\n\
                      fn b() -> Result<(), (String, ExitCode)> {}\n\
                      fn c() -> io::Result<String> {}\n\
                      fn d() -> Result<String, Error> {}\n\
                      /// Not `Result<u8, String>`.\n\
                      const E: &str = \"Result<u8, String>\";\n\
                      let ok = a < b && c > d; let r = MyResult<u8, String>::new();\n\
                      #[cfg(test)]\n\
                      mod tests { fn t() -> Result<(), String> { Ok(()) } }";
        assert_eq!(lines(source), []);
    }
}
