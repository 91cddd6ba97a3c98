//! A folder above a mailbox, named as the SOURCE (`amail pending DIR`
//! after `amail demo DIR`, whose mailbox is `DIR/mail`): the acks in
//! `DIR/mail`'s journal were not read, so messages acked there showed as
//! owed, and an ack made from `DIR` went into a journal of `DIR` that
//! `DIR/mail` never reads: the two views of the same messages disagreed
//! for good. A message's acks are its own mailbox's journal's (the
//! nearest one above it), whichever folder above that is named.

use std::fs;
use std::path::Path;

use super::fx::{stderr, stdout, Fx};
use crate::support::pending::id_agent_pairs;

/// `pending SOURCE --json` as sorted (id, agent) pairs.
fn owed(fx: &Fx, source: &Path) -> Vec<(String, String)> {
    let out = fx.run(&["pending", source.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut pairs = id_agent_pairs(&stdout(&out));
    pairs.sort();
    pairs
}

/// A HELP_REQUEST from W to O about `bead`, with `Id: ID` when given,
/// written at `path` beside an (empty) ack journal of its folder's.
fn help_in_mailbox(path: &Path, bead: &str, id: Option<&str>) {
    let id = id.map(|id| format!("Id: {id}\n")).unwrap_or_default();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(
        path,
        format!("Subject: [{bead}] HELP_REQUEST\n{id}From: W\nTo: O\nAck-Required: true\n\nBody:\nBead: {bead}\nIssue Type: STUCK\n"),
    )
    .unwrap();
    fs::write(path.with_file_name(".amail-acks.jsonl"), "").unwrap();
}

fn ack(fx: &Fx, source: &Path, (id, agent): &(String, String)) {
    let out = fx.run(&["ack", id, source.to_str().unwrap(), "--as", agent]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_mailbox_named_from_a_folder_above_it_keeps_its_own_acks() {
    let fx = Fx::new();
    let dir = fx.demo();
    let mail = dir.join("mail");
    // The demo's own journal acks some of its messages: read from above
    // as from the mailbox.
    let before = owed(&fx, &mail);
    assert!(before.len() >= 2, "{before:?}");
    assert_eq!(owed(&fx, &dir), before);

    // An ack made from above goes into the mailbox's journal, and both
    // views see it.
    ack(&fx, &dir, &before[0]);
    assert!(
        !dir.join(".amail-acks.jsonl").exists(),
        "a journal above the mailbox"
    );
    let after = owed(&fx, &mail);
    assert!(!after.contains(&before[0]), "{after:?}");
    assert_eq!(owed(&fx, &dir), after);

    // An ack made in the mailbox is seen from above.
    ack(&fx, &mail, &after[0]);
    let last = owed(&fx, &mail);
    assert!(!last.contains(&after[0]), "{last:?}");
    assert_eq!(owed(&fx, &dir), last);

    // A message beside the mailbox, in the folder named, is that
    // folder's: its ack goes into a journal there, not the mailbox's.
    super::fx::write_help_request(&dir, "beside.md", "beside-1", "Boss");
    let pair = ("beside-1".to_string(), "Boss".to_string());
    assert!(owed(&fx, &dir).contains(&pair));
    let journal = fs::read_to_string(mail.join(".amail-acks.jsonl")).unwrap();
    ack(&fx, &dir, &pair);
    assert!(!owed(&fx, &dir).contains(&pair));
    assert!(dir.join(".amail-acks.jsonl").exists());
    assert_eq!(
        fs::read_to_string(mail.join(".amail-acks.jsonl")).unwrap(),
        journal
    );
    assert_eq!(owed(&fx, &mail), last);
}

/// A reply made from a folder above the mailbox went into `DIR/replies/`,
/// outside the mailbox the agents read (`DIR/mail`): it goes into the
/// mailbox of the message it answers, by the same rule as its acks.
#[test]
fn a_reply_made_from_a_folder_above_goes_into_the_mailbox_it_answers() {
    let fx = Fx::new();
    let dir = fx.demo();
    let mail = dir.join("mail");
    let (id, agent) = owed(&fx, &mail)
        .into_iter()
        .next()
        .expect("the demo owes an ack");
    let out = fx.run(&[
        "reply",
        &id,
        dir.to_str().unwrap(),
        "--as",
        &agent,
        "--body",
        "On it.",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!dir.join("replies").exists(), "a reply beside the mailbox");
    let replies: Vec<_> = fs::read_dir(mail.join("replies")).unwrap().collect();
    assert_eq!(replies.len(), 1, "{replies:?}");
    let said = stdout(&fx.run(&["parse", mail.join("replies").to_str().unwrap()]));
    assert!(said.contains("On it."), "{said}");
}

/// A message with no `Id:` is keyed by its path from the folder named
/// (`mail/help.md` from above, `help.md` from the mailbox): an ack made
/// from above went into the mailbox's journal under the key from above,
/// which the mailbox's own view never matched (still owed there), and
/// an ack made in the mailbox was not seen from above. The journal of a
/// mailbox holds its own keys, whichever folder the ack was made from.
#[test]
fn a_message_keyed_by_its_path_keeps_its_acks_from_above_and_below() {
    let fx = Fx::new();
    let dir = fx.path("team");
    let mail = dir.join("mail");
    // The mailbox has a journal of its own.
    help_in_mailbox(&mail.join("one.md"), "b-2", None);
    help_in_mailbox(&mail.join("two.md"), "b-1", None);
    let pair = |id: &str| (id.to_string(), "O".to_string());
    assert_eq!(owed(&fx, &mail), vec![pair("one.md"), pair("two.md")]);
    assert_eq!(
        owed(&fx, &dir),
        vec![pair("mail/one.md"), pair("mail/two.md")]
    );

    // Acked from above: the mailbox's journal records it as the mailbox
    // names it, and both views see it.
    ack(&fx, &dir, &pair("mail/one.md"));
    let journal = fs::read_to_string(mail.join(".amail-acks.jsonl")).unwrap();
    assert!(journal.contains(r#""key":"one.md""#), "{journal}");
    assert_eq!(owed(&fx, &mail), vec![pair("two.md")]);
    assert_eq!(owed(&fx, &dir), vec![pair("mail/two.md")]);

    // Acked in the mailbox: seen from above.
    ack(&fx, &mail, &pair("two.md"));
    assert_eq!(owed(&fx, &mail), vec![]);
    assert_eq!(owed(&fx, &dir), vec![]);
}

/// Two mailboxes below the folder named whose messages share ids (each
/// project numbers its own: `Id: 1` in both): from above, one of each
/// pair is keyed by its path, where its own mailbox keys it by its id.
/// Its acks were written under the path key, which the mailbox never
/// matched, and its acks made in the mailbox were not seen from above.
#[test]
fn a_message_whose_id_another_mailbox_has_keeps_its_acks_from_above_and_below() {
    let fx = Fx::new();
    let dir = fx.path("team");
    for project in ["alpha", "beta"] {
        help_in_mailbox(&dir.join(project).join("help.md"), project, Some("1"));
    }
    let pair = |id: &str| (id.to_string(), "O".to_string());
    let above = owed(&fx, &dir);
    assert_eq!(above.len(), 2, "{above:?}");
    let renamed = above
        .iter()
        .find(|(id, _)| id != "1")
        .expect("one of the two is keyed by its path")
        .clone();
    let project = renamed.0.split('/').next().unwrap().to_string();
    let mail = dir.join(&project);
    assert_eq!(owed(&fx, &mail), vec![pair("1")]);

    // Acked from above: its own mailbox sees it, under its own key.
    ack(&fx, &dir, &renamed);
    assert_eq!(owed(&fx, &mail), vec![]);
    assert_eq!(owed(&fx, &dir), vec![pair("1")]);

    // The other acked in its mailbox: seen from above.
    let other = dir.join(if project == "alpha" { "beta" } else { "alpha" });
    ack(&fx, &other, &pair("1"));
    assert_eq!(owed(&fx, &dir), vec![]);
}

/// The same with two messages of one mailbox sharing the id another
/// mailbox's message holds from above: in their own mailbox one of them
/// keeps the id, so neither may be matched by it from above (an ack of
/// one showed on both).
#[test]
fn an_id_twice_in_one_mailbox_and_once_in_another_acks_one_message_only() {
    let fx = Fx::new();
    let dir = fx.path("team");
    for (file, bead) in [
        ("alpha/000001-a.md", "a"),
        ("alpha/000002-b.md", "b"),
        ("beta/999999-c.md", "c"),
    ] {
        help_in_mailbox(&dir.join(file), bead, Some("1"));
    }
    let before = owed(&fx, &dir);
    assert_eq!(before.len(), 3, "{before:?}");
    let alpha = dir.join("alpha");
    let in_alpha = owed(&fx, &alpha);
    let renamed = before
        .iter()
        .find(|(id, _)| id.starts_with("alpha/"))
        .expect("alpha's messages are keyed by their paths from above")
        .clone();
    ack(&fx, &dir, &renamed);
    let after = owed(&fx, &dir);
    assert_eq!(after.len(), 2, "one message acked, not two: {after:?}");
    assert!(!after.contains(&renamed), "{after:?}");
    assert!(owed(&fx, &alpha).len() >= in_alpha.len() - 1);
}

/// A folder above an mcp_agent_mail storage root (its `archive/` and
/// `storage.sqlite3`): the walk read its project's message copies as a
/// plain mailbox's, without the acks its database holds, so messages
/// acked there showed as owed, and an ack made from above went into a
/// journal beside it that the server never reads. The commands that show
/// or write ack state refuse such a folder and name the root to give;
/// `parse` still reads the copies (no acks in its output).
#[test]
fn a_folder_above_an_mcp_storage_root_is_refused_where_acks_count() {
    let fx = Fx::new();
    let dir = fx.path("team");
    let root = dir.join("agent-mail");
    crate::support::fs::copy_dir(&crate::support::fixture::fixture(), &root);
    let d = dir.to_str().unwrap();
    let before = super::fx::tree(&dir);
    for args in [
        vec!["threads", d],
        vec!["pending", d],
        vec!["ack", "8", d, "--as", "BlueLake"],
        vec!["reply", "5", d, "--as", "BlueLake", "--body", "ok"],
    ] {
        let out = fx.run(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("mcp_agent_mail storage root")
                && err.contains(root.to_str().unwrap())
                && err.contains("its database"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(super::fx::tree(&dir), before, "nothing written");
    // The root itself, as named: its acks from the database.
    let out = fx.run(&["pending", root.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = fx.run(&["parse", d, "--format", "jsonl"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).lines().count() > 5);
}

/// A message with no `Id:`, `Thread:` or bead is a thread of its own,
/// named by its key: `mail/ask.md` from above, `ask.md` in the mailbox.
/// A reply made from above (`Thread: mail/ask.md`) was a thread of its
/// own in the mailbox's view, and one made in the mailbox (`Thread:
/// other.md`) a thread of its own from above. Each reply is in the
/// thread of the message it answers, in both views.
#[test]
fn a_reply_to_a_message_keyed_by_its_path_is_in_its_thread_in_both_views() {
    let fx = Fx::new();
    let dir = fx.path("team");
    let mail = dir.join("mail");
    fs::create_dir_all(&mail).unwrap();
    fs::write(mail.join(".amail-acks.jsonl"), "").unwrap();
    for name in ["ask", "other"] {
        fs::write(
            mail.join(format!("{name}.md")),
            format!("Subject: about {name}\nFrom: W\nTo: O\n\nBody:\nhello?\n"),
        )
        .unwrap();
    }
    let reply = |id: &str, source: &Path| {
        let out = fx.run(&[
            "reply",
            id,
            source.to_str().unwrap(),
            "--as",
            "O",
            "--body",
            "here",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    };
    reply("mail/ask.md", &dir);
    reply("other.md", &mail);
    // Each view: two threads of two messages, named as the view keys the
    // message they answer.
    for (source, prefix) in [(&dir, "mail/"), (&mail, "")] {
        let out = fx.run(&["threads", source.to_str().unwrap(), "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let threads: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        let mut shape: Vec<(String, usize)> = threads
            .iter()
            .map(|t| {
                (
                    t["thread_id"].as_str().unwrap().to_string(),
                    t["message_ids"].as_array().unwrap().len(),
                )
            })
            .collect();
        shape.sort();
        assert_eq!(
            shape,
            vec![
                (format!("{prefix}ask.md"), 2),
                (format!("{prefix}other.md"), 2)
            ],
            "{}",
            source.display()
        );
    }
}
