//! The inbox over a plain mailbox: the demo generator, threads, help state,
//! the roster, the ack journal, replies as new files, problems, stdin JSON.

use std::collections::BTreeSet;
use std::path::Path;

use amail::demo::mailbox as demo;
use amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES as MAX;
use amail_core::inbox::{self, AgentState, HelpState, Inbox, SourceKind};
use amail_core::stores::{self, LoadOptions};
use amail_parser::MessageType;
use chrono::{TimeZone, Utc};

use crate::support::cli::amail;
use crate::support::fixture::fixture;

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap()
}

fn demo_inbox() -> (tempfile::TempDir, Inbox) {
    let d = tempfile::tempdir().unwrap();
    let info = demo::write_demo_at(d.path(), now()).unwrap();
    assert_eq!(info.mailbox, d.path().join("mail"));
    let inbox = stores::load(&info.mailbox, &LoadOptions::default()).unwrap();
    assert!(inbox.problems.is_empty(), "{:?}", inbox.problems);
    (d, inbox)
}

fn thread<'a>(inbox: &'a Inbox, id: &str) -> &'a amail_core::inbox::Thread {
    inbox.threads.iter().find(|t| t.id == id).unwrap()
}

fn agent<'a>(inbox: &'a Inbox, name: &str) -> &'a amail_core::inbox::Agent {
    inbox.agents.iter().find(|a| a.name == name).unwrap()
}

#[test]
fn demo_covers_every_view() {
    let (_d, inbox) = demo_inbox();
    assert!(matches!(inbox.source, SourceKind::Mailbox { .. }));
    // Every message type, at least 4 agents and 6 beads.
    let types: BTreeSet<MessageType> = inbox.messages.iter().map(|m| m.message.kind).collect();
    for t in MessageType::KNOWN {
        assert!(types.contains(&t), "no {t} in the demo");
    }
    assert!(inbox.agents.len() >= 4);
    let beads: BTreeSet<&str> = inbox
        .threads
        .iter()
        .filter_map(|t| t.bead.map(|b| b.as_str()))
        .collect();
    assert!(beads.len() >= 6, "{beads:?}");
    // Parsed cleanly: no warnings from the parser on any demo message.
    for m in &inbox.messages {
        assert!(
            m.message.kind == MessageType::Unknown || m.message.warnings().next().is_none(),
            "{}: {:?}",
            m.key,
            m.message.diagnostics
        );
    }
    // Help: one answered, one not; answered is not acknowledged.
    assert_eq!(thread(&inbox, "ol-527.2").help, HelpState::Answered);
    assert_eq!(thread(&inbox, "ol-527.3").help, HelpState::Unanswered);
    // Pending acks per recipient: the cc'd orchestrator never acked the
    // answered help request; the helper did.
    let pending: Vec<(String, String)> = inbox
        .pending(None)
        .iter()
        .map(|p| (inbox.messages[p.message].key.to_string(), p.agent.clone()))
        .collect();
    assert_eq!(
        pending,
        [
            ("demo-07".to_string(), "BlueLake".to_string()),
            ("demo-11".to_string(), "Chiron".to_string()),
            ("demo-17".to_string(), "BlueLake".to_string()),
        ]
    );
    let seven = inbox.message_by_key("demo-07").unwrap();
    let chiron = seven
        .recipients
        .iter()
        .find(|r| r.agent == "Chiron")
        .unwrap();
    assert!(chiron.ack_at.is_some());
    // Roster states.
    assert_eq!(agent(&inbox, "GreenCastle").state, AgentState::Failed);
    assert_eq!(
        agent(&inbox, "GreenCastle").bead.as_deref(),
        Some("ol-527.5")
    );
    assert_eq!(agent(&inbox, "RedStone").state, AgentState::WaitingForHelp);
    assert_eq!(agent(&inbox, "SilverFox").state, AgentState::Checkpointed);
    assert_eq!(agent(&inbox, "PurpleBear").state, AgentState::Working);
    assert_eq!(
        agent(&inbox, "PurpleBear").bead.as_deref(),
        Some("ol-527.6")
    );
    assert_eq!(agent(&inbox, "BlueLake").state, AgentState::Idle);
    // Non-ASCII survives.
    assert!(inbox
        .messages
        .iter()
        .any(|m| m.message.body.contains("日本語") || m.message.subject.contains("日本語")));
    // Time order, oldest first; threads most recent first.
    assert!(inbox
        .messages
        .windows(2)
        .all(|w| w[0].message.timestamp <= w[1].message.timestamp));
    assert!(inbox
        .threads
        .windows(2)
        .all(|w| w[0].last_at >= w[1].last_at));
    assert!(inbox
        .messages
        .iter()
        .all(|m| m.message.timestamp.unwrap() < now()));
}

