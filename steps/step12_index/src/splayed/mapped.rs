//! The column files, created at their final size and mapped before pass 2, so that
//! each value is written once, where it lies on disk: no column on the heap, no copy
//! from a buffer into the file at the end. Pass 1 counted each chunk's records, so
//! each chunk's window of each file is known before the first value is written.
//!
//! ```text
//! col{k}.values: | chunk 0's rows x width | chunk 1's rows x width | ... |
//!                  ^ chunk 0 writes here    ^ chunk 1, on another thread
//! ```
//!
//! The file's blocks are reserved first (`posix_fallocate`): a write into a mapping
//! that finds the disk full cannot return an error, the process would get SIGBUS;
//! reserving turns that into an error of the load, before anything is written.

use std::fs::{File, OpenOptions};
use std::path::Path;

use memmap2::MmapMut;

/// A new file of a fixed size, mapped for writing.
pub struct MappedFile {
    file: File,
    map: Option<MmapMut>, // None for an empty file: there is nothing to map
}

impl MappedFile {
    /// Creates the file `path` of `len` bytes (zeros), its blocks reserved, and
    /// maps it.
    ///
    /// # Errors
    /// What creating, reserving (a full disk: `ENOSPC`) or mapping fails with.
    pub fn create(path: &Path, len: u64) -> std::io::Result<MappedFile> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)?;
        reserve(&file, len)?;
        let map = if len == 0 {
            None
        } else {
            // SAFETY: the file was just created by this process (`create_new`) in its
            // own temporary directory, which nothing else writes; its blocks are
            // reserved, so a write through the map cannot fail for want of space.
            // Another process truncating it would raise SIGBUS, as for any mapping
            // (step 2's chapter).
            Some(unsafe { MmapMut::map_mut(&file)? })
        };
        Ok(MappedFile { file, map })
    }

    /// The file's bytes.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.map.as_deref_mut().unwrap_or_default()
    }

    /// Unmaps the file. Its pages stay in the page cache, dirty, for
    /// [`MappedFile::sync`] to write.
    pub fn unmap(&mut self) {
        self.map = None;
    }

    /// Writes the file's pages to the disk, then its size and times (`fsync`).
    ///
    /// Unmap first ([`MappedFile::unmap`]): writing back a page that is still
    /// mapped writable must first make it read-only in every CPU's TLB (the
    /// kernel's `page_mkclean`), an interrupt to the other cores for each page,
    /// a large share of a big load's CPU time (the chapter profiles it); one
    /// `munmap` of the whole map flushes the TLBs once.
    ///
    /// # Errors
    /// What `fsync` fails with.
    pub fn sync(&self) -> std::io::Result<()> {
        self.file.sync_all()
    }
}

/// Gives `file` a size of `len` bytes, its blocks allocated.
#[cfg(unix)]
fn reserve(file: &File, len: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    if len == 0 {
        return Ok(());
    }
    let len = libc::off_t::try_from(len).map_err(std::io::Error::other)?;
    // SAFETY: `posix_fallocate` reads no memory of ours; the descriptor is open, and
    // owned by `file` for the whole call.
    match unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) } {
        0 => Ok(()),
        // A file system that cannot reserve (some network ones): size it, as
        // elsewhere.
        libc::EOPNOTSUPP | libc::EINVAL => file.set_len(len as u64),
        errno => Err(std::io::Error::from_raw_os_error(errno)),
    }
}

/// Gives `file` a size of `len` bytes (no reservation on this system).
#[cfg(not(unix))]
fn reserve(file: &File, len: u64) -> std::io::Result<()> {
    file.set_len(len)
}

/// `bytes` cut into consecutive windows of `lens` bytes (their sum is at most
/// `bytes.len()`).
pub fn windows(mut bytes: &mut [u8], lens: impl IntoIterator<Item = usize>) -> Vec<&mut [u8]> {
    lens.into_iter()
        .map(|len| {
            let (window, rest) = std::mem::take(&mut bytes).split_at_mut(len);
            bytes = rest;
            window
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_the_bytes_in_order() {
        let mut bytes: Vec<u8> = (0..10).collect();
        let w = windows(&mut bytes, [3, 0, 5, 2]);
        let lens: Vec<usize> = w.iter().map(|w| w.len()).collect();
        assert_eq!(lens, [3, 0, 5, 2]);
        assert_eq!(w[2][0], 3);
        assert_eq!(w[3], [8, 9]);
    }

    #[test]
    fn a_mapped_file_is_written_through_its_map() {
        let dir = std::env::temp_dir().join(format!("splayed-mapped-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        let mut file = MappedFile::create(&dir.join("a"), 5).unwrap();
        file.bytes_mut()[1..3].copy_from_slice(b"hi");
        file.unmap();
        file.sync().unwrap();
        assert_eq!(std::fs::read(dir.join("a")).unwrap(), b"\0hi\0\0");
        let empty = MappedFile::create(&dir.join("b"), 0).unwrap();
        empty.sync().unwrap();
        assert_eq!(std::fs::metadata(dir.join("b")).unwrap().len(), 0);
        // A load never writes over a file.
        assert!(MappedFile::create(&dir.join("a"), 5).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
