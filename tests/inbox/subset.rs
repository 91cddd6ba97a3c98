//! `Inbox::subset`: the messages an ack or reply names, which is all the
//! TUI's worker thread takes along (issue 16). A plain mailbox's ack and
//! reply from the subset write what they write from the whole inbox.

use amail::demo::mailbox as demo;
use amail_core::inbox::Inbox;
use amail_core::stores::{self, LoadOptions};
use chrono::{TimeZone, Utc};

fn demo_mail() -> (tempfile::TempDir, std::path::PathBuf, Inbox) {
    let d = tempfile::tempdir().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    let info = demo::write_demo_at(d.path(), now).unwrap();
    let inbox = stores::load(&info.mailbox, &LoadOptions::default()).unwrap();
    (d, info.mailbox, inbox)
}

#[test]
fn subset_holds_the_named_messages_and_their_threads() {
    let (_d, _mail, inbox) = demo_mail();
    let keys: Vec<&str> = inbox
        .messages
        .iter()
        .rev()
        .take(3)
        .map(|m| m.key.as_str())
        .collect();
    let sub = inbox.subset(&[keys[0], "no-such-key", keys[1], keys[2], keys[0]]);
    assert_eq!(sub.source, inbox.source);
    assert_eq!(sub.messages.len(), 3);
    for m in &sub.messages {
        let full = inbox.message_by_key(&m.key).unwrap();
        assert_eq!(m.message, full.message);
        assert_eq!(m.recipients, full.recipients);
        assert_eq!(sub.thread_for(m).id, inbox.thread_for(full).id);
    }
    for (i, t) in sub.threads.iter().enumerate() {
        assert!(t
            .messages
            .iter()
            .all(|&j| sub.thread_index(&sub.messages[j]) == i));
    }
}

#[test]
fn mailbox_ack_and_reply_from_a_subset_match_the_whole_inbox() {
    let (_d, mail, inbox) = demo_mail();
    let m = inbox
        .messages
        .iter()
        .find(|m| m.message.ack_required && !m.recipients.is_empty())
        .unwrap();
    let (key, agent) = (m.key.to_string(), m.recipients[0].agent.as_str());
    let thread = inbox.thread_for(m).id.clone();

    let sub = inbox.subset(&[key.as_str()]);
    let out = stores::ack_loaded(&sub, std::slice::from_ref(&key), agent).unwrap();
    assert_eq!(out.len(), 1);
    stores::reply_loaded(&sub, &key, agent, "from the subset").unwrap();

    let after = stores::load(&mail, &LoadOptions::default()).unwrap();
    let acked = after.message_by_key(&key).unwrap();
    let r = acked.recipients.iter().find(|r| r.agent == agent).unwrap();
    assert!(r.ack_at.is_some());
    let reply = after
        .messages
        .iter()
        .find(|x| x.message.body.contains("from the subset"))
        .unwrap();
    assert_eq!(after.thread_for(reply).id, thread);
    assert_eq!(after.messages.len(), inbox.messages.len() + 1);
}
