//! Transition functions: what the state machine does over a chunk from each state
//! it might start in, so that a chunk is understood before its start state is known.
//!
//! A chunk's transition function is found without parsing it: between two quotes
//! the machine stays inside or outside quotes, so the start states share one
//! `memchr` pass for quotes (and each makes one for its first LF), and the exact
//! state at a quote is read off the byte before it. And the machines soon meet
//! where quotes are many: a quoted field seen from inside and from outside ends, in
//! both, at its next delimiter, since a quote inside an unquoted field is data. So
//! in a file whose strings are all quoted a transition function reads a few dozen
//! bytes, not its chunk; where quotes are few it jumps from quote to quote.

use harness::dialect::{CR, LF, QUOTE};

use crate::machine::State;

/// The states, in the order a [`Transition`] indexes them.
pub const STATES: [State; 5] = [
    State::StartRecord,
    State::StartField,
    State::Unquoted,
    State::Quoted,
    State::QuoteInQuoted,
];

pub(super) fn index(state: State) -> usize {
    STATES
        .iter()
        .position(|&s| s == state)
        .expect("one of the five")
}

// ANCHOR: transition
/// A chunk's transition function: what the state machine does over the chunk, for
/// each state it might start in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transition {
    /// The machines of every start state met: before byte `at` they are all in
    /// `state`, so from there on they are one machine. The chunk's records start at
    /// `first`, the first record start in `at..=to` (or there is none), whatever the
    /// state at its first byte; the records before `at` are the previous chunk's. The
    /// state at the chunk's end is that one machine's, found only if the scan needs
    /// it ([`end_from`]).
    Met {
        /// Where the machines met: each was in `state` before this byte.
        at: usize,
        /// Their state there.
        state: State,
        /// The first record start in `at..=to`.
        first: Option<usize>,
    },
    /// The machines had not met by the chunk's end: for each start state (indexed as
    /// [`STATES`]), the state after the chunk's last byte and the first record start
    /// in `from..=to`.
    Apart {
        /// The state after the chunk's last byte, for each start state.
        end: [State; 5],
        /// The first record start in `from..=to`, for each start state.
        first: [Option<usize>; 5],
    },
}

// ANCHOR: exercise_transition
/// The transition function of the chunk `from..to` of `input`, whose fields
/// `delimiter` separates; `origin` is the input's first record start (after a BOM).
/// Bytes past `to` are only looked at to tell a CR LF from a CR.
pub fn transition(
    input: &[u8],
    origin: usize,
    from: usize,
    to: usize,
    delimiter: u8,
) -> Transition {
    let met = |at, state| Transition::Met {
        at,
        state,
        first: first_from(input, origin, at, state, to, delimiter),
    };
    match input[from..to].first() {
        // After a first byte that is not a quote or a CR, every state but `Quoted` is
        // in the same state (`,`: StartField, LF: StartRecord, else Unquoted): one
        // run serves four. Only `StartRecord` may have its first record start at `from`.
        Some(&b) if b != QUOTE && b != CR => {
            let entries = [State::Unquoted, State::Quoted];
            match run(input, origin, from, to, entries, delimiter) {
                Runs::Met(at, state) => met(at, state),
                Runs::Apart([outside, inside]) => {
                    let at_start = (from == origin || input[from - 1] == LF).then_some(from);
                    Transition::Apart {
                        end: [outside.0, outside.0, outside.0, inside.0, outside.0],
                        first: [
                            at_start.or(outside.1),
                            outside.1,
                            outside.1,
                            inside.1,
                            outside.1,
                        ],
                    }
                }
            }
        }
        _ => match run(input, origin, from, to, STATES, delimiter) {
            Runs::Met(at, state) => met(at, state),
            Runs::Apart(runs) => Transition::Apart {
                end: runs.map(|(end, _)| end),
                first: runs.map(|(_, first)| first),
            },
        },
    }
}
// ANCHOR_END: exercise_transition
// ANCHOR_END: transition

// ANCHOR: run
/// What [`run`] found: where its machines met and their state there, or each one's
/// state at the end and first record start.
enum Runs<const N: usize> {
    Met(usize, State),
    Apart([(State, Option<usize>); N]),
}

/// The state machine over `from..to` started in each of `entries` at once, but only
/// stopping at quotes, until the machines meet (all in one state before a quote):
/// where, and in which state; else the state at `to` and the first record start of
/// each. The machines read the same quotes, so one pass of `memchr` finds them for
/// all, instead of one pass per machine over the same bytes.
fn run<const N: usize>(
    input: &[u8],
    origin: usize,
    from: usize,
    to: usize,
    entries: [State; N],
    delimiter: u8,
) -> Runs<N> {
    let at_record_start = from == origin || input[from - 1] == LF;
    let mut machines = entries.map(|entry| Machine::new(input, from, to, entry, at_record_start));
    for q in memchr::memchr_iter(QUOTE, &input[from..to]) {
        let q = from + q;
        let state = machines[0].state_before(input, q, delimiter);
        if N > 1
            && machines[1..]
                .iter()
                .all(|m| m.state_before(input, q, delimiter) == state)
        {
            return Runs::Met(q, state);
        }
        for m in &mut machines {
            m.quote(input, q, to, delimiter);
        }
    }
    Runs::Apart(machines.map(|m| m.end(input, to, delimiter)))
}

