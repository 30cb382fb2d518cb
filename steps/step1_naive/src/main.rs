//! `step1 [FILE] [--runs N] [--json] [--records FILE]`: gate, then measure (see `harness::run::cli`).

#[global_allocator]
static ALLOC: harness::CountingAlloc = harness::CountingAlloc;

fn main() -> std::process::ExitCode {
    harness::run::cli::run::<step1::Step1>()
}
