//! The `limit` row: the fastest one-pass job this machine does on this file.
//!
//! Every step must at least look at every byte once, so a pass that only counts the
//! file's LFs with `memchr` (SIMD, tens of GB/s on data already in cache) over a
//! memory map bounds what any step of the ladder can reach here. It is not a parse:
//! it counts LFs, not records (an LF inside a quoted field counts too).
//!
//! What it measures is mostly the mapping, not `memchr`: mapping the file and faulting
//! in its pages costs more than counting. On the 2-core Intel Xeon (a KVM guest,
//! family 6, model 167) this was written on, with the 49.3 MB bench file in the page
//! cache: the count alone, over a buffer already in memory, ran at 23–25 GB/s; over a
//! fresh map (`Mmap::map`, as the steps map), the first passes of a process at 2–6
//! GB/s, and from about the eighth pass on at 11–12 GB/s (populating the map up front,
//! `MAP_POPULATE`, warmed up the same way). A step's timed pass comes after its gate
//! has run for a while, so `bench.sh` takes each limit run as the best of 20 passes
//! in one process. With `--threads N` the mapping is split into N slices counted on N
//! threads, faults included.

use std::fs::File;
use std::path::Path;

use harness::Error;
use memmap2::Mmap;

/// The LFs in the file at `path`, counted with `memchr` over a fresh memory map on
/// `threads` threads (1: on the calling thread, no thread is spawned).
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened or mapped.
pub fn count_lfs(path: &Path, threads: usize) -> Result<u64, Error> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    // SAFETY: the map is only read, and only while this function runs; bench files
    // are written once (by `gen`) and not modified while they are measured.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
    Ok(count_in(&map, threads))
}

/// The LFs in `bytes`, split into `threads` slices of (nearly) equal length counted in
/// parallel. An LF belongs to exactly one slice, so the sum is exact.
pub fn count_in(bytes: &[u8], threads: usize) -> u64 {
    if threads <= 1 || bytes.len() < threads {
        return memchr::memchr_iter(b'\n', bytes).count() as u64;
    }
    let slice_len = bytes.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = bytes
            .chunks(slice_len)
            .map(|slice| scope.spawn(move || memchr::memchr_iter(b'\n', slice).count() as u64))
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("counting cannot panic"))
            .sum()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_split_gives_the_same_count() {
        let bytes: Vec<u8> = (0..10_000u32)
            .map(|i| {
                if i % 7 == 0 || i % 13 == 0 {
                    b'\n'
                } else {
                    b'a'
                }
            })
            .collect();
        let naive = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        for threads in [1, 2, 3, 4, 7, 16, 20_000] {
            assert_eq!(count_in(&bytes, threads), naive, "{threads} threads");
        }
        assert_eq!(count_in(b"", 4), 0);
        assert_eq!(count_in(b"\n", 4), 1);
    }
}
