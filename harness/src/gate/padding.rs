//! Padding a case with filler that cannot change its parse, so the same case is
//! checked at every alignment: 0–130 bytes in front of it (crossing every 8-, 16-,
//! 32- and 64-byte boundary) and behind it.
//!
//! The filler is whole records: `n` bytes in front are one record of `n - 1` bytes
//! (letters and delimiters, never a quote, CR or LF) and its LF; one byte is a blank
//! line. Behind a case that ends inside an unterminated quote, the filler is bytes
//! without a quote, which only lengthen the open field: the error stays the same.

use crate::dialect::bom_len;
use crate::error::ParseError;
use crate::json::Outcome;
use crate::step::Record;

/// The largest padding the gate tries (every length from 0 to this).
pub const MAX_PADDING: usize = 130;

const PATTERN: &[u8] = b"ab,cd,efgh,,ijklmnopq,r,stu,vwxyz0123456789,";

/// `n` bytes of filler that form one record (`n >= 2`), a blank line (`n == 1`) or
/// nothing (`n == 0`); the record it forms, if any.
fn filler_record(n: usize) -> (Vec<u8>, Option<Record>) {
    if n == 0 {
        return (Vec::new(), None);
    }
    let body: Vec<u8> = PATTERN.iter().copied().cycle().take(n - 1).collect();
    let record = (n >= 2).then(|| body.split(|&b| b == b',').map(<[u8]>::to_vec).collect());
    let mut bytes = body;
    bytes.push(b'\n');
    (bytes, record)
}

/// The case with `n` filler bytes in front (after its BOM, which must stay first),
/// and the outcome the dialect gives for it.
pub fn in_front(input: &[u8], expected: &Outcome, n: usize) -> (Vec<u8>, Outcome) {
    let (filler, record) = filler_record(n);
    let bom = bom_len(input);
    let padded = [&input[..bom], &filler[..], &input[bom..]].concat();
    let outcome = match expected {
        Ok(records) => Ok(record.into_iter().chain(records.iter().cloned()).collect()),
        Err(e) => {
            let shifted_record = e.record + u64::from(n >= 2);
            Err(ParseError::unterminated_quote(
                &padded,
                shifted_record,
                e.byte as usize + n,
            ))
        }
    };
    (padded, outcome)
}

/// The case with filler behind it, when the dialect allows one that cannot change
/// its parse; `None` when the case ends in a CR (an LF after it would turn that CR
/// from data into part of a terminator).
pub fn behind(input: &[u8], expected: &Outcome, n: usize) -> Option<(Vec<u8>, Outcome)> {
    match expected {
        Err(_) => {
            let filler = b"ab,c\r\nd ".iter().copied().cycle().take(n);
            Some((
                input.iter().copied().chain(filler).collect(),
                expected.clone(),
            ))
        }
        Ok(_) if input.last() == Some(&b'\r') => None,
        Ok(records) => {
            // End the case's last record first, unless the input already ends with LF.
            let mut padded = input.to_vec();
            if !padded.is_empty() && padded.last() != Some(&b'\n') {
                padded.push(b'\n');
            }
            let (filler, record) = filler_record(n);
            padded.extend(filler);
            Some((padded, Ok(records.iter().cloned().chain(record).collect())))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::parse;

    #[test]
    fn padding_never_changes_the_reference_parse() {
        let inputs: [&[u8]; 9] = [
            b"",
            b"a,b",
            b"a,b\n",
            b"\"x\ny\"",
            b"\"open",
            b"\xEF\xBB\xBF\"q\"",
            b"a\r",
            b"\r\n",
            b"x,\"y",
        ];
        for input in inputs {
            let expected = parse(input);
            for n in 0..=MAX_PADDING {
                let (padded, outcome) = in_front(input, &expected, n);
                assert_eq!(parse(&padded), outcome, "front {n} of {input:?}");
                if let Some((padded, outcome)) = behind(input, &expected, n) {
                    assert_eq!(parse(&padded), outcome, "behind {n} of {input:?}");
                }
            }
        }
    }
}
