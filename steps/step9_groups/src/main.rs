//! `step9 [FILE] [--group-by COLUMN] [--sum COLUMN] [--runs N] [--json] [--row-json]
//! [--records FILE] [--verbose]`: the gate, then the query, its answer, its row, and
//! its speedup over the same query on step 1's parser (`harness::query::cli`).
//! `--verbose` says which tier ran (`CSV_TIER=scalar|portable|sse2|avx2|avx512|neon` forces
//! one) and how often the block walk fell back to the state machine.

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn main() -> std::process::ExitCode {
    harness::query::cli::run_query::<step9::Step9>()
}
