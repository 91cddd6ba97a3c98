//! An mcp_agent_mail storage root loads its messages from the database
//! (issue 16): a row's body is parsed as the archive file the server
//! writes for it, and the archive is read only where the database lacks
//! a body. Both paths give the same inbox, on the real server's fixture
//! and on a generated corpus; the archive is really not read where the
//! database has the body.

use std::path::{Path, PathBuf};

use amail::demo::corpus::mcp;
use amail_core::inbox::Inbox;
use amail_core::stores::{self, LoadOptions};
use chrono::{TimeZone, Utc};
use rusqlite::Connection;

use crate::support::copy::fixture_copy;

fn load(root: &Path) -> Inbox {
    stores::load(root, &LoadOptions::default()).unwrap()
}

fn db_of(inbox: &Inbox) -> PathBuf {
    match &inbox.source {
        amail_core::inbox::SourceKind::McpStore { db, .. } => db.clone(),
        other => panic!("not an mcp store: {other:?}"),
    }
}

/// Empties every `body_md`: the loader must take each text from the archive.
fn blank_bodies(db: &Path) {
    let conn = Connection::open(db).unwrap();
    let n = conn
        .execute("UPDATE messages SET body_md = ''", [])
        .unwrap();
    assert!(n > 0);
}

/// Rewrites the body of every canonical archive file.
fn scribble_on_archive(root: &Path) -> usize {
    let mut n = 0;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md")
                && p.components().any(|c| c.as_os_str() == "messages")
                && !p.components().any(|c| c.as_os_str() == "threads")
            {
                let text = std::fs::read_to_string(&p).unwrap();
                let (head, _) = text.split_once("\n---\n").unwrap();
                std::fs::write(
                    &p,
                    format!("{head}\n---\n\nScribbled: not from the database\n"),
                )
                .unwrap();
                n += 1;
            }
        }
    }
    n
}

/// A generated store of `n` messages written as of `now`, in a
/// temporary directory.
fn corpus(n: usize, now: chrono::DateTime<Utc>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    mcp::write_mcp_corpus(dir.path(), n, now).unwrap();
    dir
}

fn check_both_paths(root: &Path) {
    let from_db = load(root);
    assert!(from_db.messages.len() > 1);
    assert!(from_db.messages.iter().all(|m| m.path.is_some()));

    // The database has every body: the archive's text is not read.
    assert!(scribble_on_archive(root) > 0);
    assert_eq!(load(root), from_db, "a body came from the archive");

    // No body in the database: every text comes from the (scribbled) archive.
    blank_bodies(&db_of(&from_db));
    let from_archive = load(root);
    assert!(from_archive
        .messages
        .iter()
        .all(|m| m.message.body.contains("Scribbled")));
}

/// Same inbox with the bodies in the database and only in the archive.
fn check_same_inbox(root: &Path) {
    let from_db = load(root);
    blank_bodies(&db_of(&from_db));
    let from_archive = load(root);
    assert_eq!(from_archive.messages.len(), from_db.messages.len());
    for (a, b) in from_archive.messages.iter().zip(&from_db.messages) {
        assert_eq!(a, b, "message {}", a.key);
    }
    assert_eq!(from_archive, from_db);
}

#[test]
fn fixture_same_inbox_from_database_and_archive() {
    let dir = fixture_copy();
    check_same_inbox(dir.path());
}

#[test]
fn corpus_same_inbox_from_database_and_archive() {
    let dir = corpus(440, Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap());
    check_same_inbox(dir.path());
}

#[test]
fn archive_read_only_where_the_database_lacks_a_body() {
    let dir = corpus(220, Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap());
    check_both_paths(dir.path());
}

/// The TUI's status bar counts an mcp root's load as it goes, as it does a
/// plain mailbox's: from nothing to every message, never backwards, and
/// the inbox is the plain load's.
#[test]
fn an_mcp_load_reports_its_progress() {
    let dir = corpus(440, Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap());
    // Half the rows without a body: both the archive reads and the row
    // parses are counted.
    let plain = load(dir.path());
    let conn = Connection::open(db_of(&plain)).unwrap();
    conn.execute("UPDATE messages SET body_md = '' WHERE id % 2 = 0", [])
        .unwrap();
    drop(conn);
    let plain = load(dir.path());
    let store = stores::open(dir.path(), &LoadOptions::default()).unwrap();
    let seen = std::sync::Mutex::new(Vec::new());
    let inbox = store
        .load_with_progress(&|done, total| seen.lock().unwrap().push((done, total)))
        .unwrap();
    assert_eq!(inbox, plain);
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.first().map(|s| s.0), Some(0), "{seen:?}");
    let &(done, total) = seen.last().unwrap();
    assert_eq!(done, total, "{seen:?}");
    assert!(total >= plain.messages.len(), "{seen:?}");
    assert!(seen.len() > 2, "counted as it went: {seen:?}");
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "{seen:?}");
}

