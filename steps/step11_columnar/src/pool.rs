//! The worker pool: every part of the query that runs on every core (the chunks'
//! transition functions, their parse, the merge's partitions, the load's passes)
//! hands its tasks to [`map_chunks`], which runs them on rayon's pool, each worker
//! keeping its own state.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

// ANCHOR: threads
/// Runs `work(state, k)` for each `k` in `0..n` on `threads` workers of the process's
/// thread pool, each taking the next `k` from a shared counter and keeping its own
/// `state` (made by `init`); returns the results in the order of `k`, and each
/// worker's state.
///
/// The workers are tasks on rayon's pool, not threads of their own: starting threads
/// costs more than parsing a small input, which a pass over a big file never notices
/// but the gate, with its many calls on small inputs, would spend most of its time
/// on. On the pool a call costs next to nothing when it comes from a pool thread (the
/// gate's are), and no more than a wake-up otherwise. With fewer cores than
/// `threads`, the workers take turns.
pub fn map_chunks<S: Send, R: Send>(
    threads: usize,
    n: usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) -> R + Sync,
) -> (Vec<R>, Vec<S>) {
    let threads = threads.clamp(1, n.max(1));
    if threads == 1 {
        let mut state = init();
        let results = (0..n).map(|k| work(&mut state, k)).collect();
        return (results, vec![state]);
    }
    let next = AtomicUsize::new(0);
    let worker = |_| {
        let mut state = init();
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= n {
                return (state, done);
            }
            done.push((k, work(&mut state, k)));
        }
    };
    // One task per worker (`with_max_len(1)`); a panic in one is resumed here.
    let per_worker: Vec<_> = (0..threads)
        .into_par_iter()
        .with_max_len(1)
        .map(worker)
        .collect();
    let mut results: Vec<Option<R>> = (0..n).map(|_| None).collect();
    let mut states = Vec::with_capacity(threads);
    for (state, done) in per_worker {
        for (k, r) in done {
            results[k] = Some(r);
        }
        states.push(state);
    }
    let results = results
        .into_iter()
        .map(|r| r.expect("every chunk ran"))
        .collect();
    (results, states)
}
// ANCHOR_END: threads

/// The most threads `--threads` takes: more than any machine this runs on has cores,
/// and few enough that the threads' tables and stacks stay small beside the input.
pub const MAX_THREADS: u64 = 1024;

/// Every core the process may use.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
