//! The one error type of `cargo x`: what went wrong, as the line that `main` prints
//! after `xtask: `.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// A chore's result.
pub type Result<T = (), E = Error> = std::result::Result<T, E>;

/// Why a chore failed.
#[derive(Debug)]
pub enum Error {
    /// A file or folder could not be read or written: `PATH: why`.
    Io { path: PathBuf, source: io::Error },
    /// A program could not be started: `cannot run PROGRAM: why`.
    Spawn { program: String, source: io::Error },
    /// A check or a command failed; the text says what and where, one line each.
    Failed(String),
    /// The command has said why already (an exercise's red check): only the exit
    /// status is left to give.
    Reported,
}

/// `Error::Failed(format!(…))`: a failure said in words.
macro_rules! failed {
    ($($arg:tt)*) => {
        $crate::error::Error::Failed(format!($($arg)*))
    };
}
pub(crate) use failed;

impl Error {
    /// For `map_err`: an I/O error on `path`.
    pub fn io(path: impl AsRef<Path>) -> impl FnOnce(io::Error) -> Error {
        move |source| Error::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// For `map_err`: `program` could not be started.
    pub fn spawn(program: impl fmt::Display) -> impl FnOnce(io::Error) -> Error {
        move |source| Error::Spawn {
            program: program.to_string(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Spawn { program, source } => write!(f, "cannot run {program}: {source}"),
            Error::Failed(what) => f.write_str(what),
            Error::Reported => Ok(()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } | Error::Spawn { source, .. } => Some(source),
            Error::Failed(_) | Error::Reported => None,
        }
    }
}

impl From<String> for Error {
    fn from(what: String) -> Error {
        Error::Failed(what)
    }
}

impl From<&str> for Error {
    fn from(what: &str) -> Error {
        Error::Failed(what.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_before() {
        let missing = Path::new("/no/such/file");
        let e = std::fs::read(missing)
            .map_err(Error::io(missing))
            .unwrap_err();
        assert!(e.to_string().starts_with("/no/such/file: "), "{e}");
        let e = std::process::Command::new("/no/such/program")
            .status()
            .map_err(Error::spawn("/no/such/program"))
            .unwrap_err();
        assert!(
            e.to_string().starts_with("cannot run /no/such/program: "),
            "{e}"
        );
        assert_eq!(Error::from("no step 99").to_string(), "no step 99");
        assert_eq!(Error::Reported.to_string(), "");
    }
}
