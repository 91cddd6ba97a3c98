//! Regressions of round 25's hunt through the command line as a new user
//! runs it: what amail does when the streams around it fail.
//!
//! - Standard error that cannot be written (`2>/dev/full`, or a reader
//!   that went away: `amail parse DIR 2>&1 >/dev/null | head -1`) does not
//!   make amail panic (exit 101): the exit code stays the documented one.
//! - Help or a version that cannot be written (`amail --help >/dev/full`)
//!   is an error (exit 1), as every other output that cannot be written
//!   is, not a silent success.
//! - `parse --strict --format json` stopped by a malformed message leaves
//!   what it printed one valid JSON array (the messages before it), not
//!   an array never closed.
//! - `events --type` or `--task` that matches nothing says so (and what
//!   the log holds) on stderr, as `tasks --agent` does, not a silence a
//!   typo (`task.transition`) cannot be told from an empty log by.
//! - An empty value (`--as ""`, an empty id or task) is a usage error
//!   (exit 2) naming the argument, as an empty path already was, never an
//!   agent or id named "" (pending said "no agent named  in this inbox"
//!   and exited 0, ack exited 1, `tasks approve --actor ""` wrote an event
//!   with no actor).
//! - `parse DIR` reads DIR's `.handoffs/` as `route DIR` and `threads DIR`
//!   do, so `parse --format aof DIR` is what `route` routes, as its help
//!   says.

use std::fs::{self, File, OpenOptions};
use std::path::Path;
use std::process::{Command, Stdio};

use super::fx::{mail, Fx};

/// `amail ARGS` with stdout at /dev/null and stderr at /dev/full, where
/// every write fails (ENOSPC): its exit code.
#[cfg(target_os = "linux")]
fn code_with_stderr_full(fx: &Fx, args: &[&str], stdout_full: bool) -> Option<i32> {
    let full = || OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = if stdout_full {
        Stdio::from(full())
    } else {
        Stdio::from(File::create("/dev/null").unwrap())
    };
    Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(args)
        .env("AMAIL_HOME", fx.dir.path())
        .env("AMAIL_CONFIG", fx.path("no-config.toml"))
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::from(full()))
        .status()
        .unwrap()
        .code()
}

#[test]
#[cfg(target_os = "linux")]
fn a_stderr_that_cannot_be_written_keeps_the_documented_exit_code() {
    let fx = Fx::new();
    let dir = fx.path("mail");
    mail(
        &dir,
        "1.md",
        "1",
        "A",
        1,
        "[b-1] PROGRESS",
        "Bead: b-1\nContext usage: 10%",
    );
    fs::write(dir.join("bin.md"), b"\0\x01binary").unwrap();
    let d = dir.to_str().unwrap();
    let missing = fx.path("missing");
    let m = missing.to_str().unwrap();
    let store = fx.path("store");
    let s = store.to_str().unwrap();
    for (args, code) in [
        // errors: the message is lost, the code is not
        (vec!["parse", "--max-size", "10", d], 1),
        (vec!["parse", m], 1),
        (vec!["threads", m], 1),
        (vec!["tasks", "--store", m], 1),
        (vec!["parse", "--max-size", "0", d], 2),
        // warnings and notes on stderr: the command still succeeds
        (vec!["parse", d], 0),
        (vec!["route", d, "--store", s], 0),
    ] {
        assert_eq!(
            code_with_stderr_full(&fx, &args, false),
            Some(code),
            "amail {args:?} 2>/dev/full"
        );
    }
    // Both streams full: the output's failure is the error (exit 1).
    assert_eq!(code_with_stderr_full(&fx, &["parse", d], true), Some(1));
}

