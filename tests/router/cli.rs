//! `amail route` over files of AOF/1 envelopes and standard input.

use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};

use amail_core::router::Store;

use crate::support::fixture::fixture;
use crate::support::router::*;

#[test]
fn envelope_files_are_routed_and_bad_lines_named() {
    let dir = scratch();
    let s = dir.path().join("store");
    assert!(route(&s, &[&fixture()]).status.success());
    let id = Store::open(&s).unwrap().list().unwrap()[0].id.clone();
    let file = dir.path().join("events.aof");
    let good = format!(
        r#"AOF/1 {{"protocol":"aof","version":1,"type":"status.update","taskId":"{id}","fromAgent":"lead","toAgent":"dispatcher","sentAt":"2026-11-22T04:00:00Z","payload":{{"taskId":"{id}","agentId":"lead","status":"done","notes":"approved"}}}}"#
    );
    fs::write(
        &file,
        format!("{good}\nAOF/1 {{not json\nAOF/1 {{\"protocol\":\"aof\",\"version\":1}}\n"),
    )
    .unwrap();
    let out = route(&s, &[&file]);
    assert_eq!(out.status.code(), Some(1), "a rejected line makes exit 1");
    let err = String::from_utf8_lossy(&out.stderr);
    // The reason as AOF logs it, then why, as its event's payload says:
    // "rejected: invalid_json" alone sent the user to `amail events`.
    assert!(
        err.contains(
            "events.aof:2:1: rejected: invalid_json: Expected property name or '}' in JSON at position 1"
        ),
        "{err}"
    );
    assert!(
        err.lines().any(
            |l| l.contains("events.aof:3:1: rejected: invalid_envelope: ")
                && l.contains("type: Required")
        ),
        "{err}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("routed 1 of 3 messages") && stdout.contains("1 transition,"),
        "{stdout}"
    );
    let t = Store::open(&s)
        .unwrap()
        .list()
        .unwrap()
        .into_iter()
        .find(|t| t.id == id)
        .unwrap();
    assert_eq!(t.status, "done");
    // The same envelope again is a duplicate: no second transition.
    fs::write(&file, format!("{good}\n")).unwrap();
    let out = route(&s, &[&file]);
    assert!(out.status.success());
    // One of each is said in the singular ("1 duplicates" until a new
    // user read it).
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("routed 0 of 1 message into"), "{said}");
    assert!(
        said.contains(": 0 tasks created, 0 transitions, 1 duplicate,"),
        "{said}"
    );
    let done = event_log(&s)
        .into_iter()
        .filter(|e| e.1 == "task.transitioned" && e.4.contains("\"to\":\"done\""))
        .count();
    assert_eq!(done, 1);
}

#[test]
fn mail_on_standard_input() {
    let dir = scratch();
    let s = dir.path().join("store");
    let mut child = Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(["route", "--store", s.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Subject: [bd-7] BEAD_ACCEPTED\nFrom: w\nTo: boss\nId: 1\nDate: 2026-11-22T01:00:00Z\n\nBody:\nAccepted bead: bd-7\nTitle: From stdin\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let tasks = Store::open(&s).unwrap().list().unwrap();
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0].status, "in-progress");
    assert_eq!(tasks[0].title, "From stdin");
    assert_eq!(tasks[0].bead.as_deref(), Some("bd-7"));
}

#[test]
fn usage_errors_exit_2() {
    let out = amail(&["route", "--bogus"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let out = amail(
        &["sweep", "--now", "yesterday"],
        &[("AMAIL_HOME", "/nonexistent-amail-home")],
    );
    assert_eq!(out.status.code(), Some(2));
    let dir = scratch();
    let s = dir.path().join("store");
    let out = amail(
        &["route", "/nonexistent/mail", "--store", s.to_str().unwrap()],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/mail"));
    assert!(!s.exists(), "bad input creates no store");
}
