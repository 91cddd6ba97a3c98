//! Two `amail route` processes writing into one store at the same time lose
//! nothing: every message is received once, every transition logged once,
//! event ids stay unique, and the store equals a sequential run's.

use std::collections::HashSet;
use std::process::{Command, Stdio};

use amail_core::router::Store;

use crate::support::fixture::fixture;
use crate::support::router::*;

fn spawn_route(store: &std::path::Path, input: &std::path::Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_amail"))
        .args([
            "route",
            input.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ])
        .env_remove("AMAIL_CRASH_AFTER")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn amail")
}

#[test]
fn two_processes_with_different_mail_lose_nothing() {
    let dir = scratch();
    let a = dir.path().join("mail-a");
    let b = dir.path().join("mail-b");
    synthetic_mailbox(&a, "aa", 15);
    synthetic_mailbox(&b, "bb", 15);

    // Sequential reference.
    let seq = dir.path().join("sequential");
    assert!(route(&seq, &[&a]).status.success());
    assert!(route(&seq, &[&b]).status.success());

    for round in 0..3 {
        let store = dir.path().join(format!("concurrent-{round}"));
        let mut pa = spawn_route(&store, &a);
        let mut pb = spawn_route(&store, &b);
        assert!(pa.wait().unwrap().success());
        assert!(pb.wait().unwrap().success());

        let tasks = Store::open(&store).unwrap().list().unwrap();
        assert_eq!(tasks.len(), 30);
        assert!(tasks.iter().all(|t| t.status == "review"), "{tasks:?}");
        let log = event_log(&store);
        let ids: HashSet<u64> = log.iter().map(|e| e.0).collect();
        assert_eq!(ids.len(), log.len(), "duplicate eventIds");
        assert_eq!(
            log.len(),
            event_log(&seq).len(),
            "event count differs from a sequential run"
        );
        let transitions = log.iter().filter(|e| e.1 == "task.transitioned").count();
        assert_eq!(transitions, 60, "two transitions per task, each once");
        let received = log
            .iter()
            .filter(|e| e.1 == "protocol.message.received")
            .count();
        assert_eq!(received, 90);
        // Interleaving changes only the order of events, never the files.
        assert_same(&snapshot(&store), &snapshot(&seq), "concurrent run");
    }
}

#[test]
fn two_processes_with_the_same_mail_route_it_once() {
    let dir = scratch();
    let reference = dir.path().join("reference");
    assert!(route(&reference, &[&fixture()]).status.success());
    for round in 0..3 {
        let store = dir.path().join(format!("same-{round}"));
        let f = fixture();
        let mut p1 = spawn_route(&store, &f);
        let mut p2 = spawn_route(&store, &f);
        assert!(p1.wait().unwrap().success());
        assert!(p2.wait().unwrap().success());
        assert_same(&snapshot(&store), &snapshot(&reference), "concurrent run");
        let log = event_log(&store);
        let want = event_log(&reference);
        assert_eq!(log.len(), want.len());
        let kinds = |l: &[(u64, String, String, Option<String>, String)]| {
            let mut k: Vec<_> = l
                .iter()
                .map(|e| (e.1.clone(), e.3.clone(), e.4.clone()))
                .collect();
            k.sort();
            k
        };
        assert_eq!(kinds(&log), kinds(&want));
    }
}
