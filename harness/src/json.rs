//! The records format of `--records` and `data/conformance/*.json`.
//!
//! A parse is printed as one JSON array of records, one record per line, each an
//! array of fields; a field is a JSON string when its bytes are valid UTF-8 and
//! `{"hex":"…"}` (lowercase hex of all its bytes) when they are not. A parse error is
//! printed instead as `{"error":"unterminated_quote","record":R,"byte":B}`.

use std::fmt::Write as _;

use serde_json::Value;

use crate::error::ParseError;
use crate::step::Record;

/// The outcome of a parse, as the gate compares it.
pub type Outcome = Result<Vec<Record>, ParseError>;

/// Prints `outcome` in the records format (ends with a newline).
pub fn to_json(outcome: &Outcome) -> String {
    let records = match outcome {
        Ok(records) => records,
        Err(e) => return format!("{}\n", e.to_json()),
    };
    if records.is_empty() {
        return "[]\n".to_string();
    }
    let mut out = String::from("[\n");
    for (r, record) in records.iter().enumerate() {
        out.push_str("  [");
        for (f, field) in record.iter().enumerate() {
            if f > 0 {
                out.push(',');
            }
            out.push_str(&field_to_json(field));
        }
        out.push_str(if r + 1 < records.len() { "],\n" } else { "]\n" });
    }
    out.push_str("]\n");
    out
}

/// One field: a JSON string, or `{"hex":"…"}` when its bytes are not valid UTF-8.
pub fn field_to_json(field: &[u8]) -> String {
    match std::str::from_utf8(field) {
        Ok(s) => Value::from(s).to_string(),
        Err(_) => format!(r#"{{"hex":"{}"}}"#, hex(field)),
    }
}

/// Lowercase hex of `bytes`, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Reads the records format back. `input` is the CSV the JSON describes: an error
/// object only gives record and byte, and the line is counted from the input.
///
/// # Errors
/// [`FormatError`]: what in the JSON is not in the records format.
pub fn from_json(json: &str, input: &[u8]) -> Result<Outcome, FormatError> {
    let value: Value = serde_json::from_str(json).map_err(FormatError::NotJson)?;
    match value {
        Value::Array(records) => records
            .iter()
            .map(record_from_json)
            .collect::<Result<_, _>>()
            .map(Ok),
        Value::Object(obj) => {
            let kind = obj.get("error").and_then(Value::as_str);
            let record = obj.get("record").and_then(Value::as_u64);
            let byte = obj.get("byte").and_then(Value::as_u64);
            match (kind, record, byte) {
                (Some("unterminated_quote"), Some(record), Some(byte))
                    if (byte as usize) < input.len() =>
                {
                    Ok(Err(ParseError::unterminated_quote(
                        input,
                        record,
                        byte as usize,
                    )))
                }
                _ => Err(FormatError::UnknownError(Value::Object(obj))),
            }
        }
        other => Err(FormatError::NotRecords(other)),
    }
}

/// What in a JSON text is not in the records format; the JSON values are printed as
/// the text has them.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The text is not JSON at all.
    #[error("not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// An object that is not the dialect's error (or names a byte past the input).
    #[error("not a known error object: {0}")]
    UnknownError(Value),
    /// Neither an array of records nor an error object.
    #[error("expected an array of records or an error object, found {0}")]
    NotRecords(Value),
    /// A record that is not an array of fields.
    #[error("a record must be an array, found {0}")]
    NotARecord(Value),
    /// A field that is neither a string nor `{"hex":…}`.
    #[error("a field must be a string or {{\"hex\":…}}, found {0}")]
    NotAField(Value),
    /// A `{"hex":…}` field whose digits are not pairs of hex digits.
    #[error("bad hex field {0:?}")]
    BadHex(String),
}

fn record_from_json(value: &Value) -> Result<Record, FormatError> {
    let fields = value
        .as_array()
        .ok_or_else(|| FormatError::NotARecord(value.clone()))?;
    fields.iter().map(field_from_json).collect()
}

fn field_from_json(value: &Value) -> Result<Vec<u8>, FormatError> {
    if let Some(s) = value.as_str() {
        return Ok(s.as_bytes().to_vec());
    }
    let hex = value
        .get("hex")
        .and_then(Value::as_str)
        .ok_or_else(|| FormatError::NotAField(value.clone()))?;
    unhex(hex).ok_or_else(|| FormatError::BadHex(hex.to_string()))
}

fn unhex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_strings_hex_and_errors() {
        let input = b"a,\xff\n\"x";
        let ok: Outcome = Ok(vec![vec![b"a\"\n\0".to_vec(), vec![0xff, b'a']], vec![]]);
        assert_eq!(from_json(&to_json(&ok), input).unwrap(), ok);
        let error = ParseError::unterminated_quote(input, 1, 5);
        assert_eq!(error.line, 2);
        let err: Outcome = Err(error);
        assert_eq!(
            to_json(&err),
            "{\"error\":\"unterminated_quote\",\"record\":1,\"byte\":5}\n"
        );
        assert_eq!(from_json(&to_json(&err), input).unwrap(), err);
    }

    #[test]
    fn rejects_what_is_not_the_format() {
        assert!(from_json("[[1]]", b"").is_err());
        assert!(from_json(r#"{"error":"other","record":0,"byte":0}"#, b"x").is_err());
        assert!(from_json(r#"[[{"hex":"f"}]]"#, b"").is_err());
        let message = |json: &str| from_json(json, b"x").unwrap_err().to_string();
        assert_eq!(
            message("[[1]]"),
            r#"a field must be a string or {"hex":…}, found 1"#
        );
        assert_eq!(message("[1]"), "a record must be an array, found 1");
        assert_eq!(message(r#"[[{"hex":"f"}]]"#), r#"bad hex field "f""#);
        assert_eq!(
            message(r#"{"error":"other"}"#),
            r#"not a known error object: {"error":"other"}"#
        );
        assert_eq!(
            message("1"),
            "expected an array of records or an error object, found 1"
        );
        assert!(message("[").starts_with("not JSON: "));
    }
}
