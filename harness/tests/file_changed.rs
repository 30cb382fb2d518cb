//! A file that another program writes to while a step measures it is said to have
//! changed, not blamed on the step: `time_pass` with a step whose pass finds the file
//! grown under it (another program's append, made at a known moment).

use std::io::Write;
use std::path::{Path, PathBuf};

use harness::dialect::Dialect;
use harness::reference;
use harness::run::cli::{PassError, time_pass};
use harness::{Error, Fingerprint, ParseError, Record, Step};

/// The reference parser as a step, whose first pass appends a record to its input
/// before reading it: what another program's append in the middle of a run does.
struct AppendedDuringThePass;

impl Step for AppendedDuringThePass {
    const NUMBER: u32 = 0;
    const NAME: &'static str = "appended";
    const IDEA: &'static str = "another program appends";
    fn records_in(input: &[u8], dialect: Dialect) -> Result<Vec<Record>, ParseError> {
        reference::parse_in(input, dialect)
    }
    fn fingerprint_in(input: &[u8], dialect: Dialect) -> Result<Fingerprint, ParseError> {
        reference::fingerprint_in(input, dialect)
    }
    fn pass(path: &Path, dialect: Dialect) -> Result<Fingerprint, Error> {
        let mut file = std::fs::File::options().append(true).open(path).unwrap();
        file.write_all(b"appended,1\n").unwrap();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Ok(reference::fingerprint_in(&bytes, dialect)?)
    }
}

fn file(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("file-changed-{name}-{}.csv", std::process::id()));
    std::fs::write(&path, b"category,value\na,1\nb,2\n").unwrap();
    path
}

#[test]
fn a_file_appended_to_during_the_pass_is_said_to_have_changed() {
    let path = file("appended");
    let error = time_pass::<AppendedDuringThePass>(&path, 1, Dialect::default()).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    let PassError::Changed(changed) = &error else {
        panic!("blamed on the step instead: {error}");
    };
    assert_eq!(changed.path, path);
    assert_eq!(changed.how, "its length went from 23 to 34 bytes");
    let message = error.to_string();
    assert!(message.contains("changed while it was read"), "{message}");
    assert!(!message.contains("fingerprint"), "{message}");
    let json = changed.to_json();
    assert_eq!(json["error"], "file_changed");
    assert_eq!(json["path"], path.display().to_string());
}
