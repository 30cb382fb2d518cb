//! step12's tests, in one binary: a module per family. (A file under `tests/` is
//! a module here, not a binary of its own: `autotests = false` in `Cargo.toml`, so
//! that the crate links one test binary instead of one per file.) The families every
//! step runs (the gate, the tiers, the query, bad input), and the index's: its build
//! and files (`index`), `--where` (`where`), and a damaged or forged index refused
//! (`damaged`, `sealed`). What the step keeps of step 11 file for file (the load, the
//! table, its query) is tested in step 11.

mod bad_input;
mod bad_input_cli;
mod common;
mod damaged;
mod gate;
mod index;
mod query;
mod sealed;
mod tiers;
mod r#where;
mod where_cli;
