//! Interop with the real server: after `amail reply` and `amail ack` on a
//! copy of the fixture store, the PyPI `mcp-agent-mail==0.1.0` server (run
//! in-process, offline, from a virtualenv that `tests/interop/setup-venv.sh`
//! creates once under `target/`) returns our reply from its own
//! `fetch_inbox`, reports our ack time from its own `acknowledge_message`,
//! finds the reply with its full-text search, and an ack it records is the
//! one we read back.
//!
//! Skipped, with the reason printed, only where Python 3.12 is missing.

use std::process::Command;

use amail_core::stores::{self, LoadOptions};

use crate::support::cli::amail;
use crate::support::copy::fixture_copy;
use crate::support::interop::{server_python, server_view};

#[test]
fn real_server_sees_our_reply_and_agrees_on_acks() {
    let Some(python) = server_python() else {
        return;
    };
    let d = fixture_copy();
    let dir = d.path();
    let archive = dir.join("archive");
    // A Git archive, as the server keeps it, so our reply commits too.
    let git = |args: &[&str]| {
        Command::new("git")
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
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "init"]);

    let out = amail(
        &[
            "reply",
            "5",
            dir.to_str().unwrap(),
            "--as",
            "BlueLake",
            "--body",
            "Keep the index; interopzebra backfill first.",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = amail(
        &["ack", "10", dir.to_str().unwrap(), "--as", "BlueLake"],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = stores::load(dir, &LoadOptions::default()).unwrap();
    let our_ack_10 = ours.message_by_key("10").unwrap().recipients[0]
        .ack_at
        .unwrap();

    let view = server_view(
        &python,
        "server_view.py",
        &["/home/dev/demo-repo", "12", "interopzebra"],
        dir,
    );

    // fetch_inbox for PurpleBear returns our reply, in thread ol-527.2, from BlueLake.
    let inbox = view["fetch_inbox"].as_array().expect("a list");
    let reply = inbox
        .iter()
        .find(|m| m["id"] == 12)
        .unwrap_or_else(|| panic!("reply missing from the server's fetch_inbox: {inbox:?}"));
    assert_eq!(reply["from"], "BlueLake");
    assert_eq!(reply["thread_id"], "ol-527.2");
    assert_eq!(reply["subject"], "Re: [ol-527.2] HELP_REQUEST");
    assert_eq!(reply["kind"], "to");
    assert!(reply["body_md"].as_str().unwrap().contains("interopzebra"));

    // Our ack of 10 is the server's: it returns our time, not a new one.
    let server_ack_10 = view["ack_bluelake_10"]["acknowledged_at"].as_str().unwrap();
    let server_ack_10 = chrono::DateTime::parse_from_rfc3339(server_ack_10)
        .unwrap()
        .with_timezone(&chrono::Utc);
    assert_eq!(server_ack_10, our_ack_10);

    // The server's ack of our reply is what we read back.
    let server_ack_12 = view["ack_purplebear_reply"]["acknowledged_at"]
        .as_str()
        .unwrap();
    let server_ack_12 = chrono::DateTime::parse_from_rfc3339(server_ack_12)
        .unwrap()
        .with_timezone(&chrono::Utc);
    let after = stores::load(dir, &LoadOptions::default()).unwrap();
    let r = &after.message_by_key("12").unwrap().recipients[0];
    assert_eq!(r.agent, "PurpleBear");
    assert_eq!(r.ack_at, Some(server_ack_12));
    assert!(after
        .pending(Some("PurpleBear"))
        .iter()
        .all(|p| after.messages[p.message].key != "12"));

    // Its full-text search (FTS triggers) finds the reply.
    let hits = view["search"].as_array().expect("a list");
    assert!(hits.iter().any(|h| h["id"] == 12), "{hits:?}");

    // The server builds on what we wrote: it replies to our reply in the same
    // thread (its archive commit follows ours), and its thread summary counts it.
    let server_reply = &view["server_reply"];
    let payload = server_reply
        .get("deliveries")
        .map(|d| &d[0]["payload"])
        .unwrap_or(server_reply);
    assert_eq!(payload["thread_id"], "ol-527.2", "{server_reply}");
    let summary_total = &view["summary"]["summary"]["total_messages"];
    assert_eq!(summary_total, 8, "{}", view["summary"]);
    let inbox = stores::load(dir, &LoadOptions::default()).unwrap();
    assert!(inbox.problems.is_empty(), "{:?}", inbox.problems);
    let thread = inbox.threads.iter().find(|t| t.id == "ol-527.2").unwrap();
    assert_eq!(thread.messages.len(), 8);
    let log = git(&["log", "--format=%s"]);
    let log = String::from_utf8_lossy(&log.stdout);
    assert!(
        log.lines()
            .any(|l| l.starts_with("mail: BlueLake -> PurpleBear | Re: [ol-527.2] HELP_REQUEST")),
        "{log}"
    );
}
