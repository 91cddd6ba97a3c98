//! Guarantee: read-only and missing things get a clear message and the
//! rest keeps working.
//!
//! - A mailbox amail cannot write to: reading (`threads`, `pending`) works,
//!   `ack` and `reply` fail with a message naming the path. Tests run as
//!   root in CI, where chmod does not stop writes, so the unwritable spot is
//!   made with a file where a directory is expected (`replies`) and a
//!   directory where the ack journal file is expected; as non-root a
//!   chmod-555 mailbox is tried too.
//! - A missing database: the archive still loads; `--db` naming a missing
//!   file is an error naming it.
//! - A database from a newer schema (extra columns and tables): read, ack
//!   and reply work.
//! - A task file with broken front matter: `amail tasks` lists the others
//!   and names the file, `amail doctor` names it, routing still works.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use rusqlite::Connection;

use crate::support::fixture::fixture;
use crate::support::fs::copy_dir;
use crate::support::walk::files_under;

fn amail(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(args)
        .env("AMAIL_HOME", "/nonexistent-amail-home")
        .env("AMAIL_CONFIG", "/nonexistent-amail.toml")
        .env_remove("AMAIL_CRASH_AFTER")
        .output()
        .unwrap()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    assert!(
        !o.status.success(),
        "should fail: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn mailbox(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    fs::write(
        dir.join("help.md"),
        "Subject: [b1] HELP_REQUEST\nFrom: worker\nTo: boss\nId: help-1\nDate: 2026-11-22T02:00:00Z\nAck-Required: true\n\nBody:\nBead: b1\nStatus: BLOCKED\n\n## Problem\nstuck\n",
    )
    .unwrap();
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout == b"0\n")
}

#[test]
fn unwritable_mailbox_reads_but_ack_and_reply_fail_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    mailbox(&mail);
    let m = mail.to_str().unwrap();
    // A file where the replies directory goes, a directory where the ack
    // journal goes: no write can succeed, whoever runs the test.
    fs::write(mail.join("replies"), "").unwrap();
    fs::create_dir(mail.join(".amail-acks.jsonl")).unwrap();

    assert!(ok(&amail(&["threads", m])).contains("b1"));
    assert!(ok(&amail(&["pending", m])).contains("help-1"));
    let e = err(&amail(&["ack", "help-1", "--as", "boss", m]));
    assert!(e.contains(".amail-acks.jsonl"), "{e}");
    let e = err(&amail(&[
        "reply",
        "help-1",
        m,
        "--as",
        "boss",
        "--body",
        "try again",
    ]));
    assert!(e.contains("replies"), "{e}");
    // Nothing half-done: still pending, still readable.
    assert!(ok(&amail(&["pending", m])).contains("help-1"));

    if is_root() {
        eprintln!("running as root: chmod 555 does not bind; skipped that variant");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let ro = dir.path().join("ro");
    mailbox(&ro);
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
    let r = ro.to_str().unwrap();
    assert!(ok(&amail(&["threads", r])).contains("b1"));
    let e = err(&amail(&["ack", "help-1", "--as", "boss", r]));
    assert!(e.contains(r), "{e}");
    let e = err(&amail(&[
        "reply", "help-1", r, "--as", "boss", "--body", "x",
    ]));
    assert!(e.contains(r), "{e}");
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn missing_database_is_named_and_the_archive_still_loads() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    copy_dir(&fixture(), &root);
    fs::remove_file(root.join("storage.sqlite3")).unwrap();
    let r = root.to_str().unwrap();
    let out = ok(&amail(&["threads", r]));
    assert!(out.contains("ol-527.2"), "{out}");
    let missing = dir.path().join("nope.sqlite3");
    let e = err(&amail(&["threads", r, "--db", missing.to_str().unwrap()]));
    assert!(e.contains("nope.sqlite3"), "{e}");
    // Acking needs the database: a clear refusal, not a new empty database.
    let e = err(&amail(&["ack", "5", "--as", "BlueLake", r]));
    assert!(!e.is_empty());
    assert!(
        !root.join("storage.sqlite3").exists(),
        "a database was created"
    );
}

#[test]
fn database_from_a_newer_schema_reads_acks_and_replies() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    copy_dir(&fixture(), &root);
    let db = root.join("storage.sqlite3");
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch(
        "ALTER TABLE messages ADD COLUMN future_flags TEXT DEFAULT 'x';
         ALTER TABLE messages ADD COLUMN future_score REAL;
         ALTER TABLE agents ADD COLUMN future_avatar BLOB;
         ALTER TABLE message_recipients ADD COLUMN future_seen INTEGER DEFAULT 0;
         ALTER TABLE projects ADD COLUMN future_owner TEXT;
         CREATE TABLE future_things (id INTEGER PRIMARY KEY, what TEXT);",
    )
    .unwrap();
    drop(conn);
    let r = root.to_str().unwrap();
    assert!(ok(&amail(&["threads", r])).contains("ol-527.2"));
    assert!(ok(&amail(&["pending", r, "--as", "BlueLake"])).contains('5'));
    ok(&amail(&["ack", "5", "--as", "BlueLake", r]));
    ok(&amail(&[
        "reply", "5", r, "--as", "BlueLake", "--body", "use v2",
    ]));
    let conn = Connection::open(&db).unwrap();
    let (n, flags): (i64, String) = conn
        .query_row(
            "SELECT count(*), max(future_flags) FROM messages",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((n, flags.as_str()), (12, "x"));
    let acked: Option<String> = conn
        .query_row(
            "SELECT r.ack_ts FROM message_recipients r JOIN agents a ON a.id = r.agent_id
             WHERE r.message_id = 5 AND a.name = 'BlueLake'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(acked.is_some());
}

#[test]
fn broken_task_front_matter_is_named_and_the_rest_works() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let s = store.to_str().unwrap();
    let f = fixture();
    ok(&amail(&["route", f.to_str().unwrap(), "--store", s]));
    let mut tasks: Vec<_> = task_files(&store.join("tasks"));
    tasks.sort();
    assert!(tasks.len() >= 2, "{tasks:?}");
    let broken = &tasks[0];
    fs::write(broken, "---\nid: [unclosed\ntitle: {\n---\n\nbody\n").unwrap();
    let name = broken.file_name().unwrap().to_string_lossy().into_owned();

    let out = amail(&["tasks", "--store", s]);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        all.contains(&name),
        "tasks does not name the broken file:\n{all}"
    );
    let other = tasks[1].file_stem().unwrap().to_string_lossy().into_owned();
    assert!(all.contains(&other), "tasks lost the other tasks:\n{all}");

    let doc = amail(&["doctor", "--store", s]);
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&doc.stdout),
        String::from_utf8_lossy(&doc.stderr)
    );
    assert!(report.contains(&name), "doctor does not name it:\n{report}");

    // Routing more mail still works.
    let mail = dir.path().join("mail");
    mailbox(&mail);
    ok(&amail(&["route", mail.to_str().unwrap(), "--store", s]));
}

