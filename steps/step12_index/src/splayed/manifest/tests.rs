//! The unit tests of [`super`]: column names through [`key_text`] and back, and
//! manifests through their JSON and back.

use super::*;

#[test]
fn names_and_manifests_round_trip() {
    for name in [
        &b"value"[..],
        b"a\\b",
        b"\xff\\xff",
        b"caf\xc3\xa9",
        b"",
        b"\\",
    ] {
        assert_eq!(from_key_text(&key_text(name)).as_deref(), Some(name));
    }
    let m = Manifest {
        rows: 3,
        symbols: 2,
        columns: vec![
            Column {
                name: b"k\xff".to_vec(),
                ty: ColumnType::String,
                nulls: 0,
                id_bound: 2,
            },
            Column {
                name: b"v".to_vec(),
                ty: ColumnType::Decimal { scale: 6 },
                nulls: 1,
                id_bound: 0,
            },
        ],
        index: Some(1),
        checksums: [("col0.values".to_string(), 7), ("symbols.bytes".into(), 9)].into(),
    };
    assert_eq!(Manifest::from_json(&m.to_json()), Ok(m.clone()));
    let mut other = m.to_json();
    other["version"] = (VERSION + 1).into();
    let e = Manifest::from_json(&other).unwrap_err().to_string();
    assert!(e.contains("version"), "{e}");
    // Any number edited, the text's checksum refuses it.
    for edit in ["rows", "symbols"] {
        let mut edited = m.to_json();
        edited[edit] = 4.into();
        let e = Manifest::from_json(&edited).unwrap_err().to_string();
        assert!(e.contains("does not match its checksum"), "{edit}: {e}");
    }
    let mut edited = m.to_json();
    edited["columns"][0]["id_bound"] = 1.into();
    assert!(Manifest::from_json(&edited).is_err());
}
