//! A global allocator that counts heap allocations, so each step can print how many
//! allocations one pass makes. Install it in a binary or test crate with
//!
//! ```
//! #[global_allocator]
//! static ALLOC: harness::CountingAlloc = harness::CountingAlloc;
//!
//! let (v, counted) = harness::run::alloc::count_allocations(|| vec![1u8; 100]);
//! assert_eq!((v.len(), counted.allocations, counted.bytes), (100, 1, 100));
//!
//! // Two buffers alive at once, then one freed before the third: the peak is two.
//! let (_, counted) = harness::run::alloc::count_allocations(|| {
//!     let a = vec![1u8; 1000];
//!     let b = vec![2u8; 1000];
//!     drop(a);
//!     let c = vec![3u8; 1000];
//!     (b, c)
//! });
//! assert_eq!((counted.bytes, counted.peak_bytes), (3000, 2000));
//! ```
//!
//! The counters are global (all threads together): a test that reads them should be
//! the only test of its binary, or the other tests' allocations are counted too.
//!
//! Besides the calls and the bytes they ask for, the allocator keeps the bytes live
//! (allocated and not yet freed) and the most that were live at once, so that a
//! step can say how much heap its pass needed at its peak, not only how much it
//! asked for in all: a table that doubles asks for about twice what it keeps.

use std::alloc::{GlobalAlloc, Layout, System};

/// Asks the C library's allocator, which [`System`] is, to keep the memory a pass
/// frees for the next pass instead of handing it back to the kernel: blocks of up to
/// 32 MiB come from its heap rather than from mappings of their own (glibc's
/// `M_MMAP_THRESHOLD`, at its largest setting) and the heap's top is never trimmed
/// (`M_TRIM_THRESHOLD`). Memory handed back is handed out again as fresh pages, and
/// each fresh page costs the next pass a page fault and the kernel's zeroing: with a
/// million groups, the faults alone take a large share of a pass. jemalloc, the
/// allocator of Polars' and DuckDB's Linux builds, keeps freed pages for ten seconds
/// by default (its `dirty_decay_ms`) for the same reason. Every step binary calls
/// this first, so that every step and every peer is timed with its memory kept.
/// Elsewhere than on glibc it does nothing.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets the allocator's parameters; glibc takes its own
    // lock, so it is safe to call at any time, from any thread. A refused value (the
    // return value 0) leaves the default, which is still correct, only slower.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
/// Bytes allocated and not yet freed. It wraps below zero for a moment when one
/// thread frees a block before the thread that allocated it has counted it, so it is
/// read as a wrapping sum, never compared on its own.
static LIVE: AtomicU64 = AtomicU64::new(0);
/// The most of `LIVE` since the last [`count_allocations`] began (or the start).
static PEAK: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting every `alloc`, `alloc_zeroed` and `realloc` call
/// (a `realloc` may move the block, so it costs like an allocation) and the bytes
/// they asked for, and the bytes live at once (see the module's text). Frees are not
/// counted as calls.
pub struct CountingAlloc;

/// Allocations and bytes requested since the process started (or between two points,
/// through [`AllocCount::since`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocCount {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    pub allocations: u64,
    /// Bytes those calls asked for.
    pub bytes: u64,
    /// The most heap bytes live at once while [`count_allocations`] ran its closure,
    /// above those live when it began: what the closure needed at its peak. 0 from
    /// [`AllocCount::now`] and [`AllocCount::since`], which read two moments, not
    /// what happened between them.
    pub peak_bytes: u64,
}

impl AllocCount {
    /// The counters now. All zero when [`CountingAlloc`] is not the global allocator.
    pub fn now() -> AllocCount {
        AllocCount {
            allocations: ALLOCATIONS.load(Relaxed),
            bytes: BYTES.load(Relaxed),
            peak_bytes: 0,
        }
    }

    /// What was counted between `earlier` and `self`.
    pub fn since(self, earlier: AllocCount) -> AllocCount {
        AllocCount {
            allocations: self.allocations - earlier.allocations,
            bytes: self.bytes - earlier.bytes,
            peak_bytes: 0,
        }
    }
}

/// Counts the allocations `f` makes (on every thread, while it runs), and the most
/// heap it holds at once ([`AllocCount::peak_bytes`]). Calls of this function nest
/// badly: an inner call starts the peak again, so an outer one sees only the peak
/// after it.
pub fn count_allocations<T>(f: impl FnOnce() -> T) -> (T, AllocCount) {
    let live = LIVE.load(Relaxed);
    PEAK.store(live, Relaxed);
    let before = AllocCount::now();
    let out = f();
    let mut counted = AllocCount::now().since(before);
    counted.peak_bytes = PEAK.load(Relaxed).saturating_sub(live);
    (out, counted)
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
    grow_live(bytes as u64);
}

/// `bytes` more live, and the peak raised to the new total.
fn grow_live(bytes: u64) {
    let live = LIVE.fetch_add(bytes, Relaxed).wrapping_add(bytes);
    if live < 1 << 63 {
        PEAK.fetch_max(live, Relaxed); // not a total that wrapped below zero
    }
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
        LIVE.fetch_sub(layout.size() as u64, Relaxed);
        // SAFETY: `ptr` was allocated by `System` with `layout` (we only forward).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Counted as a new block of `new_size` bytes and the old one freed: the peak
        // is the same whether the block grows in place or moves.
        record(new_size);
        LIVE.fetch_sub(layout.size() as u64, Relaxed);
        // SAFETY: the caller upholds `realloc`'s contract; `ptr` came from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