/// `tasks/<status>/<id>.md` files (not companion outputs).
fn task_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for status in fs::read_dir(dir).unwrap() {
        for e in fs::read_dir(status.unwrap().path()).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() && p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    out
}

/// Each file under `dir` by path: its length, modification time and bytes
/// (the names alone would miss a rewritten database).
fn tree_state(dir: &Path) -> Vec<(std::path::PathBuf, u64, std::time::SystemTime, Vec<u8>)> {
    files_under(dir)
        .into_iter()
        .map(|p| {
            let meta = fs::metadata(&p).unwrap();
            let bytes = fs::read(&p).unwrap();
            (p, meta.len(), meta.modified().unwrap(), bytes)
        })
        .collect()
}

/// A copy of the fixture in a folder named `name` (in a temp dir that
/// lives as long as the first half).
fn fixture_root(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(name);
    copy_dir(&fixture(), &root);
    (dir, root)
}

/// The server's database is in WAL mode; a reader SQLite lets create the
/// `-wal` and `-shm` beside it writes into the storage root the user only
/// asked to read. Every reading command leaves the root as it found it, in
/// a folder whose name URI syntax would misread (a space, `#`, `?`).
#[test]
fn reading_a_storage_root_writes_nothing_beside_its_database() {
    let (dir, root) = fixture_root("server root #2 ?x=1");
    let db = root.join("storage.sqlite3");
    let r = root.to_str().unwrap();
    let d = db.to_str().unwrap();
    let archive = root.join("archive");
    let store = dir.path().join("store");
    let before = tree_state(&root);
    assert!(before
        .iter()
        .all(|(p, ..)| !p.to_string_lossy().ends_with("-wal")
            && !p.to_string_lossy().ends_with("-shm")));
    let reads: [Vec<&str>; 8] = [
        vec!["threads", r],
        vec!["threads", r, "--json"],
        vec!["pending", r],
        vec!["pending", r, "--as", "BlueLake"],
        vec!["parse", r],
        vec!["parse", "--format", "aof", r],
        vec!["threads", archive.to_str().unwrap(), "--db", d],
        vec!["route", r, "--store", store.to_str().unwrap()],
    ];
    for args in reads {
        let out = ok(&amail(&args));
        assert!(!out.is_empty(), "{args:?} printed nothing");
        assert!(
            tree_state(&root) == before,
            "{args:?} changed the storage root: {:?}",
            fs::read_dir(&root)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect::<Vec<_>>()
        );
    }
    // The inbox without a terminal refuses before it reads; nothing either.
    let _ = amail(&["inbox", r]);
    assert!(
        tree_state(&root) == before,
        "inbox changed the storage root"
    );
}

/// A server that is running has its database open: the `-wal` and `-shm`
/// are its own, already there, and what it committed to the WAL (not yet
/// copied into the database file) is what a read shows.
#[test]
fn reading_beside_a_running_server_sees_what_it_committed() {
    let (_dir, root) = fixture_root("live root #1");
    let r = root.to_str().unwrap();
    let db = root.join("storage.sqlite3");
    let lists_5 = |out: &str| out.lines().any(|l| l.trim_start().starts_with("5 "));
    assert!(lists_5(&ok(&amail(&["pending", r, "--as", "BlueLake"]))));
    let server = Connection::open(&db).unwrap();
    server
        .execute_batch(
            "PRAGMA wal_autocheckpoint = 0;
             UPDATE message_recipients SET ack_ts = '2026-11-22 04:00:00.000000'
             WHERE message_id = 5 AND agent_id = (SELECT id FROM agents WHERE name = 'BlueLake');",
        )
        .unwrap();
    let wal = root.join("storage.sqlite3-wal");
    assert!(
        fs::metadata(&wal).unwrap().len() > 0,
        "the ack is in the WAL"
    );
    let names = || {
        let mut n: Vec<_> = fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        n.sort();
        n
    };
    let before = (names(), fs::read(&db).unwrap(), fs::read(&wal).unwrap());
    let out = ok(&amail(&["pending", r, "--as", "BlueLake"]));
    assert!(!lists_5(&out), "the ack in the WAL is not seen:\n{out}");
    assert!((names(), fs::read(&db).unwrap(), fs::read(&wal).unwrap()) == before);
    drop(server);
}
