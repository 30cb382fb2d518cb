//! SIGBUS: a mapped file that shrinks under the pass. The next read of a page past
//! its new end raises the signal, which no safe Rust can catch; a handler turns the
//! bare "Bus error" into one line naming the file, and with `--json` into the error
//! object that `--json` promises too, and exits with the status the signal would
//! have given in a shell (128 + 7).
//!
//! The handler may do only what is async-signal-safe: both texts are made before it
//! is installed, and it only reads them, `write(2)`s them and `_exit(2)`s.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// What the SIGBUS handler prints, set once before the handler is installed: the
/// line for stderr and the JSON object for stdout.
static SIGBUS_MESSAGE: OnceLock<(String, String)> = OnceLock::new();

/// Whether the handler prints the JSON object on stdout ([`sigbus_as_json`]).
static AS_JSON: AtomicBool = AtomicBool::new(false);

/// Set by the first thread whose read raised SIGBUS: with several threads reading the
/// shrunken map, each may take the signal, and only one may print, or stdout would
/// hold the JSON object twice.
static REPORTING: AtomicBool = AtomicBool::new(false);

/// Turns the bare "Bus error" of a mapped file that shrinks under the pass into one
/// line naming `path`, and exit status 135 (128 + SIGBUS, as the shell reports the
/// signal). Only the first call installs it. See `tests/sigbus.rs` in steps 2-4.
pub fn explain_sigbus(path: &std::path::Path) {
    let message = format!(
        "error: {} changed size while it was mapped (SIGBUS): another program truncated \
         or rewrote it during the pass. Steps 2 and later map their input instead of \
         reading it; the book's step 2 chapter (\"map, don't read\") explains the trade.",
        path.display()
    );
    let json = serde_json::json!({
        "error": "file_changed",
        "path": path.display().to_string(),
        "message": message.trim_start_matches("error: "),
    });
    install(message, json);
}

/// [`explain_sigbus`] with the line `message`: for what is mapped besides an input
/// file (step 11's tables).
pub fn explain_sigbus_with(message: String) {
    let json = serde_json::json!({
        "error": "file_changed",
        "message": message.trim_start_matches("error: "),
    });
    install(message, json);
}

/// With `--json`: the SIGBUS handler ([`explain_sigbus`]) prints its error as one
/// JSON object on stdout too, `{"error":"file_changed","path":…,"message":…}`, as
/// every other error under `--json` is.
pub fn sigbus_as_json() {
    AS_JSON.store(true, Ordering::Relaxed);
}

fn install(message: String, json: serde_json::Value) {
    if SIGBUS_MESSAGE
        .set((format!("\n{message}\n"), format!("{json}\n")))
        .is_err()
    {
        return;
    }
    #[cfg(unix)]
    // SAFETY: a zeroed `sigaction` is a valid value (no flags, empty mask, and the
    // handler set below); `on_sigbus` has the signature a handler without SA_SIGINFO
    // must have, and does only what a handler may (see there).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

/// Prints [`SIGBUS_MESSAGE`] and exits at once: a SIGBUS from a mapping cannot be
/// returned from (the faulting read would run again), and unwinding out of a signal
/// handler is undefined, so the process ends here, as it would have by the signal.
/// Stdout holds nothing of the run's yet (an answer or a row is printed after the
/// last read of the input), so the JSON object is all that it holds.
#[cfg(unix)]
extern "C" fn on_sigbus(_signal: libc::c_int) {
    let (line, json) = SIGBUS_MESSAGE
        .get()
        .map_or(("", ""), |(line, json)| (line.as_str(), json.as_str()));
    // SAFETY: `write(2)`, `pause(2)` and `_exit(2)` are async-signal-safe; the texts
    // are set before the handler exists and never change, and reading them through
    // `OnceLock` and `AS_JSON`, like the swap of `REPORTING`, is one lock-free atomic
    // operation, with no lock and no allocation.
    unsafe {
        if REPORTING.swap(true, Ordering::AcqRel) {
            // Another thread reports and ends the process; this one waits for it.
            loop {
                libc::pause();
            }
        }
        if AS_JSON.load(Ordering::Relaxed) {
            libc::write(1, json.as_ptr().cast(), json.len());
        }
        libc::write(2, line.as_ptr().cast(), line.len());
        libc::_exit(135);
    }
}
