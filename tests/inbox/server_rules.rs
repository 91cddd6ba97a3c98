//! The direct path follows the current (0.3.x) server's rules, one test
//! per item of issue 13: a reply across projects is written into the
//! sender's project (1), a reply to your own message goes to its
//! recipients (2) and a non-participant is refused (3) (both in
//! `reply_rules::mcp_reply_rules_match_the_mailbox`), the topic is copied
//! into the reply (4), the database is found as the server finds it (5),
//! and the commit lock is per project on the 0.3.x schema (7).

use std::path::Path;
use std::process::Command;

use amail_core::inbox::Inbox;
use amail_core::stores::mcp::archive::{write_bundle, ArchiveMessage};
use amail_core::stores::{self, LoadOptions};
use rusqlite::Connection;

use crate::support::copy::fixture_copy;
use crate::support::fixture::fixture;
use crate::support::fs::copy_dir;

fn load(dir: &Path) -> Inbox {
    stores::load(dir, &LoadOptions::default()).unwrap()
}

/// Project 2 (`home-dev-other`) with agent RedFox, who sends message 12 to
/// BlueLake of the fixture's project 1: a cross-project message, stored in
/// the recipient's project as the server stores it.
fn add_cross_project_message(dir: &Path) {
    let c = Connection::open(dir.join("storage.sqlite3")).unwrap();
    c.execute_batch(
        "INSERT INTO projects (id, slug, human_key, created_at)
             VALUES (2, 'home-dev-other', '/home/dev/other', '2026-11-22 03:30:00.000000');
         INSERT INTO agents (id, project_id, name, program, model, task_description, inception_ts,
                 last_active_ts, attachments_policy, contact_policy, is_active, deleted_ts)
             VALUES (4, 2, 'RedFox', 'codex', 'gpt', '', '2026-11-22 03:30:00.000000',
                     '2026-11-22 03:30:00.000000', 'auto', 'auto', 1, NULL);
         INSERT INTO messages (id, project_id, sender_id, thread_id, subject, body_md, importance,
                 ack_required, created_ts, attachments)
             VALUES (12, 1, 4, 'x-1', 'Schema question', 'Which migration first?', 'normal', 0,
                     '2026-11-22 03:31:00.000000', '[]');
         INSERT INTO message_recipients VALUES (12, 1, 'to', NULL, NULL);",
    )
    .unwrap();
    write_bundle(
        &dir.join("archive"),
        &ArchiveMessage {
            id: 12,
            thread_id: Some("x-1".into()),
            project: "/home/dev/demo-repo".into(),
            project_slug: "home-dev-demo-repo".into(),
            from: "RedFox".into(),
            to: vec!["BlueLake".into()],
            cc: vec![],
            bcc: vec![],
            subject: "Schema question".into(),
            importance: "normal".into(),
            ack_required: false,
            created: chrono::DateTime::parse_from_rfc3339("2026-11-22T03:31:00Z")
                .unwrap()
                .with_timezone(&chrono::Utc),
            body_md: "Which migration first?".into(),
            from_project: Some(amail_core::stores::mcp::archive::FromProject {
                human_key: "/home/dev/other".into(),
                slug: "home-dev-other".into(),
            }),
        },
    )
    .unwrap();
}

