//! The errors a step can report: the dialect's one parse error, and I/O.

use std::fmt;
use std::path::PathBuf;

/// What went wrong, without where: the stable name used in JSON output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A quoted field was still open at the end of the input.
    UnterminatedQuote,
    /// The input could not be opened, mapped or read.
    Io,
}

impl ErrorKind {
    /// The name printed in JSON (`"unterminated_quote"`, `"io"`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::UnterminatedQuote => "unterminated_quote",
            ErrorKind::Io => "io",
        }
    }
}

/// The dialect's only parse error: a quoted field still open at the end of input.
///
/// Positions, all 0-based except `line`:
/// - `record`: index of the record that holds the field, among the records produced
///   (blank lines are not records, so this can be smaller than the line index);
/// - `byte`: offset of the field's opening quote from the first byte of the input,
///   a BOM included;
/// - `line`: 1-based line of the opening quote as an editor shows it (LFs before it + 1).
///
/// Every step must report the same `record` and `byte` as [`crate::reference`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParseError {
    /// 0-based index among the records produced.
    pub record: u64,
    /// 0-based byte offset of the opening quote.
    pub byte: u64,
    /// 1-based line of the opening quote.
    pub line: u64,
}

impl ParseError {
    /// Builds the error for an opening quote at `byte` of `input` in record `record`,
    /// counting the line from the input. Call it only on the error path: it scans
    /// `input[..byte]` once.
    pub fn unterminated_quote(input: &[u8], record: u64, byte: usize) -> ParseError {
        let line = input[..byte].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        ParseError {
            record,
            byte: byte as u64,
            line,
        }
    }

    /// Always [`ErrorKind::UnterminatedQuote`]: the dialect has no other parse error.
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::UnterminatedQuote
    }

    /// The error as the one-line JSON object of `--records` and `data/conformance/`.
    pub fn to_json(&self) -> String {
        format!(
            r#"{{"error":"{}","record":{},"byte":{}}}"#,
            self.kind().name(),
            self.record,
            self.byte
        )
    }

    /// The error as the JSON object of a step's `--json` (query steps and parse steps
    /// alike): its kind, record, line and byte.
    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::json!({
            "error": self.kind().name(),
            "record": self.record,
            "line": self.line,
            "byte": self.byte,
        })
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unterminated quote: the quoted field opened at byte {} (line {}, record {}) \
             is still open at the end of the input",
            self.byte, self.line, self.record
        )
    }
}

impl std::error::Error for ParseError {}

/// Anything a step's pass over a file can fail with.
#[derive(Debug)]
pub enum Error {
    /// The file could not be opened, mapped, read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
        /// True when the failure was a write (a bench file generated, a table saved):
        /// the message then says "cannot write".
        writing: bool,
    },
    /// The bytes break the dialect.
    Parse(ParseError),
}

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
            writing: false,
        }
    }

    /// Wraps an I/O error of writing `path`.
    pub fn io_write(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
            writing: true,
        }
    }

    /// What went wrong, without where.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Io { .. } => ErrorKind::Io,
            Error::Parse(e) => e.kind(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io {
                path,
                source,
                writing,
            } => {
                let verb = if *writing { "write" } else { "read" };
                write!(f, "cannot {verb} {}: {source}", path.display())?;
                // EMFILE: the process's limit on open files, which a table of many
                // columns (a file or two each) can reach.
                if source.raw_os_error() == Some(24) {
                    write!(
                        f,
                        " (the limit on open files a process may hold; raise it for this \
                         shell with `ulimit -n`, up to `ulimit -Hn`)"
                    )?;
                }
                Ok(())
            }
            Error::Parse(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Parse(e) => Some(e),
        }
    }
}

impl From<ParseError> for Error {
    fn from(e: ParseError) -> Error {
        Error::Parse(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_error_says_whether_it_read_or_wrote() {
        let full = || std::io::Error::other("No space left on device");
        let read = Error::io("data/bench.csv", full()).to_string();
        let write = Error::io_write("data/bench.csv", full()).to_string();
        assert_eq!(read, "cannot read data/bench.csv: No space left on device");
        assert_eq!(
            write,
            "cannot write data/bench.csv: No space left on device"
        );
        assert_eq!(Error::io_write("x", full()).kind(), ErrorKind::Io);
    }

    #[test]
    fn too_many_open_files_says_which_limit() {
        let e = Error::io_write("t/col9.values", std::io::Error::from_raw_os_error(24));
        let text = e.to_string();
        assert!(text.starts_with("cannot write t/col9.values: "), "{text}");
        assert!(
            text.ends_with("raise it for this shell with `ulimit -n`, up to `ulimit -Hn`)"),
            "{text}"
        );
    }
}
