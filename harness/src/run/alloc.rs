//! A global allocator that counts heap allocations, so each step can print how many
//! allocations one pass makes. Install it in a binary or test crate with
//!
//! ```
//! #[global_allocator]
//! static ALLOC: harness::CountingAlloc = harness::CountingAlloc;
//!
//! let (v, counted) = harness::run::alloc::count_allocations(|| vec![1u8; 100]);
//! assert_eq!((v.len(), counted.allocations, counted.bytes), (100, 1, 100));
//! ```
//!
//! The counters are global (all threads together): a test that reads them should be
//! the only test of its binary, or the other tests' allocations are counted too.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting every `alloc`, `alloc_zeroed` and `realloc` call
/// (a `realloc` may move the block, so it costs like an allocation) and the bytes
/// they asked for. Frees are not counted.
pub struct CountingAlloc;

/// Allocations and bytes requested since the process started (or between two points,
/// through [`AllocCount::since`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocCount {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    pub allocations: u64,
    /// Bytes those calls asked for.
    pub bytes: u64,
}

impl AllocCount {
    /// The counters now. All zero when [`CountingAlloc`] is not the global allocator.
    pub fn now() -> AllocCount {
        AllocCount {
            allocations: ALLOCATIONS.load(Relaxed),
            bytes: BYTES.load(Relaxed),
        }
    }

    /// What was counted between `earlier` and `self`.
    pub fn since(self, earlier: AllocCount) -> AllocCount {
        AllocCount {
            allocations: self.allocations - earlier.allocations,
            bytes: self.bytes - earlier.bytes,
        }
    }
}

/// Counts the allocations `f` makes (on every thread, while it runs).
pub fn count_allocations<T>(f: impl FnOnce() -> T) -> (T, AllocCount) {
    let before = AllocCount::now();
    let out = f();
    (out, AllocCount::now().since(before))
}

/// The fewest allocations `f` made in `tries` calls (at least one), with the last
/// call's output. The counters see every thread, and the test runner's own thread
/// sometimes allocates while a test starts (seen once in CI as 5 counted against 1);
/// such strays only add, so the fewest of a few tries is what `f` itself makes.
pub fn fewest_allocations<T>(tries: usize, mut f: impl FnMut() -> T) -> (T, AllocCount) {
    let (mut out, mut fewest) = count_allocations(&mut f);
    for _ in 1..tries {
        let (next, counted) = count_allocations(&mut f);
        out = next;
        if counted.allocations < fewest.allocations {
            fewest = counted;
        }
    }
    (out, fewest)
}

fn record(bytes: usize) {
    ALLOCATIONS.fetch_add(1, Relaxed);
    BYTES.fetch_add(bytes as u64, Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so
// `System`'s guarantees are ours; counting touches only atomics and never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract for `layout`.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (we only forward).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: the caller upholds `realloc`'s contract; `ptr` came from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