/// A row with its body in the database whose canonical file is not named
/// by its id (renamed by hand, or another writer's naming): the file is
/// read (nothing in its name says whose it is), claims the row's id by its
/// front matter, and gives the message its path; the text is still the
/// database's, and the inbox is the one the server's naming gives.
#[test]
fn a_file_not_named_by_its_id_gives_its_row_its_path() {
    let dir = corpus(60, Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap());
    let named = load(dir.path());
    let m = named
        .messages
        .iter()
        .find(|m| m.path.is_some())
        .expect("a message with its file");
    let (key, path) = (m.key.to_string(), m.path.as_deref().unwrap().to_path_buf());
    // `<ISO>__<slug>__<id>.md` -> `<ISO>__<slug>.md`: no id in the name.
    let name = path.file_name().unwrap().to_str().unwrap();
    let (stem, _) = name.rsplit_once("__").unwrap();
    let renamed = path.with_file_name(format!("{stem}.md"));
    std::fs::rename(&path, &renamed).unwrap();

    let inbox = load(dir.path());
    let m = inbox.message_by_key(&key).expect("the row's message");
    assert_eq!(
        m.path.as_deref(),
        Some(renamed.as_path()),
        "its file's path"
    );
    let before = named.message_by_key(&key).unwrap();
    assert_eq!(m.message.body, before.message.body, "the database's text");
    assert_eq!(
        inbox.messages.len(),
        named.messages.len(),
        "no message twice"
    );
    assert!(
        !inbox.problems.iter().any(|(p, _)| p == &renamed),
        "{:?}",
        inbox.problems
    );
}

/// The fixture's copy with `sql` run on its database (a tool other than
/// the server writing bytes that are not UTF-8): the copy, its inbox
/// before, and its database.
fn damaged(sql: &str) -> (tempfile::TempDir, Inbox, PathBuf) {
    let dir = fixture_copy();
    let clean = load(dir.path());
    let db = db_of(&clean);
    Connection::open(&db).unwrap().execute_batch(sql).unwrap();
    (dir, clean, db)
}

/// The problems `inbox` names in `db`, sorted.
fn named_for<'a>(inbox: &'a Inbox, db: &Path) -> Vec<&'a str> {
    let mut named: Vec<&str> = inbox
        .problems
        .iter()
        .filter(|(p, _)| p == db)
        .map(|(_, why)| why.as_str())
        .collect();
    named.sort_unstable();
    named
}

