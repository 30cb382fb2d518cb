//! What several of step 9's test files need: the files of a loaded table.

use std::path::Path;

/// Every file of the table at `dir`, by name, with its bytes: two loads that
/// should give the same table compare these.
pub fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}