#[test]
fn demo_is_deterministic_for_a_fixed_clock() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    demo::write_demo_at(a.path(), now()).unwrap();
    demo::write_demo_at(b.path(), now()).unwrap();
    let (files, _) = amail_core::source::walk::walk(&a.path().join("mail")).into_parts();
    assert!(files.len() >= 20);
    for f in files {
        let rel = f.strip_prefix(a.path()).unwrap();
        assert_eq!(
            std::fs::read(&f).unwrap(),
            std::fs::read(b.path().join(rel)).unwrap(),
            "{}",
            rel.display()
        );
    }
    assert_eq!(
        std::fs::read(a.path().join("mail/.amail-acks.jsonl")).unwrap(),
        std::fs::read(b.path().join("mail/.amail-acks.jsonl")).unwrap()
    );
    // It never writes over an existing mailbox.
    assert!(demo::write_demo_at(a.path(), now()).is_err());
    // More waves, more mail (issue 6 scales this).
    let c = tempfile::tempdir().unwrap();
    let info = demo::write_demo_waves(c.path(), now(), 3).unwrap();
    assert_eq!(info.messages, 66);
    assert!(info.beads.len() >= 18);
}

#[test]
fn ack_journal_appends_once_and_checks_recipients() {
    let (d, _) = demo_inbox();
    let mail = d.path().join("mail");
    let m = mail.to_str().unwrap();
    let journal = mail.join(".amail-acks.jsonl");
    let before = std::fs::read_to_string(&journal).unwrap();
    let out = amail(&["ack", "demo-17", m, "--as", "BlueLake"], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = std::fs::read_to_string(&journal).unwrap();
    assert!(after.starts_with(&before), "append-only");
    let added: Vec<&str> = after[before.len()..].lines().collect();
    assert_eq!(added.len(), 1);
    let line: serde_json::Value = serde_json::from_str(added[0]).unwrap();
    assert_eq!(line["key"], "demo-17");
    assert_eq!(line["agent"], "BlueLake");
    // Twice: nothing changes.
    let out = amail(&["ack", "demo-17", m, "--as", "BlueLake"], None);
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), after);
    // Not a recipient: bad input (issue 12 item 11; was 2).
    let out = amail(&["ack", "demo-17", m, "--as", "RedStone"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("recipients: BlueLake"));
    let inbox = stores::load(&mail, &LoadOptions::default()).unwrap();
    assert!(!inbox
        .message_by_key("demo-17")
        .unwrap()
        .is_pending_for("BlueLake"));
    assert_eq!(inbox.pending(Some("BlueLake")).len(), 1);
}

