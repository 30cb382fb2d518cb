//! The spec: what a correct step does. The dialect ([`dialect`]) and its executable
//! form, the reference parser ([`reference`](mod@reference)); the one parse error and I/O errors
//! ([`error`]); the interface every step implements ([`step`]); and the records
//! format of `--records` and `data/conformance/*.json` ([`json`]).

pub mod dialect;
pub mod error;
pub mod json;
pub mod reference;
pub mod step;
