//! `book-browser CHROMIUM BOOK`: every page of the built book as a reader's browser
//! shows it. Headless Chromium opens each page of `BOOK` from the file system, driven
//! through the DevTools protocol by the `headless_chrome` crate, and the check fails on
//! a script error, an error on the console, a resource that fails to load, an image
//! that does not decode, a table wider than the page, or a page with no text.
//!
//! Prints how many pages it opened, or every problem (`page: what`, one a line) and
//! exits 1. `cargo x book` runs it (`xtask/src/book/browser.rs`, which finds the
//! browser); it is built only with xtask's feature `browser`, so that neither
//! `cargo test --workspace` nor `cargo stepdiff` builds a DevTools client.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use headless_chrome::protocol::cdp::Log::{LogEntryLevel, LogEntrySource};
use headless_chrome::protocol::cdp::Runtime::ConsoleAPICalledEventTypeOption;
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::{Browser, LaunchOptions, Tab};
use serde_json::Value;

type Result<T, E = Box<dyn std::error::Error + Send + Sync>> = std::result::Result<T, E>;

/// The window the pages are shown in: a laptop's screen, the sidebar open.
const WINDOW: (u32, u32) = (1280, 900);

/// How long one answer or one page's load may take before the check gives up.
const TIMEOUT: Duration = Duration::from_secs(30);

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [chromium, book] = args.as_slice() else {
        eprintln!("usage: book-browser CHROMIUM BOOK (run by `cargo x book`)");
        return ExitCode::from(2);
    };
    match check(chromium, book) {
        Ok(problems) if problems.is_empty() => ExitCode::SUCCESS,
        Ok(problems) => {
            println!("{}", problems.join("\n"));
            ExitCode::FAILURE
        }
        Err(e) => {
            println!("the browser check could not run: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Opens every page under `book` in `chromium`: the problems found, `page: what` each.
fn check(chromium: &Path, book: &Path) -> Result<Vec<String>> {
    let mut pages = Vec::new();
    collect_pages(book, &mut pages);
    // The 404 page is served from the site's root (`<base href="/">`): from the file
    // system its styles resolve to `/css/…`, which only a server has.
    pages.retain(|p| !p.ends_with("404.html"));
    pages.sort();
    let browser = Browser::new(
        LaunchOptions::default_builder()
            .path(Some(chromium.to_path_buf()))
            // Root in a container has no user namespace for the sandbox; the pages
            // are the book's own.
            .sandbox(false)
            .window_size(Some(WINDOW))
            .idle_browser_timeout(TIMEOUT)
            .build()?,
    )?;
    let tab = browser.new_tab()?;
    tab.set_default_timeout(TIMEOUT);
    let (send, events) = channel();
    tab.add_event_listener(Arc::new(move |event: &Event| {
        let _ = send.send(event.clone());
    }))?;
    tab.enable_runtime()?.enable_log()?;
    let mut problems = Vec::new();
    for page in &pages {
        let shown = page.strip_prefix(book).unwrap_or(page).display();
        match visit(&tab, &events, page) {
            Ok(found) => problems.extend(found.into_iter().map(|p| format!("{shown}: {p}"))),
            Err(e) => problems.push(format!("{shown}: {e}")),
        }
    }
    if problems.is_empty() {
        println!(
            "all {} pages render in headless Chromium with no error",
            pages.len()
        );
    }
    Ok(problems)
}

fn collect_pages(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_pages(&path, out);
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
}

/// Opens `page` in the tab; returns what went wrong there.
fn visit(tab: &Tab, events: &Receiver<Event>, page: &Path) -> Result<Vec<String>> {
    // What the previous page left behind is not this page's.
    while events.try_recv().is_ok() {}
    if let Err(e) = tab.navigate_to(&file_url(page)) {
        return Ok(vec![format!("does not load: {e}")]);
    }
    // Wait for the load event: every script, style and image has run or failed.
    let deadline = Instant::now() + TIMEOUT;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = events.recv_timeout(left).map_err(|e| match e {
            RecvTimeoutError::Timeout => format!("no load event in {} s", TIMEOUT.as_secs()),
            RecvTimeoutError::Disconnected => "the browser went away".to_string(),
        })?;
        let loaded = matches!(event, Event::PageLoadEventFired(_));
        seen.push(event);
        if loaded {
            break;
        }
    }
    let check = tab.evaluate(PAGE_CHECK, false)?;
    // The events that came with the evaluation belong to this page too.
    seen.extend(events.try_iter());
    let mut problems = problems_in(&seen);
    let value: Value = match check.value {
        Some(Value::String(json)) => serde_json::from_str(&json)?,
        other => return Err(format!("the page check returned {other:?}").into()),
    };
    for src in value["broken"].as_array().into_iter().flatten() {
        problems.push(format!(
            "image does not show: {}",
            src.as_str().unwrap_or("?")
        ));
    }
    for first in value["cut"].as_array().into_iter().flatten() {
        problems.push(format!(
            "a table (its first cell: `{}`) is wider than the page in a {}x{} window: \
             a reader sees it cut off at the right",
            first.as_str().unwrap_or("?"),
            WINDOW.0,
            WINDOW.1
        ));
    }
    if value["text"].as_u64().unwrap_or(0) == 0 {
        problems.push("the page shows no text".to_string());
    }
    Ok(problems)
}

/// Run in each page once it has loaded: the images that did not decode, the tables
/// wider than the page, and how much text the page shows, as JSON.
const PAGE_CHECK: &str = "JSON.stringify({
    broken: [...document.images]
        .filter(i => !i.complete || i.naturalWidth === 0)
        .map(i => i.getAttribute('src')),
    text: (document.querySelector('main') || document.body).innerText.trim().length,
    cut: [...document.querySelectorAll('main .table-wrapper')]
        .filter(w => w.scrollWidth > w.clientWidth + 1)
        .map(w => (w.querySelector('th, td') || w).innerText.trim()),
})";

