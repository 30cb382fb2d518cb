//! A Rust source file as the lint checks read it: its code without comments and
//! literals, and without the items that only tests build.
//!
//! Not a parser: a scanner that knows where comments, strings and char literals
//! start and end (so that a word in a doc comment or a message is never taken for
//! code), and where the item after `#[cfg(test)]` ends. Every removed character
//! becomes a space and every newline stays, so a position in the result is a
//! position, and its line a line, of the file.

/// `source` with every comment, string (`"…"`, `b"…"`, `c"…"`, raw `r#"…"#`) and
/// char literal (`'x'`, `b'\n'`) blanked, and every item under `#[cfg(test)]`.
/// The names of the test-only modules declared without a body (`#[cfg(test)] mod
/// tests;`), whose files are tests too, come back with it.
pub fn library_code(source: &str) -> (String, Vec<String>) {
    without_test_items(&code_only(source))
}

/// `source` with comments and literals blanked: see [`library_code`].
pub fn code_only(source: &str) -> String {
    let s: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    // As many spaces as the character's bytes: byte offsets stay those of the file.
    let blank = |out: &mut String, chars: &[char]| {
        for &c in chars {
            match c {
                '\n' => out.push('\n'),
                c => out.extend(std::iter::repeat_n(' ', c.len_utf8())),
            }
        }
    };
    let mut i = 0;
    while i < s.len() {
        let end = match s[i] {
            '/' if s.get(i + 1) == Some(&'/') => line_comment_end(&s, i),
            '/' if s.get(i + 1) == Some(&'*') => block_comment_end(&s, i),
            '"' => string_end(&s, i + 1),
            '\'' => char_end(&s, i),
            'r' | 'b' | 'c' if !ident_before(&s, i) => prefixed_literal_end(&s, i),
            _ => None,
        };
        match end {
            Some(end) => {
                blank(&mut out, &s[i..end]);
                i = end;
            }
            None => {
                out.push(s[i]);
                i += 1;
            }
        }
    }
    out
}

fn ident_before(s: &[char], i: usize) -> bool {
    i > 0 && (s[i - 1].is_alphanumeric() || s[i - 1] == '_')
}

fn line_comment_end(s: &[char], i: usize) -> Option<usize> {
    Some(
        s[i..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(s.len(), |n| i + n),
    )
}

/// Block comments nest in Rust.
fn block_comment_end(s: &[char], mut i: usize) -> Option<usize> {
    let mut depth = 0;
    while i < s.len() {
        if s[i] == '/' && s.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return Some(i);
            }
        } else {
            i += 1;
        }
    }
    Some(s.len())
}

/// The end of a string whose contents start at `i`, past its closing quote.
fn string_end(s: &[char], mut i: usize) -> Option<usize> {
    while i < s.len() {
        match s[i] {
            '\\' => i += 2,
            '"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    Some(s.len())
}

/// A char literal's end, or `None` for a lifetime or a label (`'a`, `'static`).
fn char_end(s: &[char], i: usize) -> Option<usize> {
    if s.get(i + 1) == Some(&'\\') {
        // The escaped character is never the end, even when it is a quote: `'\''`.
        let close = s.get(i + 3..)?.iter().position(|&c| c == '\'')?;
        return Some(i + 3 + close + 1);
    }
    (s.get(i + 2) == Some(&'\'')).then_some(i + 3)
}

/// `r"…"`, `r#"…"#`, `b"…"`, `br#"…"#`, `b'x'`, `c"…"`, `cr"…"` starting at `i`; `None`
/// for an identifier that starts with those letters (`raw`, `r#type`).
fn prefixed_literal_end(s: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if s[j] == 'b' || s[j] == 'c' {
        j += 1;
        match s.get(j) {
            Some('"') => return string_end(s, j + 1),
            Some('\'') if s[i] == 'b' => return char_end(s, j),
            Some('r') => {}
            _ => return None,
        }
    }
    // A raw string: `r`, some hashes, a quote; it ends at a quote and as many hashes.
    j += 1;
    let hashes = s[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if s.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < s.len() {
        if s[j] == '"'
            && s[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(s.len())
}

/// `code` (already [`code_only`]) with every item under `#[cfg(test)]` blanked, and
/// the names of the bodiless test modules among them.
fn without_test_items(code: &str) -> (String, Vec<String>) {
    const ATTRIBUTE: &str = "#[cfg(test)]";
    // Bytes: the attribute and the brackets an item ends at are ASCII, and a byte of a
    // multi-byte character is never one of them.
    let mut out = code.as_bytes().to_vec();
    let mut test_modules = Vec::new();
    let mut from = 0;
    while let Some(found) = code[from..].find(ATTRIBUTE) {
        let start = from + found;
        let end = item_end(&out, start + ATTRIBUTE.len());
        let item = String::from_utf8_lossy(&out[start + ATTRIBUTE.len()..end]).into_owned();
        if let Some(name) = bodiless_module(&item) {
            test_modules.push(name);
        }
        for b in &mut out[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        from = end.max(start + ATTRIBUTE.len());
    }
    // Whole characters were blanked, each byte to a space: still UTF-8.
    (String::from_utf8_lossy(&out).into_owned(), test_modules)
}

/// The end of the item that starts at `i`: past its `;`, or past the `}` that closes
/// its first `{` (brackets and parentheses skipped: `[u8; 4]` ends nothing).
fn item_end(s: &[u8], mut i: usize) -> usize {
    let mut nesting = 0usize;
    while i < s.len() {
        match s[i] {
            b'(' | b'[' => nesting += 1,
            b')' | b']' => nesting = nesting.saturating_sub(1),
            b';' if nesting == 0 => return i + 1,
            b'{' if nesting == 0 => {
                let mut depth = 0;
                while i < s.len() {
                    match s[i] {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                return s.len();
            }
            _ => {}
        }
        i += 1;
    }
    s.len()
}

/// `NAME` of an item `mod NAME;` (after any visibility), else `None`.
fn bodiless_module(item: &str) -> Option<String> {
    let words: Vec<&str> = item
        .trim()
        .trim_end_matches(';')
        .split_whitespace()
        .collect();
    match words[..] {
        [.., "mod", name] if item.trim().ends_with(';') => Some(name.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_literals_are_blanked_and_lines_kept() {
        let source = "let a = \"x // y\"; // Result<u8, String>\n/* a /* nested */ b */ f('\"', b'\\'', 'a')\nr#\"raw \" still\"# c\"c\" br\"b\" raw r#type x<'a>";
        let code = code_only(source);
        assert_eq!(code.lines().count(), source.lines().count());
        assert_eq!(code.len(), source.len());
        for gone in [
            "x // y", "Result", "nested", "raw \"", "still", "'\"'", "b'",
        ] {
            assert!(!code.contains(gone), "{gone:?} left in {code:?}");
        }
        for kept in ["let a =", "f(", "raw r#type x<'a>"] {
            assert!(code.contains(kept), "{kept:?} lost from {code:?}");
        }
    }

    #[test]
    fn test_items_are_blanked_and_test_modules_named() {
        let source = "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn b() -> [u8; 2] { [1, 2] }\n}\n#[cfg(test)]\nmod more;\n#[cfg(test)]\nconst N: [u8; 2] = [0; 2];\nfn c() {}";
        let (code, modules) = library_code(source);
        assert!(code.contains("fn a()") && code.contains("fn c()"), "{code}");
        assert!(
            !code.contains("fn b") && !code.contains("const N"),
            "{code}"
        );
        assert_eq!(modules, ["more"]);
        assert_eq!(code.lines().count(), source.lines().count());
    }
}
