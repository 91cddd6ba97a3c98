//! Guarantee: `amail ack` and `amail reply` survive a kill at any point.
//!
//! The kill is the router's `AMAIL_CRASH_AFTER=N` hook (see
//! `tests/router/crash.rs`): the process aborts (no unwinding, no flushing:
//! the effect of `kill -9`) at its N-th durable step. The ack and reply
//! writers have steps before and after every SQLite commit, between the two
//! halves of every append and temp-file write (so torn writes happen),
//! before and after every rename. Every N up to a full run is tried for each
//! writer (plain mailbox ack and reply, mcp_agent_mail store ack and reply),
//! then random N with a second kill during recovery, 240 killed runs in all.
//!
//! Afterwards:
//! - ack (mailbox): re-running the ack succeeds; the journal holds each
//!   (message, agent) exactly once, every line parses, an ack recorded
//!   before the kill keeps its time, nothing is pending;
//! - ack (store): the database passes `PRAGMA integrity_check`; re-running
//!   sets the ack once;
//! - reply (mailbox): the reply file is either fully there or absent (a
//!   hidden temp file at most, which the mail walker ignores); the mailbox
//!   loads without problems;
//! - reply (store): the database passes `integrity_check`; the reply row
//!   and its recipient row exist together or not at all; when the row
//!   exists the reply is visible (from its row if an archive copy is
//!   missing); the archive loads without problems.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use amail_core::stores::{self, LoadOptions};
use rusqlite::Connection;

use crate::support::fixture::fixture;
use crate::support::fs::copy_dir;

fn amail(args: &[&str], crash: Option<(u64, u64)>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_amail"));
    c.args(args)
        .env("AMAIL_HOME", "/nonexistent-amail-home")
        .env("AMAIL_CONFIG", "/nonexistent-amail.toml")
        .env_remove("AMAIL_CRASH_AFTER");
    if let Some((n, _)) = crash {
        c.env("AMAIL_CRASH_AFTER", n.to_string());
    }
    c.output().unwrap()
}

fn mailbox(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    for i in 1..=2 {
        fs::write(
            dir.join(format!("help-{i}.md")),
            format!("Subject: [b{i}] HELP_REQUEST\nFrom: worker{i}\nTo: boss\nId: help-{i}\nDate: 2026-11-22T02:0{i}:00Z\nAck-Required: true\n\nBody:\nBead: b{i}\nStatus: BLOCKED\n\n## Problem\nstuck {i}\n"),
        )
        .unwrap();
    }
}

/// A deterministic xorshift (no timing, no external seed).
struct Rng(u64);
impl Rng {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound + 1
    }
}

/// Runs `scenario(dir, first_kill, second_kill)` for every kill point of
/// a full run, then random ones with a kill during recovery, `runs` in all.
/// `scenario` returns whether the first run finished (no kill reached).
fn every_kill_point(runs: u32, mut scenario: impl FnMut(&Path, u64, Option<u64>) -> bool) -> u64 {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut steps = None;
    let mut n = 1;
    for run in 0..runs {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = match steps {
            None => (n, None),
            Some(t) => (rng.below(t), Some(rng.below(t + 2))),
        };
        let finished = scenario(dir.path(), first, second);
        if steps.is_none() {
            if finished {
                steps = Some(first - 1);
                assert!(first > 2, "run {run}: too few kill points");
            }
            n += 1;
        }
    }
    steps.expect("a full run was never reached")
}

fn journal_lines(mail: &Path) -> Vec<serde_json::Value> {
    let text = fs::read_to_string(mail.join(".amail-acks.jsonl")).unwrap_or_default();
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "journal left torn: {text:?}"
    );
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad journal line {l:?}: {e}")))
        .collect()
}

