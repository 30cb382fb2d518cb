//! The dialect's state machine as data: five states, five byte classes, and
//! transition functions packed into one 16-bit word, so that two of them compose
//! with a few shifts and a kernel can scan them like integers.
//!
//! ```text
//! state  0 StartRecord  1 StartField  2 Unquoted  3 Quoted  4 QuoteInQuoted
//! class  quote, delimiter, LF, CR before an LF, any other byte (a lone CR too)
//! a transition function f: 3 bits per start state s, bits 3s..3s+3 = f(s)
//! compose(f, g) = "f, then g": s -> g(f(s))        (associative, not commutative)
//! ```
//!
//! Step 10 found the transition functions of chunks with `memchr` jumps; a GPU thread
//! has no `memchr`, and this step follows ParPaRaw (Stehle and Jacobsen, VLDB 2020):
//! every thread runs all five start states over its bytes at once, one table look-up
//! per state and byte. `kernels/layout.cuh` holds the same tables for the device.

use harness::dialect::{CR, LF, QUOTE};

// ANCHOR: states
/// At the first byte of a record: an LF (or CR LF) here is a blank line, no record.
pub const START_RECORD: u8 = 0;
/// At the first byte of a field after a delimiter.
pub const START_FIELD: u8 = 1;
/// Inside a field that is not quoted, or after a closing quote.
pub const UNQUOTED: u8 = 2;
/// Inside a quoted field: delimiters, CR and LF are data.
pub const QUOTED: u8 = 3;
/// Just after a quote inside a quoted field: it closes the field, or a second quote
/// follows and the pair is one literal quote.
pub const QUOTE_IN_QUOTED: u8 = 4;
/// Number of states.
pub const STATES: usize = 5;

/// Byte class: a quote.
pub const C_QUOTE: usize = 0;
/// Byte class: the delimiter.
pub const C_DELIMITER: usize = 1;
/// Byte class: an LF.
pub const C_LF: usize = 2;
/// Byte class: a CR followed by an LF (it leaves the state as it was; the LF decides).
pub const C_CR_LF: usize = 3;
/// Byte class: any other byte, a CR not followed by an LF included.
pub const C_OTHER: usize = 4;

/// `NEXT[class][state]`: the state after one byte of `class` read in `state`; step
/// 7's `match` as a table.
pub const NEXT: [[u8; STATES]; 5] = [
    // quote: opens a field at its start, closes or doubles inside one, data elsewhere
    [QUOTED, QUOTED, UNQUOTED, QUOTE_IN_QUOTED, QUOTED],
    // delimiter
    [START_FIELD, START_FIELD, START_FIELD, QUOTED, START_FIELD],
    // LF
    [
        START_RECORD,
        START_RECORD,
        START_RECORD,
        QUOTED,
        START_RECORD,
    ],
    // CR before an LF
    [START_RECORD, START_FIELD, UNQUOTED, QUOTED, QUOTE_IN_QUOTED],
    // anything else
    [UNQUOTED, UNQUOTED, UNQUOTED, QUOTED, UNQUOTED],
];
// ANCHOR_END: states

/// The class of byte `i` of `input`, whose fields `delimiter` separates; the byte
/// after it is read only to tell a CR LF from a lone CR, and only when it lies inside
/// `input`.
#[inline(always)]
pub fn class(input: &[u8], i: usize, delimiter: u8) -> usize {
    match input[i] {
        QUOTE => C_QUOTE,
        LF => C_LF,
        CR if input.get(i + 1) == Some(&LF) => C_CR_LF,
        b if b == delimiter => C_DELIMITER,
        _ => C_OTHER,
    }
}

/// True when byte `i`, read in `state`, is the first byte of a record: the machine is
/// at a record's start and the byte is not the terminator of a blank line. This is
/// how blank rows drop out while the bitmaps are built.
#[inline(always)]
pub fn starts_row(state: u8, class: usize) -> bool {
    state == START_RECORD && class != C_LF && class != C_CR_LF
}

// ANCHOR: packed
/// A transition function: for each start state `s`, the end state in bits `3s..3s+3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Packed(pub u16);

impl Packed {
    /// The function of zero bytes: every state to itself.
    pub const IDENTITY: Packed = Packed(1 << 3 | 2 << 6 | 3 << 9 | 4 << 12); // 0 -> 0, 1 -> 1, …

    /// The end state for start state `s`.
    #[inline(always)]
    pub fn apply(self, s: u8) -> u8 {
        ((self.0 >> (3 * s)) & 7) as u8
    }

    /// `self`, then `next`: the function of two adjacent runs of bytes.
    #[inline(always)]
    pub fn then(self, next: Packed) -> Packed {
        let mut out = 0u16;
        for s in 0..STATES as u8 {
            out |= u16::from(next.apply(self.apply(s))) << (3 * s);
        }
        Packed(out)
    }

