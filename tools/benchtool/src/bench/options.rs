//! bench.sh's command line: what it asks for ([`Options`], checked as bench.sh always
//! checked it), the name of its recording ([`Options::kind`]) and the command as it
//! would be typed again ([`typed_again`]).
//!
//! clap parses; the errors keep bash's words (`unknown option '--x' (see ./bench.sh
//! --help)`), since scripts and the book quote them. An option given twice keeps its
//! last value, as the bash loop did.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, ArgMatches, Command};

use crate::error::{BenchError, Result};

#[cfg(test)]
pub(crate) mod tests;

/// `./bench.sh --help`.
pub const USAGE: &str = include_str!("usage.txt");

/// The options that take a value, with what the value is (said when it is missing).
const VALUED: [(&str, &str); 6] = [
    ("rows", "N"),
    ("keys", "N"),
    ("file", "PATH"),
    ("runs", "N"),
    ("steps", "a LIST such as 1,3,4"),
    ("in-process", "N"),
];

/// The flags, which take no value.
const FLAGS: [&str; 5] = ["quick", "quoted", "peers", "record", "allow-dirty"];

/// `--1brc` without ROWS: the challenge's own size is a billion; ten million is
/// about 146 MB, a file this machine writes in seconds.
const BRC_ROWS: &str = "10000000";

/// `--threads` without N: every core (no count can be empty, so the empty value says it).
const EVERY_CORE: &str = "";

/// `--threads [N]`: the limit's thread count and the one-thread rows' presence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// `--threads` alone: as many threads as the machine has cores.
    EveryCore,
    /// `--threads N`.
    N(u64),
}

/// What bench.sh was asked to do: `None` or `false` where an option was not given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// `--rows N`: data/bench-N.csv, or the rows of `--keys`' or `--quoted`'s file.
    pub rows: Option<u64>,
    /// `--file PATH`.
    pub file: Option<PathBuf>,
    /// `--quick`.
    pub quick: bool,
    /// `--1brc [ROWS]`: the rows of the challenge's file.
    pub brc: Option<u64>,
    /// `--keys N`: distinct keys in `category`.
    pub keys: Option<u64>,
    /// `--quoted`.
    pub quoted: bool,
    /// `--runs N`: rounds.
    pub runs: Option<u32>,
    /// `--in-process N`: timed runs inside each step's process.
    pub in_process: Option<u32>,
    /// `--steps LIST`, as typed (the recording's name repeats it).
    pub steps: Option<String>,
    /// `--threads [N]`.
    pub threads: Option<Threads>,
    /// `--peers`.
    pub peers: bool,
    /// `--record`.
    pub record: bool,
    /// `--allow-dirty`.
    pub allow_dirty: bool,
}

/// The command line read: the help asked for, or a run.
#[derive(Debug, PartialEq)]
pub enum Parsed {
    /// `-h` or `--help`: print [`USAGE`], run nothing.
    Help,
    /// Run with these options.
    Run(Options),
}

/// bench.sh's options, for clap.
pub fn command() -> Command {
    let valued = VALUED.map(|(name, value)| {
        Arg::new(name)
            .long(name)
            .value_name(value)
            .num_args(1)
            .allow_hyphen_values(true)
    });
    let flags = FLAGS.map(|name| Arg::new(name).long(name).action(ArgAction::SetTrue));
    let optional = [("1brc", BRC_ROWS), ("threads", EVERY_CORE)].map(|(name, missing)| {
        Arg::new(name)
            .long(name)
            .num_args(0..=1)
            .default_missing_value(missing)
    });
    Command::new("bench")
        .about(
            "What bench.sh does: every row, measured, reported, and recorded (./bench.sh --help)",
        )
        .no_binary_name(true)
        .args_override_self(true)
        .disable_help_flag(true)
        .arg(
            Arg::new("help")
                .short('h')
                .long("help")
                .action(ArgAction::Help),
        )
        .override_help(USAGE)
        .args(valued)
        .args(flags)
        .args(optional)
}