/// Script errors, console errors and failed loads among a page's events. A failed
/// load is the console's network error (`Failed to load resource: net::…`), which
/// names the URL.
fn problems_in(events: &[Event]) -> Vec<String> {
    let mut problems = Vec::new();
    for event in events {
        match event {
            Event::LogEntryAdded(e) if e.params.entry.level == LogEntryLevel::Error => {
                let entry = &e.params.entry;
                let url = entry.url.as_deref().unwrap_or("?");
                problems.push(match entry.source {
                    LogEntrySource::Network => {
                        let why = entry.text.trim_start_matches("Failed to load resource: ");
                        format!("failed to load {url}: {why}")
                    }
                    _ => format!("browser error: {} ({url})", entry.text),
                });
            }
            Event::RuntimeExceptionThrown(e) => {
                let d = &e.params.exception_details;
                let what = d
                    .exception
                    .as_ref()
                    .and_then(|x| x.description.as_deref())
                    .unwrap_or(&d.text);
                problems.push(format!(
                    "script error at {}:{}: {}",
                    d.url.as_deref().unwrap_or(""),
                    d.line_number + 1,
                    what.lines().next().unwrap_or("")
                ));
            }
            Event::RuntimeConsoleAPICalled(e)
                if matches!(
                    e.params.Type,
                    ConsoleAPICalledEventTypeOption::Error
                        | ConsoleAPICalledEventTypeOption::Assert
                ) =>
            {
                let args: Vec<String> = e
                    .params
                    .args
                    .iter()
                    .map(|a| match &a.value {
                        Some(Value::String(t)) => t.clone(),
                        Some(v) => v.to_string(),
                        None => a.description.clone().unwrap_or_default(),
                    })
                    .collect();
                problems.push(format!("console error: {}", args.join(" ")));
            }
            _ => {}
        }
    }
    problems.dedup();
    problems
}

