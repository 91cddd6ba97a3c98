//! Triage writes through `MailStore` (issue 14): a new message (`send`)
//! to one agent or several, mark read without acking, and many acks in one
//! batch, in a plain mailbox (the journal) and an mcp_agent_mail store
//! (rows and archive copies, as the server writes them).

use amail_core::stores::{self, Draft, LoadOptions};
use chrono::{TimeZone, Utc};
use rusqlite::Connection;

use crate::support::copy::fixture_copy;
use crate::support::integer_dialect::convert_to_integer_dialect;

fn draft(from: &str, to: &[&str], kind: Option<&str>) -> Draft {
    Draft {
        from: from.into(),
        to: to.iter().map(|s| s.to_string()).collect(),
        kind: kind.map(String::from),
        bead: Some("ol-527.2".into()),
        subject: "follow the spec".into(),
        body: "Refresh tokens last 15 minutes; update the two tests.".into(),
        thread: None,
        importance: None,
        ack_required: true,
    }
}

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 6, 0, 0).unwrap()
}

fn raw(db: &std::path::Path, message: i64, agent: &str) -> (String, String) {
    let c = Connection::open(db).unwrap();
    c.query_row(
        "SELECT quote(r.read_ts), quote(r.ack_ts) FROM message_recipients r
         JOIN agents a ON a.id = r.agent_id WHERE r.message_id = ?1 AND a.name = ?2",
        rusqlite::params![message, agent],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}

fn mcp_send_reaches_rows_and_archive(dir: &std::path::Path) {
    let store = stores::open(dir, &LoadOptions::default()).unwrap();
    let out = store
        .send(
            None,
            &draft("PurpleBear", &["BlueLake", "greencastle"], Some("GUIDANCE")),
            now(),
        )
        .unwrap();
    assert_eq!(
        out.to,
        ["BlueLake", "GreenCastle"],
        "names as the server stores them"
    );
    assert_eq!(out.subject, "[ol-527.2] GUIDANCE: follow the spec");
    assert!(
        out.paths.len() >= 3,
        "canonical, outbox and inbox copies: {:?}",
        out.paths
    );
    for p in &out.paths {
        let text = std::fs::read_to_string(p).unwrap();
        assert!(
            text.contains("Refresh tokens last 15 minutes"),
            "{}",
            p.display()
        );
    }
    let inbox = store.load().unwrap();
    let m = inbox.message_by_key(&out.key).expect("the new row loads");
    assert_eq!(m.message.subject, "[ol-527.2] GUIDANCE: follow the spec");
    assert!(m.message.body.starts_with("GUIDANCE\n"));
    let mut to: Vec<&str> = m.recipients.iter().map(|r| r.agent.as_str()).collect();
    to.sort();
    assert_eq!(to, ["BlueLake", "GreenCastle"]);
    assert!(m.recipients.iter().all(|r| r.ack_at.is_none()));
    // Not an agent of the project: refused, nothing written.
    let before = store.load().unwrap().messages.len();
    let err = store
        .send(None, &draft("Nobody", &["BlueLake"], None), now())
        .unwrap_err()
        .to_string();
    assert!(err.contains("Nobody"), "{err}");
    assert_eq!(store.load().unwrap().messages.len(), before);
}

#[test]
fn mcp_send_text_dialect() {
    let d = fixture_copy();
    mcp_send_reaches_rows_and_archive(d.path());
}

#[test]
fn mcp_send_integer_dialect() {
    let d = fixture_copy();
    convert_to_integer_dialect(&d.path().join("storage.sqlite3"));
    mcp_send_reaches_rows_and_archive(d.path());
}

#[test]
fn mcp_mark_read_sets_read_only_and_acks_go_in_one_batch() {
    let d = fixture_copy();
    let db = d.path().join("storage.sqlite3");
    let store = stores::open(d.path(), &LoadOptions::default()).unwrap();
    let keys = ["5".to_string(), "10".to_string()];
    let read = store.mark_read(None, &keys, "BlueLake", now()).unwrap();
    assert!(read.iter().all(|r| r.changed));
    for id in [5, 10] {
        let (r, a) = raw(&db, id, "BlueLake");
        assert_ne!(r, "NULL");
        assert_eq!(a, "NULL", "read, not acknowledged");
    }
    let again = store.mark_read(None, &keys, "BlueLake", now()).unwrap();
    assert!(again.iter().all(|r| !r.changed));
    // A bad key stops the batch; what came before it is recorded.
    let err = store
        .ack(
            None,
            &["5".into(), "999".into(), "10".into()],
            "BlueLake",
            now(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("999"), "{err}");
    assert_ne!(raw(&db, 5, "BlueLake").1, "NULL");
    assert_eq!(raw(&db, 10, "BlueLake").1, "NULL");
    let acked = store.ack(None, &keys, "BlueLake", now()).unwrap();
    assert_eq!(acked.iter().filter(|a| a.changed).count(), 1);
    assert_ne!(raw(&db, 10, "BlueLake").1, "NULL");
}

#[test]
fn mailbox_send_mark_read_and_ack_many() {
    let d = tempfile::tempdir().unwrap();
    let info = amail::demo::mailbox::write_demo_at(d.path(), now()).unwrap();
    let store = stores::open(&info.mailbox, &LoadOptions::default()).unwrap();
    // Send to several agents: one file in the sender's folder.
    let out = store
        .send(
            None,
            &draft("Overseer", &["BlueLake", "RedFox"], Some("NUDGE")),
            now(),
        )
        .unwrap();
    assert_eq!(out.paths.len(), 1);
    assert!(out.paths[0].starts_with(info.mailbox.join("Overseer")));
    let inbox = store.load().unwrap();
    assert!(inbox.problems.is_empty(), "{:?}", inbox.problems);
    let m = inbox.message_by_key(&out.key).expect("the new file loads");
    assert_eq!(m.message.subject, "[ol-527.2] NUDGE: follow the spec");
    assert_eq!(m.message.from.as_deref(), Some("Overseer"));
    assert_eq!(m.recipients.len(), 2);
    // Mark read: journal lines without an ack; the inbox shows read, owed.
    let journal = info.mailbox.join(".amail-acks.jsonl");
    let before = std::fs::read_to_string(&journal).unwrap();
    let keys: Vec<String> = inbox
        .pending(Some("BlueLake"))
        .iter()
        .map(|p| inbox.messages[p.message].key.to_string())
        .collect();
    assert!(keys.len() >= 2, "{keys:?}");
    let read = store
        .mark_read(Some(&inbox), &keys, "BlueLake", now())
        .unwrap();
    assert!(read.iter().all(|r| r.changed));
    let after = std::fs::read_to_string(&journal).unwrap();
    let added: Vec<serde_json::Value> = after[before.len()..]
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(added.len(), keys.len());
    assert!(added.iter().all(|l| l.get("ack_at").is_none()));
    let reread = store.load().unwrap();
    assert!(reread.problems.is_empty(), "{:?}", reread.problems);
    for k in &keys {
        let r = reread
            .message_by_key(k)
            .unwrap()
            .recipients
            .iter()
            .find(|r| r.agent == "BlueLake")
            .unwrap();
        assert!(r.read_at.is_some() && r.ack_at.is_none(), "{k}");
    }
    assert_eq!(
        reread.pending(Some("BlueLake")).len(),
        keys.len(),
        "still owed"
    );
    // Ack them all: one batch, each pair once; read times kept.
    let acked = store
        .ack(
            Some(&reread),
            &keys,
            "BlueLake",
            now() + chrono::Duration::minutes(5),
        )
        .unwrap();
    assert!(acked.iter().all(|a| a.changed && a.read_at == Some(now())));
    let done = store.load().unwrap();
    assert!(done.pending(Some("BlueLake")).is_empty());
    let again = store.ack(Some(&done), &keys, "BlueLake", now()).unwrap();
    assert!(again.iter().all(|a| !a.changed));
}

/// A new message written from a folder above a mailbox (`amail inbox
/// DIR` after `amail demo DIR`) went into `DIR/<from>/`, outside the
/// mailbox its agents read (`DIR/mail`). It goes into the mailbox of the
/// sender's mail, or of its recipients' when the sender has none (as a
/// reply goes into the mailbox of the message it answers); into the
/// folder named when their mail is in no one mailbox.
#[test]
fn a_message_sent_from_a_folder_above_goes_into_the_mailbox_its_agents_read() {
    let d = tempfile::tempdir().unwrap();
    let info = amail::demo::mailbox::write_demo_at(d.path(), now()).unwrap();
    let mail = info.mailbox.clone();
    assert_ne!(mail, d.path(), "the demo's mailbox is below its folder");
    // A second mailbox with a journal of its own, one agent pair in it.
    let other = d.path().join("other");
    std::fs::create_dir_all(other.join("Lone")).unwrap();
    std::fs::write(other.join(".amail-acks.jsonl"), "").unwrap();
    std::fs::write(
        other.join("Lone/001.md"),
        "Subject: hello\nId: other-1\nFrom: Lone\nTo: Solo\n\nBody:\nhi\n",
    )
    .unwrap();
    let above = stores::open(d.path(), &LoadOptions::default()).unwrap();
    // As the TUI sends: with the inbox it has on screen.
    let send = |from: &str, to: &[&str]| {
        let inbox = above.load().unwrap();
        above
            .send(Some(&inbox), &draft(from, to, Some("NUDGE")), now())
            .unwrap()
            .paths[0]
            .clone()
    };
    // The sender's mail is in the demo's mailbox.
    let p = send("BlueLake", &["GreenCastle"]);
    assert!(p.starts_with(mail.join("BlueLake")), "{}", p.display());
    // No mail of the sender's: its recipients' mailbox.
    let p = send("Overseer", &["Solo"]);
    assert!(p.starts_with(other.join("Overseer")), "{}", p.display());
    let p = send("Lone", &["BlueLake"]);
    assert!(p.starts_with(other.join("Lone")), "{}", p.display());
    // Neither's mail in one mailbox: the folder named, as before.
    let p = send("Stranger", &["Solo", "BlueLake"]);
    assert!(p.starts_with(d.path().join("Stranger")), "{}", p.display());
    // Once the sender has mail in a mailbox, that is its mailbox.
    let p = send("Overseer", &["Solo", "BlueLake"]);
    assert!(p.starts_with(other.join("Overseer")), "{}", p.display());
    // What was sent into the demo's mailbox loads there and from above.
    let below = stores::open(&mail, &LoadOptions::default()).unwrap();
    let inbox = below.load().unwrap();
    assert!(inbox.problems.is_empty(), "{:?}", inbox.problems);
    let sent: Vec<_> = inbox
        .messages
        .iter()
        .filter(|m| m.message.subject.contains("follow the spec"))
        .collect();
    assert_eq!(sent.len(), 1);
    assert!(above.load().unwrap().message_by_key(&sent[0].key).is_some());
}

/// A mailbox file whose sender's name is not UTF-8 (an agent that wrote
/// Latin-1) is read with U+FFFD, and a reply went `To: Blue\u{fffd}Lake`,
/// a name no agent has: written, and read by nobody. A name shown with
/// U+FFFD is not the name as written, so nothing is written to it, a
/// reply or a new message, as a damaged name in an mcp database is
/// refused; the command says so and writes nothing.
#[test]
fn nothing_is_written_to_a_name_that_was_not_utf8() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("ask.md"),
        b"Id: m1\nSubject: [ol-1] HELP_REQUEST\nFrom: Blue\xffLake\nTo: Chiron\nAck-Required: yes\n\nBody:\nProblem: x\nQuestion: y?\n",
    )
    .unwrap();
    let store = stores::open(d.path(), &LoadOptions::default()).unwrap();
    let inbox = store.load().unwrap();
    let err = store
        .reply(Some(&inbox), "m1", "Chiron", "Use z.", now())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("\"Blue\u{fffd}Lake\" was not UTF-8 where it was read"),
        "{err}"
    );
    let err = store
        .send(
            Some(&inbox),
            &draft("Chiron", &["Blue\u{fffd}Lake"], Some("NUDGE")),
            now(),
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("was not UTF-8 where it was read"), "{err}");
    let files = crate::support::walk::files_under(d.path());
    assert_eq!(files, [d.path().join("ask.md")], "nothing written");
}

