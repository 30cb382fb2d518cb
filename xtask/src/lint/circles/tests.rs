//! The circle check's tests: paths read from code, the graph and its circles.

use super::*;
use crate::lint::source::library_code;

fn graph(files: &[(&str, &str)]) -> (Vec<(String, String)>, Vec<Vec<String>>) {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(p, s)| (p.to_string(), library_code(s).0))
        .collect();
    let edges = edges(&files);
    let pairs = edges
        .iter()
        .map(|e| (e.from.clone(), e.to.clone()))
        .collect();
    (pairs, circles(&edges))
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

#[test]
fn two_modules_that_use_each_other_are_a_circle() {
    let (edges, circles) = graph(&[
        ("lib.rs", "mod machine;\nmod record;\nmod value;"),
        ("record.rs", "use crate::machine::{State, next};\nfn f() {}"),
        ("machine.rs", "fn g() -> crate::record::Record { todo!() }"),
        ("value.rs", "use crate::record::Record;"),
    ]);
    assert_eq!(
        edges,
        [
            pair("machine", "record"),
            pair("record", "machine"),
            pair("value", "record")
        ]
    );
    assert_eq!(circles, [["machine", "record"]]);
}

#[test]
fn use_trees_super_and_reexports_are_edges_and_tests_and_text_are_not() {
    let (edges, circles) = graph(&[
        (
            "lib.rs",
            "mod exact;\nmod extremes;\nmod index;\npub use extremes::{MinMax, ratio as to_f64};",
        ),
        (
            "exact.rs",
            "use crate::{Step, to_f64};\n/// crate::index::x\nconst S: &str = \"crate::index\";",
        ),
        ("extremes/mod.rs", "mod inner;"),
        (
            "extremes/inner.rs",
            "use super::super::exact::Exact;\nuse super::MinMax;",
        ),
        (
            "index.rs",
            "use self::x::y;\n#[cfg(test)]\nmod tests {\n    use crate::exact::Exact;\n}",
        ),
        ("bin/tool.rs", "use crate::exact::Exact;"),
    ]);
    assert_eq!(
        edges,
        [pair("exact", "extremes"), pair("extremes", "exact")]
    );
    assert_eq!(circles, [["exact", "extremes"]]);
}

#[test]
fn a_circle_of_three_is_one_and_a_line_is_none() {
    let (_, circles) = graph(&[
        ("a.rs", "use crate::b::X;"),
        ("b.rs", "use crate::c::X;"),
        ("c.rs", "use crate::a::X;"),
        ("d.rs", "use crate::a::X;"),
    ]);
    assert_eq!(circles, [["a", "b", "c"]]);
    let (_, circles) = graph(&[("a.rs", "use crate::b::X;"), ("b.rs", "use crate::c::X;")]);
    assert!(circles.is_empty());
}

#[test]
fn module_paths_follow_the_files() {
    assert_eq!(module_path("lib.rs"), Some(vec![]));
    assert_eq!(module_path("main.rs"), Some(vec![]));
    assert_eq!(
        module_path("splayed/load/mod.rs").unwrap(),
        ["splayed", "load"]
    );
    assert_eq!(
        module_path("splayed/error.rs").unwrap(),
        ["splayed", "error"]
    );
    assert_eq!(module_path("bin/tool.rs"), None);
}