/// `file://` URL of an absolute or relative path, percent-encoded.
fn file_url(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut url = String::from("file://");
    for b in absolute.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            url.push(b as char);
        } else {
            url += &format!("%{b:02X}");
        }
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(message: Value) -> Event {
        serde_json::from_value(message.clone()).unwrap_or_else(|e| panic!("{message}: {e}"))
    }

    #[test]
    fn errors_and_failed_loads_are_read_from_the_events() {
        let events = [
            event(json!({"method": "Log.entryAdded", "params": {"entry": {
                "source": "network", "level": "error", "timestamp": 1.0,
                "text": "Failed to load resource: net::ERR_FILE_NOT_FOUND",
                "url": "file:///b/img/x.svg"}}})),
            event(json!({"method": "Log.entryAdded", "params": {"entry": {
                "source": "network", "level": "warning", "timestamp": 1.0,
                "text": "not an error", "url": "file:///b/y.css"}}})),
            event(
                json!({"method": "Runtime.exceptionThrown", "params": {"timestamp": 1.0,
                "exceptionDetails": {"exceptionId": 1, "text": "Uncaught", "lineNumber": 9,
                    "columnNumber": 0, "url": "file:///b/book.js",
                    "exception": {"type": "object", "description": "TypeError: x is null\n    at f"}}}}),
            ),
            event(
                json!({"method": "Runtime.consoleAPICalled", "params": {"type": "error",
                "executionContextId": 1, "timestamp": 1.0,
                "args": [{"type": "string", "value": "boom"}, {"type": "number", "value": 2}]}}),
            ),
            event(
                json!({"method": "Runtime.consoleAPICalled", "params": {"type": "log",
                "executionContextId": 1, "timestamp": 1.0,
                "args": [{"type": "string", "value": "fine"}]}}),
            ),
        ];
        assert_eq!(
            problems_in(&events),
            [
                "failed to load file:///b/img/x.svg: net::ERR_FILE_NOT_FOUND",
                "script error at file:///b/book.js:10: TypeError: x is null",
                "console error: boom 2",
            ]
        );
    }

    /// Needs Chromium (`CHROMIUM`, else `chromium` on the `PATH`): skipped without
    /// one, unless `REQUIRE_BROWSER=1`.
    #[test]
    fn a_broken_page_is_caught_in_the_browser() {
        let chromium = std::env::var_os("CHROMIUM")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::split_paths(&std::env::var_os("PATH")?)
                    .map(|dir| dir.join("chromium"))
                    .find(|p| p.is_file())
            });
        let Some(chromium) = chromium else {
            assert!(
                std::env::var("REQUIRE_BROWSER").as_deref() != Ok("1"),
                "REQUIRE_BROWSER=1 and no Chromium"
            );
            eprintln!("SKIPPED: no Chromium");
            return;
        };
        let dir = std::env::temp_dir().join(format!("xtask-browser-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("img")).unwrap();
        std::fs::write(
            dir.join("img/ok.svg"),
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#,
        )
        .unwrap();
        std::fs::write(dir.join("img/bad.png"), "not a PNG").unwrap();
        std::fs::write(
            dir.join("index.html"),
            "<main><p>fine</p><img src=\"img/ok.svg\"></main>",
        )
        .unwrap();
        std::fs::write(
            dir.join("broken.html"),
            "<main><p>text</p><img src=\"img/gone.svg\"><img src=\"img/bad.png\">\
             <script>console.error('boom'); null.x;</script></main>",
        )
        .unwrap();
        std::fs::write(
            dir.join("wide.html"),
            "<main style=\"max-width: 300px\"><div class=\"table-wrapper\" style=\"overflow-x: auto\">\
             <table><tr><td>first</td><td style=\"white-space: nowrap\">a cell far too wide for three hundred pixels of page</td></tr></table></div></main>",
        )
        .unwrap();
        std::fs::write(dir.join("empty.html"), "<main></main>").unwrap();
        let problems = check(&chromium, &dir).unwrap().join("\n");
        println!("{problems}");
        for expected in [
            "broken.html: failed to load file://",
            "broken.html: console error: boom",
            "broken.html: script error at file://",
            "broken.html: image does not show: img/gone.svg",
            "broken.html: image does not show: img/bad.png",
            "wide.html: a table (its first cell: `first`) is wider than the page",
            "empty.html: the page shows no text",
        ] {
            assert!(
                problems.contains(expected),
                "{expected}\nnot in:\n{problems}"
            );
        }
        assert!(!problems.contains("index.html"), "{problems}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn file_urls_are_percent_encoded() {
        assert_eq!(
            file_url(Path::new("/a b/c#.html")),
            "file:///a%20b/c%23.html"
        );
    }
}
