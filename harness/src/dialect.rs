//! The bytes that mean something in this engine's CSV dialect.
//!
//! The rules themselves are written out in the crate docs ([`crate`]) and in
//! `data/README.md`; [`crate::reference`] is their executable form.

/// Separates two fields of a record (RFC 4180's COMMA): the default delimiter.
pub const DELIMITER: u8 = b',';
/// Opens a quoted field when it is a field's first byte (RFC 4180's DQUOTE).
pub const QUOTE: u8 = b'"';
/// Ends a record, alone or after a CR.
pub const LF: u8 = b'\n';
/// Part of the terminator only when an LF follows it outside quotes; data otherwise.
pub const CR: u8 = b'\r';
/// The UTF-8 byte order mark, skipped when it is the first three bytes of the input.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Length in bytes of the BOM at the start of `input`: 3 if it starts with one, else 0.
///
/// Every parser starts at this offset; byte offsets in errors still count from 0,
/// the BOM included.
pub fn bom_len(input: &[u8]) -> usize {
    if input.starts_with(BOM) { BOM.len() } else { 0 }
}

/// The dialect's one choice: the delimiter (`--delimiter`). Everything else (the
/// quote, the terminators, the BOM, lenient quotes) is fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dialect {
    /// Separates two fields: any ASCII byte but the quote, CR, LF and NUL (which
    /// the SIMD steps pad a short block with).
    pub delimiter: u8,
}

impl Default for Dialect {
    fn default() -> Dialect {
        Dialect {
            delimiter: DELIMITER,
        }
    }
}

/// The delimiters every step's gate runs with: the comma, and the three that real
/// files use most (`;` where the comma is the decimal mark, tab, `|`).
pub const GATE_DELIMITERS: [u8; 4] = [b',', b';', b'\t', b'|'];

impl Dialect {
    /// The dialect with `delimiter`.
    ///
    /// # Errors
    /// [`DelimiterError`] for a byte that is the quote, CR, LF, NUL, or not ASCII.
    pub fn new(delimiter: u8) -> Result<Dialect, DelimiterError> {
        match delimiter {
            QUOTE | CR | LF | 0 => Err(DelimiterError::Reserved(delimiter)),
            d if !d.is_ascii() => Err(DelimiterError::NotAscii(d)),
            d => Ok(Dialect { delimiter: d }),
        }
    }

    /// Reads `--delimiter`'s value: one ASCII character, or `\t` (or `tab`) as a
    /// shell passes them when typed.
    ///
    /// # Errors
    /// As [`Dialect::new`], or [`DelimiterError::NotOneCharacter`].
    pub fn parse(text: &str) -> Result<Dialect, DelimiterError> {
        match text {
            "\\t" | "tab" | "\t" => Dialect::new(b'\t'),
            t if t.len() == 1 => Dialect::new(t.as_bytes()[0]),
            t => Err(DelimiterError::NotOneCharacter(t.to_string())),
        }
    }
}

/// Why a `--delimiter` cannot be the dialect's delimiter.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DelimiterError {
    /// The quote, CR, LF or NUL: bytes the dialect (or the SIMD steps' padding) uses.
    #[error("--delimiter {:?}: the quote, CR, LF and NUL cannot delimit fields", char::from(*.0))]
    Reserved(u8),
    /// A byte past ASCII.
    #[error("--delimiter: byte {0:#04x} is not ASCII; the delimiter is one ASCII byte")]
    NotAscii(u8),
    /// A value of more than one character (and not `\t` or `tab`).
    #[error("--delimiter {0:?}: one ASCII character (or \\t for a tab)")]
    NotOneCharacter(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters_are_one_ascii_byte_but_the_quote_and_terminators() {
        assert_eq!(Dialect::parse(";").unwrap().delimiter, b';');
        assert_eq!(Dialect::parse("\\t").unwrap().delimiter, b'\t');
        assert_eq!(Dialect::parse("\t").unwrap().delimiter, b'\t');
        assert_eq!(Dialect::parse("tab").unwrap().delimiter, b'\t');
        assert!(Dialect::parse("\"").is_err());
        assert!(Dialect::parse("\n").is_err());
        assert!(Dialect::parse("\0").is_err());
        assert!(Dialect::parse(";;").is_err());
        assert!(Dialect::parse("é").is_err());
        assert_eq!(Dialect::default().delimiter, b',');
    }

    #[test]
    fn a_refused_delimiter_says_why() {
        let message = |e: DelimiterError| e.to_string();
        assert_eq!(
            message(Dialect::parse("\"").unwrap_err()),
            "--delimiter '\"': the quote, CR, LF and NUL cannot delimit fields"
        );
        assert_eq!(
            message(Dialect::new(0xe9).unwrap_err()),
            "--delimiter: byte 0xe9 is not ASCII; the delimiter is one ASCII byte"
        );
        assert_eq!(
            message(Dialect::parse(";;").unwrap_err()),
            "--delimiter \";;\": one ASCII character (or \\t for a tab)"
        );
    }
}
