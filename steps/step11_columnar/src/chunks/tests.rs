//! The unit tests of [`super`]: each transition function against the state machine
//! run one byte at a time from every start state.

use super::*;

/// The state machine, one byte at a time: the state after byte `i` in `s`.
fn step(input: &[u8], i: usize, s: State) -> State {
    let delimiter = b',';
    use State::*;
    match (s, input[i]) {
        (Quoted, QUOTE) => QuoteInQuoted,
        (Quoted, _) => Quoted,
        (QuoteInQuoted, QUOTE) => Quoted,
        (StartRecord | StartField, QUOTE) => Quoted,
        (_, CR) if input.get(i + 1) == Some(&LF) => s,
        (_, LF) => StartRecord,
        (_, b) if b == delimiter => StartField,
        (_, _) => Unquoted,
    }
}

/// The transition function the slow way: every byte, every start state.
fn slow(input: &[u8], origin: usize, from: usize, to: usize) -> Transition {
    let mut t = Transition {
        end: STATES,
        first: [None; 5],
    };
    for (k, &entry) in STATES.iter().enumerate() {
        let mut s = entry;
        let starts_here = entry == State::StartRecord && (from == origin || input[from - 1] == LF);
        let mut first = starts_here.then_some(from);
        for i in from..to {
            s = step(input, i, s);
            if first.is_none() && input[i] == LF && s == State::StartRecord {
                first = Some(i + 1);
            }
        }
        (t.end[k], t.first[k]) = (s, first);
    }
    t
}

#[test]
fn quote_stops_give_the_byte_machines_transition_function() {
    let alphabet = b"a,\"\r\n";
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..3000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = (x % 24) as usize;
        let input: Vec<u8> = (0..len)
            .map(|k| alphabet[(x >> (k * 2 % 60)) as usize % 5])
            .collect();
        for from in 0..=len {
            for to in from..=len {
                let (got, expected) = (
                    transition(&input, 0, from, to, b','),
                    slow(&input, 0, from, to),
                );
                assert!(
                    got == expected,
                    "transition of b\"{}\" from byte {from} to {to}, each start state in \
                     the order of STATES:\n  got      {got:?}\n  expected {expected:?} (a \
                     byte-at-a-time machine)",
                    input.escape_ascii()
                );
            }
        }
    }
}

#[test]
fn quote_parity_is_not_enough() {
    // `a"b` is data (a quote inside an unquoted field): 1 quote before byte 10,
    // so a parity-only split thinks byte 10 is inside quotes. It is not: it opens
    // a quoted field whose LF (byte 12) is data, which parity calls a record end.
    let input = b"k,v\na\"b,1\n\"x\ny\",2\n";
    let parity_first = (10..input.len())
        .find(|&i| input[i] == LF && input[..i].iter().filter(|&&b| b == QUOTE).count() % 2 == 0)
        .map(|i| i + 1);
    assert_eq!(parity_first, Some(13)); // `y",2`: not a record start
    let truth = plan(input, 10, 1, b',');
    assert_eq!(truth.parts[1].from, 10); // the truth: byte 10 starts a record
    // Parsing from the parity's record start gives a record that is not there.
    let records = |starts: &[usize]| {
        let mut n = 0;
        for (k, &from) in starts.iter().enumerate() {
            let stop = starts.get(k + 1).copied().unwrap_or(usize::MAX);
            let mut parser = crate::Parser::default();
            parser
                .records_between(crate::Tier::Scalar, input, from, stop, |_| n += 1)
                .unwrap();
        }
        n
    };
    assert_eq!(records(&[0, 10]), 3);
    // The book's figure: chunks of 12, chunk 1 starts inside `"x\ny"`.
    let t = transition(input, 0, 12, input.len(), b',');
    let (b, q) = (Some(13), Some(18));
    assert_eq!(t.first, [b, b, b, q, b]);
    assert_eq!(t.end, [State::StartRecord; 5]);
    assert_eq!(transition(input, 0, 0, 12, b',').end[0], State::Quoted);
    assert_eq!(plan(input, 12, 1, b',').parts[1].from, 18);
    assert_eq!(records(&[0, 13]), 4); // [k,v] [a"b,1] ["x\ny",2] and [y",2]
}

/// Eight chunks a thread, within the bounds: the smallest for a small input, the
/// largest for a big one.
#[test]
fn default_chunks_are_eight_a_thread_within_their_bounds() {
    assert_eq!(default_size(64 << 20, 2), 4 << 20);
    assert_eq!(default_size(64 << 20, 1), MAX_DEFAULT_CHUNK);
    assert_eq!(default_size(1 << 30, 2), MAX_DEFAULT_CHUNK);
    assert_eq!(default_size(1 << 20, 2), 256 << 10);
    assert_eq!(default_size(0, 0), 256 << 10);
}