#[test]
fn reply_in_a_mailbox_is_a_new_help_response_file() {
    let (d, before) = demo_inbox();
    let mail = d.path().join("mail");
    let out = amail(
        &["reply", "demo-11", mail.to_str().unwrap(), "--as", "Chiron"],
        Some("Ask Dana in #payments for a CI sandbox key; meanwhile mock the provider.\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let inbox = stores::load(&mail, &LoadOptions::default()).unwrap();
    assert!(inbox.problems.is_empty(), "{:?}", inbox.problems);
    assert_eq!(inbox.messages.len(), before.messages.len() + 1);
    let t = thread(&inbox, "ol-527.3");
    assert_eq!(t.help, HelpState::Answered);
    let reply = &inbox.messages[*t.messages.last().unwrap()];
    assert_eq!(reply.message.kind, MessageType::HelpResponse);
    assert_eq!(reply.message.from.as_deref(), Some("Chiron"));
    assert_eq!(reply.message.to, ["RedStone"]);
    assert!(reply.message.body.contains("sandbox key"));
    // Answered is not acknowledged.
    assert!(inbox
        .message_by_key("demo-11")
        .unwrap()
        .is_pending_for("Chiron"));
    assert_eq!(agent(&inbox, "RedStone").state, AgentState::Working);
    // Every earlier file is untouched.
    for m in &before.messages {
        let p = m.path.as_ref().unwrap();
        assert!(p.exists());
    }
}

#[test]
fn bad_files_are_problems_and_the_rest_loads() {
    let (d, before) = demo_inbox();
    let mail = d.path().join("mail");
    std::fs::write(mail.join("binary.md"), b"\x00\x01\x02PNG").unwrap();
    std::fs::write(mail.join("picture.png"), b"\x89PNG\x00").unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(mail.join(".amail-acks.jsonl"))
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"{\"key\": \"torn"))
        .unwrap();
    let inbox = stores::load(&mail, &LoadOptions::default()).unwrap();
    assert_eq!(inbox.messages.len(), before.messages.len());
    let why: Vec<String> = inbox
        .problems
        .iter()
        .map(|(p, w)| format!("{}: {w}", p.display()))
        .collect();
    assert_eq!(why.len(), 2, "{why:?}");
    assert!(why
        .iter()
        .any(|w| w.contains("binary.md") && w.contains("binary")));
    assert!(why
        .iter()
        .any(|w| w.contains(".amail-acks.jsonl") && w.contains("not an ack record")));
    // An ack after a torn line still lands on a line of its own.
    let out = amail(
        &["ack", "demo-17", mail.to_str().unwrap(), "--as", "BlueLake"],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let inbox = stores::load(&mail, &LoadOptions::default()).unwrap();
    assert!(!inbox
        .message_by_key("demo-17")
        .unwrap()
        .is_pending_for("BlueLake"));
}

/// A line of the ack journal that is not a record was "line 3: not an
/// ack record (expected value at line 1 column 1)": a line, and a place
/// counted in the line as if it were the file. It is now named by the
/// file's line and column as every other place is, and a line that is
/// not UTF-8 by the byte's.
#[test]
fn a_bad_journal_line_is_named_by_line_and_column() {
    let (d, _) = demo_inbox();
    let mail = d.path().join("mail");
    let journal = mail.join(".amail-acks.jsonl");
    let lines = std::fs::read_to_string(&journal).unwrap().lines().count();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"?? not json\n{\"key\": \"a\xff\"}\n"))
        .unwrap();
    let inbox = stores::load(&mail, &LoadOptions::default()).unwrap();
    let why: Vec<&str> = inbox
        .problems
        .iter()
        .filter(|(p, _)| *p == journal)
        .map(|(_, w)| w.as_str())
        .collect();
    assert_eq!(
        why,
        [
            format!(
                "{}:1: not an ack record: expected value; skipped",
                lines + 1
            ),
            format!(
                "{}:11: not an ack record: invalid UTF-8 (byte 0xff); skipped",
                lines + 2
            ),
        ]
    );
}

#[test]
fn stdin_json_in_both_fetch_inbox_shapes() {
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture().join("tool_results.json")).unwrap())
            .unwrap();
    let fetch = results
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tool"] == "fetch_inbox")
        .unwrap();
    let wrapped = serde_json::to_string(&fetch["result"]).unwrap();
    let bare = serde_json::to_string(&fetch["result"]["result"]).unwrap();
    for doc in [wrapped, bare] {
        let inbox = stores::load_json_as(doc.as_bytes(), Some("BlueLake")).unwrap();
        assert_eq!(inbox.source, SourceKind::Stdin);
        assert_eq!(inbox.messages.len(), 9);
        let t = thread(&inbox, "ol-527.2");
        assert_eq!(t.messages.len(), 5);
        let mut keys: Vec<&str> = inbox
            .pending(Some("BlueLake"))
            .iter()
            .map(|p| inbox.messages[p.message].key.as_str())
            .collect();
        keys.sort();
        // fetch_inbox carries no ack state: every ack-required message shows.
        assert_eq!(keys, ["10", "5", "8"]);
        let out = amail(&["pending", "-", "--as", "BlueLake", "--json"], Some(&doc));
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 3);
    }
    // Writing to stdin input is refused clearly.
    let err = stores::ack(&SourceKind::Stdin, &["5".into()], "BlueLake", MAX).unwrap_err();
    assert!(err.to_string().contains("read-only"));
}