/// Reads bench.sh's arguments (without the program's name) and checks them, in the
/// order the bash script did.
///
/// # Errors
/// A [`BenchError`] naming the first option that is wrong: unknown, without its
/// value, not a positive integer, or with an option it excludes; or a `--file` that
/// is not there.
pub fn parse(args: &[OsString]) -> Result<Parsed> {
    let matches = match command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::DisplayHelp => return Ok(Parsed::Help),
        Err(e) => return Err(clap_error(e).into()),
    };
    Ok(Parsed::Run(check(&matches)?))
}

/// clap's error in bench.sh's words.
fn clap_error(e: clap::Error) -> BenchError {
    let arg = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg.clone(),
        _ => return BenchError::Clap(e),
    };
    match e.kind() {
        ErrorKind::UnknownArgument => BenchError::UnknownOption(arg),
        // `--rows <N>`: the only invalid value clap finds is a missing one, since
        // bench.sh reads every value itself.
        ErrorKind::InvalidValue => {
            let option = arg.split_whitespace().next().unwrap_or(&arg).to_string();
            let what = VALUED
                .iter()
                .find(|(name, _)| option == format!("--{name}"))
                .map_or("a value", |(_, what)| what);
            BenchError::NeedsValue { option, what }
        }
        _ => BenchError::Clap(e),
    }
}

fn check(m: &ArgMatches) -> Result<Options> {
    let text = |name: &str| m.get_one::<String>(name).cloned();
    let count = |name: &str| -> Result<Option<u64>, BenchError> {
        text(name).map(|got| positive(&got, name)).transpose()
    };
    let rows = count("rows")?;
    let runs = count("runs")?;
    let threads = match text("threads") {
        None => None,
        Some(n) if n == EVERY_CORE => Some(Threads::EveryCore),
        Some(n) => Some(Threads::N(positive(&n, "threads")?)),
    };
    let in_process = count("in-process")?;
    let brc = count("1brc")?;
    let keys = count("keys")?;
    let options = Options {
        rows,
        file: m.get_one::<String>("file").map(PathBuf::from),
        quick: m.get_flag("quick"),
        brc,
        keys,
        quoted: m.get_flag("quoted"),
        runs: runs.map(small),
        in_process: in_process.map(small),
        steps: text("steps"),
        threads,
        peers: m.get_flag("peers"),
        record: m.get_flag("record"),
        allow_dirty: m.get_flag("allow-dirty"),
    };
    options.check()?;
    Ok(options)
}

