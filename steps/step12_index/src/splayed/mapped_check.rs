//! Mapping a file of a table as a reader may trust it: its size the manifest's, its
//! CRC-32 the manifest's, and, for the words that index arrays (a string column's
//! symbol ids), each under its bound, all in one pass over
//! the bytes on every core, the first time the file is mapped (`map_exact`); or
//! the same check (`Running`) taken piece by piece by a scan that reads the whole
//! file anyway.

use std::fs::File;
use std::path::Path;

use memmap2::Mmap;

use crate::splayed::error::TableError;
use crate::splayed::manifest::Manifest;

// ANCHOR: map_exact
/// Words of a file that must all lie under a bound: `width` bytes each (4 or 8),
/// little-endian. A string column's symbol ids lie under its `id_bound`; a reader
/// indexes arrays with them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Under {
    pub width: usize,
    pub bound: u64,
    /// What the words are, for the error.
    pub what: &'static str,
}

/// Maps the file at `path` of the table at `dir`, checking that it is `len` bytes
/// long, that its CRC-32 is the one `manifest` holds for it, and, with `under`, that
/// each of its words lies under the bound: one pass over its bytes, on every core,
/// the first time a table's file is mapped.
pub(crate) fn map_exact(
    dir: &Path,
    manifest: &Manifest,
    path: &Path,
    len: u64,
    under: Option<Under>,
) -> Result<Mmap, TableError> {
    let map = map_sized(dir, path, len)?;
    parallel_checksum(&map, under).finish(dir, manifest, path)?;
    Ok(map)
}

/// The check of all of `bytes` ([`Running`]), its blocks of 4 MiB checked on rayon's
/// threads, 64 KiB at a time (each piece's words read right after its CRC, from the
/// core's cache rather than from memory), and the blocks' checks joined in order.
fn parallel_checksum(bytes: &[u8], under: Option<Under>) -> Running {
    use rayon::prelude::*;
    bytes
        .par_chunks(1 << 22)
        .map(|block| {
            let mut check = Running::new(under);
            for piece in block.chunks(1 << 16) {
                check.piece(piece);
            }
            check
        })
        .reduce(|| Running::new(under), |a, b| a.join(&b))
}
// ANCHOR_END: map_exact

// ANCHOR: running
/// The check of a file's bytes, taken a piece at a time in file order: its CRC-32,
/// and whether each word lies under its bound. [`map_exact`] takes it in a pass of
/// its own; a scan that reads the whole file anyway takes it as it reads, handing
/// each piece to [`Running::piece`] before it reads the piece's words, and joining
/// its ranges' checks in file order ([`Running::join`]). The bytes then come from
/// memory once, not twice; an answer computed from a file that fails is not given.
#[derive(Clone)]
pub(crate) struct Running {
    crc: crc32fast::Hasher,
    under: Option<Under>,
    all_under: bool,
}

impl Running {
    /// A check of nothing yet, of words that must lie `under` a bound.
    pub fn new(under: Option<Under>) -> Running {
        Running {
            crc: crc32fast::Hasher::new(),
            under,
            all_under: true,
        }
    }

    /// Adds the next `bytes` of the file; false when one of their words lies past
    /// the bound, and then the words must not be used.
    pub fn piece(&mut self, bytes: &[u8]) -> bool {
        self.crc.update(bytes);
        let under = self
            .under
            .is_none_or(|u| largest_word(bytes, u.width) < u.bound);
        self.all_under &= under;
        under
    }

    /// This check followed by `next`'s, the bytes that come after in the file
    /// (`crc32fast`'s `combine`).
    pub fn join(mut self, next: &Running) -> Running {
        self.crc.combine(&next.crc);
        self.all_under &= next.all_under;
        self
    }

    /// Whether the whole file at `path`, every piece joined, is the one `manifest`
    /// names: its CRC-32 the manifest's, and then every word under its bound (a
    /// damaged file is called damaged, not out of bounds).
    ///
    /// # Errors
    /// [`TableError::NotATable`], naming the file and what is wrong.
    pub fn finish(self, dir: &Path, manifest: &Manifest, path: &Path) -> Result<(), TableError> {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let Some(&expected) = manifest.checksums.get(name) else {
            return Err(TableError::NotATable(
                dir.into(),
                format!("the manifest has no checksum of {name}"),
            ));
        };
        if self.crc.finalize() != expected {
            return Err(TableError::NotATable(
                dir.into(),
                format!(
                    "{name} does not match its checksum in the manifest: it was changed, \
                     damaged or copied from another table after the load"
                ),
            ));
        }
        if let (Some(under), false) = (self.under, self.all_under) {
            return Err(TableError::NotATable(
                dir.into(),
                format!(
                    "{name} holds {} past the bound {} (a table written with its \
                     checksums, but not by a load)",
                    under.what, under.bound
                ),
            ));
        }
        Ok(())
    }
}

/// The largest little-endian word of `width` bytes (4 or 8) in `bytes`, 0 for none;
/// a fold the compiler turns into SIMD maxima.
fn largest_word(bytes: &[u8], width: usize) -> u64 {
    match width {
        4 => bytes
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes(w.try_into().expect("4")))
            .fold(0, u32::max)
            .into(),
        _ => bytes
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8")))
            .fold(0, u64::max),
    }
}
// ANCHOR_END: running

// ANCHOR: open_regular
/// Opens the file at `path` of the table at `dir` for reading, if it is a regular
/// file (or a symbolic link to one), as every file of a table is: a directory, a
/// FIFO or a device put in a file's place is named and refused, as the CSV path
/// refuses one (`harness::run::cli::regular_file`), instead of mapped ("No such
/// device"), waited on (a FIFO without a writer) or read until memory runs out
/// (`/dev/zero`). Opened without waiting (`O_NONBLOCK`, which a regular file
/// ignores) and then asked what it is, so that a file swapped for a FIFO between a
/// check and the open cannot block either.
///
/// # Errors
/// [`TableError::NotATable`] naming the file: missing, not a regular file, or not
/// to be opened.
pub(crate) fn open_regular(dir: &Path, path: &Path) -> Result<File, TableError> {
    let not = |why: String| TableError::NotATable(dir.into(), format!("{}: {why}", path.display()));
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(|e| not(e.to_string()))?;
    let kind = file.metadata().map_err(|e| not(e.to_string()))?.file_type();
    if kind.is_dir() {
        return Err(not("a directory, where the table has a file".into()));
    }
    if !kind.is_file() {
        return Err(not(
            "not a regular file (a pipe, a device or a socket), which no file of a \
             table is"
                .into(),
        ));
    }
    Ok(file)
}
// ANCHOR_END: open_regular

/// Maps the file at `path` of the table at `dir`, checking that it is `len` bytes
/// long.
pub(crate) fn map_sized(dir: &Path, path: &Path, len: u64) -> Result<Mmap, TableError> {
    let file = open_regular(dir, path)?;
    // SAFETY: a table's files are written once, under a temporary name, and renamed
    // into place complete; nothing in this program writes them again. Another process
    // that truncated one while it is mapped would raise SIGBUS on the next read (see
    // step 2's chapter); the size is checked here, against the manifest.
    let map = unsafe { Mmap::map(&file) }.map_err(TableError::io_at(path))?;
    if map.len() as u64 != len {
        return Err(TableError::NotATable(
            dir.into(),
            format!(
                "{} has {} bytes, the manifest says {len}",
                path.display(),
                map.len()
            ),
        ));
    }
    Ok(map)
}
