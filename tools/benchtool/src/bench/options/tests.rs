use std::ffi::OsString;
use std::path::PathBuf;

use super::{Options, Parsed, Threads, parse, shell_quoted, typed_again};

fn args(line: &str) -> Vec<OsString> {
    line.split_whitespace().map(OsString::from).collect()
}

pub(crate) fn options(line: &str) -> Options {
    match parse(&args(line)) {
        Ok(Parsed::Run(options)) => options,
        other => panic!("{line}: {other:?}"),
    }
}

fn error(line: &str) -> String {
    match parse(&args(line)) {
        Err(e) => e.to_string(),
        Ok(parsed) => panic!("{line}: parsed as {parsed:?}"),
    }
}

#[test]
fn the_options_and_their_defaults() {
    assert_eq!(options(""), Options::default());
    let o = options("--rows 20000000 --peers --threads 2 --record --runs 1");
    assert_eq!(o.rows, Some(20_000_000));
    assert!(o.peers && o.record && !o.allow_dirty);
    assert_eq!((o.threads, o.runs), (Some(Threads::N(2)), Some(1)));
    // Without their value, --1brc is ten million rows and --threads every core.
    assert_eq!(options("--1brc").brc, Some(10_000_000));
    assert_eq!(options("--1brc 5000 --runs 2").brc, Some(5000));
    assert_eq!(
        options("--threads --peers").threads,
        Some(Threads::EveryCore)
    );
    assert!(options("--threads --peers").peers);
    // An option given twice keeps its last value, as bash's loop did.
    assert_eq!(options("--runs 2 --runs 5").runs, Some(5));
    assert_eq!(options("--steps 1,5,10").steps.as_deref(), Some("1,5,10"));
    assert_eq!(parse(&args("--rows abc --help")).unwrap(), Parsed::Help);
    assert_eq!(parse(&args("-h")).unwrap(), Parsed::Help);
}

#[test]
fn wrong_options_are_refused_in_bash_s_words() {
    assert_eq!(
        error("--bogus"),
        "unknown option '--bogus' (see ./bench.sh --help)"
    );
    assert_eq!(
        error("extra"),
        "unknown option 'extra' (see ./bench.sh --help)"
    );
    assert_eq!(error("--rows"), "--rows needs N");
    assert_eq!(error("--steps"), "--steps needs a LIST such as 1,3,4");
    assert_eq!(
        error("--rows 0"),
        "--rows must be a positive integer, got '0'"
    );
    assert_eq!(
        error("--runs -3"),
        "--runs must be a positive integer, got '-3'"
    );
    assert_eq!(
        error("--threads 0"),
        "--threads must be a positive integer, got '0'"
    );
    assert_eq!(
        error("--keys 1e3"),
        "--keys must be a positive integer, got '1e3'"
    );
    assert_eq!(
        error("--keys 10 --quick"),
        "--keys goes with --rows only: it makes its own file"
    );
    assert_eq!(
        error("--quoted --keys 10"),
        "--quoted goes with --rows only: it makes its own file"
    );
    assert_eq!(
        error("--quick --rows 5"),
        "--rows, --file, --quick and --1brc exclude each other"
    );
    assert_eq!(
        error("--1brc --quick"),
        "--rows, --file, --quick and --1brc exclude each other"
    );
    assert_eq!(
        error("--1brc 100 --peers"),
        "--1brc and --peers exclude each other: the peers run the bench file's query"
    );
    assert_eq!(error("--file no/such.csv"), "no such file: no/such.csv");
    assert_eq!(error("--allow-dirty"), "--allow-dirty goes with --record");
    // The first wrong count is named, in bash's order.
    assert_eq!(
        error("--keys 0 --rows x"),
        "--rows must be a positive integer, got 'x'"
    );
}

fn kind(o: Options) -> String {
    o.kind()
}

#[test]
fn a_recording_is_named_after_what_it_measured() {
    let file = |f: &str| Options {
        file: Some(PathBuf::from(f)),
        ..Options::default()
    };
    assert_eq!(kind(Options::default()), "bench");
    assert_eq!(kind(options("--rows 20000000")), "bench-20000000");
    assert_eq!(kind(options("--quick --steps 4,5")), "quick-steps-4-5");
    assert_eq!(kind(options("--1brc")), "1brc-10000000");
    assert_eq!(kind(options("--keys 1000")), "keys-1000");
    assert_eq!(
        kind(options("--keys 1000 --rows 20000 --steps 1,5")),
        "keys-1000-20000-steps-1-5"
    );
    assert_eq!(kind(options("--quoted")), "quoted");
    assert_eq!(kind(options("--quoted --rows 20000000")), "quoted-20000000");
    assert_eq!(kind(file("./data/bench.csv")), "bench");
    assert_eq!(kind(file("data/bench-500.csv")), "bench-500");
    assert_eq!(kind(file("data/bench-5x.csv")), "file-bench-5x");
    assert_eq!(kind(file("/tmp/My File.v2.csv")), "file-My-File-v2");
    assert_eq!(kind(file("data/café")), "file-caf--");
}

#[test]
fn the_command_is_recorded_as_bash_quoted_it() {
    let typed = [
        "--steps",
        "1,5,10",
        "--record",
        "--file",
        "a b",
        "--allow-dirty",
    ];
    let typed: Vec<OsString> = typed.iter().map(OsString::from).collect();
    assert_eq!(
        typed_again(&typed),
        r"./bench.sh --steps 1\,5\,10 --file a\ b"
    );
    // Each as `LC_ALL=C printf %q` writes it.
    for (arg, quoted) in [
        ("", "''"),
        ("--rows", "--rows"),
        ("a=~b", r"a=\~b"),
        ("~x", r"\~x"),
        ("#a", r"\#a"),
        ("a#", "a#"),
        ("a\"b c", r#"a\"b\ c"#),
        ("é", r"$'\303\251'"),
        ("a b\tc'd\\e\x1bf\x7f", r"$'a b\tc\'d\\e\Ef\177'"),
    ] {
        assert_eq!(shell_quoted(arg.as_bytes()), quoted, "{arg:?}");
    }
}
