//! The unit tests of [`super`]: each transition function against the state machine
//! run one byte at a time from every start state.

use harness::dialect::{CR, LF, QUOTE};

use super::transition::STATES;
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

/// The state machine the slow way, every byte, from `from` in `entry`: the state
/// before each byte of `from..to` and after the last, and each record start in
/// `from..=to`.
fn slow(
    input: &[u8],
    origin: usize,
    from: usize,
    to: usize,
    entry: State,
) -> (Vec<State>, Vec<usize>) {
    let mut s = entry;
    let mut before = Vec::new();
    let starts_here = entry == State::StartRecord && (from == origin || input[from - 1] == LF);
    let mut starts: Vec<usize> = starts_here.then_some(from).into_iter().collect();
    for i in from..to {
        before.push(s);
        s = step(input, i, s);
        if input[i] == LF && s == State::StartRecord {
            starts.push(i + 1);
        }
    }
    before.push(s);
    (before, starts)
}

/// The chunk's transition function against the byte-by-byte machine of every start
/// state: where the machines did not meet, each one's end state and first record
/// start; where they met, each one's state there, the first record start after it,
/// and the end state that [`end_from`] finds.
fn check(input: &[u8], from: usize, to: usize) {
    let t = transition(input, 0, from, to, b',');
    let what = || {
        format!(
            "transition of b\"{}\" from byte {from} to {to} gave {t:?}, which a \
             byte-at-a-time machine contradicts",
            input.escape_ascii()
        )
    };
    for (k, &entry) in STATES.iter().enumerate() {
        let (before, starts) = slow(input, 0, from, to, entry);
        match t {
            Transition::Apart { end, first } => {
                assert_eq!(
                    (end[k], first[k]),
                    (before[to - from], starts.first().copied()),
                    "{}",
                    what()
                );
            }
            Transition::Met { at, state, first } => {
                assert!((from..to).contains(&at), "{}", what());
                assert_eq!(before[at - from], state, "{entry:?} {}", what());
                let after = starts.iter().copied().find(|&p| p >= at);
                assert_eq!(first, after, "{entry:?} {}", what());
                assert_eq!(
                    end_from(input, 0, at, state, to, b','),
                    before[to - from],
                    "{}",
                    what()
                );
            }
        }
    }
}

#[test]
fn quote_stops_give_the_byte_machines_transition_function() {
    let alphabet = b"a,\"\r\n";
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut met = 0;
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
                check(&input, from, to);
                met += usize::from(matches!(
                    transition(&input, 0, from, to, b','),
                    Transition::Met { .. }
                ));
            }
        }
    }
    assert!(met > 10_000, "{met}"); // both kinds were checked
}

/// In a file whose strings are all quoted (pandas' `QUOTE_NONNUMERIC`), a quoted field
/// seen from inside and from outside ends at its delimiter in both: every chunk's
/// machines meet within its first record or two, and its transition function reads a
/// few dozen bytes, not its chunk. The plan's starts are the byte machine's.
#[test]
fn the_machines_meet_within_a_record_when_every_string_is_quoted() {
    let config = gen_csv::Config {
        rows: 20_000,
        ..gen_csv::Config::default()
    };
    let shape = gen_csv::Shape {
        quote_strings: true,
        ..gen_csv::Shape::default()
    };
    let (csv, _) = gen_csv::generate_in_memory_shaped(&config, shape);
    for size in [4096, 10_007, 65_536] {
        let p = plan(&csv, size, 2, b',');
        assert_eq!(p.stats.met, p.stats.chunks - 1, "{size}: {:?}", p.stats);
        assert!(
            p.stats.read < 200 * p.stats.chunks as u64,
            "{size}: {:?}",
            p.stats
        );
        for k in (1..p.stats.chunks).step_by(7) {
            let (from, to) = (k * size, ((k + 1) * size).min(csv.len()));
            check(&csv, from, to);
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
    // The book's figure: chunks of 12, chunk 1 starts inside `"x\ny"`. Its machines
    // do not meet (no quote after the one at byte 14 lets them), so each start state
    // has its own first record start; the scan takes the one of the state chunk 0
    // ends in: its machines met before byte 10 (in `StartRecord`), and from there one
    // machine reads the quote that opens `"x\ny"`.
    let Transition::Apart { end, first } = transition(input, 0, 12, input.len(), b',') else {
        panic!("the machines of chunk 1 do not meet");
    };
    let (b, q) = (Some(13), Some(18));
    assert_eq!(first, [b, b, b, q, b]);
    assert_eq!(end, [State::StartRecord; 5]);
    let met = Transition::Met {
        at: 10,
        state: State::StartRecord,
        first: Some(10),
    };
    assert_eq!(transition(input, 0, 0, 12, b','), met);
    assert_eq!(
        end_from(input, 0, 10, State::StartRecord, 12, b','),
        State::Quoted
    );
    assert_eq!(plan(input, 12, 1, b',').parts[1].from, 18);
    assert_eq!(records(&[0, 13]), 4); // [k,v] [a"b,1] ["x\ny",2] and [y",2]
}

/// Eight chunks a thread, within the bounds: the smallest for a small input, the
/// largest for a big one; on one thread, one chunk.
#[test]
fn default_chunks_are_eight_a_thread_within_their_bounds() {
    assert_eq!(default_size(64 << 20, 2), 4 << 20);
    assert_eq!(default_size(64 << 20, 1), 64 << 20);
    assert_eq!(default_size(1 << 30, 2), MAX_DEFAULT_CHUNK);
    assert_eq!(default_size(1 << 20, 2), 256 << 10);
    assert_eq!(default_size(0, 0), 1);
    assert_eq!(default_size(0, 3), 256 << 10);
}

/// With one chunk, no transition function runs: the plan is the whole input from
/// its first record start, whatever its quotes.
#[test]
fn one_chunk_reads_nothing_before_the_parse() {
    let input = b"\xEF\xBB\xBFk,v\n\"a\nb\",1\n";
    let p = plan(input, input.len(), 1, b',');
    let part = Part {
        chunk: 0,
        from: 3,
        stop: usize::MAX,
    };
    assert_eq!(p.parts, [part]);
    assert_eq!(
        (p.stats.chunks, p.stats.read, p.stats.ends_found),
        (1, 0, 0)
    );
}
