//! Where the csv crate's dialect differs from ours, measured rather than assumed.
//!
//! The gate stops at the first failure of each case; a survey keeps going. It checks
//! the baseline on every input the gate uses (each conformance case as it is and at
//! every padding, and every random document) with [`gate::check_input`], and
//! explains each difference by a rewrite of the input that turns our dialect's answer
//! into the csv crate's ([`explain`]). A difference that no rewrite explains is
//! [`Difference::Unexplained`], and the baseline binary fails on it.

use std::collections::BTreeMap;

use harness::dialect::{CR, DELIMITER, LF, QUOTE, bom_len};
use harness::gate;
use harness::gate::cases::Case;
use harness::gate::padding::{MAX_PADDING, behind, in_front};
use harness::gate::random::Family;
use harness::json::Outcome;
use harness::reference;
use harness::{Step, StepFns};

use crate::Baseline;

/// Why the csv crate's answer differs from our dialect's on one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Difference {
    /// Our answer on the input with every CR that is not before an LF turned into an
    /// LF: the csv crate ends a record at a lone CR, we keep it as data.
    LoneCrEndsRecord,
    /// Our answer on the input with a quote appended: where we report
    /// `unterminated_quote`, the csv crate closes the open field and returns it.
    OpenQuoteClosedAtEnd,
    /// Both rewrites are needed.
    Both,
    /// No rewrite gives the csv crate's answer.
    Unexplained,
}

impl Difference {
    /// Every kind, in report order.
    pub const ALL: [Difference; 4] = [
        Difference::LoneCrEndsRecord,
        Difference::OpenQuoteClosedAtEnd,
        Difference::Both,
        Difference::Unexplained,
    ];

    /// One line for the report: what the csv crate does, and what we do.
    pub fn describe(self) -> &'static str {
        match self {
            Difference::LoneCrEndsRecord => {
                "a lone CR ends a record in the csv crate (ours: data unless right before an LF)"
            }
            Difference::OpenQuoteClosedAtEnd => {
                "a quote still open at the end of the input is closed without an error in the \
                 csv crate (ours: the error unterminated_quote)"
            }
            Difference::Both => "both of the above in one input",
            Difference::Unexplained => {
                "UNEXPLAINED: no known difference gives the csv crate's answer"
            }
        }
    }

    /// The name used in JSON: `lone_cr_ends_record`, …
    pub fn name(self) -> &'static str {
        match self {
            Difference::LoneCrEndsRecord => "lone_cr_ends_record",
            Difference::OpenQuoteClosedAtEnd => "open_quote_closed_at_end",
            Difference::Both => "both",
            Difference::Unexplained => "unexplained",
        }
    }
}

/// `None` when `got` is `expected`; else which difference turns one into the other.
pub fn explain(input: &[u8], expected: &Outcome, got: &Outcome) -> Option<Difference> {
    if got == expected {
        return None;
    }
    let lf = lone_crs_as_lf(input);
    let closed = |bytes: &[u8]| [bytes, b"\""].concat();
    let matches = |rewritten: &[u8]| &reference::parse(rewritten) == got;
    Some(if lf != input && matches(&lf) {
        Difference::LoneCrEndsRecord
    } else if expected.is_err() && matches(&closed(input)) {
        Difference::OpenQuoteClosedAtEnd
    } else if lf != input && matches(&closed(&lf)) {
        Difference::Both
    } else {
        Difference::Unexplained
    })
}

/// `input` with every CR that ends a record for the csv crate replaced by an LF: each
/// CR outside a quoted field that is not right before an LF.
///
/// Where a quoted field starts depends on where records end (`a` CR `"b,c"` is one
/// unquoted field `a` CR `"b` for us, a record `a` and then a quoted field for the csv
/// crate), so this walks the input with our dialect's four states, taking each such
/// CR as a terminator, as the csv crate does.
pub fn lone_crs_as_lf(input: &[u8]) -> Vec<u8> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        StartField,
        Unquoted,
        Quoted,
        QuoteInQuoted,
    }
    use State::*;
    let mut out = input.to_vec();
    let mut state = StartField;
    for i in bom_len(input)..input.len() {
        let lone_cr = input[i] == CR && input.get(i + 1) != Some(&LF);
        state = match (state, input[i]) {
            (Quoted, QUOTE) => QuoteInQuoted,
            (Quoted, _) => Quoted,
            (QuoteInQuoted, QUOTE) => Quoted,
            (_, DELIMITER | LF) => StartField,
            (_, CR) if lone_cr => {
                out[i] = LF;
                StartField
            }
            (StartField, QUOTE) => Quoted,
            _ => Unquoted,
        };
    }
    out
}