#[test]
fn threads_and_pending_commands_print_json() {
    let (d, _) = demo_inbox();
    let mail = d.path().join("mail");
    let out = amail(&["threads", mail.to_str().unwrap(), "--json"], None);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["thread_id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"ol-527.3"));
    let out = amail(
        &[
            "pending",
            mail.to_str().unwrap(),
            "--as",
            "Chiron",
            "--json",
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["id"], "demo-11");
    assert_eq!(v[0]["type"], "HELP_REQUEST");
    // No such source: a clear error, exit 1.
    let out = amail(&["threads", "/no/such/dir"], None);
    assert_eq!(out.status.code(), Some(1));
    for cmd in ["threads", "pending", "ack", "reply", "demo"] {
        let out = amail(&[cmd, "--help"], None);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Example"),
            "{cmd} --help has an example"
        );
    }
    let _ = Path::new("");
}

#[test]
fn concurrent_acks_are_recorded_once() {
    let (d, _) = demo_inbox();
    let mail = d.path().join("mail");
    let journal = mail.join(".amail-acks.jsonl");
    let before = std::fs::read_to_string(&journal).unwrap().lines().count();
    let children: Vec<_> = (0..4)
        .map(|_| {
            std::process::Command::new(env!("CARGO_BIN_EXE_amail"))
                .args(["ack", "demo-17", mail.to_str().unwrap(), "--as", "BlueLake"])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let after = std::fs::read_to_string(&journal).unwrap().lines().count();
    assert_eq!(after, before + 1);
}

#[test]
fn loaded_inbox_ack_and_reply() {
    let (_d, inbox) = demo_inbox();
    let out = stores::ack_loaded(&inbox, &["demo-11".to_string()], "Chiron").unwrap();
    assert!(out[0].changed);
    let again = stores::ack_loaded(&inbox, &["demo-11".to_string()], "Chiron").unwrap();
    assert!(
        !again[0].changed,
        "the journal, not the stale inbox, decides"
    );
    assert_eq!(again[0].ack_at, out[0].ack_at);
    let r = stores::reply_loaded(&inbox, "demo-11", "Chiron", "Mock the provider.").unwrap();
    assert_eq!(r.to, ["RedStone"]);
    assert_eq!(r.thread, "ol-527.3");
    assert_eq!(r.subject, "[ol-527.3] HELP_RESPONSE");
    let text = std::fs::read_to_string(&r.paths[0]).unwrap();
    assert!(text.starts_with("Subject: [ol-527.3] HELP_RESPONSE\n"));
    assert!(text.contains("\nTo: RedStone\n") && text.contains("\nThread: ol-527.3\n"));
}

#[test]
fn demo_command_without_dir_uses_a_fresh_folder_under_the_data_dir() {
    let home = tempfile::tempdir().unwrap();
    let run = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_amail"))
            .arg("demo")
            .env("AMAIL_HOME", home.path())
            .output()
            .unwrap()
    };
    let first = run();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let second = run();
    assert!(second.status.success());
    let dirs: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 2, "each run gets its own folder: {dirs:?}");
    let stdout = String::from_utf8_lossy(&first.stdout);
    for d in &dirs {
        assert!(d.join("mail/.amail-acks.jsonl").exists());
    }
    assert!(
        dirs.iter()
            .any(|d| stdout.contains(&d.join("mail").display().to_string())),
        "{stdout}"
    );
    // The printed mailbox loads.
    let inbox = stores::load(&dirs[0].join("mail"), &LoadOptions::default()).unwrap();
    assert!(inbox.messages.len() >= 20);
}

#[test]
fn assemble_derives_like_load() {
    let text = "Subject: [b-1] HELP_REQUEST\nFrom: W\nTo: O\nAck-Required: true\nDate: 2026-01-01T10:00:00Z\n\nBody:\nBead: b-1\nIssue Type: STUCK\n";
    let reply = "Subject: Re: [b-1] HELP_REQUEST\nFrom: O\nTo: W\nDate: 2026-01-01T10:05:00Z\n\nBody:\nTry again.\n";
    let msgs: Vec<amail_core::inbox::InboxMessage> = [("r", reply), ("h", text)]
        .into_iter()
        .map(|(key, t)| {
            let m = amail_parser::parse(t, &Default::default())
                .unwrap()
                .remove(0)
                .into_owned();
            let recipients =
                m.to.iter()
                    .map(|a| amail_core::inbox::Recipient {
                        agent: amail_core::inbox::intern(a),
                        kind: amail_core::inbox::RecipientKind::To,
                        read_at: None,
                        ack_at: None,
                    })
                    .collect();
            amail_core::inbox::InboxMessage {
                key: key.into(),
                message: m.into(),
                path: None,
                project: None,
                recipients,
                thread_from_end: 99,
            }
        })
        .collect();
    let inbox = inbox::assemble(SourceKind::Stdin, msgs, vec![]);
    assert_eq!(inbox.threads.len(), 1);
    assert_eq!(inbox.threads[0].id, "b-1");
    assert_eq!(inbox.threads[0].help, HelpState::Answered);
    assert_eq!(inbox.messages[0].key, "h", "oldest first");
    assert!(inbox.messages.iter().all(|m| inbox.thread_index(m) == 0));
    assert_eq!(inbox.agent("W").unwrap().state, AgentState::Working);
    assert_eq!(inbox.thread_of(1).unwrap().id, "b-1");
}

#[test]
fn a_reply_threaded_on_a_seed_id_joins_the_seed_thread() {
    // The server threads a reply to a thread-less message under the
    // original's id; the original itself is grouped by its bead.
    let seed = "Subject: [b-9] HELP_REQUEST\nId: 20\nFrom: W\nTo: O\nDate: 2026-01-01T10:00:00Z\n\nBody:\nBead: b-9\nIssue Type: STUCK\n";
    let reply = "Subject: Re: [b-9] HELP_REQUEST\nId: 21\nFrom: O\nTo: W\nThread: 20\nDate: 2026-01-01T10:05:00Z\n\nBody:\nHELP_RESPONSE\n\nTry again.\n";
    let other = "Subject: PROGRESS\nId: 22\nFrom: X\nTo: O\nThread: 20x\nDate: 2026-01-01T10:06:00Z\n\nBody:\nStep: 1\n";
    let msgs = [seed, reply, other]
        .into_iter()
        .map(|t| {
            let m = amail_parser::parse(t, &Default::default())
                .unwrap()
                .remove(0)
                .into_owned();
            amail_core::inbox::InboxMessage {
                key: m.id.as_deref().unwrap().into(),
                message: m.into(),
                path: None,
                project: None,
                recipients: Default::default(),
                thread_from_end: 0,
            }
        })
        .collect();
    let inbox = inbox::assemble(SourceKind::Stdin, msgs, vec![]);
    let ids: Vec<(&str, usize)> = inbox
        .threads
        .iter()
        .map(|t| (t.id.as_str(), t.messages.len()))
        .collect();
    assert!(ids.contains(&("b-9", 2)), "{ids:?}");
    assert!(ids.contains(&("20x", 1)), "{ids:?}");
    assert_eq!(
        inbox.threads.iter().find(|t| t.id == "b-9").unwrap().help,
        HelpState::Answered
    );
}

#[test]
fn demo_mail_is_routed_into_a_store_beside_it() {
    let d = tempfile::tempdir().unwrap();
    let info = demo::write_demo_at(d.path(), now()).unwrap();
    assert_eq!(info.store, d.path().join("store"));
    let tasks = amail_core::router::Store::open(&info.store)
        .unwrap()
        .list()
        .unwrap();
    let beads: Vec<String> = tasks.iter().filter_map(|t| t.bead.clone()).collect();
    // One task per bead of the mail; the others are the handoff and A2A
    // files' own, routed as `amail route DIR/mail` routes them.
    for bead in &info.beads {
        let n = beads.iter().filter(|b| *b == bead).count();
        assert_eq!(n, 1, "one task for {bead}: {beads:?}");
    }
    for file in ["handoffs:", "a2a:"] {
        assert!(beads.iter().any(|b| b.starts_with(file)), "{beads:?}");
    }
    let status = |b: &str| {
        tasks
            .iter()
            .find(|t| t.bead.as_deref() == Some(b))
            .unwrap()
            .status
    };
    assert_eq!(status("ol-527.3"), "blocked", "BLOCKED help request");
    assert_eq!(status("ol-527.5"), "blocked", "FAILED");
    assert_eq!(status("ol-527.1"), "review", "OFFERING_READY");
}
