//! `gen [--rows N] [--out PATH] [--seed S] [--quoted-pct P] [--crlf] [--keys N [--zipf]]
//! [--quote-strings]`: writes a bench CSV and its reference answer (`PATH` with
//! `.ref.json` in place of `.csv`). `--keys N` puts N distinct keys in `category`
//! instead of the 32 categories; `--quote-strings` quotes every field that is not a
//! number, as pandas' `QUOTE_NONNUMERIC` does.
//! A target that is not a regular file or absent (a device, a FIFO, a directory) is
//! refused; the files are written as temporaries (`PATH.tmp`) renamed into place, and
//! removed on an error, SIGINT or SIGTERM (exit status 130).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Arg, ArgAction, Command, value_parser};

fn main() -> ExitCode {
    // Ctrl-C or SIGTERM removes the files not yet renamed into place.
    gen_csv::output::remove_temporaries_on_interrupt().expect("the first handler of this process");
    let defaults = gen_csv::Config::default();
    let matches = Command::new("gen")
        .about("Writes a deterministic bench CSV and the reference answer of its GROUP BY query")
        .arg(
            Arg::new("rows")
                .long("rows")
                .value_name("N")
                .value_parser(value_parser!(u64))
                .default_value(defaults.rows.to_string())
                .help("data records to write (the header is one more)"),
        )
        .arg(
            Arg::new("out")
                .long("out")
                .value_name("PATH")
                .value_parser(value_parser!(PathBuf))
                .help("where to write the CSV [default: data/bench.csv of this workspace]"),
        )
        .arg(
            Arg::new("seed")
                .long("seed")
                .value_name("S")
                .value_parser(value_parser!(u64))
                .default_value(defaults.seed.to_string())
                .help("seed of the ChaCha8 generator"),
        )
        .arg(
            Arg::new("quoted-pct")
                .long("quoted-pct")
                .value_name("P")
                .value_parser(value_parser!(f64))
                .default_value(defaults.quoted_pct.to_string())
                .help("percentage (0-100) of name fields that are quoted"),
        )
        .arg(
            Arg::new("crlf")
                .long("crlf")
                .action(ArgAction::SetTrue)
                .help("end records with CR LF"),
        )
        .arg(
            Arg::new("keys")
                .long("keys")
                .value_name("N")
                .value_parser(value_parser!(u64).range(1..))
                .help("N distinct keys in `category` instead of its 32 categories, every key in turn (so a file of at least N rows holds them all)"),
        )
        .arg(
            Arg::new("zipf")
                .long("zipf")
                .action(ArgAction::SetTrue)
                .requires("keys")
                .help("with --keys: draw each row's key Zipf-skewed (rank r with weight 1/(r+1)) instead of in turn"),
        )
        .arg(
            Arg::new("quote-strings")
                .long("quote-strings")
                .action(ArgAction::SetTrue)
                .help("quote every field that is not a number (category, name, date, flag, and the header's names), as pandas' QUOTE_NONNUMERIC and R's write.csv do: the same rows and answer as without it"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(["csv", "1brc"])
                .default_value("csv")
                .help("csv: the bench file; 1brc: the One Billion Row Challenge's station;temperature lines, no header (--out required), and its answer in OUT.ref.txt"),
        )
        .arg(
            Arg::new("stations")
                .long("stations")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .default_value("413")
                .help("1brc: distinct stations, 1 to 10000"),
        )
        .get_matches();
    if matches.get_one::<String>("format").map(String::as_str) == Some("1brc") {
        return one_billion_rows(&matches);
    }
    let config = gen_csv::Config {
        rows: *matches.get_one("rows").expect("has a default"),
        seed: *matches.get_one("seed").expect("has a default"),
        quoted_pct: *matches.get_one("quoted-pct").expect("has a default"),
        crlf: matches.get_flag("crlf"),
    };
    let out = matches
        .get_one::<PathBuf>("out")
        .cloned()
        .unwrap_or_else(gen_csv::default_bench_path);
    let out = &out;
    if !(0.0..=100.0).contains(&config.quoted_pct) {
        eprintln!(
            "gen: --quoted-pct must be between 0 and 100, got {}",
            config.quoted_pct
        );
        return ExitCode::FAILURE;
    }
    let shape = gen_csv::Shape {
        keys: matches
            .get_one::<u64>("keys")
            .map(|&distinct| gen_csv::Keys {
                distinct,
                zipf: matches.get_flag("zipf"),
            }),
        quote_strings: matches.get_flag("quote-strings"),
    };
    match gen_csv::write_files_shaped(&config, shape, out) {
        Ok(reference) => {
            println!(
                "wrote {} ({} rows, {} distinct keys, {:.1} MB) and {}",
                out.display(),
                reference.rows,
                reference.groups.len(),
                reference.bytes as f64 / 1e6,
                gen_csv::reference_path(out).display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen: cannot write {}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}

/// `gen --format 1brc --rows N --stations S --seed X --out PATH`: the challenge's file
/// and, beside it, its answer (`PATH` with the extension `ref.txt`).
fn one_billion_rows(matches: &clap::ArgMatches) -> ExitCode {
    let config = gen_csv::brc::BrcConfig {
        rows: *matches.get_one("rows").expect("has a default"),
        stations: *matches.get_one("stations").expect("has a default"),
        seed: *matches.get_one("seed").expect("has a default"),
    };
    if !(1..=10_000).contains(&config.stations) {
        eprintln!(
            "gen: --stations must be 1 to 10000, got {}",
            config.stations
        );
        return ExitCode::FAILURE;
    }
    let Some(out) = matches.get_one::<PathBuf>("out") else {
        eprintln!("gen: --format 1brc needs --out PATH");
        return ExitCode::FAILURE;
    };
    let answer_path = out.with_extension("ref.txt");
    match gen_csv::brc::write_brc_files(&config, out) {
        Ok(answer) => {
            println!(
                "wrote {} ({} rows, {} stations) and {}",
                out.display(),
                config.rows,
                answer.len(),
                answer_path.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen: cannot write {}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}
