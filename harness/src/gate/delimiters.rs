//! The gate's third check: every case and random document again with each other
//! delimiter of [`GATE_DELIMITERS`] (re-exported from [`crate::gate`]).

use rayon::prelude::*;

use crate::dialect::{DELIMITER, Dialect, GATE_DELIMITERS};
use crate::gate::cases::Case;
use crate::gate::random::Family;
use crate::gate::{GateResult, check_input_in, first_failure};
use crate::reference;
use crate::step::StepFns;

// ANCHOR: delimiters
/// Checks `step` with each delimiter of [`GATE_DELIMITERS`] but the comma: every case
/// and every random document, its commas rewritten to the delimiter (a case that
/// holds the delimiter already is left out: its rewrite would not be the same
/// document), against the reference parser with that delimiter. No paddings: the
/// delimiter is one compare among four in every step's code, and the comma's gate
/// crosses every block boundary already.
///
/// # Errors
/// The first failing input.
pub fn check_delimiters(step: StepFns, cases: &[Case]) -> GateResult {
    let documents: Vec<(String, Vec<u8>)> = Family::ALL
        .iter()
        .flat_map(|&family| {
            let docs = family.documents().into_iter().enumerate();
            docs.map(move |(i, doc)| (format!("random document {i} of family {family:?}"), doc))
        })
        .collect();
    let inputs: Vec<(String, &[u8])> = cases
        .iter()
        .map(|c| (format!("case `{}`", c.name), &c.input[..]))
        .chain(documents.iter().map(|(what, doc)| (what.clone(), &doc[..])))
        .collect();
    let results: Vec<GateResult> = GATE_DELIMITERS[1..]
        .iter()
        .flat_map(|&d| inputs.iter().map(move |(what, input)| (d, what, input)))
        .collect::<Vec<_>>()
        .into_par_iter()
        .filter(|(d, _, input)| !input.contains(d))
        .map(|(d, what, input)| {
            let dialect = Dialect { delimiter: d };
            let rewritten: Vec<u8> = input
                .iter()
                .map(|&b| if b == DELIMITER { d } else { b })
                .collect();
            let expected = reference::parse_in(&rewritten, dialect);
            let check = format!("{what}, delimited by {:?}", d as char);
            check_input_in(step, &check, &rewritten, &expected, dialect)
        })
        .collect();
    first_failure(results)
}
// ANCHOR_END: delimiters
