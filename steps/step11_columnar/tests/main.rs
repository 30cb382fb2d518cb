//! step11's tests, in one binary: a module per family. (A file under `tests/` is
//! a module here, not a binary of its own: `autotests = false` in `Cargo.toml`, so
//! that the crate links one test binary instead of one per file. The allocation
//! checks are the exception: `tests/alloc.rs` counts with a process-global
//! allocator, so it is a binary of its own.)

mod bad_input;
mod bad_input_cli;
mod common;
mod damaged;
mod first_error;
mod gate;
mod guess;
mod load;
mod query;
mod round_trip;
mod sealed;
mod staging;
mod text;
mod tiers;
mod typed;
