//! Every page of the built book as a reader's browser shows it: headless Chromium opens
//! each page from the file system and the check fails on a script error, an error on
//! the console, a resource that fails to load, an image that does not decode, or a
//! page with no text.
//!
//! Chromium is driven through the DevTools protocol over a pipe
//! (`--remote-debugging-pipe`: JSON messages ending in a NUL byte, the commands on the
//! browser's file descriptor 3, the answers and events on 4), so no driver library, no
//! port and no network are needed: `sh` hands the browser our stdin and stdout as 3
//! and 4.
//!
//! Where no Chromium is found (`CHROMIUM`, else `chromium`, `chromium-browser`,
//! `google-chrome` on the `PATH`), the check installs Debian's `chromium` with apt-get
//! when it runs as root (or has `sudo` without a password), and otherwise skips with
//! one line saying why; with
//! `REQUIRE_BROWSER=1` (CI) a missing browser fails instead.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use crate::error::{Error, Result, failed};
use serde_json::{Value, json};

/// The window the pages are shown in: a laptop's screen, the sidebar open.
const WINDOW: &str = "1280x900";

/// How long one answer or one page's load may take before the check gives up.
const TIMEOUT: Duration = Duration::from_secs(30);

/// What the check did: the pages it opened, or why it did not run.
pub enum Outcome {
    Checked(usize),
    Skipped(String),
}

