//! The bytes that mean something in this engine's CSV dialect.
//!
//! The rules themselves are written out in the crate docs ([`crate`]) and in
//! `data/README.md`; [`crate::reference`] is their executable form.

/// Separates two fields of a record (RFC 4180's COMMA).
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