/// The same family for where a reply goes: a message whose `Thread:` or
/// bead holds a byte that is not UTF-8 is read with U+FFFD, and its reply
/// was written `Thread: t-�1` (or `[ol-�1] HELP_RESPONSE`): in its thread
/// in amail's view, which reads both with U+FFFD, but not for an agent or
/// router that matches the bytes as written, so the answer reached no
/// one's thread and no task. Refused as a damaged name is, naming it; a
/// new message into such a thread too.
#[test]
fn no_reply_is_written_into_a_thread_or_bead_that_was_not_utf8() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("thread.md"),
        b"Id: m1\nThread: t-\xff1\nSubject: [ol-1] HELP_REQUEST\nFrom: BlueLake\nTo: Chiron\n\nBody:\nProblem: x\nQuestion: y?\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("bead.md"),
        b"Id: m2\nSubject: [ol-\xff2] HELP_REQUEST\nFrom: BlueLake\nTo: Chiron\n\nBody:\nProblem: x\nQuestion: y?\n",
    )
    .unwrap();
    let store = stores::open(d.path(), &LoadOptions::default()).unwrap();
    let inbox = store.load().unwrap();
    for (key, said) in [
        (
            "m1",
            "its thread \"t-\u{fffd}1\" was not UTF-8 where it was read",
        ),
        (
            "m2",
            "its bead \"ol-\u{fffd}2\" was not UTF-8 where it was read",
        ),
    ] {
        let err = store
            .reply(Some(&inbox), key, "Chiron", "Use z.", now())
            .unwrap_err()
            .to_string();
        assert!(err.contains(said) && err.contains(key), "{err}");
    }
    // A new message into that thread (the inbox's `c` inside it takes its
    // thread and bead) is the same write.
    let thread = &inbox.thread_for(inbox.message_by_key("m1").unwrap()).id;
    let mut into = draft("Chiron", &["BlueLake"], Some("GUIDANCE"));
    into.thread = Some(thread.clone());
    into.bead = None;
    let err = store
        .send(Some(&inbox), &into, now())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the thread \"t-\u{fffd}1\" was not UTF-8 where it was read"),
        "{err}"
    );
    let mut files = crate::support::walk::files_under(d.path());
    files.sort();
    assert_eq!(
        files,
        [d.path().join("bead.md"), d.path().join("thread.md")],
        "nothing written"
    );
}

