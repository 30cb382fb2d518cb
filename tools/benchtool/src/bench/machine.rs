//! Where a run happens: the machine ([`Machine`]: CPU, cores, memory, OS, toolchain),
//! the work tree ([`Tree`]: the commit and its changes) and the time ([`utc_now`]),
//! as `results.json` names them.
//!
//! The machine is read from `/proc/cpuinfo`, `/proc/meminfo` and `/etc/os-release`
//! where Linux has them, else from `sysctl` (macOS); a field no source gives is empty
//! (`?` where the table shows it).

use std::path::Path;
use std::process::Command;

use crate::error::BenchError;

/// The SIMD features the steps choose their tiers by, in the order they are named.
const FEATURES: [&str; 7] = [
    "sse2",
    "avx2",
    "avx512f",
    "pclmulqdq",
    "bmi2",
    "neon",
    "asimd",
];

/// The machine, as a recording names it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Machine {
    /// The CPU's model name (`model name` of `/proc/cpuinfo`), else the machine's.
    pub cpu_name: String,
    /// `cpu family`, empty where the OS does not say.
    pub cpu_family: String,
    /// `model`, the CPU's model number, empty where the OS does not say.
    pub cpu_model: String,
    /// The SIMD features the steps choose their tiers by (`sse2 avx2 avx512f pclmulqdq
    /// bmi2`, `neon asimd`) that this CPU has, space-separated.
    pub cpu_features: String,
    /// The distribution (`PRETTY_NAME`), empty where there is none.
    pub os_release: String,
    /// The cores this process may run on (what rayon's pool uses), `None` where the
    /// OS does not say.
    pub cores: Option<usize>,
    /// Memory, `23.4 GiB`.
    pub memory: String,
    /// `uname -sr`.
    pub os: String,
    /// `rustc --version`.
    pub rustc: String,
}

impl Machine {
    /// Reads this machine.
    pub fn read() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let mut machine = from_cpuinfo(&cpuinfo);
        if machine.cpu_name.is_empty() {
            machine.cpu_name = output("sysctl", &["-n", "machdep.cpu.brand_string"])
                .or_else(|| output("uname", &["-m"]))
                .unwrap_or_default();
        }
        machine.os_release = std::fs::read_to_string("/etc/os-release")
            .map(|text| pretty_name(&text))
            .unwrap_or_default();
        machine.cores = std::thread::available_parallelism().ok().map(usize::from);
        let kib = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| mem_total_kib(&text));
        let bytes = match kib {
            Some(kib) => kib * 1024,
            None => output("sysctl", &["-n", "hw.memsize"])
                .and_then(|b| b.parse().ok())
                .unwrap_or(0),
        };
        machine.memory = format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64);
        machine.os = output("uname", &["-sr"]).unwrap_or_default();
        machine.rustc = output("rustc", &["--version"]).unwrap_or_default();
        machine
    }

    /// The CPU in words: its name, with family and model where the OS gives them.
    pub fn cpu(&self) -> String {
        if self.cpu_family.is_empty() {
            self.cpu_name.clone()
        } else {
            format!(
                "{} (family {}, model {})",
                self.cpu_name, self.cpu_family, self.cpu_model
            )
        }
    }

    /// The cores in words: their count, or `?`.
    pub fn cores_text(&self) -> String {
        self.cores.map_or("?".to_string(), |n| n.to_string())
    }
}

/// The CPU's name, family, model and features from the text of `/proc/cpuinfo` (the
/// first processor's; on ARM, `Features` instead of `flags`).
pub fn from_cpuinfo(text: &str) -> Machine {
    let field = |key: &str| {
        text.lines()
            .filter_map(|line| line.split_once(':'))
            .find(|(k, _)| k.trim_end() == key)
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default()
    };
    let flags = match field("flags") {
        f if f.is_empty() => field("Features"),
        f => f,
    };
    let has: Vec<&str> = flags.split_whitespace().collect();
    let features: Vec<&str> = FEATURES.into_iter().filter(|f| has.contains(f)).collect();
    Machine {
        cpu_name: field("model name"),
        cpu_family: field("cpu family"),
        cpu_model: field("model"),
        cpu_features: features.join(" "),
        ..Machine::default()
    }
}

/// `PRETTY_NAME` of `/etc/os-release`, without its quotes.
fn pretty_name(text: &str) -> String {
    text.lines()
        .find_map(|line| line.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
        .unwrap_or_default()
}

/// `MemTotal` of `/proc/meminfo`, in KiB.
fn mem_total_kib(text: &str) -> Option<u64> {
    let line = text.lines().find_map(|l| l.strip_prefix("MemTotal:"))?;
    line.split_whitespace().next()?.parse().ok()
}

/// What `program args` prints, trimmed; `None` when it cannot run or fails.
fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// The work tree the run measures: its commit, and its changes outside the recordings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tree {
    /// `git rev-parse HEAD`; `None` outside a git work tree.
    pub commit: Option<String>,
    /// `git status --porcelain` of the tree but `book/src/results/` (several kinds can
    /// be recorded in turn before they are committed together); empty when clean.
    pub changes: String,
}

impl Tree {
    /// Reads the work tree at `root`.
    pub fn read(root: &Path) -> Tree {
        let git = |args: &[&str]| {
            Command::new("git")
                .args(args)
                .current_dir(root)
                .stderr(std::process::Stdio::null())
                .output()
                .ok()
                .filter(|out| out.status.success())
                .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let commit = git(&["rev-parse", "HEAD"]).map(|c| c.trim().to_string());
        let changes = match commit {
            Some(_) => git(&[
                "status",
                "--porcelain",
                "--untracked-files=normal",
                "--",
                ".",
                ":(exclude)book/src/results",
            ])
            .unwrap_or_default(),
            None => String::new(),
        };
        Tree { commit, changes }
    }

    /// Whether the code measured is not the commit's: `None` where git cannot say.
    pub fn dirty(&self) -> Option<bool> {
        self.commit
            .as_ref()
            .map(|_| !self.changes.trim().is_empty())
    }

    /// Whether the run may be recorded: a commit to name, and no changes unless
    /// `allow_dirty`. Prints the first 20 changes before refusing.
    ///
    /// # Errors
    /// [`BenchError::RecordOutsideGit`], [`BenchError::RecordDirty`].
    pub fn check_recordable(&self, allow_dirty: bool) -> Result<(), BenchError> {
        if self.commit.is_none() {
            return Err(BenchError::RecordOutsideGit);
        }
        if self.dirty() == Some(true) && !allow_dirty {
            for line in self.changes.lines().take(20) {
                eprintln!("    {line}");
            }
            return Err(BenchError::RecordDirty);
        }
        Ok(())
    }

    /// `, with uncommitted changes` when the tree has some, else nothing.
    pub fn dirty_note(&self) -> &'static str {
        if self.dirty() == Some(true) {
            ", with uncommitted changes"
        } else {
            ""
        }
    }
}

/// Now, UTC, ISO 8601 to the second: `2026-12-03T09:28:11Z`, as `date -u` writes it.
pub fn utc_now() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc(seconds)
}

/// `seconds` since 1970-01-01T00:00:00Z as ISO 8601 (`2026-12-03T09:28:11Z`).
pub fn utc(seconds: u64) -> String {
    let (days, time) = (seconds / 86_400, seconds % 86_400);
    let (y, m, d) = gen_csv::date::civil_from_days(days as i64);
    let (h, min, s) = (time / 3600, time / 60 % 60, time % 60);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}Z")
}
