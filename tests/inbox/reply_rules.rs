//! One rule for every store's reply (issue 12, items 1 and 4): who may
//! reply (a sender or recipient of the message), what the reply inherits
//! (thread, importance, recipients: to your own message, the original
//! recipients) and its type (HELP_RESPONSE only for a help request).

use amail::demo::mailbox as demo;
use amail_core::inbox::Inbox;
use amail_core::stores::{self, LoadOptions};
use amail_parser::MessageType;
use chrono::{TimeZone, Utc};
use rusqlite::Connection;

use crate::support::copy::fixture_copy;

fn demo_mail() -> (tempfile::TempDir, std::path::PathBuf, Inbox) {
    let d = tempfile::tempdir().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    let info = demo::write_demo_at(d.path(), now).unwrap();
    let inbox = stores::load(&info.mailbox, &LoadOptions::default()).unwrap();
    (d, info.mailbox, inbox)
}

fn reply_files(mail: &std::path::Path) -> usize {
    std::fs::read_dir(mail.join("replies"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn mailbox_reply_as_a_stranger_is_refused_and_adds_no_agent() {
    let (_d, mail, inbox) = demo_mail();
    let err = stores::reply_loaded(&inbox, "demo-11", "Nobody", "hi").unwrap_err();
    assert!(err.to_string().contains("Nobody"), "{err}");
    assert_eq!(reply_files(&mail), 0);
    let after = stores::load(&mail, &LoadOptions::default()).unwrap();
    assert!(after.agents.iter().all(|a| a.name != "Nobody"));
    // A real agent of the mailbox who is not party to the message either.
    let err = stores::reply_loaded(&inbox, "demo-11", "GreenCastle", "hi").unwrap_err();
    assert!(err.to_string().contains("GreenCastle"), "{err}");
    assert_eq!(reply_files(&mail), 0);
}

#[test]
fn mailbox_reply_inherits_importance_and_thread() {
    let (_d, mail, inbox) = demo_mail();
    assert_eq!(
        inbox.message_by_key("demo-11").unwrap().message.importance,
        "high"
    );
    let r = stores::reply_loaded(&inbox, "demo-11", "Chiron", "Mock it.").unwrap();
    assert_eq!(r.to, ["RedStone"]);
    let after = stores::load(&mail, &LoadOptions::default()).unwrap();
    let reply = after.message_by_key(&r.key).unwrap();
    assert_eq!(reply.message.importance, "high");
    assert_eq!(reply.message.kind, MessageType::HelpResponse);
    assert_eq!(after.thread_for(reply).id, "ol-527.3");
}

#[test]
fn mailbox_reply_to_your_own_message_goes_to_its_recipients() {
    let (_d, mail, inbox) = demo_mail();
    let r = stores::reply_loaded(&inbox, "demo-11", "RedStone", "Still stuck.").unwrap();
    assert_eq!(r.to, ["Chiron"]);
    let after = stores::load(&mail, &LoadOptions::default()).unwrap();
    let reply = after.message_by_key(&r.key).unwrap();
    assert_eq!(reply.message.from.as_deref(), Some("RedStone"));
    assert_eq!(reply.message.to, ["Chiron"]);
    // A follow-up, not help given: no HELP_RESPONSE subject.
    assert_eq!(r.subject, "Re: [ol-527.3] HELP_REQUEST");
}

#[test]
fn mailbox_reply_to_an_offering_is_a_plain_reply() {
    let (_d, mail, inbox) = demo_mail();
    let offer = inbox
        .messages
        .iter()
        .find(|m| m.message.kind == MessageType::OfferingReady)
        .unwrap();
    let to_me = offer.message.to[0].as_str();
    let r = stores::reply_loaded(&inbox, &offer.key, to_me, "merging, thanks").unwrap();
    assert_eq!(r.subject, format!("Re: {}", offer.message.subject));
    let text = std::fs::read_to_string(&r.paths[0]).unwrap();
    assert!(!text.contains("HELP_RESPONSE"), "{text}");
    let after = stores::load(&mail, &LoadOptions::default()).unwrap();
    let reply = after.message_by_key(&r.key).unwrap();
    assert_ne!(reply.message.kind, MessageType::HelpResponse);
    assert_eq!(after.thread_for(reply).id, offer.message.thread_id.unwrap());
}

#[test]
fn mcp_reply_to_a_non_help_message_has_no_help_response_line() {
    let d = fixture_copy();
    let inbox = stores::load(d.path(), &LoadOptions::default()).unwrap();
    let orig = inbox
        .messages
        .iter()
        .find(|m| {
            m.message.kind != MessageType::HelpRequest
                && m.message.from.is_some()
                && !m.recipients.is_empty()
        })
        .unwrap();
    let me = orig.recipients[0].agent.as_str();
    let r = stores::reply_loaded(&inbox, &orig.key, me, "Noted.").unwrap();
    let c = Connection::open(d.path().join("storage.sqlite3")).unwrap();
    let body: String = c
        .query_row(
            "SELECT body_md FROM messages WHERE id = ?1",
            [r.key.parse::<i64>().unwrap()],
            |r| r.get(0),
        )
        .unwrap();
    assert!(!body.contains("HELP_RESPONSE"), "{body}");
    assert_eq!(body, "Noted.");
}

#[test]
fn mcp_reply_rules_match_the_mailbox() {
    let d = fixture_copy();
    let inbox = stores::load(d.path(), &LoadOptions::default()).unwrap();
    let orig = inbox.message_by_key("5").unwrap();
    assert_eq!(orig.message.from.as_deref(), Some("PurpleBear"));
    // An agent of the project who is neither sender nor recipient.
    let stranger = inbox
        .agents
        .iter()
        .map(|a| a.name.clone())
        .find(|n| n != "PurpleBear" && orig.recipients.iter().all(|r| r.agent != *n))
        .unwrap();
    let err = stores::reply_loaded(&inbox, "5", &stranger, "hi").unwrap_err();
    assert!(err.to_string().contains(&stranger), "{err}");
    // Bad input (exit 1), as an ack by a non-recipient is: the README's
    // exit codes. It was a usage error (exit 2); found replying as a
    // stranger through a live server.
    assert!(!err.is_usage(), "{err:?}");
    // Your own message: to its recipients, not to yourself.
    let r = stores::reply_loaded(&inbox, "5", "PurpleBear", "Any news?").unwrap();
    assert_eq!(r.to, ["BlueLake"]);
}
