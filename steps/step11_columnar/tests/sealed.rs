//! A damaged table whose checksums match, written again after the damage: every
//! bound a query relies on is checked before it is used, and `verify` refuses every
//! value that no load writes.

use crate::common::{reseal, step11, table_dir};

#[test]
fn a_table_whose_checksums_match_is_still_checked_for_its_bounds() {
    // Damage that a checksum cannot see, since the checksums were written after it:
    // every bound a query relies on is checked before it is used, so each is a
    // not_a_table error naming what is wrong, never a panic, an abort or a signal.
    let dir = table_dir("sealed");
    let csv = dir.with_extension("csv");
    let rows = "a,1,x,p,true,2024-01-01\nb,2,y,q,false,2024-01-02\na,3,y,r,,\nc,,x,s,true,\n";
    std::fs::write(&csv, format!("k,v,w,t,b,d\n{rows}")).unwrap();
    let d = dir.to_str().unwrap();
    let fresh = || {
        let _ = std::fs::remove_dir_all(&dir);
        let loaded = step11(&["load", csv.to_str().unwrap(), d, "--schema", "t=text"]);
        assert_eq!(loaded.0, Some(0), "{loaded:?}");
    };
    let poke = |name: &str, at: usize, bytes: &[u8]| {
        let mut b = std::fs::read(dir.join(name)).unwrap();
        b[at..at + bytes.len()].copy_from_slice(bytes);
        std::fs::write(dir.join(name), b).unwrap();
    };
    let refused = |what: &str, why: &str| {
        let verified = step11(&["verify", d]);
        assert_eq!(verified.0, Some(1), "{what}: verify {verified:?}");
        assert!(verified.2.contains(why), "{what}: verify {verified:?}");
        let queried = step11(&["query", d, "--group-by", "k", "--sum", "v", "--json"]);
        assert_eq!(queried.0, Some(1), "{what}: {queried:?}");
        assert!(queried.1.contains("not_a_table"), "{what}: {queried:?}");
        assert!(queried.1.contains(why), "{what}: {queried:?}");
    };
    // The query's array has id_bound entries a thread: a bound past the symbols
    // would allocate without limit, or index past the symbol file.
    fresh();
    let symbols = std::fs::metadata(dir.join("symbols.offsets"))
        .unwrap()
        .len()
        / 8
        - 1;
    for bound in [u64::from(u32::MAX), symbols + 1] {
        fresh();
        reseal(&dir, |m| m["columns"][0]["id_bound"] = bound.into());
        refused(
            &format!("id_bound {bound}"),
            &format!("past the table's {symbols} symbols"),
        );
    }
    // A symbol id past the bound, in the key column.
    fresh();
    poke("col0.values", 8, &7u32.to_le_bytes());
    reseal(&dir, |_| {});
    refused(
        "a symbol id past the bound",
        "holds a symbol id past the bound",
    );
    // Symbol offsets that go back.
    fresh();
    poke("symbols.offsets", 8, &1000u64.to_le_bytes());
    reseal(&dir, |_| {});
    refused("symbol offsets out of order", "ends before it starts");
    // So many rows that rows x width wraps around to the files' real sizes.
    fresh();
    reseal(&dir, |m| m["rows"] = ((1u64 << 62) + 1).into());
    refused("2^62 + 1 rows", "more than a file can hold");
    // A NULL count that the validity bits do not have: only `verify` reads them all.
    fresh();
    reseal(&dir, |m| m["columns"][1]["nulls"] = 0.into());
    let verified = step11(&["verify", d]);
    assert_eq!(verified.0, Some(1), "{verified:?}");
    assert!(verified.2.contains("col1.valid"), "{verified:?}");
    // A text whose offsets go back: `verify` refuses it.
    fresh();
    poke("col3.values", 0, &9u32.to_le_bytes());
    reseal(&dir, |_| {});
    let verified = step11(&["verify", d]);
    assert_eq!(verified.0, Some(1), "{verified:?}");
    assert!(verified.2.contains("ends before it starts"), "{verified:?}");
    // Symbols that no string field could hold: the query's arrays would be as long.
    fresh();
    reseal(&dir, |m| m["symbols"] = 1000.into());
    refused("1000 symbols", "more than the table's string fields");
    // A file of the manifest's that is not in the table's directory.
    fresh();
    let outside = format!("../{}", csv.file_name().unwrap().to_str().unwrap());
    reseal(&dir, |m| m["files"][&outside] = 0.into());
    refused(
        "a file outside",
        "is not a file name of the table's directory",
    );
    // A manifest too large to be one is not read.
    fresh();
    let mut big = std::fs::read(dir.join("manifest.json")).unwrap();
    big.resize(65 << 20, b' ');
    std::fs::write(dir.join("manifest.json"), big).unwrap();
    refused("a 65 MiB manifest", "is too large for one");
    // NULLs counted in a string column, which has no validity bits to hold them.
    fresh();
    reseal(&dir, |m| m["columns"][0]["nulls"] = 3.into());
    refused("3 NULLs in a string column", "which holds no NULLs");
    // One string twice in the symbols (`b` written as `a`): two groups of one key,
    // and a lookup by value would find one of them. Only `verify` reads them all.
    fresh();
    let mut bytes = std::fs::read(dir.join("symbols.bytes")).unwrap();
    let b = bytes.iter().position(|&c| c == b'b').unwrap();
    bytes[b] = b'a';
    std::fs::write(dir.join("symbols.bytes"), &bytes).unwrap();
    reseal(&dir, |_| {});
    let verified = step11(&["verify", d]);
    assert_eq!(verified.0, Some(1), "{verified:?}");
    assert!(
        verified.2.contains("symbols.bytes: symbol") && verified.2.contains("string again"),
        "{verified:?}"
    );
    // A validity bit past the last row could stand in for a cleared one.
    fresh();
    poke("col1.valid", 1, &[0x04]);
    reseal(&dir, |_| {});
    let verified = step11(&["verify", d]);
    assert_eq!(verified.0, Some(1), "{verified:?}");
    assert!(
        verified.2.contains("a bit is set past the last row"),
        "{verified:?}"
    );
    // Values no load writes, which a query would group by as they are: `verify`
    // refuses them.
    let odd = |what: &str, file: &str, at: usize, bytes: &[u8]| {
        fresh();
        poke(file, at, bytes);
        reseal(&dir, |_| {});
        let verified = step11(&["verify", d]);
        assert_eq!(verified.0, Some(1), "{what}: {verified:?}");
        assert!(
            verified.2.contains("holds a value no load writes"),
            "{what}: {verified:?}"
        );
    };
    odd("a bool of 7", "col4.values", 0, &[7]);
    odd(
        "a date of i32::MIN",
        "col5.values",
        0,
        &i32::MIN.to_le_bytes(),
    );
    odd("bytes under a NULL", "col4.values", 2, &[1]);
    // A float's exact value that is another number than its f64.
    let floats = dir.with_extension("floats.csv");
    std::fs::write(&floats, b"k,f\na,0.1\nb,2.5e3\na,-7.25\n").unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let loaded = step11(&["load", floats.to_str().unwrap(), d, "--schema", "f=float64"]);
    assert_eq!(loaded.0, Some(0), "{loaded:?}");
    assert_eq!(step11(&["verify", d]).0, Some(0));
    poke("col1.exact", 32, &1i128.to_le_bytes());
    reseal(&dir, |_| {});
    let verified = step11(&["verify", d]);
    assert_eq!(verified.0, Some(1), "{verified:?}");
    assert!(
        verified.2.contains("col1.exact: row 3 is not the number"),
        "{verified:?}"
    );
    std::fs::remove_file(&floats).unwrap();
    // And the intact table, sealed again, is read as before.
    fresh();
    let before = step11(&["query", d, "--group-by", "k", "--sum", "v", "--json"]);
    reseal(&dir, |_| {});
    assert_eq!(step11(&["verify", d]).0, Some(0));
    let after = step11(&["query", d, "--group-by", "k", "--sum", "v", "--json"]);
    assert_eq!((before.0, &before.1), (Some(0), &after.1), "{after:?}");
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&csv).unwrap();
}