/// A count of runs, which no one asks in the billions.
fn small(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// `got` as a positive integer, or the error that names `--option`.
fn positive(got: &str, option: &str) -> Result<u64, BenchError> {
    let not = || BenchError::NotPositive {
        option: format!("--{option}"),
        got: got.to_string(),
    };
    if got.is_empty() || !got.bytes().all(|b| b.is_ascii_digit()) {
        return Err(not());
    }
    got.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(not)
}

impl Options {
    /// The exclusions between options, each with bash's message, in its order.
    fn check(&self) -> Result<(), BenchError> {
        let other_file = self.quick || self.file.is_some() || self.brc.is_some();
        if self.keys.is_some() && other_file {
            return Err(BenchError::OwnFile("--keys"));
        }
        if self.quoted && (other_file || self.keys.is_some()) {
            return Err(BenchError::OwnFile("--quoted"));
        }
        let files = [
            self.quick,
            self.rows.is_some(),
            self.file.is_some(),
            self.brc.is_some(),
        ];
        if files.iter().filter(|&&given| given).count() > 1 {
            return Err(BenchError::FilesExclude);
        }
        if self.brc.is_some() && self.peers {
            return Err(BenchError::BrcPeers);
        }
        if let Some(file) = self.file.as_ref().filter(|f| !f.is_file()) {
            return Err(BenchError::NoSuchFile(file.clone()));
        }
        if self.allow_dirty && !self.record {
            return Err(BenchError::AllowDirtyAlone);
        }
        Ok(())
    }

    /// The recording's folder under `book/src/results/`, named after the file the run
    /// measures and the options that change what is measured: `quick`, `1brc-ROWS`,
    /// `bench-ROWS`, `bench`, `file-NAME`, then `keys-N[-ROWS]` or `quoted[-ROWS]` in
    /// their place, and `-steps-4-5` added for `--steps 4,5`.
    pub fn kind(&self) -> String {
        let with_rows = |name: String| match self.rows {
            Some(rows) => format!("{name}-{rows}"),
            None => name,
        };
        let mut kind = if self.quick {
            "quick".to_string()
        } else if let Some(brc) = self.brc {
            format!("1brc-{brc}")
        } else if let Some(rows) = self.rows {
            format!("bench-{rows}")
        } else {
            match &self.file {
                None => "bench".to_string(),
                Some(file) => file_kind(file.as_os_str()),
            }
        };
        if let Some(keys) = self.keys {
            kind = with_rows(format!("keys-{keys}"));
        }
        if self.quoted {
            kind = with_rows("quoted".to_string());
        }
        if let Some(steps) = &self.steps {
            kind = format!("{kind}-steps-{}", steps.replace(',', "-"));
        }
        kind
    }
}

/// `bench` for data/bench.csv, `bench-N` for data/bench-N.csv, else `file-NAME`: the
/// file's name without its extension, every byte but `A-Za-z0-9_-` made a `-`.
fn file_kind(file: &OsStr) -> String {
    let path = file.to_string_lossy();
    let inside = path.strip_prefix("./").unwrap_or(&path);
    if inside == "data/bench.csv" {
        return "bench".to_string();
    }
    let rows = inside
        .strip_prefix("data/bench-")
        .and_then(|rest| rest.strip_suffix(".csv"))
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if let Some(rows) = rows {
        return format!("bench-{rows}");
    }
    let bytes = file.as_encoded_bytes();
    let name = bytes.rsplit(|&b| b == b'/').next().unwrap_or(bytes);
    let stem = match name.iter().rposition(|&b| b == b'.') {
        Some(dot) => &name[..dot],
        None => name,
    };
    let safe = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let name: String = stem
        .iter()
        .map(|&b| if safe(b) { b as char } else { '-' })
        .collect();
    format!("file-{name}")
}

/// The command as it would be typed again, without `--record` and `--allow-dirty`:
/// `./bench.sh` and each argument quoted as bash's `printf %q` quotes it (in the C
/// locale), so that the recordings made by the bash script and by this one read alike.
pub fn typed_again(args: &[OsString]) -> String {
    let mut line = "./bench.sh".to_string();
    for arg in args {
        if arg != "--record" && arg != "--allow-dirty" {
            line.push(' ');
            line.push_str(&shell_quoted(arg.as_encoded_bytes()));
        }
    }
    line
}

/// One argument as `printf %q` writes it: `''` when empty, `$'…'` when it holds a
/// byte that is not printable ASCII, else a backslash before each character the shell
/// would read otherwise.
pub fn shell_quoted(arg: &[u8]) -> String {
    if arg.is_empty() {
        return "''".to_string();
    }
    if arg.iter().any(|&b| !(b' '..=b'~').contains(&b)) {
        let mut out = "$'".to_string();
        for &b in arg {
            match b {
                b'\\' | b'\'' => out.extend(['\\', b as char]),
                b'\t' => out.push_str("\\t"),
                b'\n' => out.push_str("\\n"),
                b'\r' => out.push_str("\\r"),
                0x07 => out.push_str("\\a"),
                0x08 => out.push_str("\\b"),
                0x0b => out.push_str("\\v"),
                0x0c => out.push_str("\\f"),
                0x1b => out.push_str("\\E"),
                b' '..=b'~' => out.push(b as char),
                _ => out.push_str(&format!("\\{b:03o}")),
            }
        }
        out.push('\'');
        return out;
    }
    let mut out = String::new();
    for (i, &b) in arg.iter().enumerate() {
        let special = b" !\"$&'()*,;<>?[\\]^`{|}".contains(&b)
            || (b == b'#' && i == 0)
            || (b == b'~' && (i == 0 || arg[i - 1] == b':' || arg[i - 1] == b'='));
        if special {
            out.push('\\');
        }
        out.push(b as char);
    }
    out
}
