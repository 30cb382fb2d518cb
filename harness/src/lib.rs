//! The harness: everything the steps share that is not an idea of the ladder.
//!
//! Every step of "A CSV engine, one idea at a time" implements [`Step`], passes the
//! [`gate`] before it prints a number, counts its allocations with [`CountingAlloc`],
//! and is timed and printed by [`run::measure`] and [`run::cli`]. None of that is copied into
//! the steps: a step's source is its idea and nothing else.
//!
//! # The dialect
//!
//! This is the only definition every step is judged by. [`reference`](mod@reference) is its
//! executable form; `data/conformance/` holds one or more cases per rule, and
//! `data/README.md` gives an example per rule.
//!
//! 1. Input is bytes; fields are byte strings (no UTF-8 requirement while parsing).
//!    A UTF-8 BOM (`EF BB BF`) as the first three bytes is skipped.
//! 2. The delimiter is `,` and the quote `"` ([`dialect`]).
//! 3. A record ends at LF, or at CR LF: a CR right before an LF, outside quotes,
//!    belongs to the terminator. Every other CR is data, also as the last byte of the
//!    input (`a,b` CR gives `a` and `b` CR) and in CR CR LF (the first CR is data).
//! 4. A blank line (empty, or exactly one CR before its LF) is no record. A line
//!    holding only `""`, or only delimiters, is a record.
//! 5. The last record may lack a terminator. Empty input, or input of only
//!    terminators, has zero records. A delimiter as the last byte ends a final
//!    empty field.
//! 6. A field is quoted when its first byte is `"`. Inside it, `""` is one literal
//!    quote; delimiters, CR and LF are data. The quoted part ends at a quote that is
//!    not doubled.
//! 7. Lenient, as the Rust `csv` crate and Python's `csv` (strict=False): bytes after
//!    the closing quote, up to the next delimiter or terminator, are appended to the
//!    field and any quote among them is data (`"ab"c` gives `abc`, `"a"b"c` gives
//!    `ab"c`); a quote that is not the first byte of a field is data (`ab"c`).
//!    There is no escape character and no comment syntax.
//! 8. A quoted field still open at the end of the input is the error
//!    `unterminated_quote` ([`ParseError`]), naming the record (0-based among the
//!    records produced) and the byte offset of its opening quote (0-based, from the
//!    first byte of the input, a BOM included).
//! 9. No whitespace is trimmed. Records may have different numbers of fields.
//!
//! Where this differs from RFC 4180: RFC 4180 allows CR LF only as the terminator and
//! forbids quotes in unquoted fields and bytes after a closing quote; this dialect
//! accepts LF alone, keeps stray CRs as data, and is lenient about quotes (rule 7),
//! as most real files need.
//!
//! # The rooms
//!
//! What a correct step is, one room each:
//!
//! - [`dialect`]: the bytes that mean something (delimiter, quote, terminators, BOM).
//! - [`reference`](mod@reference): the reference parser, the dialect's executable
//!   form and the gate's oracle.
//! - [`error`]: the dialect's one parse error, and I/O errors.
//! - [`step`]: the [`Step`] interface every step implements.
//! - [`json`]: the records format of `--records` and `data/conformance/*.json`.
//!
//! What every step shares around its idea:
//!
//! - [`gate`]: the conformance corpus, the paddings, the random documents and the
//!   checks every step passes before it may print a number.
//! - [`run`]: what a step binary does around its idea: the command line, timing, the
//!   allocation counter, the file sniffer and the SIGBUS explanation.
//! - [`query`]: what every query step shares: the query's options, its answer and its
//!   errors, and the query binary's command line.
//!
//! The tests every step runs (the gate as one test per case, bad input, files, SIMD
//! tiers, query checks) are not here but in the `testkit` crate, a dev-dependency
//! only: a step's binary links none of them.
//!
//! # Units
//!
//! MB = 10^6 bytes; MB/s is input bytes per second; Mrows/s is 10^6 records per second.

pub mod dialect;
pub mod error;
pub mod gate;
pub mod json;
pub mod query;
pub mod reference;
pub mod run;
pub mod step;

pub use error::{Error, ErrorKind, ParseError};
pub use run::alloc::{AllocCount, CountingAlloc};
pub use step::{Fingerprint, Record, Step, StepFns};
