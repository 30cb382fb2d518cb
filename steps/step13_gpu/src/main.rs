//! `step13 [FILE] [--group-by COLUMN] [--sum COLUMN] [--device cpu|cuda|auto]
//! [--device-resident] [--runs N] [--json] [--row-json] [--records FILE] [--verbose]`:
//! the gate (on the CPU twin), then the query on the device or its CPU twin, its
//! answer, and its row. The options are in `cli.rs`, the rest in the harness.

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn main() -> std::process::ExitCode {
    harness::query::cli::run_query::<step13::Step13>()
}