/// Opens every page under `out` (the built book); `work` holds the browser's profile
/// and log. `require`: a missing browser is an error, not a skip.
pub fn check(out: &Path, work: &Path, require: bool) -> Result<Outcome> {
    let exe = match find_or_install() {
        Ok(exe) => exe,
        Err(why) if require => {
            return Err(failed!("no headless browser: {why} (REQUIRE_BROWSER=1)"));
        }
        Err(why) => return Ok(Outcome::Skipped(why.to_string())),
    };
    let mut pages = Vec::new();
    collect_pages(out, &mut pages);
    // The 404 page is served from the site's root (`<base href="/">`): from the file
    // system its styles resolve to `/css/…`, which only a server has.
    pages.retain(|p| !p.ends_with("404.html"));
    pages.sort();
    std::fs::create_dir_all(work).map_err(Error::io(&work))?;
    let mut browser = Browser::start(&exe, work)?;
    let session = browser.open_tab()?;
    let mut problems = Vec::new();
    for page in &pages {
        let shown = page.strip_prefix(out).unwrap_or(page).display().to_string();
        match browser.visit(&session, page) {
            Ok(found) => problems.extend(found.into_iter().map(|p| format!("{shown}: {p}"))),
            Err(e) => problems.push(format!("{shown}: {e}")),
        }
    }
    if problems.is_empty() {
        Ok(Outcome::Checked(pages.len()))
    } else {
        Err(failed!(
            "{} problems in the browser ({}):\n{}",
            problems.len(),
            exe.display(),
            problems.join("\n")
        ))
    }
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

/// The browser to use, installing Debian's when none is found and we may: as root, or
/// with `sudo` that asks no password.
fn find_or_install() -> Result<PathBuf> {
    if let Some(exe) = find() {
        return Ok(exe);
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    let sudo = !root
        && Command::new("sudo")
            .args(["-n", "true"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    if on_path("apt-get").is_none() || !(root || sudo) {
        return Err(
            "no Chromium found (set CHROMIUM=/path/to/chrome, or install Debian's `chromium`)"
                .into(),
        );
    }
    println!("book: no Chromium found; installing Debian's `chromium` (apt-get, once)");
    let apt = |args: &[&str]| {
        let mut command = if sudo {
            let mut c = Command::new("sudo");
            c.args(["-n", "apt-get"]);
            c
        } else {
            Command::new("apt-get")
        };
        command
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let install = ["install", "-y", "-q", "chromium"];
    let installed = apt(&install) || (apt(&["update", "-q"]) && apt(&install));
    match find() {
        Some(exe) if installed => Ok(exe),
        _ => Err("no Chromium found, and `apt-get install chromium` failed"
            .to_string()
            .into()),
    }
}

fn find() -> Option<PathBuf> {
    if let Some(exe) = std::env::var_os("CHROMIUM").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(exe));
    }
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .into_iter()
    .find_map(on_path)
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// A headless Chromium and the protocol's messages from it.
struct Browser {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    /// Events read while waiting for an answer, not yet looked at.
    events: VecDeque<Value>,
    next_id: u64,
    profile: PathBuf,
    log: PathBuf,
}

impl Browser {
    fn start(exe: &Path, work: &Path) -> Result<Browser> {
        let profile = work.join(format!("profile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).map_err(Error::io(&profile))?;
        let log = work.join("chromium.log");
        let log_file = std::fs::File::create(&log).map_err(Error::io(&log))?;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(r#"exec "$0" "$@" 3<&0 4>&1 </dev/null >/dev/null"#)
            .arg(exe)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--window-size={}", WINDOW.replace('x', ",")))
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (send, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            while reader.read_until(0, &mut buf).is_ok_and(|n| n > 0) {
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                if let Ok(message) = serde_json::from_slice(&buf) {
                    if send.send(message).is_err() {
                        break;
                    }
                }
                buf.clear();
            }
        });
        Ok(Browser {
            child,
            stdin,
            messages,
            events: VecDeque::new(),
            next_id: 0,
            profile,
            log,
        })
    }

    /// The last lines of the browser's own log, for an error message.
    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(5)..].join("\n")
    }

    fn receive(&mut self, deadline: Instant) -> Result<Value> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.messages.recv_timeout(left) {
            Ok(message) => Ok(message),
            Err(RecvTimeoutError::Timeout) => Err(failed!(
                "no answer from the browser in {} s",
                TIMEOUT.as_secs()
            )),
            Err(RecvTimeoutError::Disconnected) => Err(failed!(
                "the browser exited; its log ends:\n{}",
                self.log_tail()
            )),
        }
    }

    /// Sends a command and waits for its answer, keeping the events that come first.
    fn call(&mut self, method: &str, params: Value, session: Option<&str>) -> Result<Value> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = s.into();
        }
        let mut bytes = serde_json::to_vec(&message).map_err(|e| e.to_string())?;
        bytes.push(0);
        self.stdin
            .write_all(&bytes)
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("cannot talk to the browser: {e}\n{}", self.log_tail()))?;
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let message = self.receive(deadline)?;
            if message["id"] == id {
                if let Some(error) = message.get("error") {
                    return Err(failed!("{method}: {error}"));
                }
                return Ok(message["result"].clone());
            }
            self.events.push_back(message);
        }
    }

    /// A new tab, attached: its session id, with the domains whose events we read on.
    fn open_tab(&mut self) -> Result<String> {
        let target = self.call("Target.createTarget", json!({"url": "about:blank"}), None)?;
        let attached = self.call(
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
            None,
        )?;
        let session = attached["sessionId"]
            .as_str()
            .ok_or("Target.attachToTarget gave no sessionId")?
            .to_string();
        for domain in ["Page", "Runtime", "Log", "Network"] {
            self.call(&format!("{domain}.enable"), json!({}), Some(&session))?;
        }
        Ok(session)
    }

    /// Opens `page` in the tab; returns what went wrong there.
    fn visit(&mut self, session: &str, page: &Path) -> Result<Vec<String>> {
        self.events.clear();
        while self.messages.try_recv().is_ok() {}
        let url = file_url(page);
        let navigated = self.call("Page.navigate", json!({"url": url}), Some(session))?;
        if let Some(error) = navigated["errorText"].as_str() {
            return Ok(vec![format!("does not load: {error}")]);
        }
        // Wait for the load event: every script, style and image has run or failed.
        let deadline = Instant::now() + TIMEOUT;
        let mut seen = Vec::new();
        loop {
            let event = match self.events.pop_front() {
                Some(e) => e,
                None => self.receive(deadline)?,
            };
            let loaded = event["method"] == "Page.loadEventFired";
            seen.push(event);
            if loaded {
                break;
            }
        }
        let check = self.call(
            "Runtime.evaluate",
            json!({"expression": PAGE_CHECK, "returnByValue": true}),
            Some(session),
        )?;
        // The events that came with the evaluation belong to this page too.
        seen.extend(self.events.drain(..));
        while let Ok(event) = self.messages.try_recv() {
            seen.push(event);
        }
        let mut problems = problems_in(&seen, session);
        let value = &check["result"]["value"];
        for src in value["broken"].as_array().into_iter().flatten() {
            problems.push(format!(
                "image does not show: {}",
                src.as_str().unwrap_or("?")
            ));
        }
        for first in value["cut"].as_array().into_iter().flatten() {
            problems.push(format!(
                "a table (its first cell: `{}`) is wider than the page in a {WINDOW} window: \
                 a reader sees it cut off at the right",
                first.as_str().unwrap_or("?")
            ));
        }
        if value["text"].as_u64().unwrap_or(0) == 0 {
            problems.push("the page shows no text".to_string());
        }
        if let Some(e) = check.get("exceptionDetails") {
            problems.push(format!("the page check itself failed: {e}"));
        }
        Ok(problems)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Run in each page once it has loaded: the images that did not decode, and how much
/// text the page shows.
const PAGE_CHECK: &str = "(() => ({
    broken: [...document.images]
        .filter(i => !i.complete || i.naturalWidth === 0)
        .map(i => i.getAttribute('src')),
    text: (document.querySelector('main') || document.body).innerText.trim().length,
    cut: [...document.querySelectorAll('main .table-wrapper')]
        .filter(w => w.scrollWidth > w.clientWidth + 1)
        .map(w => (w.querySelector('th, td') || w).innerText.trim()),
}))()";

