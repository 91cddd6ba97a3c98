//! Interop with the real server: a store written by
//! `amail demo --messages N --format mcp` is served by the PyPI
//! `mcp-agent-mail==0.1.0` server (run in-process, offline, from the
//! virtualenv `tests/interop/setup-venv.sh` creates once under `target/`):
//! its `fetch_inbox` returns exactly the messages addressed to the agent,
//! its full-text search finds the help requests, its thread summary counts
//! what amail counts, and an ack it records is the one amail reads back.
//!
//! Skipped, with the reason printed, only where Python 3.12 is missing.

use std::collections::BTreeSet;

use amail::demo::corpus::mcp;
use amail_core::stores::{self, LoadOptions};
use chrono::{TimeZone, Utc};

use crate::support::interop::{server_python, server_view};

#[test]
fn real_server_serves_a_generated_corpus() {
    let Some(python) = server_python() else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    mcp::write_mcp_corpus(dir, 66, now).unwrap();
    let ours = stores::load(dir, &LoadOptions::default()).unwrap();
    assert!(ours.problems.is_empty(), "{:?}", ours.problems);

    let agent = "BlueLake";
    let addressed: BTreeSet<i64> = ours
        .messages
        .iter()
        .filter(|m| m.recipients.iter().any(|r| r.agent == agent))
        .map(|m| m.key.parse().unwrap())
        .collect();
    let ack_id = ours
        .messages
        .iter()
        .find(|m| m.message.ack_required && m.recipients.iter().any(|r| r.agent == agent))
        .map(|m| m.key.to_string())
        .expect("an ack-required message to BlueLake");
    let thread = ours
        .threads
        .iter()
        .find(|t| t.id.starts_with("ol-") && t.messages.len() > 2)
        .expect("a bead thread");

    let view = server_view(
        &python,
        "corpus_view.py",
        &[mcp::PROJECT_KEY, agent, &ack_id, &thread.id],
        dir,
    );

    // fetch_inbox: exactly the messages amail says are addressed to BlueLake,
    // with the sender and thread amail reads.
    let inbox = view["fetch_inbox"].as_array().expect("a list");
    let ids: BTreeSet<i64> = inbox.iter().map(|m| m["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, addressed);
    for m in inbox {
        let key = m["id"].to_string();
        let mine = &ours.message_by_key(&key).unwrap().message;
        assert_eq!(m["from"].as_str(), mine.from.as_deref(), "{m}");
        assert_eq!(m["thread_id"].as_str(), mine.thread_id.as_deref(), "{m}");
        assert_eq!(m["subject"].as_str(), Some(mine.subject.as_ref()), "{m}");
    }

    // Its full-text search (the FTS5 table our schema carries) finds every
    // HELP_REQUEST, replies included.
    let hits: BTreeSet<String> = view["search"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|h| h["id"].to_string())
        .collect();
    let help: BTreeSet<String> = ours
        .messages
        .iter()
        .filter(|m| m.message.subject.contains("HELP_REQUEST"))
        .map(|m| m.key.to_string())
        .collect();
    assert!(!help.is_empty());
    assert!(help.is_subset(&hits), "{help:?} not in {hits:?}");

    // Its thread summary counts the thread's messages as amail threads them.
    assert_eq!(
        view["summary"]["summary"]["total_messages"].as_u64(),
        Some(thread.messages.len() as u64),
        "{}",
        view["summary"]
    );

    // The ack it records is the one amail reads back.
    let at = view["ack"]["acknowledged_at"]
        .as_str()
        .expect("an ack time");
    let at = chrono::DateTime::parse_from_rfc3339(at)
        .unwrap()
        .with_timezone(&Utc);
    let after = stores::load(dir, &LoadOptions::default()).unwrap();
    let r = after
        .message_by_key(&ack_id)
        .unwrap()
        .recipients
        .iter()
        .find(|r| r.agent == agent)
        .unwrap();
    assert_eq!(r.ack_at, Some(at));
}
