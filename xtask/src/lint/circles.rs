//! Circles between the modules of one crate: `record` uses `machine` and `machine`
//! uses `record`, so neither can be read, tested or replaced alone, and a reader who
//! follows one value walks back and forth.
//!
//! The graph's nodes are a crate's top-level modules (`src/record.rs`,
//! `src/splayed/`), its edges the paths from one to another in library code:
//! `crate::machine::…` (in `use` trees too: `use crate::{machine::State, index}`),
//! `super::…` that climbs out of a module, and `crate::Name` where the crate's root
//! re-exports `Name` from a module (`pub use machine::Packed`). A circle is a
//! strongly connected component of two or more modules (Tarjan's algorithm).

use std::collections::{BTreeMap, BTreeSet};

/// One use of module `to` by module `from`, the first one found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The module that uses.
    pub from: String,
    /// The module used.
    pub to: String,
    /// Where: the file (as given) and its 1-based line.
    pub at: (String, usize),
}

/// A leaf of a `use` tree or a path: its segments and the name it is imported as.
type Leaf = (Vec<String>, Option<String>);

/// The edges between the top-level modules of a crate whose files are `files`:
/// `(path under src/, library code)`, the code blanked by
/// [`library_code`](super::source::library_code). One edge per pair, at its first use.
pub fn edges(files: &[(String, String)]) -> Vec<Edge> {
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|(path, _)| module_path(path)?.first().cloned())
        .collect();
    let mut reexported = BTreeMap::new();
    for (path, code) in files {
        if module_path(path).is_some_and(|m| m.is_empty()) {
            reexports(code, &modules, &mut reexported);
        }
    }
    let mut edges: BTreeMap<(String, String), (String, usize)> = BTreeMap::new();
    for (path, code) in files {
        let Some(here) = module_path(path) else {
            continue;
        };
        let Some(from) = here.first() else {
            continue; // the root re-exports and wires; it is no room of its own
        };
        for (offset, (segments, _)) in paths(code) {
            let Some(target) = absolute(&segments, &here) else {
                continue;
            };
            let to = match target.first() {
                Some(first) if modules.contains(first) => first.clone(),
                Some(name) => match reexported.get(name) {
                    Some(module) => module.clone(),
                    None => continue,
                },
                None => continue,
            };
            if to != *from {
                let line = code[..offset].matches('\n').count() + 1;
                edges
                    .entry((from.clone(), to))
                    .or_insert_with(|| (path.clone(), line));
            }
        }
    }
    edges
        .into_iter()
        .map(|((from, to), at)| Edge { from, to, at })
        .collect()
}

/// The circles of `edges`: each a set of two or more modules that reach each other,
/// sorted, and the list sorted.
pub fn circles(edges: &[Edge]) -> Vec<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for e in edges {
        next.entry(&e.from).or_default().push(&e.to);
        next.entry(&e.to).or_default();
    }
    let mut tarjan = Tarjan {
        next: &next,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for &node in next.keys() {
        if !tarjan.index.contains_key(node) {
            tarjan.visit(node);
        }
    }
    let mut found = tarjan.found;
    found.sort();
    found
}

/// Tarjan's strongly connected components, recursive: a crate has tens of modules.
struct Tarjan<'g> {
    next: &'g BTreeMap<&'g str, Vec<&'g str>>,
    index: BTreeMap<&'g str, usize>,
    low: BTreeMap<&'g str, usize>,
    stack: Vec<&'g str>,
    on_stack: BTreeSet<&'g str>,
    found: Vec<Vec<String>>,
}

impl<'g> Tarjan<'g> {
    fn visit(&mut self, node: &'g str) {
        let n = self.index.len();
        self.index.insert(node, n);
        self.low.insert(node, n);
        self.stack.push(node);
        self.on_stack.insert(node);
        for &to in &self.next[node] {
            if !self.index.contains_key(to) {
                self.visit(to);
                let low = self.low[node].min(self.low[to]);
                self.low.insert(node, low);
            } else if self.on_stack.contains(to) {
                let low = self.low[node].min(self.index[to]);
                self.low.insert(node, low);
            }
        }
        if self.low[node] == self.index[node] {
            let mut component = Vec::new();
            while let Some(top) = self.stack.pop() {
                self.on_stack.remove(top);
                component.push(top.to_string());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                self.found.push(component);
            }
        }
    }
}

/// The module path of a file under `src/`: `[]` for the crate's root (`lib.rs`,
/// `main.rs`), `["splayed", "load"]` for `splayed/load/mod.rs` or `splayed/load.rs`;
/// `None` for `bin/`, whose files are crates of their own.
pub fn module_path(path: &str) -> Option<Vec<String>> {
    let path = path.strip_suffix(".rs")?;
    let mut parts: Vec<String> = path.split('/').map(str::to_string).collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        return Some(Vec::new());
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    Some(parts)
}