/// The first record start in `at..=to` of one machine in `state` before byte `at`,
/// reading no further than it.
fn first_from(
    input: &[u8],
    origin: usize,
    at: usize,
    state: State,
    to: usize,
    delimiter: u8,
) -> Option<usize> {
    let at_record_start = at == origin || input[at - 1] == LF;
    let mut m = Machine::new(input, at, to, state, at_record_start);
    for q in memchr::memchr_iter(QUOTE, &input[at..to]) {
        if m.first.is_some() {
            return m.first;
        }
        m.quote(input, at + q, to, delimiter);
    }
    m.end(input, to, delimiter).1
}

/// The state after byte `to - 1` of one machine in `state` before byte `at`: the end
/// state of a chunk whose machines met at `at`, for the scan, when the next chunk's
/// did not meet.
pub fn end_from(
    input: &[u8],
    origin: usize,
    at: usize,
    state: State,
    to: usize,
    delimiter: u8,
) -> State {
    match run(input, origin, at, to, [state], delimiter) {
        Runs::Apart([(end, _)]) => end,
        Runs::Met(..) => unreachable!("one machine meets no other"),
    }
}

/// One machine of [`run`], between two quotes.
#[derive(Clone, Copy)]
struct Machine {
    /// Inside a quoted field, or outside quotes since `anchor`, where the state was
    /// `anchor_state` (the state at a later byte is [`state_at`]'s).
    quoted: bool,
    anchor: usize,
    anchor_state: State,
    /// The first byte not read: a quote before it was the second of a `""`.
    next: usize,
    /// The first record start, once found.
    first: Option<usize>,
}

impl Machine {
    /// A machine at `from` in `entry`.
    fn new(input: &[u8], from: usize, to: usize, entry: State, at_record_start: bool) -> Machine {
        let mut m = Machine {
            quoted: entry == State::Quoted,
            anchor: from,
            anchor_state: entry,
            next: from,
            first: (entry == State::StartRecord && at_record_start).then_some(from),
        };
        if entry == State::QuoteInQuoted && from < to && input[from] == QUOTE {
            (m.quoted, m.next) = (true, from + 1); // the second quote of a `""`
        }
        m
    }

    /// The state before the quote at `q`, which the machine has not read yet.
    fn state_before(&self, input: &[u8], q: usize, delimiter: u8) -> State {
        match (self.quoted, self.next > q) {
            // `q` is the second quote of a `""`: the first left the field's end open.
            (true, true) => State::QuoteInQuoted,
            (true, false) => State::Quoted,
            (false, _) => state_at(input, self.anchor, self.anchor_state, q, delimiter),
        }
    }

    /// Reads the quote at `q`.
    fn quote(&mut self, input: &[u8], q: usize, to: usize, delimiter: u8) {
        if q < self.next {
            return;
        }
        if self.quoted {
            if q + 1 < to && input[q + 1] == QUOTE {
                self.next = q + 2; // `""`: a quote in the field, still inside
            } else {
                // It closes the field: outside quotes from the byte after it.
                (self.quoted, self.anchor, self.anchor_state) =
                    (false, q + 1, State::QuoteInQuoted);
                self.next = q + 1;
            }
            return;
        }
        self.look_for_lf(input, q);
        if matches!(
            state_at(input, self.anchor, self.anchor_state, q, delimiter),
            State::StartRecord | State::StartField
        ) {
            (self.quoted, self.next) = (true, q + 1); // the quote opens a quoted field
        } else {
            self.next = q + 1; // a quote inside an unquoted field is data
        }
    }

    /// The first LF outside quotes in `next..until`, unless one was found before.
    fn look_for_lf(&mut self, input: &[u8], until: usize) {
        if self.first.is_none() {
            let from = self.next;
            self.first = memchr::memchr(LF, &input[from..until]).map(|k| from + k + 1);
        }
    }

    /// The state at `to` and the first record start.
    fn end(mut self, input: &[u8], to: usize, delimiter: u8) -> (State, Option<usize>) {
        if self.quoted {
            return (State::Quoted, self.first);
        }
        self.look_for_lf(input, to);
        let end = state_at(input, self.anchor, self.anchor_state, to, delimiter);
        (end, self.first)
    }
}

/// The state before byte `p`, when the machine was in `anchor_state` at `anchor` and
/// read every byte of `anchor..p` outside quotes: the byte before `p` decides.
fn state_at(input: &[u8], anchor: usize, anchor_state: State, p: usize, delimiter: u8) -> State {
    if p == anchor {
        return anchor_state;
    }
    let mut j = p - 1;
    if input[j] == CR && input.get(p) == Some(&LF) {
        // The first half of a CR LF leaves the state as it was.
        if j == anchor {
            return anchor_state;
        }
        j -= 1;
    }
    match input[j] {
        LF => State::StartRecord,
        b if b == delimiter => State::StartField,
        _ => State::Unquoted,
    }
}
// ANCHOR_END: run