    /// Packs five end states.
    pub fn from_states(end: [u8; STATES]) -> Packed {
        let mut out = 0u16;
        for (s, &e) in end.iter().enumerate() {
            out |= u16::from(e) << (3 * s);
        }
        Packed(out)
    }

    /// The transition function of `input[from..to]` (lookahead past `to` for CR LF).
    pub fn of(input: &[u8], from: usize, to: usize, delimiter: u8) -> Packed {
        let mut lanes = [START_RECORD, START_FIELD, UNQUOTED, QUOTED, QUOTE_IN_QUOTED];
        for i in from..to {
            let next = &NEXT[class(input, i, delimiter)];
            for lane in &mut lanes {
                *lane = next[*lane as usize];
            }
        }
        Packed::from_states(lanes)
    }
}
// ANCHOR_END: packed

// ANCHOR: compact
/// Transition functions numbered compactly, for the CPU twin's inner loop: function
/// `f` is `sum of f(s) * 5^s`, one of 5^5 = 3125, and two tables (31 KB and 16 KB,
/// in L1) give the function one byte later and the state it maps a start state to.
/// The device keeps five lanes in registers instead; both give the same functions.
pub struct Compact {
    /// `then[f * 5 + class]`: `f`, then one byte of `class`.
    pub then: Vec<u16>,
    /// `state[f * 5 + s]`: `f(s)`.
    pub state: Vec<u8>,
}

/// Functions in the compact numbering.
pub const FUNCTIONS: usize = 3125;

impl Compact {
    /// The identity's number.
    pub const IDENTITY: u16 = 5 + 2 * 25 + 3 * 125 + 4 * 625;

    /// The tables, built once.
    pub fn get() -> &'static Compact {
        static TABLES: std::sync::OnceLock<Compact> = std::sync::OnceLock::new();
        TABLES.get_or_init(|| {
            let decode = |f: usize| -> [u8; STATES] {
                std::array::from_fn(|s| ((f / 5usize.pow(s as u32)) % 5) as u8)
            };
            let encode = |e: [u8; STATES]| -> u16 {
                e.iter().rev().fold(0u16, |n, &x| n * 5 + u16::from(x))
            };
            let mut then = vec![0u16; FUNCTIONS * 5];
            let mut state = vec![0u8; FUNCTIONS * 5];
            for f in 0..FUNCTIONS {
                let ends = decode(f);
                for c in 0..5 {
                    then[f * 5 + c] = encode(ends.map(|e| NEXT[c][e as usize]));
                }
                state[f * 5..f * 5 + 5].copy_from_slice(&ends);
            }
            Compact { then, state }
        })
    }

    /// Function number `f` as a [`Packed`] word.
    pub fn packed(&self, f: u16) -> Packed {
        let f = f as usize;
        Packed::from_states(std::array::from_fn(|s| self.state[f * 5 + s]))
    }
}
// ANCHOR_END: compact

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composition_is_associative_and_matches_running_the_bytes() {
        let input = b"a,\"b\"\"c\r\n\",d\r\n\n\"x";
        for cut1 in 0..input.len() {
            for cut2 in cut1..=input.len() {
                let f = Packed::of(input, 0, cut1, b',');
                let g = Packed::of(input, cut1, cut2, b',');
                let h = Packed::of(input, cut2, input.len(), b',');
                assert_eq!(f.then(g).then(h), f.then(g.then(h)));
                assert_eq!(f.then(g).then(h), Packed::of(input, 0, input.len(), b','));
            }
        }
        assert_eq!(Packed::of(input, 3, 3, b','), Packed::IDENTITY);
        assert_eq!(
            Packed::of(input, 0, input.len(), b',').apply(START_RECORD),
            QUOTED
        );
    }

    #[test]
    fn the_compact_tables_give_the_packed_functions() {
        let t = Compact::get();
        assert_eq!(t.packed(Compact::IDENTITY), Packed::IDENTITY);
        let input = b"a,\"b\"\"c\r\n\",d\r\n\n\"x\r";
        let mut f = Compact::IDENTITY;
        for i in 0..input.len() {
            f = t.then[f as usize * 5 + class(input, i, b',')];
            assert_eq!(t.packed(f), Packed::of(input, 0, i + 1, b','), "{i}");
        }
    }

    #[test]
    fn a_crlf_leaves_the_state_and_a_lone_cr_is_data() {
        assert_eq!(class(b"\r\n", 0, b','), C_CR_LF);
        assert_eq!(class(b"\r", 0, b','), C_OTHER);
        assert_eq!(class(b"\rx", 0, b','), C_OTHER);
        assert!(!starts_row(START_RECORD, C_CR_LF));
        assert!(starts_row(START_RECORD, C_OTHER));
        assert!(!starts_row(START_FIELD, C_OTHER));
    }
}