/// `segments` from module `here` as a path from the crate's root; `None` for a path
/// that does not start at `crate`, `super` or `self`.
fn absolute(segments: &[String], here: &[String]) -> Option<Vec<String>> {
    match segments.first()?.as_str() {
        "crate" => Some(segments[1..].to_vec()),
        "self" => Some([here, &segments[1..]].concat()),
        "super" => {
            let up = segments.iter().take_while(|s| *s == "super").count();
            let base = here.get(..here.len().checked_sub(up)?)?;
            Some([base, &segments[up..]].concat())
        }
        _ => None,
    }
}

/// In the root's `code`: every name that a `use` of a module brings into the root,
/// as `crate::Name` then reaches it (`pub use machine::{Packed, State as S}`).
fn reexports(code: &str, modules: &BTreeSet<String>, into: &mut BTreeMap<String, String>) {
    for at in words(code, "use") {
        for (segments, alias) in tree(&mut Tokens::new(&code[at + 3..])) {
            let path = match segments.first().map(String::as_str) {
                Some("crate" | "self") => &segments[1..],
                _ => &segments[..],
            };
            if let [module, .., last] = path
                && modules.contains(module)
                && last != "*"
            {
                into.insert(alias.unwrap_or_else(|| last.clone()), module.clone());
            }
        }
    }
}

/// Every path in `code` that starts at `crate`, `super` or `self`, with the offset of
/// its first segment (a `use` tree gives one path per leaf).
fn paths(code: &str) -> Vec<(usize, Leaf)> {
    let mut found = Vec::new();
    for start in ["crate", "super", "self"] {
        for at in words(code, start) {
            if code[at + start.len()..].trim_start().starts_with("::") {
                for leaf in tree(&mut Tokens::new(&code[at..])) {
                    found.push((at, leaf));
                }
            }
        }
    }
    found
}

/// The offsets of `word` in `code` as a word of its own (not inside `selfish`).
fn words<'c>(code: &'c str, word: &'c str) -> impl Iterator<Item = usize> + 'c {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(word).filter_map(move |(at, _)| {
        let before = code[..at].chars().next_back().is_some_and(ident);
        let after = code[at + word.len()..].chars().next().is_some_and(ident);
        (!before && !after).then_some(at)
    })
}

/// The tokens of a path or a `use` tree: identifiers, `::`, `{`, `}`, `,`, `*`.
struct Tokens<'c> {
    rest: &'c str,
}

impl<'c> Tokens<'c> {
    fn new(text: &'c str) -> Tokens<'c> {
        Tokens { rest: text }
    }

    fn peek(&self) -> Option<&'c str> {
        let rest = self.rest.trim_start();
        let len = if rest.starts_with("::") {
            2
        } else if rest.starts_with(['{', '}', ',', '*']) {
            1
        } else {
            rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len())
        };
        (len > 0).then(|| &rest[..len])
    }

    fn next(&mut self) -> Option<&'c str> {
        let token = self.peek()?;
        let rest = self.rest.trim_start();
        self.rest = &rest[token.len()..];
        Some(token)
    }
}

/// The leaves of the tree at `tokens`: `a::{b, c::d as e, *}` gives `a::b`, `a::c::d`
/// (as `e`) and `a::*`.
fn tree(tokens: &mut Tokens<'_>) -> Vec<Leaf> {
    match tokens.peek() {
        Some("{") => {
            tokens.next();
            let mut leaves = Vec::new();
            loop {
                match tokens.peek() {
                    Some("}") | None => {
                        tokens.next();
                        return leaves;
                    }
                    Some(",") => {
                        tokens.next();
                    }
                    Some(_) => {
                        let before = tokens.rest.len();
                        leaves.extend(tree(tokens));
                        if tokens.rest.len() == before {
                            tokens.next(); // a token no tree starts with
                        }
                    }
                }
            }
        }
        Some("*") => {
            tokens.next();
            vec![(vec!["*".to_string()], None)]
        }
        Some(word) if word.starts_with(|c: char| c.is_alphanumeric() || c == '_') => {
            tokens.next();
            let word = word.to_string();
            if tokens.peek() == Some("::") {
                tokens.next();
                let below = tree(tokens);
                if below.is_empty() {
                    return vec![(vec![word], None)]; // `crate::x::<T>`: ends at `<`
                }
                return below
                    .into_iter()
                    .map(|(mut segments, alias)| {
                        segments.insert(0, word.clone());
                        (segments, alias)
                    })
                    .collect();
            }
            let alias = if tokens.peek() == Some("as") {
                tokens.next();
                tokens.next().map(str::to_string)
            } else {
                None
            };
            vec![(vec![word], alias)]
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
#[cfg(test)]
mod tests;
