//! The reference parser: the dialect written as plainly as possible.
//!
//! This is the executable specification and the gate's oracle. It is not step 1:
//! step 1 is the parser a learner writes first, and a bug there must not become the
//! spec. Nothing here is tuned for speed; every branch is one rule of the dialect
//! (see the crate docs), in the order the rules are listed.

use crate::dialect::{CR, Dialect, LF, QUOTE, bom_len};
use crate::error::ParseError;
use crate::step::{Fingerprint, Record};

/// Parses all of `input` into owned records.
///
/// # Errors
/// [`ParseError`] when a quoted field is still open at the end of the input.
pub fn parse(input: &[u8]) -> Result<Vec<Record>, ParseError> {
    parse_in(input, Dialect::default())
}

/// [`parse`] with another delimiter.
///
/// # Errors
/// As [`parse`].
pub fn parse_in(input: &[u8], dialect: Dialect) -> Result<Vec<Record>, ParseError> {
    let mut records = Vec::new();
    for_each_record_in(input, dialect, |record| records.push(record.to_vec()))?;
    Ok(records)
}

/// The fingerprint of `input`: counts of records, fields and cooked field bytes.
///
/// # Errors
/// As [`parse`].
pub fn fingerprint(input: &[u8]) -> Result<Fingerprint, ParseError> {
    fingerprint_in(input, Dialect::default())
}

/// [`fingerprint`] with another delimiter.
///
/// # Errors
/// As [`parse`].
pub fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
    let mut fp = Fingerprint::default();
    for_each_record_in(input, dialect, |record| {
        fp.add_record(record.iter().map(Vec::len))
    })?;
    Ok(fp)
}

/// Calls `on_record` with the cooked fields of each record of `input`, in order.
///
/// # Errors
/// [`ParseError`] when a quoted field is still open at the end of the input; the
/// records before it have been passed to `on_record`.
pub fn for_each_record(input: &[u8], on_record: impl FnMut(&[Vec<u8>])) -> Result<(), ParseError> {
    for_each_record_in(input, Dialect::default(), on_record)
}

/// [`for_each_record`] with another delimiter.
///
/// # Errors
/// As [`for_each_record`].
pub fn for_each_record_in(
    input: &[u8],
    dialect: Dialect,
    mut on_record: impl FnMut(&[Vec<u8>]),
) -> Result<(), ParseError> {
    let delimiter = dialect.delimiter;
    let mut i = bom_len(input);
    let mut produced = 0u64;
    let mut record: Vec<Vec<u8>> = Vec::new();
    while i < input.len() {
        // A blank line (LF alone, or exactly CR LF) is no record.
        if let Some(len) = terminator_at(input, i) {
            i += len;
            continue;
        }
        // One record: fields separated by delimiters, up to a terminator or the end.
        record.clear();
        loop {
            let (field, end) = parse_field(input, i, produced, delimiter)?;
            record.push(field);
            if end < input.len() && input[end] == delimiter {
                i = end + 1; // a delimiter as the last byte still opens an empty field
                continue;
            }
            i = end + terminator_at(input, end).unwrap_or(0);
            break;
        }
        on_record(&record);
        produced += 1;
    }
    Ok(())
}

/// Length of the terminator starting at `i` (1 for LF, 2 for CR LF), or `None`.
fn terminator_at(input: &[u8], i: usize) -> Option<usize> {
    match input.get(i..)? {
        [LF, ..] => Some(1),
        [CR, LF, ..] => Some(2),
        _ => None,
    }
}

// ANCHOR: parse_field
/// Parses the field starting at `start`; returns its cooked bytes and the index of
/// the byte that ended it (a delimiter, the first byte of a terminator, or the end).
fn parse_field(
    input: &[u8],
    start: usize,
    record: u64,
    delimiter: u8,
) -> Result<(Vec<u8>, usize), ParseError> {
    let mut field = Vec::new();
    let mut i = start;
    if input.get(i) == Some(&QUOTE) {
        i += 1;
        loop {
            match input.get(i..) {
                None | Some([]) => {
                    return Err(ParseError::unterminated_quote(input, record, start));
                }
                Some([QUOTE, QUOTE, ..]) => {
                    field.push(QUOTE); // "" inside quotes is one literal quote
                    i += 2;
                }
                Some([QUOTE, ..]) => {
                    i += 1; // the closing quote
                    break;
                }
                Some([b, ..]) => {
                    field.push(*b);
                    i += 1;
                }
            }
        }
    }
    // Unquoted bytes, or the lenient tail after a closing quote: everything up to
    // a delimiter or a terminator is data, quotes included.
    while i < input.len() && input[i] != delimiter && terminator_at(input, i).is_none() {
        field.push(input[i]);
        i += 1;
    }
    Ok((field, i))
}
// ANCHOR_END: parse_field