/// A row whose text holds a byte that is not UTF-8 (a tool other than the
/// server wrote it: SQLite stores what it is given) failed the whole
/// load, "invalid utf-8 sequence of 1 bytes from index 23 at index 5",
/// naming neither the message nor the column: one bad row hid every
/// other message. It loads as a file that is not UTF-8 does, its bad
/// bytes U+FFFD, and is named among the problems; the others as before.
#[test]
fn a_row_whose_text_is_not_utf8_spoils_only_itself() {
    // Message 3's body and message 5's subject, each with a stray byte.
    let (dir, clean, db) = damaged(
        "UPDATE messages SET body_md = CAST(body_md || x'ff' || ' after' AS TEXT) WHERE id = 3;
         UPDATE messages SET subject = CAST(x'c3' || subject AS TEXT) WHERE id = 5;",
    );
    let inbox = load(dir.path());
    assert_eq!(inbox.messages.len(), clean.messages.len());
    let body = |inbox: &Inbox, key: &str| {
        let m = inbox.messages.iter().find(|m| m.key == key).unwrap();
        m.message.full().body.clone()
    };
    assert!(
        body(&inbox, "3").ends_with("\u{fffd} after"),
        "{}",
        body(&inbox, "3")
    );
    let subject = &inbox
        .messages
        .iter()
        .find(|m| m.key == "5")
        .unwrap()
        .message;
    assert!(subject.full().subject.starts_with('\u{fffd}'));
    assert_eq!(body(&inbox, "4"), body(&clean, "4"));
    let named = named_for(&inbox, &db);
    assert_eq!(
        named,
        [
            "message 3: its body_md is not UTF-8; read with U+FFFD in place of the bad bytes",
            "message 5: its subject is not UTF-8; read with U+FFFD in place of the bad bytes",
        ],
        "{:?}",
        inbox.problems
    );
    // Answered as it is shown: the help request whose subject was damaged.
    let root = dir.path().to_str().unwrap();
    let out = crate::support::cli::amail(
        &[
            "reply",
            "5",
            root,
            "--as",
            "BlueLake",
            "--body",
            "Use the index.",
        ],
        None,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let after = load(dir.path());
    assert_eq!(after.messages.len(), clean.messages.len() + 1, "{err}");
}

/// The same family for the names a row is read with and its words: an
/// agent's name, a recipient's kind or a message's importance holding a
/// byte that is not UTF-8 failed the whole load ("Invalid column type
/// Text at index: 3, name: name"), so one damaged agent row hid every
/// message. Each is read with U+FFFD, and every message using it is named
/// among the problems; the others load as before.
#[test]
fn a_row_whose_names_or_words_are_not_utf8_spoils_only_itself() {
    // PurpleBear (agent 3) sends messages 2, 4, 5, 9 and 10 and receives
    // 7; message 6's importance; message 11's recipient's kind.
    let (dir, clean, db) = damaged(
        "UPDATE agents SET name = CAST(name || x'ff' AS TEXT) WHERE id = 3;
         UPDATE messages SET importance = CAST(x'c3' AS TEXT) WHERE id = 6;
         UPDATE message_recipients SET kind = CAST('t' || x'e2' AS TEXT)
             WHERE message_id = 11;",
    );
    let inbox = load(dir.path());
    assert_eq!(inbox.messages.len(), clean.messages.len());
    let from = |key: &str| {
        let m = inbox.messages.iter().find(|m| m.key == key).unwrap();
        m.message.full().from.clone().unwrap_or_default()
    };
    assert_eq!(from("2"), "PurpleBear\u{fffd}");
    assert_eq!(from("1"), "GreenCastle");
    let named = named_for(&inbox, &db);
    let bad = |id: u32, what: &str| {
        format!("message {id}: its {what} is not UTF-8; read with U+FFFD in place of the bad bytes")
    };
    assert_eq!(
        named,
        [
            bad(10, "sender's name"),
            bad(11, "recipient's kind"),
            bad(2, "sender's name"),
            bad(4, "sender's name"),
            bad(5, "sender's name"),
            bad(6, "importance"),
            bad(7, "recipient's name"),
            bad(9, "sender's name"),
        ],
        "{:?}",
        inbox.problems
    );
    // Shown, never written: a reply to the damaged sender fails, and
    // nothing is added.
    let root = dir.path().to_str().unwrap();
    let out = crate::support::cli::amail(
        &["reply", "2", root, "--as", "BlueLake", "--body", "Noted."],
        None,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("its sender's name \"PurpleBear\u{fffd}\" was not UTF-8 in the database"),
        "{err}"
    );
    assert_eq!(load(dir.path()).messages.len(), clean.messages.len());
    // An ack as the name shown (the inbox's way) is refused naming it; as
    // the name typed, the recipients are listed as they are shown.
    let ack = |agent: &str| crate::support::cli::amail(&["ack", "7", root, "--as", agent], None);
    for (agent, said) in [
        (
            "PurpleBear\u{fffd}",
            "the recipient's name \"PurpleBear\u{fffd}\" was not UTF-8",
        ),
        ("PurpleBear", "(recipients: PurpleBear\u{fffd})"),
    ] {
        let out = ack(agent);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(said), "{err}");
    }
    let conn = Connection::open(&db).unwrap();
    let unset: i64 = conn
        .query_row(
            "SELECT count(*) FROM message_recipients WHERE message_id = 7 AND ack_ts IS NULL
                 AND read_ts IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(unset, 1, "nothing acked");
}

/// A row's thread or topic holding a byte that is not UTF-8 loads with
/// U+FFFD (named among the problems), and its reply was stored with the
/// thread as shown: a thread id no message of the original's thread has,
/// so the server's thread view and the agents that read it never saw the
/// answer beside its question. Refused naming it, nothing written.
#[test]
fn no_reply_is_written_into_a_thread_that_was_not_utf8_in_the_database() {
    let (dir, clean, _db) =
        damaged("UPDATE messages SET thread_id = CAST(thread_id || x'ff' AS TEXT) WHERE id = 8;");
    let inbox = load(dir.path());
    assert_eq!(inbox.messages.len(), clean.messages.len());
    let root = dir.path().to_str().unwrap();
    let out = crate::support::cli::amail(
        &["reply", "8", root, "--as", "BlueLake", "--body", "Merging."],
        None,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("its thread \"ol-527.1\u{fffd}\" was not UTF-8 in the database"),
        "{err}"
    );
    assert_eq!(load(dir.path()).messages.len(), clean.messages.len());
}
