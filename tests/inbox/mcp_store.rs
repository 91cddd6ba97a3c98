//! The inbox over a real mcp_agent_mail 0.1.0 store (the fixture the
//! server wrote), in both SQLite timestamp dialects: threads, pending per
//! recipient, read/ack state, ack and reply.

use std::path::Path;

use amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES as MAX;
use amail_core::inbox::{Inbox, RecipientKind, SourceKind};
use amail_core::stores::{self, LoadOptions};
use rusqlite::Connection;

use crate::support::cli::amail;
use crate::support::copy::fixture_copy;
use crate::support::integer_dialect::convert_to_integer_dialect;

fn load(dir: &Path) -> Inbox {
    let inbox = stores::load(dir, &LoadOptions::default()).unwrap();
    assert!(inbox.problems.is_empty(), "problems: {:?}", inbox.problems);
    inbox
}

fn pending_keys(inbox: &Inbox, agent: &str) -> Vec<String> {
    let mut keys: Vec<String> = inbox
        .pending(Some(agent))
        .iter()
        .map(|p| inbox.messages[p.message].key.to_string())
        .collect();
    keys.sort_by_key(|k| k.parse::<u64>().unwrap());
    keys
}

fn check_read_model(dir: &Path) {
    let inbox = load(dir);
    assert!(matches!(inbox.source, SourceKind::McpStore { .. }));
    assert_eq!(
        inbox.messages.len(),
        11,
        "canonical copies only, no inbox/outbox duplicates"
    );

    // Threads: by thread id, else the message's own id; most recent first.
    let threads: Vec<(&str, Vec<&str>)> = inbox
        .threads
        .iter()
        .map(|t| {
            (
                t.id.as_str(),
                t.messages
                    .iter()
                    .map(|&i| inbox.messages[i].key.as_str())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        threads,
        vec![
            ("11", vec!["11"]),
            ("ol-527.2", vec!["2", "4", "5", "7", "9", "10"]),
            ("ol-527.1", vec!["1", "3", "6", "8"]),
        ]
    );
    for t in &inbox.threads {
        assert_eq!(t.project.as_deref(), Some("home-dev-demo-repo"));
    }
    // Pending per recipient.
    assert_eq!(pending_keys(&inbox, "BlueLake"), ["5", "10"]);
    assert_eq!(pending_keys(&inbox, "GreenCastle"), ["10"]);
    assert_eq!(pending_keys(&inbox, "PurpleBear"), ["7"]);
    assert_eq!(inbox.pending(None).len(), 4);
    let ten = inbox.message_by_key("10").unwrap();
    let green = ten
        .recipients
        .iter()
        .find(|r| r.agent == "GreenCastle")
        .unwrap();
    assert_eq!(green.kind, RecipientKind::Cc);
    // Message 8 acknowledged (and so read), message 3 read only.
    let eight = &inbox.message_by_key("8").unwrap().recipients[0];
    assert_eq!(eight.agent, "BlueLake");
    assert!(eight.ack_at.is_some() && eight.read_at.is_some());
    assert!(!inbox
        .message_by_key("8")
        .unwrap()
        .is_pending_for("BlueLake"));
    let three = &inbox.message_by_key("3").unwrap().recipients[0];
    assert!(three.read_at.is_some() && three.ack_at.is_none());
    // Envelope from the store.
    let five = inbox.message_by_key("5").unwrap();
    assert_eq!(five.message.from.as_deref(), Some("PurpleBear"));
    assert_eq!(five.message.thread_id.as_deref(), Some("ol-527.2"));
    assert!(five.message.ack_required);
    assert_eq!(five.message.importance, "high");
    assert!(five
        .path
        .as_ref()
        .unwrap()
        .to_string_lossy()
        .contains("/messages/2026/11/"));
    // Types from the parser; help answered by the reply (not acked by it).
    assert_eq!(five.message.kind, amail_parser::MessageType::HelpRequest);
    assert_eq!(
        inbox.message_by_key("10").unwrap().message.kind,
        amail_parser::MessageType::OfferingReady
    );
    assert_eq!(
        inbox.message_by_key("8").unwrap().message.bead().as_deref(),
        Some("ol-527.1")
    );
    let t2 = inbox.threads.iter().find(|t| t.id == "ol-527.2").unwrap();
    assert_eq!(t2.help, amail_core::inbox::HelpState::Answered);
    assert_eq!(t2.bead.as_deref(), Some("ol-527.2"));
    assert_eq!(
        t2.pending, 4,
        "5 (BlueLake), 7 (PurpleBear), 10 (BlueLake, GreenCastle)"
    );
    let state = |n: &str| {
        let a = inbox.agents.iter().find(|a| a.name == n).unwrap();
        (a.state, a.bead.clone())
    };
    assert_eq!(
        state("PurpleBear"),
        (
            amail_core::inbox::AgentState::Offered,
            Some("ol-527.2".into())
        )
    );
    assert_eq!(
        state("GreenCastle"),
        (
            amail_core::inbox::AgentState::Offered,
            Some("ol-527.1".into())
        )
    );
    assert_eq!(state("BlueLake").0, amail_core::inbox::AgentState::Idle);
    // Agents: every sender and recipient.
    let names: Vec<&str> = inbox.agents.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["BlueLake", "GreenCastle", "PurpleBear"]);
}

/// Raw `message_recipients` state: (read_ts, ack_ts) as stored, with their SQLite types.
fn raw_state(db: &Path, message: i64, agent: &str) -> (String, String, String) {
    let c = Connection::open(db).unwrap();
    c.query_row(
        "SELECT quote(r.read_ts), quote(r.ack_ts), typeof(r.ack_ts) FROM message_recipients r
         JOIN agents a ON a.id = r.agent_id WHERE r.message_id = ?1 AND a.name = ?2",
        rusqlite::params![message, agent],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .unwrap()
}

fn check_ack(dir: &Path, expect_type: &str) {
    let db = dir.join("storage.sqlite3");
    let before = raw_state(&db, 5, "BlueLake");
    assert_eq!(before.1, "NULL");
    let out = amail(
        &["ack", "5", dir.to_str().unwrap(), "--as", "BlueLake"],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = raw_state(&db, 5, "BlueLake");
    assert_eq!(
        after.2, expect_type,
        "ack_ts stored in the database's own dialect"
    );
    assert_ne!(after.1, "NULL");
    assert_eq!(
        after.0, after.1,
        "read_ts set with ack_ts, as the server does"
    );
    if expect_type == "text" {
        // 'YYYY-MM-DD HH:MM:SS.ffffff'
        let v = after.1.trim_matches('\'');
        assert_eq!(v.len(), 26, "{v}");
        assert!(
            chrono::NaiveDateTime::parse_from_str(v, "%Y-%m-%d %H:%M:%S%.6f").is_ok(),
            "{v}"
        );
    }
    // Only that row changed: 10 is still pending for BlueLake, 5 is not.
    let inbox = load(dir);
    assert_eq!(pending_keys(&inbox, "BlueLake"), ["10"]);
    // A second ack changes nothing.
    let out = amail(
        &["ack", "5", dir.to_str().unwrap(), "--as", "BlueLake"],
        None,
    );
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("already"));
    assert_eq!(raw_state(&db, 5, "BlueLake"), after);
    // Acking an already-read message keeps its read time (message 3).
    let read3 = raw_state(&db, 3, "BlueLake");
    let out = amail(
        &["ack", "3", dir.to_str().unwrap(), "--as", "BlueLake"],
        None,
    );
    assert!(out.status.success());
    let acked3 = raw_state(&db, 3, "BlueLake");
    assert_eq!(acked3.0, read3.0);
    assert_ne!(acked3.1, "NULL");
    // Not a recipient: a clear error naming the recipients, nothing written.
    let out = amail(
        &["ack", "10", dir.to_str().unwrap(), "--as", "PurpleBear"],
        None,
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a recipient") && err.contains("BlueLake") && err.contains("GreenCastle"),
        "{err}"
    );
    // Unknown id.
    let out = amail(
        &["ack", "999", dir.to_str().unwrap(), "--as", "BlueLake"],
        None,
    );
    assert!(!out.status.success());
}

#[test]
fn text_dialect_read_model() {
    let d = fixture_copy();
    check_read_model(d.path());
}

#[test]
fn text_dialect_ack() {
    let d = fixture_copy();
    check_ack(d.path(), "text");
}

#[test]
fn integer_dialect_read_model() {
    let d = fixture_copy();
    convert_to_integer_dialect(&d.path().join("storage.sqlite3"));
    check_read_model(d.path());
}

#[test]
fn integer_dialect_ack() {
    let d = fixture_copy();
    convert_to_integer_dialect(&d.path().join("storage.sqlite3"));
    check_ack(d.path(), "integer");
}

#[test]
fn storage_root_and_db_flag_are_accepted() {
    let d = fixture_copy();
    // The archive folder itself (database in its parent).
    let inbox = load(&d.path().join("archive"));
    assert_eq!(inbox.messages.len(), 11);
    // A database somewhere else, given explicitly.
    let elsewhere = tempfile::tempdir().unwrap();
    let db = elsewhere.path().join("other.sqlite3");
    std::fs::rename(d.path().join("storage.sqlite3"), &db).unwrap();
    let inbox = stores::load(
        &d.path().join("archive"),
        &LoadOptions {
            db: Some(db),
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(inbox.pending(Some("BlueLake")).len(), 2);
    // No database at all: messages still load, with a problem saying why.
    let inbox = stores::load(d.path(), &LoadOptions::default()).unwrap();
    assert_eq!(inbox.messages.len(), 11);
    assert_eq!(inbox.problems.len(), 1);
    assert!(inbox.problems[0].1.contains("--db"));
}

fn check_reply(dir: &Path) {
    let out = amail(
        &["reply", "5", dir.to_str().unwrap(), "--as", "BlueLake"],
        Some("Keep the UNIQUE index; backfill duplicates first. Merci, ça marche ✓\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let inbox = load(dir);
    assert_eq!(inbox.messages.len(), 12);
    let reply = inbox.message_by_key("12").expect("the reply is message 12");
    assert_eq!(reply.message.from.as_deref(), Some("BlueLake"));
    assert_eq!(reply.message.to, ["PurpleBear"]);
    assert_eq!(reply.message.thread_id.as_deref(), Some("ol-527.2"));
    assert_eq!(inbox.thread_for(reply).id, "ol-527.2");
    assert_eq!(reply.message.subject, "Re: [ol-527.2] HELP_REQUEST");
    // Inherited from the original, as reply_message does.
    assert!(reply.message.ack_required);
    assert_eq!(reply.message.importance, "high");
    assert_eq!(reply.recipients.len(), 1);
    assert_eq!(reply.recipients[0].agent, "PurpleBear");
    assert_eq!(pending_keys(&inbox, "PurpleBear"), ["7", "12"]);
    // The original is not acknowledged by a reply.
    assert!(inbox
        .message_by_key("5")
        .unwrap()
        .is_pending_for("BlueLake"));

    // Database: message row, recipient row, FTS.
    let c = Connection::open(dir.join("storage.sqlite3")).unwrap();
    let (thread, attachments, body): (String, String, String) = c
        .query_row(
            "SELECT thread_id, attachments, body_md FROM messages WHERE id = 12",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(thread, "ol-527.2");
    assert_eq!(attachments, "[]");
    assert!(body.starts_with("HELP_RESPONSE\n\n"), "{body}");
    let fts: i64 = c
        .query_row(
            "SELECT count(*) FROM fts_messages WHERE fts_messages MATCH 'backfill AND Merci'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(fts, 1);

    // Archive: canonical, sender outbox, recipient inbox, identical bytes.
    let base = dir.join("archive/projects/home-dev-demo-repo");
    let find = |sub: &str| -> std::path::PathBuf {
        let ym = reply.message.timestamp.unwrap().format("%Y/%m").to_string();
        let d = base.join(sub).join(ym);
        std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.to_string_lossy()
                    .ends_with("__re-ol-527.2-help_request__12.md")
            })
            .unwrap_or_else(|| panic!("no copy in {}", d.display()))
    };
    let canonical = std::fs::read_to_string(find("messages")).unwrap();
    assert_eq!(
        std::fs::read_to_string(find("agents/BlueLake/outbox")).unwrap(),
        canonical
    );
    assert_eq!(
        std::fs::read_to_string(find("agents/PurpleBear/inbox")).unwrap(),
        canonical
    );
    assert!(
        canonical.starts_with("---json\n{\n  \"ack_required\": true,\n  \"attachments\": [],\n")
    );
    assert!(canonical.contains("\"thread_id\": \"ol-527.2\""));
    assert!(canonical.contains("\"to\": [\n    \"PurpleBear\"\n  ]"));
    assert!(
        !canonical.contains("Merci, \\u00e7a"),
        "the body is not JSON-escaped"
    );
    assert!(canonical.ends_with("ça marche ✓\n"));
    let digest = std::fs::read_to_string(base.join("messages/threads/ol-527.2.md")).unwrap();
    assert!(digest.contains("— BlueLake → PurpleBear"));
    assert!(digest.contains("__re-ol-527.2-help_request__12.md)"));
}

/// A reply whose answer starts indented (Markdown code) keeps the
/// indentation: the body was trimmed whole (`    SELECT 1;` stored as
/// `SELECT 1;`), where a plain mailbox kept it. Found replying through a
/// live server, whose path shares this rule.
#[test]
fn a_reply_keeps_the_indentation_of_its_first_line() {
    let d = fixture_copy();
    let dir = d.path();
    let out = amail(
        &["reply", "5", dir.to_str().unwrap(), "--as", "BlueLake"],
        Some("\n    SELECT 1;\n  -- the index first\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c = Connection::open(dir.join("storage.sqlite3")).unwrap();
    let body: String = c
        .query_row("SELECT body_md FROM messages WHERE id = 12", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(body, "HELP_RESPONSE\n\n    SELECT 1;\n  -- the index first");
}

#[test]
fn reply_text_dialect_reaches_db_and_every_archive_copy() {
    let d = fixture_copy();
    check_reply(d.path());
}

#[test]
fn reply_integer_dialect() {
    let d = fixture_copy();
    convert_to_integer_dialect(&d.path().join("storage.sqlite3"));
    check_reply(d.path());
    let c = Connection::open(d.path().join("storage.sqlite3")).unwrap();
    let (ty, rj): (String, String) = c
        .query_row(
            "SELECT typeof(created_ts), recipients_json FROM messages WHERE id = 12",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(ty, "integer");
    assert!(rj.contains("PurpleBear"));
}

#[test]
fn reply_commits_when_the_archive_is_a_git_repo() {
    let d = fixture_copy();
    let archive = d.path().join("archive");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(&archive)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .output()
            .unwrap()
    };
    if git(&["init", "-q"]).status.code().is_none() {
        eprintln!("skipped: git not available");
        return;
    }
    git(&["add", "-A"]);
    git(&["commit", "-qm", "init"]);
    let out = amail(
        &[
            "reply",
            "5",
            d.path().to_str().unwrap(),
            "--as",
            "BlueLake",
            "--body",
            "Keep it.",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = String::from_utf8(git(&["log", "--format=%s", "-1"]).stdout).unwrap();
    assert_eq!(
        log.trim(),
        "mail: BlueLake -> PurpleBear | Re: [ol-527.2] HELP_REQUEST"
    );
    let status = String::from_utf8(git(&["status", "--porcelain"]).stdout).unwrap();
    assert_eq!(status, "", "everything the reply wrote is committed");
    assert!(!archive.join(".commit.lock").exists());
    assert!(!archive
        .join("projects/home-dev-demo-repo/.archive.lock")
        .exists());
}

#[test]
fn reply_errors_are_clear() {
    let d = fixture_copy();
    let dir = d.path().to_str().unwrap();
    let out = amail(
        &["reply", "5", dir, "--as", "NoSuchAgent", "--body", "x"],
        None,
    );
    // Bad input (no such agent in the store), not usage: the README's
    // exit codes (tests/cli/unknown_ids.rs).
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("BlueLake, GreenCastle, PurpleBear"));
    let out = amail(
        &["reply", "5", dir, "--as", "BlueLake", "--body", "  "],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let out = amail(
        &["reply", "404", dir, "--as", "BlueLake", "--body", "x"],
        None,
    );
    assert!(!out.status.success());
    // Nothing was written by the failed attempts.
    assert_eq!(load(d.path()).messages.len(), 11);
}

#[test]
fn projects_in_one_store_are_kept_apart() {
    let d = fixture_copy();
    let dir = d.path();
    let c = Connection::open(dir.join("storage.sqlite3")).unwrap();
    c.execute_batch(
        "INSERT INTO projects (id, slug, human_key, created_at)
             VALUES (2, 'home-dev-other', '/home/dev/other', '2026-11-22 03:30:00.000000');
         INSERT INTO agents (id, project_id, name, program, model, task_description, inception_ts,
                 last_active_ts, attachments_policy, contact_policy, is_active, deleted_ts)
             VALUES (4, 2, 'RedFox', 'codex', 'gpt', '', '2026-11-22 03:30:00.000000',
                     '2026-11-22 03:30:00.000000', 'auto', 'auto', 1, NULL),
                    (5, 2, 'GoldHill', 'codex', 'gpt', '', '2026-11-22 03:30:00.000000',
                     '2026-11-22 03:30:00.000000', 'auto', 'auto', 1, NULL);
         INSERT INTO messages (id, project_id, sender_id, thread_id, subject, body_md, importance,
                 ack_required, created_ts, attachments)
             VALUES (12, 2, 4, 'ol-527.2', '[ol-527.2] HELP_REQUEST',
                     'Bead: ol-527.2\nIssue Type: STUCK\n\n## Question\nWhich branch?', 'normal', 1,
                     '2026-11-22 03:31:00.000000', '[]');
         INSERT INTO message_recipients VALUES (12, 5, 'to', NULL, NULL);",
    )
    .unwrap();
    drop(c);
    // Its canonical archive file, as the server would have written it.
    let m = amail_core::stores::mcp::archive::ArchiveMessage {
        id: 12,
        thread_id: Some("ol-527.2".into()),
        project: "/home/dev/other".into(),
        project_slug: "home-dev-other".into(),
        from: "RedFox".into(),
        to: vec!["GoldHill".into()],
        cc: vec![],
        bcc: vec![],
        subject: "[ol-527.2] HELP_REQUEST".into(),
        importance: "normal".into(),
        ack_required: true,
        created: chrono::DateTime::parse_from_rfc3339("2026-11-22T03:31:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc),
        body_md: "Bead: ol-527.2\nIssue Type: STUCK\n\n## Question\nWhich branch?".into(),
        from_project: None,
    };
    amail_core::stores::mcp::archive::write_bundle(&dir.join("archive"), &m).unwrap();

    let inbox = load(dir);
    assert_eq!(inbox.messages.len(), 12);
    let same_id: Vec<(&str, Option<&str>, usize)> = inbox
        .threads
        .iter()
        .filter(|t| t.id == "ol-527.2")
        .map(|t| (t.id.as_str(), t.project.as_deref(), t.messages.len()))
        .collect();
    assert_eq!(same_id.len(), 2, "one thread per project: {same_id:?}");
    assert!(same_id.contains(&("ol-527.2", Some("home-dev-other"), 1)));
    assert!(same_id.contains(&("ol-527.2", Some("home-dev-demo-repo"), 6)));
    let other = inbox
        .threads
        .iter()
        .find(|t| t.project.is_some_and(|p| p == "home-dev-other"))
        .unwrap();
    assert_eq!(other.help, amail_core::inbox::HelpState::Unanswered);
    assert_eq!(pending_keys(&inbox, "GoldHill"), ["12"]);

    // A reply lands in that project only.
    let out = amail(
        &[
            "reply",
            "12",
            dir.to_str().unwrap(),
            "--as",
            "GoldHill",
            "--body",
            "main",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let inbox = load(dir);
    let reply = inbox.message_by_key("13").unwrap();
    assert_eq!(reply.project.as_deref(), Some("home-dev-other"));
    assert!(reply
        .path
        .as_ref()
        .unwrap()
        .starts_with(dir.join("archive/projects/home-dev-other")));
    assert_eq!(inbox.thread_for(reply).messages.len(), 2);
    assert_eq!(
        inbox.thread_for(reply).help,
        amail_core::inbox::HelpState::Answered
    );
    // Acting as an agent of the other project is refused: bad input.
    let out = amail(
        &[
            "reply",
            "12",
            dir.to_str().unwrap(),
            "--as",
            "BlueLake",
            "--body",
            "x",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn ack_and_load_work_while_another_writer_holds_the_database() {
    let d = fixture_copy();
    let db = d.path().join("storage.sqlite3");
    let writer = Connection::open(&db).unwrap();
    writer
        .execute_batch(
            "BEGIN IMMEDIATE; UPDATE agents SET last_active_ts = last_active_ts WHERE id = 1;",
        )
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        // Hold the write lock until the reader has loaded, then a little longer.
        rx.recv().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        writer.execute_batch("COMMIT").unwrap();
    });
    // WAL: a reader is not blocked by the writer.
    let inbox = load(d.path());
    assert_eq!(inbox.messages.len(), 11);
    tx.send(()).unwrap();
    // The ack waits (busy timeout) instead of failing.
    let out = stores::ack(&inbox.source, &["5".to_string()], "BlueLake", MAX).unwrap();
    assert!(out[0].changed);
    holder.join().unwrap();
    assert_ne!(raw_state(&db, 5, "BlueLake").1, "NULL");
    // ack_loaded agrees: already acked, nothing changes.
    let out = stores::ack_loaded(&inbox, &["5".to_string()], "BlueLake").unwrap();
    assert!(!out[0].changed);
}

#[test]
fn a_stale_server_lock_is_cleared_like_the_server_does() {
    let d = fixture_copy();
    let project = d.path().join("archive/projects/home-dev-demo-repo");
    std::fs::write(project.join(".archive.lock"), "").unwrap();
    // A dead owner (pid beyond pid_max) that took it long ago.
    std::fs::write(
        project.join(".archive.lock.owner.json"),
        r#"{"pid": 2147483000, "created_ts": 1000.0}"#,
    )
    .unwrap();
    let inbox = load(d.path());
    let out = stores::reply_loaded(&inbox, "5", "BlueLake", "Keep it.").unwrap();
    assert_eq!(out.key, "12");
    assert!(!project.join(".archive.lock").exists());
    assert!(!project.join(".archive.lock.owner.json").exists());
}