/// What a survey found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Survey {
    /// Conformance cases surveyed.
    pub cases: usize,
    /// Each case that differs as it is (unpadded), with the difference.
    pub differing_cases: Vec<(String, Difference)>,
    /// Random documents surveyed.
    pub documents: usize,
    /// Differing inputs of each kind: (case inputs, as they are and at every padding;
    /// random documents).
    pub counts: BTreeMap<Difference, (usize, usize)>,
    /// The gate's report of the first unexplained inputs (at most five).
    pub unexplained: Vec<String>,
}

impl Survey {
    /// Conformance cases whose unpadded input differs of kind `kind`.
    pub fn cases_of(&self, kind: Difference) -> Vec<&str> {
        let of_kind = self.differing_cases.iter().filter(|(_, d)| *d == kind);
        of_kind.map(|(name, _)| name.as_str()).collect()
    }

    /// Random documents that differ, of any kind.
    pub fn differing_documents(&self) -> usize {
        self.counts.values().map(|&(_, docs)| docs).sum()
    }

    /// The survey as JSON, for `--json` and `bench.sh`.
    pub fn to_json(&self) -> serde_json::Value {
        let kinds: serde_json::Map<_, _> = Difference::ALL
            .iter()
            .map(|&kind| {
                let (inputs, documents) = self.counts.get(&kind).copied().unwrap_or_default();
                let value = serde_json::json!({
                    "cases": self.cases_of(kind),
                    "case_inputs": inputs,
                    "random_documents": documents,
                });
                (kind.name().to_string(), value)
            })
            .collect();
        serde_json::json!({
            "cases": self.cases,
            "cases_differ": self.differing_cases.len(),
            "documents": self.documents,
            "documents_differ": self.differing_documents(),
            "differences": kinds,
        })
    }

    fn record(&mut self, check: &str, input: &[u8], expected: &Outcome, random: bool) {
        let kind = match explain(input, expected, &Baseline::records(input)) {
            Some(kind) => kind,
            // Same records: the fingerprint check of the gate is all that is left.
            None => match gate::check_input(StepFns::of::<Baseline>(), check, input, expected) {
                Ok(_) => return,
                Err(_) => Difference::Unexplained,
            },
        };
        let entry = self.counts.entry(kind).or_default();
        if random {
            entry.1 += 1
        } else {
            entry.0 += 1
        }
        if kind == Difference::Unexplained && self.unexplained.len() < 5 {
            let failure = gate::check_input(StepFns::of::<Baseline>(), check, input, expected);
            self.unexplained
                .push(failure.err().map_or(check.to_string(), |f| f.to_string()));
        }
    }
}

/// Surveys `cases` (as they are and at every padding) and every random family.
pub fn survey(cases: &[Case]) -> Survey {
    let mut survey = Survey::default();
    for case in cases {
        survey.cases += 1;
        if let Some(kind) = explain(&case.input, &case.expected, &Baseline::records(&case.input)) {
            survey.differing_cases.push((case.name.clone(), kind));
        }
        let what = |how: &str| format!("case `{}`{how}", case.name);
        survey.record(&what(""), &case.input, &case.expected, false);
        for n in 0..=MAX_PADDING {
            let (input, expected) = in_front(&case.input, &case.expected, n);
            survey.record(
                &what(&format!(", padded in front with {n} bytes")),
                &input,
                &expected,
                false,
            );
            if let Some((input, expected)) = behind(&case.input, &case.expected, n) {
                survey.record(
                    &what(&format!(", padded behind with {n} bytes")),
                    &input,
                    &expected,
                    false,
                );
            }
        }
    }
    for family in Family::ALL {
        for (i, doc) in family.documents().iter().enumerate() {
            survey.documents += 1;
            let check = format!("random document {i} of family {family:?}");
            survey.record(&check, doc, &reference::parse(doc), true);
        }
    }
    survey
}
