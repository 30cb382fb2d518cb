//! The fields of a generated row: how each column's value is drawn from the seeded
//! generator, and how it is written (quoted or not).

use std::io::{self, Write};

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::{Config, HEADER, date};

pub(crate) fn pick_weighted(rng: &mut ChaCha8Rng, weights: &[u64], total: u64) -> usize {
    let mut ticket = rng.random_range(0..total);
    for (i, &w) in weights.iter().enumerate() {
        if ticket < w {
            return i;
        }
        ticket -= w;
    }
    unreachable!("the ticket is below the total weight")
}

/// A decimal with 1–6 fraction digits and its exact value in millionths.
pub(crate) fn random_value(rng: &mut ChaCha8Rng) -> (String, i128) {
    let magnitude = 10u64.pow(rng.random_range(0..5u32)); // integer parts from 0 to 99,999
    let int_part = rng.random_range(0..10 * magnitude);
    let digits = rng.random_range(1..=6u32);
    let frac = rng.random_range(0..10u64.pow(digits));
    let negative = rng.random_bool(0.2);
    let micros = (int_part as i128) * 1_000_000 + (frac as i128) * 10i128.pow(6 - digits);
    let sign = if negative { "-" } else { "" };
    let text = format!("{sign}{int_part}.{frac:0width$}", width = digits as usize);
    (text, if negative { -micros } else { micros })
}

/// The quote around a string field: `"` in a file of [`Shape::quote_strings`](crate::Shape::quote_strings), else
/// nothing (`Display` writes it).
#[derive(Clone, Copy)]
pub(crate) struct Quotes(&'static str);

impl Quotes {
    pub(crate) fn new(quote_strings: bool) -> Quotes {
        Quotes(if quote_strings { "\"" } else { "" })
    }
}

impl std::fmt::Display for Quotes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// The header line: [`HEADER`], each name quoted with `q`.
pub(crate) fn write_header(out: &mut impl Write, q: Quotes, eol: &str) -> io::Result<()> {
    let names: Vec<String> = HEADER.split(',').map(|n| format!("{q}{n}{q}")).collect();
    write!(out, "{}{eol}", names.join(","))
}

/// The columns after `value`: `name`, `date`, `qty`, `flag` and the terminator; the
/// strings quoted with `q`.
pub(crate) fn write_rest(
    out: &mut impl Write,
    rng: &mut ChaCha8Rng,
    config: &Config,
    q: Quotes,
    eol: &str,
) -> io::Result<()> {
    write_name(out, rng, config.quoted_pct, q)?;
    let days = rng.random_range(0..2557); // 2020-01-01 ..= 2026-12-31
    let (y, m, d) = date::civil_from_days(date::days_from_civil(2020, 1, 1) + days);
    let qty = rng.random_range(1..1000u32);
    let flag = rng.random_bool(0.5);
    write!(out, ",{q}{y:04}-{m:02}-{d:02}{q},{qty},{q}{flag}{q}{eol}")
}

fn write_name(
    out: &mut impl Write,
    rng: &mut ChaCha8Rng,
    quoted_pct: f64,
    q: Quotes,
) -> io::Result<()> {
    let len = rng.random_range(3..=10);
    let mut name = [0u8; 10];
    for b in &mut name[..len] {
        *b = rng.random_range(b'a'..=b'z');
    }
    if !rng.random_bool((quoted_pct / 100.0).clamp(0.0, 1.0)) {
        out.write_all(q.0.as_bytes())?;
        out.write_all(&name[..len])?;
        return out.write_all(q.0.as_bytes());
    }
    // A quoted name holds one of the three things that force quoting.
    let special: &[u8] = match rng.random_range(0..3) {
        0 => b", ",
        1 => b"\"\"",
        _ => b"\n",
    };
    let cut = rng.random_range(1..len);
    out.write_all(b"\"")?;
    out.write_all(&name[..cut])?;
    out.write_all(special)?;
    out.write_all(&name[cut..len])?;
    out.write_all(b"\"")
}
