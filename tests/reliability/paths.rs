//! Guarantee: bead ids, thread ids, task ids, agent names, message ids and
//! subjects never make amail write outside the store or mailbox.
//!
//! Every hostile name (`../`, `..\`, an absolute path into the sandbox,
//! NUL, a 5000-byte name, Windows device names) is fed to every writer:
//! the router (task files, companion directories, run records, bead index,
//! routed markers, events), plain-mailbox replies, the ack journal, and the
//! mcp_agent_mail store's reply (archive copies under agent and project
//! directories, thread digest). Afterwards nothing exists in the sandbox
//! outside the store / mailbox, and no path component is longer than 255
//! bytes or a Windows device name.

use std::fs;
use std::path::{Path, PathBuf};

use amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES as MAX;
use amail_core::inbox::SourceKind;
use amail_core::stores::{self, LoadOptions};
use rusqlite::Connection;

use crate::support::fixture::fixture;
use crate::support::fs::copy_dir;

fn hostile(sandbox: &Path) -> Vec<String> {
    vec![
        "../escaped".into(),
        "../../escaped".into(),
        "a/../../escaped".into(),
        "..\\..\\escaped".into(),
        "..".into(),
        ".".into(),
        format!("{}/escaped-abs", sandbox.display()),
        "nul\u{0}byte".into(),
        "x".repeat(5000),
        "CON".into(),
        "NUL".into(),
        "COM1".into(),
        "con.txt".into(),
        "C:\\escaped".into(),
    ]
}

/// Every path under `dir` (files and directories).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        out.push(p.clone());
        if p.is_dir() && !p.is_symlink() {
            walk(&p, out);
        }
    }
}

/// Nothing in `sandbox` but under `allowed`; no overlong or device-name
/// component inside `allowed` either.
fn assert_contained(sandbox: &Path, allowed: &[&Path], context: &str) {
    let mut all = Vec::new();
    walk(sandbox, &mut all);
    for p in &all {
        assert!(
            allowed.iter().any(|a| p.starts_with(a) || a.starts_with(p)),
            "{context}: {} was written outside {allowed:?}",
            p.display()
        );
        let name = p.file_name().unwrap().to_string_lossy();
        assert!(name.len() <= 255, "{context}: overlong name {name}");
        let stem = name.split('.').next().unwrap().to_ascii_uppercase();
        assert!(
            !matches!(stem.as_str(), "CON" | "NUL" | "COM1" | "PRN" | "AUX"),
            "{context}: device name {}",
            p.display()
        );
    }
}

fn mail_text(id: &str, from: &str, thread: &str, subject: &str, body: &str) -> String {
    format!(
        "Subject: {subject}\nFrom: {from}\nTo: boss\nId: {id}\nThread: {thread}\nDate: 2026-11-22T02:00:00Z\n\nBody:\n{body}\n"
    )
}

fn hostile_mailbox(sandbox: &Path) -> PathBuf {
    let mail = sandbox.join("mail");
    fs::create_dir_all(&mail).unwrap();
    for (i, h) in hostile(sandbox).iter().enumerate() {
        let accept = mail_text(
            h,
            h,
            h,
            &format!("[{h}] BEAD_ACCEPTED"),
            &format!(
                "Accepted bead: {h}\nTitle: {h}\nStarting implementation at: 2026-11-22T02:00:00Z"
            ),
        );
        fs::write(mail.join(format!("m{i}-a.md")), accept).unwrap();
        let help = mail_text(
            &format!("{h}-help"),
            h,
            h,
            &format!("[{h}] HELP_REQUEST"),
            &format!("Bead: {h}\nStatus: BLOCKED\n\n## Problem\n{h}"),
        );
        fs::write(mail.join(format!("m{i}-b.md")), help).unwrap();
        let done = mail_text(
            &format!("{h}-done"),
            h,
            h,
            &format!("[{h}] DONE"),
            &format!("Bead: {h}\nStatus: DONE\n\n## Summary\n{h}"),
        );
        fs::write(mail.join(format!("m{i}-c.md")), done).unwrap();
        // An AOF/1 envelope naming the hostile string as its task id.
        let env = serde_json::json!({
            "protocol": "aof", "version": 1, "projectId": "p", "type": "status.update",
            "taskId": h, "fromAgent": h, "toAgent": h, "sentAt": "2026-11-22T02:00:00Z",
            "payload": {"taskId": h, "agentId": h, "status": "done"}
        });
        fs::write(
            mail.join(format!("m{i}-d.md")),
            mail_text(&format!("{h}-aof"), h, h, h, &format!("AOF/1 {env}")),
        )
        .unwrap();
    }
    mail
}