/// `amail ARGS >/dev/full`: its exit code and stderr.
#[cfg(target_os = "linux")]
fn run_with_stdout_full(fx: &Fx, args: &[&str]) -> (Option<i32>, String) {
    let full = OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(args)
        .env("AMAIL_HOME", fx.dir.path())
        .env("AMAIL_CONFIG", fx.path("no-config.toml"))
        .stdin(Stdio::null())
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
#[cfg(target_os = "linux")]
fn help_and_version_that_cannot_be_written_are_an_error() {
    let fx = Fx::new();
    for args in [
        vec!["--help"],
        vec!["-h"],
        vec!["parse", "--help"],
        vec!["tasks", "approve", "--help"],
        vec!["help", "route"],
        vec!["--version"],
    ] {
        let (code, err) = run_with_stdout_full(&fx, &args);
        assert_eq!(code, Some(1), "amail {args:?} >/dev/full: {err}");
        assert!(err.contains("cannot write output"), "amail {args:?}: {err}");
    }
    // Written, they succeed; a usage error still exits 2 on stderr.
    for args in [vec!["--help"], vec!["parse", "--help"], vec!["--version"]] {
        assert_eq!(fx.run(&args).status.code(), Some(0), "{args:?}");
    }
    let (code, err) = run_with_stdout_full(&fx, &["parse", "--bogus"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--bogus"), "{err}");
}

#[test]
fn a_strict_json_run_stopped_by_a_bad_message_prints_a_closed_array() {
    let fx = Fx::new();
    // 3 files: parsed on one thread; 60: on every core, chunk by chunk.
    for (n, bad_at) in [(3, 1), (60, 45)] {
        let dir = fx.path(&format!("mail-{n}"));
        for i in 0..n {
            let body = if i == bad_at {
                "Bead: b-1\nContext usage: lots".to_string()
            } else {
                format!("Bead: b-1\nContext usage: {i}%")
            };
            mail(
                &dir,
                &format!("{i:03}.md"),
                &i.to_string(),
                "A",
                1,
                "[b-1] PROGRESS",
                &body,
            );
        }
        let out = fx.run(&[
            "parse",
            "--strict",
            "--format",
            "json",
            dir.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(&format!("{bad_at:03}.md:9:16")), "{err}");
        let text = String::from_utf8_lossy(&out.stdout);
        let printed: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_else(|e| {
            panic!(
                "{n} files: stdout is not one JSON array ({e}): ...{}",
                &text[text.len().saturating_sub(80)..]
            )
        });
        assert_eq!(
            printed.len(),
            bad_at,
            "{n} files: the messages before the bad one"
        );
        assert!(printed
            .iter()
            .all(|m| m["id"].as_str() != Some(bad_at.to_string().as_str())));
    }
}

#[test]
fn an_events_filter_that_matches_nothing_says_so() {
    let fx = Fx::new();
    let root = fx.demo();
    let store = root.join("store");
    let s = store.to_str().unwrap();
    for (args, named) in [
        (
            vec!["events", "--store", s, "--type", "task.transition"],
            "task.transition",
        ),
        (
            vec!["events", "--store", s, "--json", "--type", "bogus"],
            "bogus",
        ),
        (
            vec!["events", "--store", s, "--task", "TASK-NOPE"],
            "TASK-NOPE",
        ),
    ] {
        let out = fx.run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            err.contains("warning") && err.contains(named),
            "{args:?} must say its filter matched nothing: {err:?}"
        );
    }
    // The types the log does hold are named, for the typo.
    let out = fx.run(&["events", "--store", s, "--type", "task.transition"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("task.transitioned"));
    // A filter that matches is quiet on stderr.
    let out = fx.run(&["events", "--store", s, "--type", "task.created"]);
    assert!(!out.stdout.is_empty());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_empty_value_is_a_usage_error_naming_the_argument() {
    let fx = Fx::new();
    let root = fx.demo();
    let m = root.join("mail");
    let m = m.to_str().unwrap();
    let store = root.join("store");
    let s = store.to_str().unwrap();
    let events_before = fs::read_dir(store.join("events")).unwrap().count();
    let acks = root.join("mail/.amail-acks.jsonl");
    let acks_before = fs::read(&acks).unwrap_or_default();
    let review = {
        let out = fx.run(&["tasks", "--store", s, "--json"]);
        let tasks: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        tasks.iter().find(|t| t["status"] == "review").unwrap()["task_id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let r = review.as_str();
    for (args, named) in [
        (vec!["pending", m, "--as", ""], "--as"),
        (vec!["ack", "demo-07", m, "--as", ""], "--as"),
        (vec!["ack", "", m, "--as", "BlueLake"], "ID"),
        (
            vec!["reply", "demo-07", m, "--as", "", "--body", "x"],
            "--as",
        ),
        (vec!["reply", "", m, "--as", "Chiron", "--body", "x"], "ID"),
        (vec!["inbox", m, "--as", ""], "--as"),
        (vec!["threads", "--server", ""], "--server"),
        (
            vec![
                "threads",
                "--server",
                "http://127.0.0.1:9/mcp/",
                "--project",
                "",
            ],
            "--project",
        ),
        (vec!["events", "--store", s, "--type", ""], "--type"),
        (vec!["events", "--store", s, "--task", ""], "--task"),
        (vec!["tasks", "--store", s, "--agent", ""], "--agent"),
        (vec!["tasks", "--store", s, "approve", ""], "TASK"),
        (
            vec!["tasks", "--store", s, "approve", r, "--actor", ""],
            "--actor",
        ),
        (vec!["tasks", "--store", s, "depend", r, "--on", ""], "--on"),
        (
            vec!["tasks", "--store", s, "reject", "", "--reason", "x"],
            "TASK",
        ),
        (vec!["sweep", "--store", s, "--now", ""], "--now"),
    ] {
        let out = fx.run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(named), "{args:?} must name {named}: {err}");
    }
    // Nothing was acked, replied or approved.
    assert_eq!(fs::read(&acks).unwrap_or_default(), acks_before);
    assert!(!Path::new(m).join("replies").exists());
    assert_eq!(
        fs::read_dir(store.join("events")).unwrap().count(),
        events_before
    );
    let out = fx.run(&["tasks", "--store", s, "--json"]);
    let tasks: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(tasks
        .iter()
        .any(|t| t["task_id"] == r && t["status"] == "review"));
}

#[test]
fn parse_reads_a_named_mailbox_handoffs_as_route_does() {
    let fx = Fx::new();
    let root = fx.demo();
    let m = root.join("mail");
    let m = m.to_str().unwrap();
    let out = fx.run(&["parse", "--format", "jsonl", m]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let handoffs = text.lines().filter(|l| l.contains("/.handoffs/")).count();
    assert!(handoffs > 0, "parse {m} left out {m}/.handoffs");
    // `--format aof` prints what `route` routes.
    let aof = fx.run(&["parse", "--format", "aof", m]);
    let envelopes = String::from_utf8_lossy(&aof.stdout).lines().count();
    let store = fx.path("routed");
    let routed = fx.run(&["route", m, "--store", store.to_str().unwrap()]);
    let summary = String::from_utf8_lossy(&routed.stdout).to_string();
    let n: usize = summary
        .strip_prefix("routed ")
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    assert_eq!(
        envelopes, n,
        "parse --format aof printed {envelopes}, route: {summary}"
    );
}