/// A draft is judged before the mailbox is read: `send` with no inbox
/// loaded the whole mailbox first (every file, a second on a big one)
/// and only then refused an empty message, and where the mailbox could
/// not be taken (here a folder above an mcp_agent_mail storage root,
/// which the load refuses) said that instead of what was wrong with the
/// draft.
#[test]
fn a_refused_draft_is_refused_before_the_mailbox_is_read() {
    use amail_core::stores::MailStore;
    let d = tempfile::tempdir().unwrap();
    crate::support::fs::copy_dir(
        &crate::support::fixture::fixture(),
        &d.path().join("agent-mail"),
    );
    let store = stores::MailboxStore::new(d.path().to_path_buf(), u64::MAX);
    let mut empty = draft("Chiron", &["BlueLake"], Some("NUDGE"));
    empty.subject = String::new();
    empty.body = "  ".into();
    let err = store.send(None, &empty, now()).unwrap_err().to_string();
    assert!(err.contains("the message is empty"), "{err}");
    // A good draft meets the load's refusal, and nothing is written.
    let before = crate::support::walk::files_under(d.path());
    let err = store
        .send(None, &draft("Chiron", &["BlueLake"], None), now())
        .unwrap_err()
        .to_string();
    assert!(err.contains("mcp_agent_mail storage root"), "{err}");
    assert_eq!(crate::support::walk::files_under(d.path()), before);
}