#[test]
fn routing_hostile_names_stays_inside_the_store() {
    let sandbox = tempfile::tempdir().unwrap();
    let sandbox = sandbox.path();
    let mail = hostile_mailbox(sandbox);
    let store = sandbox.join("store");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_amail"))
        .args([
            "route",
            mail.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ])
        .env_remove("AMAIL_CRASH_AFTER")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "route failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Something was routed (the test is not vacuous).
    let mut files = Vec::new();
    walk(&store.join("tasks"), &mut files);
    assert!(
        files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .count()
            >= 5,
        "too few task files: {files:?}"
    );
    assert_contained(sandbox, &[&mail, &store], "route");
}

#[test]
fn replies_and_acks_to_hostile_mail_stay_inside_the_mailbox() {
    let sandbox = tempfile::tempdir().unwrap();
    let sandbox = sandbox.path();
    let mail = hostile_mailbox(sandbox);
    let loaded = stores::load(&mail, &LoadOptions::default()).unwrap();
    let keys: Vec<String> = loaded.messages.iter().map(|m| m.key.to_string()).collect();
    assert!(keys.len() >= 40, "{} messages", keys.len());
    let names = hostile(sandbox);
    let mut replied = 0;
    for (i, k) in keys.iter().enumerate() {
        // Every key, each with a hostile replying / acking agent in turn.
        let h = &names[i % names.len()];
        if stores::reply_loaded(&loaded, k, h, "an answer").is_ok() {
            replied += 1;
        }
        let _ = stores::ack_loaded(&loaded, std::slice::from_ref(k), h);
    }
    assert!(replied > 0, "no reply was written at all");
    assert_contained(sandbox, &[&mail], "mailbox reply/ack");
}

#[test]
fn mcp_store_replies_refuse_hostile_names_from_the_database() {
    for (field, h) in [
        ("agent", "../../../escaped"),
        ("agent", "CON"),
        ("agent", "a\u{0}b"),
        ("slug", "../../escaped"),
        ("slug", "NUL"),
        ("thread", "../../../escaped"),
    ]
    .into_iter()
    .chain(std::iter::once(("agent", "y".repeat(4000).leak() as &str)))
    {
        let sandbox = tempfile::tempdir().unwrap();
        let root = sandbox.path().join("store");
        copy_dir(&fixture(), &root);
        let db = root.join("storage.sqlite3");
        let conn = Connection::open(&db).unwrap();
        let h_abs = h.replace("{abs}", &sandbox.path().display().to_string());
        match field {
            // PurpleBear (3) sent message 5; BlueLake (1) answers it.
            "agent" => conn.execute("UPDATE agents SET name = ?1 WHERE id = 3", [&h_abs]),
            "slug" => conn.execute("UPDATE projects SET slug = ?1", [&h_abs]),
            _ => conn.execute("UPDATE messages SET thread_id = ?1 WHERE id = 5", [&h_abs]),
        }
        .unwrap();
        drop(conn);
        let source = SourceKind::McpStore {
            root: root.clone(),
            db: db.clone(),
        };
        let before: i64 = Connection::open(&db)
            .unwrap()
            .query_row("SELECT count(*) FROM messages", [], |r| r.get(0))
            .unwrap();
        let r = stores::reply(&source, "5", "BlueLake", "an answer", MAX);
        let after: i64 = Connection::open(&db)
            .unwrap()
            .query_row("SELECT count(*) FROM messages", [], |r| r.get(0))
            .unwrap();
        match field {
            // A hostile thread id only loses its digest file.
            "thread" => assert!(r.is_ok(), "{field} {h:?}: {r:?}"),
            _ => {
                let e = r.expect_err("a hostile name must be refused").to_string();
                assert!(e.contains("path component"), "{field}: {e}");
                assert_eq!(before, after, "{field}: refused reply left a row");
            }
        }
        assert_contained(
            sandbox.path(),
            &[&root],
            &format!("mcp reply {field} {h:?}"),
        );
    }
}