#[test]
fn item1_a_reply_across_projects_goes_into_the_senders_project() {
    let d = fixture_copy();
    let dir = d.path();
    add_cross_project_message(dir);
    let inbox = load(dir);
    let r = stores::reply_loaded(&inbox, "12", "BlueLake", "Backfill first.").unwrap();
    assert_eq!(r.to, ["RedFox"]);
    // The row is in RedFox's project, to RedFox: where its fetch_inbox
    // (messages of its project addressed to it) finds it.
    let c = Connection::open(dir.join("storage.sqlite3")).unwrap();
    let (project, to): (i64, String) = c
        .query_row(
            "SELECT m.project_id, a.name FROM messages m
             JOIN message_recipients r ON r.message_id = m.id JOIN agents a ON a.id = r.agent_id
             WHERE m.id = ?1",
            [r.key.parse::<i64>().unwrap()],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!((project, to.as_str()), (2, "RedFox"));
    // The archive copies are the other project's, with the upstream
    // cross-project sender keys; none in the project it arrived in.
    let other = dir.join("archive/projects/home-dev-other");
    assert!(
        r.paths.iter().all(|p| p.starts_with(&other)),
        "{:?}",
        r.paths
    );
    let inbox_copy = r
        .paths
        .iter()
        .find(|p| p.starts_with(other.join("agents/RedFox/inbox")))
        .expect("RedFox's inbox copy");
    let text = std::fs::read_to_string(inbox_copy).unwrap();
    assert!(
        text.contains("\"from_project_slug\": \"home-dev-demo-repo\""),
        "{text}"
    );
    assert!(
        text.contains("\"from_address\": \"project:home-dev-demo-repo#BlueLake\""),
        "{text}"
    );
    // amail's own view: the reply is RedFox's mail in the other project.
    let after = load(dir);
    let reply = after.message_by_key(&r.key).unwrap();
    assert_eq!(reply.project.as_deref(), Some("home-dev-other"));
    assert_eq!(reply.recipients[0].agent, "RedFox");
}

#[test]
fn item4_the_topic_is_copied_into_the_reply_when_the_schema_has_one() {
    let d = fixture_copy();
    let dir = d.path();
    let c = Connection::open(dir.join("storage.sqlite3")).unwrap();
    // The 0.3.x schema's column.
    c.execute_batch(
        "ALTER TABLE messages ADD COLUMN topic VARCHAR(64);
         UPDATE messages SET topic = 'schema' WHERE id = 5;",
    )
    .unwrap();
    let inbox = load(dir);
    let r = stores::reply_loaded(&inbox, "5", "BlueLake", "Keep the index.").unwrap();
    let topic: Option<String> = c
        .query_row(
            "SELECT topic FROM messages WHERE id = ?1",
            [r.key.parse::<i64>().unwrap()],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(topic.as_deref(), Some("schema"));
}

/// The server's default layout: the archive under the home directory, the
/// database in the directory the server was started from, named by
/// `DATABASE_URL` relative to it (here in that directory's `.env`, or in
/// the environment).
#[test]
fn item5_the_database_is_found_where_the_server_keeps_it() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("home/.mcp_agent_mail_git_mailbox_repo");
    copy_dir(&fixture().join("archive"), &root);
    let clone = d.path().join("clone");
    std::fs::create_dir_all(&clone).unwrap();
    std::fs::copy(
        fixture().join("storage.sqlite3"),
        clone.join("storage.sqlite3"),
    )
    .unwrap();
    let pending = |env_url: Option<&str>, cwd: &Path| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_amail"));
        cmd.args([
            "pending",
            root.to_str().unwrap(),
            "--as",
            "BlueLake",
            "--json",
        ])
        .current_dir(cwd)
        .env("AMAIL_HOME", d.path().join("amail-home"))
        .env_remove("DATABASE_URL");
        if let Some(url) = env_url {
            cmd.env("DATABASE_URL", url);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut keys: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap().to_string())
            .collect();
        keys.sort();
        (keys, String::from_utf8_lossy(&out.stderr).to_string())
    };
    // Without it, message 8 (acked in the database) looks pending.
    let (keys, stderr) = pending(None, d.path());
    assert!(keys.contains(&"8".to_string()), "{keys:?}");
    assert!(!stderr.is_empty(), "a warning that ack state is unknown");
    // The server's .env in its working directory.
    std::fs::write(
        clone.join(".env"),
        "DATABASE_URL=sqlite+aiosqlite:///./storage.sqlite3\n",
    )
    .unwrap();
    assert_eq!(pending(None, &clone).0, ["10", "5"]);
    // DATABASE_URL in the environment, relative to where amail runs.
    std::fs::remove_file(clone.join(".env")).unwrap();
    assert_eq!(
        pending(Some("sqlite+aiosqlite:///./storage.sqlite3"), &clone).0,
        ["10", "5"]
    );
}

/// A lock held as the server holds it: the file exists (no owner record,
/// young, so not stale).
fn hold(lock: &Path) {
    std::fs::write(lock, "").unwrap();
}

fn git_archive(archive: &Path) -> bool {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(archive)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .output()
    };
    if !git(&["init", "-q"]).is_ok_and(|o| o.status.success()) {
        return false;
    }
    git(&["add", "-A"]).unwrap();
    git(&["commit", "-qm", "init"]).unwrap();
    true
}

#[test]
fn item7_the_commit_lock_is_per_project_on_the_03_schema_and_at_the_root_before() {
    let d = fixture_copy();
    let dir = d.path();
    let archive = dir.join("archive");
    if !git_archive(&archive) {
        eprintln!("skipped: git not available");
        return;
    }
    let project_lock = archive.join("projects/home-dev-demo-repo/.commit.lock");
    // 0.1.0 schema: the commit takes the root lock; a per-project lock
    // (which only a 0.3.x server would hold) is not waited for.
    hold(&project_lock);
    let r = stores::reply_loaded(&load(dir), "5", "BlueLake", "One.").unwrap();
    assert!(r.committed);
    std::fs::remove_file(&project_lock).unwrap();
    // 0.3.x schema (messages.topic): the commit takes the project's lock,
    // so a held root lock (a 0.2.x server's) is not waited for.
    Connection::open(dir.join("storage.sqlite3"))
        .unwrap()
        .execute_batch("ALTER TABLE messages ADD COLUMN topic VARCHAR(64);")
        .unwrap();
    hold(&archive.join(".commit.lock"));
    let r = stores::reply_loaded(&load(dir), "5", "BlueLake", "Two.").unwrap();
    assert!(r.committed);
    assert!(!project_lock.exists(), "released after the commit");
}