#[test]
fn killed_mailbox_ack_loses_and_duplicates_nothing() {
    let steps = every_kill_point(60, |dir, first, second| {
        let mail = dir.join("mail");
        mailbox(&mail);
        let m = mail.to_str().unwrap();
        let args = ["ack", "help-1", "help-2", "--as", "boss", m];
        let finished = amail(&args, Some((first, 0))).status.success();
        // Acks that completed before the kill, with their times.
        let text = fs::read_to_string(mail.join(".amail-acks.jsonl")).unwrap_or_default();
        let before: Vec<serde_json::Value> = text
            .split_inclusive('\n')
            .filter(|l| l.ends_with('\n'))
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        if let Some(s) = second {
            amail(&args, Some((s, 0)));
        }
        let out = amail(&args, None);
        assert!(
            out.status.success(),
            "kill at {first}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines = journal_lines(&mail);
        let mut keys: Vec<&str> = lines.iter().map(|l| l["key"].as_str().unwrap()).collect();
        keys.sort();
        assert_eq!(keys, ["help-1", "help-2"], "kill at {first}: {lines:?}");
        for b in &before {
            assert!(
                lines.contains(b),
                "kill at {first}: ack {b} was lost or changed"
            );
        }
        let loaded = stores::load(&mail, &LoadOptions::default()).unwrap();
        assert!(
            loaded.problems.is_empty(),
            "kill at {first}: {:?}",
            loaded.problems
        );
        assert!(loaded.pending(Some("boss")).is_empty());
        finished
    });
    assert!(steps >= 6, "{steps} kill points");
}

#[test]
fn killed_mailbox_reply_is_whole_or_absent() {
    let body = "Use the v2 API.\n".repeat(200);
    every_kill_point(60, |dir, first, _| {
        let mail = dir.join("mail");
        mailbox(&mail);
        let m = mail.to_str().unwrap();
        let out = amail(
            &["reply", "help-1", m, "--as", "boss", "--body", &body],
            Some((first, 0)),
        );
        let replies: Vec<_> = fs::read_dir(mail.join("replies"))
            .map(|rd| {
                rd.map(|e| e.unwrap().path())
                    .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
                    .collect()
            })
            .unwrap_or_default();
        assert!(replies.len() <= 1, "kill at {first}: {replies:?}");
        let loaded = stores::load(&mail, &LoadOptions::default()).unwrap();
        assert!(
            loaded.problems.is_empty(),
            "kill at {first}: {:?}",
            loaded.problems
        );
        if let Some(r) = replies.first() {
            let text = fs::read_to_string(r).unwrap();
            assert!(
                text.contains(body.trim_end()),
                "kill at {first}: partial reply"
            );
            assert_eq!(loaded.messages.len(), 3);
        } else {
            assert!(!out.status.success(), "reported success without a reply");
            assert_eq!(loaded.messages.len(), 2);
        }
        out.status.success()
    });
}

fn store(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let root = dir.join("store");
    copy_dir(&fixture(), &root);
    let db = root.join("storage.sqlite3");
    (root, db)
}

fn integrity(db: &Path) -> Connection {
    let conn = Connection::open(db).unwrap();
    let ok: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    conn
}

#[test]
fn killed_store_ack_commits_once_or_not_at_all() {
    every_kill_point(60, |dir, first, second| {
        let (root, db) = store(dir);
        let r = root.to_str().unwrap();
        let args = ["ack", "5", "--as", "BlueLake", r];
        let finished = amail(&args, Some((first, 0))).status.success();
        let acked_before: Option<String> = integrity(&db)
            .query_row(
                "SELECT ack_ts FROM message_recipients WHERE message_id = 5 AND agent_id = 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        if let Some(s) = second {
            amail(&args, Some((s, 0)));
        }
        let out = amail(&args, None);
        assert!(
            out.status.success(),
            "kill at {first}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let conn = integrity(&db);
        let rows: Vec<Option<String>> = conn
            .prepare("SELECT ack_ts FROM message_recipients WHERE message_id = 5 AND agent_id = 1")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows.len(), 1);
        assert!(
            rows[0].is_some(),
            "kill at {first}: not acked after recovery"
        );
        if acked_before.is_some() {
            assert_eq!(
                rows[0], acked_before,
                "kill at {first}: the ack time changed"
            );
        }
        finished
    });
}

#[test]
fn killed_store_reply_is_atomic_in_the_database_and_visible() {
    every_kill_point(60, |dir, first, _| {
        let (root, db) = store(dir);
        let r = root.to_str().unwrap();
        let out = amail(
            &[
                "reply",
                "5",
                r,
                "--as",
                "BlueLake",
                "--body",
                "Keep the index.",
            ],
            Some((first, 0)),
        );
        let conn = integrity(&db);
        let n: i64 = conn
            .query_row("SELECT count(*) FROM messages", [], |r| r.get(0))
            .unwrap();
        let recips: i64 = conn
            .query_row(
                "SELECT count(*) FROM message_recipients WHERE message_id = 12",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(
            (n == 11 && recips == 0) || (n == 12 && recips == 1),
            "kill at {first}: {n} messages, {recips} recipient rows"
        );
        drop(conn);
        if out.status.success() {
            assert_eq!(n, 12);
        }
        let loaded = stores::load(&root, &LoadOptions::default()).unwrap();
        assert!(
            loaded.problems.is_empty(),
            "kill at {first}: {:?}",
            loaded.problems
        );
        let visible = loaded
            .messages
            .iter()
            .any(|m| m.key == "12" && m.message.body.contains("Keep the index."));
        assert_eq!(visible, n == 12, "kill at {first}");
        out.status.success()
    });
}
