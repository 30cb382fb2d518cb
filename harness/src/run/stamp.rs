//! The gate's stamp: a build that passed the gate need not pass it again.
//!
//! A step's binary runs the gate before it measures or answers ([`super::cli`]).
//! What the gate checks is fixed by two things only: the binary itself (the step's
//! code, the gate's code and its seeded random documents are all compiled in) and
//! the conformance corpus it reads from `data/conformance/`. So after a pass the
//! binary writes a stamp beside itself, `<binary>.gate`, naming both: its size and
//! modification time, and a digest of every corpus file. A later run of the same
//! binary over the same corpus finds the stamp and says so instead of running the
//! gate again; a rebuilt binary (a new modification time) or any edited, added or
//! removed case misses the stamp, and the gate runs. A failed gate writes nothing.
//!
//! Deleting the stamp runs the gate again. A binary whose folder cannot be written
//! simply runs the gate every time.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// The stamp's path for the binary at `exe`: `<exe>.gate`.
pub fn path_for(exe: &Path) -> PathBuf {
    let mut name = exe.as_os_str().to_owned();
    name.push(".gate");
    PathBuf::from(name)
}

/// What a stamp says: the step, the binary's size in bytes and modification time
/// (nanoseconds since the Unix epoch), and the corpus digest ([`corpus_digest`]).
pub fn key(step: &str, exe_len: u64, exe_modified_ns: u128, corpus: u64) -> String {
    format!("{step} binary {exe_len} bytes modified {exe_modified_ns} corpus {corpus:016x}\n")
}

/// FNV-1a (64 bits) over every file of `dir`, in name order: each name, a NUL, the
/// file's length in bytes, a NUL and its bytes, so that no two corpora of different
/// files or contents give the same input to the hash.
///
/// # Errors
/// When the folder or a file in it cannot be read.
pub fn corpus_digest(dir: &Path) -> std::io::Result<u64> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    names.sort();
    let mut hash = Fnv::default();
    for path in names {
        let bytes = std::fs::read(&path)?;
        let name = path
            .file_name()
            .map(|n| n.as_encoded_bytes())
            .unwrap_or(b"");
        hash.write(name);
        hash.write(&[0]);
        hash.write(&(bytes.len() as u64).to_le_bytes());
        hash.write(&[0]);
        hash.write(&bytes);
    }
    Ok(hash.0)
}

/// The key for this process's binary and the corpus at `corpus_dir`, with the
/// binary's path; `None` when either cannot be read (then no stamp is used).
pub fn current(step: &str, corpus_dir: &Path) -> Option<(PathBuf, String)> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&exe).ok()?;
    let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    let corpus = corpus_digest(corpus_dir).ok()?;
    let key = key(step, meta.len(), modified.as_nanos(), corpus);
    Some((path_for(&exe), key))
}

/// True when the stamp at `stamp` holds exactly `key`.
pub fn holds(stamp: &Path, key: &str) -> bool {
    std::fs::read_to_string(stamp).is_ok_and(|text| text == key)
}

/// Writes `key` to `stamp` through a temporary file and a rename, so that a process
/// reading it at the same time sees the old stamp or the new one, never half of one.
/// Failures are ignored: without a stamp, the next run runs the gate.
pub fn write(stamp: &Path, key: &str) {
    let mut tmp = stamp.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    if std::fs::write(&tmp, key).is_ok() && std::fs::rename(&tmp, stamp).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// FNV-1a, 64 bits (Fowler, Noll and Vo): a few lines, no dependency, and enough to
/// tell an edited corpus from the one that passed; this is not a defence against an
/// adversary, who could as well edit the stamp.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("harness-stamp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_digest_changes_with_any_file_s_name_or_bytes() {
        let dir = scratch("digest");
        std::fs::write(dir.join("a.csv"), "x,y\n").unwrap();
        std::fs::write(dir.join("a.json"), "[]").unwrap();
        let first = corpus_digest(&dir).unwrap();
        assert_eq!(corpus_digest(&dir).unwrap(), first, "the same corpus");
        std::fs::write(dir.join("a.csv"), "x,z\n").unwrap();
        let edited = corpus_digest(&dir).unwrap();
        assert_ne!(edited, first, "an edited case");
        std::fs::write(dir.join("b.csv"), "").unwrap();
        let added = corpus_digest(&dir).unwrap();
        assert_ne!(added, edited, "an added, empty case");
        std::fs::rename(dir.join("b.csv"), dir.join("c.csv")).unwrap();
        assert_ne!(corpus_digest(&dir).unwrap(), added, "a renamed case");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_stamp_holds_only_its_own_key() {
        let dir = scratch("key");
        let stamp = path_for(&dir.join("step5"));
        assert_eq!(stamp.file_name().unwrap(), "step5.gate");
        let key = key("step5", 1000, 42, 7);
        assert!(!holds(&stamp, &key), "no stamp yet");
        write(&stamp, &key);
        assert!(holds(&stamp, &key));
        for other in [
            super::key("step7", 1000, 42, 7),
            super::key("step5", 1001, 42, 7),
            super::key("step5", 1000, 43, 7),
            super::key("step5", 1000, 42, 8),
        ] {
            assert!(!holds(&stamp, &other), "{other}");
        }
        let leftovers = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(leftovers, 1, "only the stamp, no temporary file");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
