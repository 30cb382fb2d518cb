//! step13's tests, in one binary: a module per family. (A file under `tests/` is
//! a module here, not a binary of its own: `autotests = false` in `Cargo.toml`, so
//! that the crate links one test binary instead of one per file.)

mod bad_input;
mod bad_input_cli;
mod device;
mod gate;
mod kernels_on_host;
mod multi_tile;
mod nvrtc;
mod query;
mod tiles;
mod twin_vs_kernel;

/// A deterministic document of `len` bytes from `alphabet` (a xorshift generator
/// from `seed`), for the families that build random inputs.
fn document(seed: u64, len: usize, alphabet: &[u8]) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            alphabet[(x % alphabet.len() as u64) as usize]
        })
        .collect()
}
