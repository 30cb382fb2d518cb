//! A field's cooked bytes into a buffer the caller keeps: both passes of the load
//! read every field, and [`Field::cooked`] gives a field that needs unescaping a new
//! `Vec` each time. With one buffer per task, a quoted field costs no allocation.
//!
//! ```text
//! a field that needs no unescaping:  its bytes in the input, borrowed (one branch)
//! one that does ("a""b"c):           the bytes between the quotes, each "" as one
//!                                    quote, then the bytes after the closing quote,
//!                                    into the buffer (cleared first)
//! ```

use harness::dialect::QUOTE;

use crate::Field;

/// [`Field::cooked`] without the allocation.
pub trait CookedIn<'a> {
    /// The cooked bytes, into `scratch` when the field needs unescaping (so a warm
    /// `scratch` makes no allocation), else borrowed from the input.
    fn cooked_in<'s>(&self, scratch: &'s mut Vec<u8>) -> &'s [u8]
    where
        'a: 's;
}

impl<'a> CookedIn<'a> for Field<'a> {
    // Inlined, so that the common field costs one branch: as a call it cost more
    // than the rest of the field's work, most of it saving and restoring the
    // registers that the unescaping loop needs (callgrind).
    #[inline(always)]
    fn cooked_in<'s>(&self, scratch: &'s mut Vec<u8>) -> &'s [u8]
    where
        'a: 's,
    {
        if !self.needs_unescape() {
            return self.raw();
        }
        unescape_into(self.raw(), scratch)
    }
}

/// The cooked bytes of `raw`, a closed quoted field as written (opening quote to
/// last byte), into `scratch`: [`CookedIn::cooked_in`]'s rare path.
#[cold]
#[inline(never)]
fn unescape_into<'s>(raw: &[u8], scratch: &'s mut Vec<u8>) -> &'s [u8] {
    scratch.clear();
    let mut i = 1; // past the opening quote
    while i < raw.len() {
        if raw[i] == QUOTE {
            if raw.get(i + 1) != Some(&QUOTE) {
                break; // the closing quote
            }
            i += 1; // a `""` pair: keep its second half
        }
        scratch.push(raw[i]);
        i += 1;
    }
    let after = raw
        .get(i + 1..)
        .expect("the parser flags only closed quoted fields");
    scratch.extend_from_slice(after);
    scratch
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Parser;

    #[test]
    fn the_same_bytes_as_cooked_with_one_buffer() {
        let input = b"ab,\"c,d\",\"e\"\"f\",\"g\"h,\"\"\"\"\"\",\"\",\"x\"\"\"y\n";
        let mut scratch = Vec::new();
        let mut seen = 0;
        Parser::default()
            .for_each_record(input, |record| {
                for field in record.fields() {
                    assert_eq!(field.cooked_in(&mut scratch), &field.cooked()[..]);
                    seen += 1;
                }
            })
            .unwrap();
        assert_eq!(seen, 7);
    }
}
