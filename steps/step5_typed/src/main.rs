//! `step5 [FILE] [--group-by COLUMN] [--sum COLUMN] [--runs N] [--json] [--row-json]
//! [--records FILE]`: the gate, then the query, its answer, its row, and its speedup
//! over the same query on step 1's parser (`harness::query::cli`).

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn main() -> std::process::ExitCode {
    harness::query::cli::run_query::<step5::Step5>()
}
