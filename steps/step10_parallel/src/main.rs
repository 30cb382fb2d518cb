//! `step10 [FILE] [--group-by COLUMN] [--sum COLUMN] [--runs N] [--json] [--row-json]
//! [--records FILE] [--threads N] [--chunk BYTES] [--verbose]`: the gate, then the
//! query on N threads (default: every core), its answer, its row, and its speedup
//! over the same query on step 1's parser (`harness::query::cli`). `--verbose` says
//! which tier ran (`CSV_TIER=scalar|portable|sse2|avx2|avx512|neon` forces one), what the
//! chunks' scan found, and the query's time on 1..=N threads.

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn main() -> std::process::ExitCode {
    harness::query::cli::run_query::<step10::Step10>()
}
