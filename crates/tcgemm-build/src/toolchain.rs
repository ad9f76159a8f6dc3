//! The pinned toolchain (`rust-toolchain.toml`) and the compiler at hand (`rustc -vV`).

use std::path::Path;
use std::process::Command;

/// The `channel` of a `rust-toolchain.toml` (e.g. `nightly-2026-05-20`), or `None` when the file is
/// missing or has no channel. Also reads the legacy one-line `rust-toolchain` format.
pub fn pinned_channel(workspace_root: &Path) -> Option<String> {
    for name in ["rust-toolchain.toml", "rust-toolchain"] {
        let Ok(text) = std::fs::read_to_string(workspace_root.join(name)) else {
            continue;
        };
        return parse_channel(&text);
    }
    None
}

/// The `channel = "..."` value of a toolchain file's text (see [`pinned_channel`]).
pub fn parse_channel(text: &str) -> Option<String> {
    let mut in_toolchain = !text.contains('[');
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            in_toolchain = line == "[toolchain]";
            continue;
        }
        if !text.contains('=') && !line.is_empty() {
            return Some(line.to_string()); // legacy: the file is just the channel
        }
        if !in_toolchain {
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            if key.trim() == "channel" {
                let v = value.trim().trim_matches(|c| c == '"' || c == '\'');
                return (!v.is_empty()).then(|| v.to_string());
            }
        }
    }
    None
}

/// What `rustc -vV` says about a compiler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RustcVersion {
    /// First line, e.g. `rustc 1.97.0-nightly (e50aa6fba 2026-05-19)`.
    pub summary: String,
    /// `release:`, e.g. `1.97.0-nightly`.
    pub release: String,
    /// `commit-date:`, e.g. `2026-05-19` (`unknown` for some builds).
    pub commit_date: String,
    /// `host:`, e.g. `x86_64-unknown-linux-gnu`.
    pub host: String,
    /// `LLVM version:`, when printed.
    pub llvm: Option<String>,
}

impl RustcVersion {
    /// Runs `rustc -vV`. Returns `None` when it cannot be run or prints something unexpected.
    pub fn query(rustc: &Path) -> Option<RustcVersion> {
        let out = Command::new(rustc).arg("-vV").output().ok()?;
        if !out.status.success() {
            return None;
        }
        Self::parse(&String::from_utf8_lossy(&out.stdout))
    }

    /// Parses `rustc -vV` output.
    pub fn parse(text: &str) -> Option<RustcVersion> {
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().to_string())
        };
        Some(RustcVersion {
            summary: text.lines().next()?.trim().to_string(),
            release: field("release:")?,
            commit_date: field("commit-date:").unwrap_or_else(|| "unknown".into()),
            host: field("host:")?,
            llvm: field("LLVM version:"),
        })
    }

    /// A nightly (or locally built dev) compiler, which accepts `-Z` flags.
    pub fn is_nightly(&self) -> bool {
        self.release.contains("nightly") || self.release.contains("-dev")
    }

    /// Whether this compiler is the toolchain `channel` names. `nightly-YYYY-MM-DD` matches a nightly
    /// whose commit date is that day or the day before (a nightly is dated the day after its last
    /// commit); a plain `nightly` matches any nightly; `stable`/`beta`/a version match by release.
    pub fn matches_channel(&self, channel: &str) -> bool {
        let channel = channel.trim();
        if let Some(date) = channel.strip_prefix("nightly-") {
            let (Some(want), Some(have)) = (day_number(date), day_number(&self.commit_date)) else {
                return false;
            };
            return self.is_nightly() && (have == want || have + 1 == want);
        }
        match channel {
            "nightly" => self.is_nightly(),
            "beta" => self.release.contains("beta"),
            "stable" => !self.release.contains('-'),
            version => self.release == version || self.release.starts_with(&format!("{version}.")),
        }
    }
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date.
fn day_number(date: &str) -> Option<i64> {
    let mut it = date.trim().splitn(3, '-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    let d: i64 = it.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NIGHTLY: &str = "rustc 1.97.0-nightly (e50aa6fba 2026-05-19)
binary: rustc
commit-hash: e50aa6fba4e63ab34c72bf9acfd2c307c1155d1a
commit-date: 2026-05-19
host: x86_64-unknown-linux-gnu
release: 1.97.0-nightly
LLVM version: 22.1.4
";

    #[test]
    fn reads_the_channel() {
        let toml =
            "[toolchain]\nchannel = \"nightly-2026-05-20\" # pinned\ncomponents = [\"rust-src\"]\n";
        assert_eq!(parse_channel(toml).as_deref(), Some("nightly-2026-05-20"));
        assert_eq!(
            parse_channel("nightly-2026-01-02\n").as_deref(),
            Some("nightly-2026-01-02")
        );
        assert_eq!(parse_channel("[other]\nchannel = \"x\"\n"), None);
    }

    #[test]
    fn matches_the_pinned_nightly() {
        let v = RustcVersion::parse(NIGHTLY).unwrap();
        assert!(v.is_nightly());
        assert_eq!(v.llvm.as_deref(), Some("22.1.4"));
        assert!(v.matches_channel("nightly-2026-05-20"));
        assert!(v.matches_channel("nightly-2026-05-19"));
        assert!(!v.matches_channel("nightly-2026-05-21"));
        assert!(!v.matches_channel("nightly-2026-05-18"));
        assert!(v.matches_channel("nightly"));
        assert!(!v.matches_channel("stable"));
        let stable = RustcVersion::parse(
            "rustc 1.95.0 (abc 2026-04-10)\ncommit-date: 2026-04-10\nhost: x\nrelease: 1.95.0\n",
        )
        .unwrap();
        assert!(!stable.is_nightly());
        assert!(!stable.matches_channel("nightly-2026-04-11"));
        assert!(stable.matches_channel("stable") && stable.matches_channel("1.95"));
    }

    #[test]
    fn counts_days_across_months_and_years() {
        assert_eq!(day_number("1970-01-01"), Some(0));
        assert_eq!(
            day_number("2026-03-01").unwrap() - day_number("2026-02-28").unwrap(),
            1
        );
        assert_eq!(
            day_number("2024-03-01").unwrap() - day_number("2024-02-28").unwrap(),
            2
        );
        assert_eq!(
            day_number("2027-01-01").unwrap() - day_number("2026-12-31").unwrap(),
            1
        );
        assert_eq!(day_number("2026-13-01"), None);
    }
}
