//! The links of the built book, as a reader follows them: every internal `href` and
//! `src` of every page (and of the sidebar's `toc.js`) names a file of the build, and
//! every `#fragment` an id of the page it points into. The README's relative links and
//! images name files of the repository.

use crate::error::{Error, Result, failed};
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

/// Checks the HTML under `out` (`book/book`); returns the count of links checked.
pub fn check_book(out: &Path) -> Result<usize> {
    let mut files = Vec::new();
    collect(out, &mut files);
    if !files.iter().any(|f| f.ends_with("index.html")) {
        return Err(failed!(
            "{}: no index.html: was the book built?",
            out.display()
        ));
    }
    let mut ids: HashMap<PathBuf, HashSet<String>> = HashMap::new();
    let mut problems = Vec::new();
    let mut count = 0;
    for file in &files {
        let is_js = file.extension().is_some_and(|e| e == "js");
        if is_js && !file.ends_with("toc.js") {
            continue;
        }
        let text = std::fs::read_to_string(file).map_err(Error::io(file))?;
        // The 404 page is served from the site's root (`<base href="/">`), and the
        // sidebar's links are relative to the root too.
        let base = if is_js || text.contains("<base href=\"/\"") {
            out.to_path_buf()
        } else {
            file.parent().unwrap_or(out).to_path_buf()
        };
        for link in attributes(&text) {
            let Some((path, fragment)) = internal(&link) else {
                continue;
            };
            count += 1;
            let target = if path.is_empty() {
                file.clone()
            } else {
                // A path from the site's root (`/`) is one from the book's.
                let from = if path.starts_with('/') { out } else { &base };
                let mut t = normalize(&from.join(percent_decode(path.trim_start_matches('/'))));
                if t.is_dir() {
                    t = t.join("index.html");
                }
                t
            };
            let shown = file.strip_prefix(out).unwrap_or(file).display();
            if !target.is_file() {
                problems.push(format!("{shown}: `{link}`: no such file in the build"));
                continue;
            }
            let Some(fragment) = fragment.filter(|f| !f.is_empty()) else {
                continue;
            };
            if target.extension().is_none_or(|e| e != "html") {
                continue;
            }
            let page_ids = ids.entry(target.clone()).or_insert_with(|| {
                std::fs::read_to_string(&target)
                    .map(|t| page_ids(&t))
                    .unwrap_or_default()
            });
            if !page_ids.contains(&percent_decode(fragment)) {
                problems.push(format!(
                    "{shown}: `{link}`: no id `{fragment}` in that page"
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(count)
    } else {
        Err(failed!(
            "{} broken links in the built book:\n{}",
            problems.len(),
            problems.join("\n")
        ))
    }
}

/// Checks the README's relative links and images; returns their count.
pub fn check_readme(root: &Path) -> Result<usize> {
    let path = root.join("README.md");
    let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
    let mut problems = Vec::new();
    let mut count = 0;
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if in_fence {
            continue;
        }
        let targets = line
            .split("](")
            .skip(1)
            .filter_map(|rest| rest.split(')').next())
            .map(|t| t.split_whitespace().next().unwrap_or("").to_string())
            .chain(attributes(line));
        for target in targets {
            let Some((file, _)) = internal(&target) else {
                continue;
            };
            if file.is_empty() {
                continue;
            }
            count += 1;
            if !root.join(percent_decode(file)).exists() {
                problems.push(format!("README.md:{}: `{target}`: no such file", i + 1));
            }
        }
    }
    if problems.is_empty() {
        Ok(count)
    } else {
        Err(problems.join("\n").into())
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "html" || e == "js") {
            out.push(path);
        }
    }
    out.sort();
}

/// The values of every `href="…"` and `src="…"` of `text`, `&amp;` decoded.
fn attributes(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\"", "href=\\\"", "src=\\\""] {
        let escaped = attr.ends_with("\\\"");
        for (at, _) in text.match_indices(attr) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_') {
                continue; // data-href=, xlink:href= is fine either way
            }
            let rest = &text[at + attr.len()..];
            let end = if escaped {
                rest.find("\\\"")
            } else {
                rest.find('"')
            };
            if let Some(end) = end {
                out.push(rest[..end].replace("&amp;", "&"));
            }
        }
    }
    out
}

/// `(path, fragment)` of a link inside the book, `None` for another site, a scheme
/// (`mailto:`, `data:`, `javascript:`) or a template (`{{…}}`, `${…}`).
fn internal(link: &str) -> Option<(&str, Option<&str>)> {
    let link = link.trim();
    if link.is_empty() || link.starts_with("//") || link.contains("{{") || link.contains("${") {
        return None;
    }
    let scheme = link.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
            && !s.contains('/')
    });
    if scheme {
        return None;
    }
    let (path, fragment) = match link.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (link, None),
    };
    let path = path.split('?').next().unwrap_or("");
    Some((path, fragment))
}

/// The `id="…"` and `name="…"` values of a page.
fn page_ids(text: &str) -> HashSet<String> {
    let mut ids = HashSet::new();
    for attr in [" id=\"", " name=\""] {
        for (at, _) in text.match_indices(attr) {
            let rest = &text[at + attr.len()..];
            if let Some(end) = rest.find('"') {
                ids.insert(rest[..end].to_string());
            }
        }
    }
    ids
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |at: usize| bytes.get(at).and_then(|&b| (b as char).to_digit(16));
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_inside_the_book_are_told_from_others() {
        assert_eq!(
            internal("step1.html#top"),
            Some(("step1.html", Some("top")))
        );
        assert_eq!(internal("#top"), Some(("", Some("top"))));
        assert_eq!(internal("img/a%20b.svg?v=1"), Some(("img/a%20b.svg", None)));
        assert_eq!(internal("https://example.org/x"), None);
        assert_eq!(internal("mailto:a@b"), None);
        assert_eq!(internal("//cdn.example/x.js"), None);
        assert_eq!(percent_decode("a%20b"), "a b");
    }

    #[test]
    fn a_missing_page_image_or_id_is_named() {
        let dir = std::env::temp_dir().join(format!("xtask-links-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("img")).unwrap();
        std::fs::write(dir.join("img/ok.svg"), "<svg/>").unwrap();
        std::fs::write(
            dir.join("index.html"),
            "<h2 id=\"here\">x</h2><a href=\"#here\">a</a><a href=\"page.html#there\">b</a>\
             <img src=\"img/ok.svg\"><img src=\"img/gone.svg\"><a href=\"gone.html\">c</a>\
             <a href=\"https://example.org\">d</a>",
        )
        .unwrap();
        std::fs::write(dir.join("page.html"), "<h2 id=\"elsewhere\">y</h2>").unwrap();
        let err = check_book(&dir).unwrap_err().to_string();
        assert!(err.starts_with("3 broken links"), "{err}");
        assert!(err.contains("`page.html#there`: no id `there`"), "{err}");
        assert!(err.contains("`img/gone.svg`: no such file"), "{err}");
        assert!(err.contains("`gone.html`: no such file"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