/// Script errors, console errors and failed loads among a page's events.
fn problems_in(events: &[Value], session: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut urls: HashMap<&str, &str> = HashMap::new();
    let mut failed_urls = Vec::new();
    let ours = || events.iter().filter(|e| e["sessionId"] == session);
    for event in ours() {
        let p = &event["params"];
        if let (Some(id), Some(url)) = (p["requestId"].as_str(), p["request"]["url"].as_str()) {
            urls.insert(id, url);
        }
        if event["method"] == "Network.loadingFailed" {
            failed_urls.extend(p["requestId"].as_str().and_then(|id| urls.get(id)));
        }
    }
    for event in ours() {
        let p = &event["params"];
        match event["method"].as_str().unwrap_or("") {
            "Network.loadingFailed" if p["canceled"] != true => {
                let url = p["requestId"]
                    .as_str()
                    .and_then(|id| urls.get(id))
                    .unwrap_or(&"?");
                problems.push(format!("failed to load {url}: {}", s(&p["errorText"])));
            }
            "Runtime.exceptionThrown" => {
                let d = &p["exceptionDetails"];
                let what = d["exception"]["description"]
                    .as_str()
                    .unwrap_or(s(&d["text"]));
                problems.push(format!(
                    "script error at {}:{}: {}",
                    s(&d["url"]),
                    d["lineNumber"].as_u64().map_or(0, |l| l + 1),
                    what.lines().next().unwrap_or("")
                ));
            }
            "Runtime.consoleAPICalled" if p["type"] == "error" || p["type"] == "assert" => {
                let args: Vec<String> = p["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|a| match &a["value"] {
                        Value::String(t) => t.clone(),
                        Value::Null => s(&a["description"]).to_string(),
                        v => v.to_string(),
                    })
                    .collect();
                problems.push(format!("console error: {}", args.join(" ")));
            }
            "Log.entryAdded" if p["entry"]["level"] == "error" => {
                let e = &p["entry"];
                // A failed load, reported above already.
                if e["source"] == "network"
                    && e["url"].as_str().is_some_and(|u| failed_urls.contains(&u))
                {
                    continue;
                }
                problems.push(format!(
                    "browser error: {} ({})",
                    s(&e["text"]),
                    s(&e["url"])
                ));
            }
            _ => {}
        }
    }
    problems.dedup();
    problems
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("")
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

    #[test]
    fn errors_and_failed_loads_are_read_from_the_events() {
        let events = [
            json!({"sessionId": "s", "method": "Network.requestWillBeSent",
                   "params": {"requestId": "1", "request": {"url": "file:///b/img/x.svg"}}}),
            json!({"sessionId": "s", "method": "Network.loadingFailed",
                   "params": {"requestId": "1", "errorText": "net::ERR_FILE_NOT_FOUND"}}),
            json!({"sessionId": "s", "method": "Runtime.exceptionThrown",
                   "params": {"exceptionDetails": {"text": "Uncaught", "url": "file:///b/book.js",
                       "lineNumber": 9, "exception": {"description": "TypeError: x is null\n    at f"}}}}),
            json!({"sessionId": "s", "method": "Runtime.consoleAPICalled",
                   "params": {"type": "error", "args": [{"type": "string", "value": "boom"}]}}),
            json!({"sessionId": "s", "method": "Runtime.consoleAPICalled",
                   "params": {"type": "log", "args": [{"type": "string", "value": "fine"}]}}),
            json!({"sessionId": "other", "method": "Runtime.consoleAPICalled",
                   "params": {"type": "error", "args": [{"type": "string", "value": "not ours"}]}}),
        ];
        assert_eq!(
            problems_in(&events, "s"),
            [
                "failed to load file:///b/img/x.svg: net::ERR_FILE_NOT_FOUND",
                "script error at file:///b/book.js:10: TypeError: x is null",
                "console error: boom",
            ]
        );
    }

    /// Needs Chromium: skipped without one, unless `REQUIRE_BROWSER=1`.
    #[test]
    fn a_broken_page_is_caught_in_the_browser() {
        if find().is_none() {
            assert!(
                std::env::var("REQUIRE_BROWSER").as_deref() != Ok("1"),
                "REQUIRE_BROWSER=1 and no Chromium"
            );
            eprintln!("SKIPPED: no Chromium");
            return;
        }
        let dir = std::env::temp_dir().join(format!("xtask-browser-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("img")).unwrap();
        std::fs::write(
            dir.join("img/ok.svg"),
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#,
        )
        .unwrap();
        std::fs::write(
            dir.join("index.html"),
            "<main><p>fine</p><img src=\"img/ok.svg\"></main>",
        )
        .unwrap();
        std::fs::write(
            dir.join("broken.html"),
            "<main><p>text</p><img src=\"img/gone.svg\"><script>console.error('boom'); null.x;</script></main>",
        )
        .unwrap();
        std::fs::write(
            dir.join("wide.html"),
            "<main style=\"max-width: 300px\"><div class=\"table-wrapper\" style=\"overflow-x: auto\">\
             <table><tr><td>first</td><td style=\"white-space: nowrap\">a cell far too wide for three hundred pixels of page</td></tr></table></div></main>",
        )
        .unwrap();
        std::fs::write(dir.join("empty.html"), "<main></main>").unwrap();
        let err = match check(&dir, &dir.join("work"), true) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a broken page passed"),
        };
        println!("{err}");
        for expected in [
            "broken.html: failed to load file://",
            "broken.html: console error: boom",
            "broken.html: script error at file://",
            "broken.html: image does not show: img/gone.svg",
            "wide.html: a table (its first cell: `first`) is wider than the page",
            "empty.html: the page shows no text",
        ] {
            assert!(err.contains(expected), "{expected}\nnot in:\n{err}");
        }
        assert!(!err.contains("index.html"), "{err}");
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
