//! Guarantee: acking or replying while another program holds the SQLite
//! database never corrupts it. A short hold is waited out (busy timeout,
//! 5 s; `tests/inbox/mcp_store.rs` covers it); a hold longer than that
//! fails with a clear, retryable error (exit status 75, "try again") and
//! changes nothing; run again after the hold, the ack and the reply land
//! once. Two routers sharing a store: `tests/router/concurrency.rs`.

use std::process::{Command, Output};

use rusqlite::Connection;

use crate::support::copy::fixture_copy;

fn amail(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(args)
        .env("AMAIL_HOME", "/nonexistent-amail-home")
        .env("AMAIL_CONFIG", "/nonexistent-amail.toml")
        // A short busy timeout so the held lock outlasts it quickly.
        .env("AMAIL_SQLITE_BUSY_MS", "200")
        .env_remove("AMAIL_CRASH_AFTER")
        .output()
        .unwrap()
}

fn state(db: &std::path::Path) -> (i64, Option<String>) {
    let c = Connection::open(db).unwrap();
    let ok: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    c.query_row(
        "SELECT (SELECT count(*) FROM messages), ack_ts FROM message_recipients
         WHERE message_id = 5 AND agent_id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}

#[test]
fn a_held_database_gives_a_retryable_error_and_no_change() {
    let dir = fixture_copy();
    let root = dir.path();
    let db = root.join("storage.sqlite3");
    let r = root.to_str().unwrap();
    let before = state(&db);
    assert_eq!(before, (11, None));

    for mode in ["IMMEDIATE", "EXCLUSIVE"] {
        let holder = Connection::open(&db).unwrap();
        holder.execute_batch(&format!("BEGIN {mode}")).unwrap();
        // A write in progress in the other program.
        holder
            .execute("UPDATE agents SET last_active_ts = last_active_ts", [])
            .unwrap();
        for args in [
            vec!["ack", "5", "--as", "BlueLake", r],
            vec!["reply", "5", r, "--as", "BlueLake", "--body", "later"],
        ] {
            let out = amail(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(75), "{mode} {args:?}: {err}");
            assert!(err.contains("locked") && err.contains("try again"), "{err}");
            assert!(err.contains("storage.sqlite3"), "{err}");
        }
        holder.execute_batch("ROLLBACK").unwrap();
        drop(holder);
        assert_eq!(
            state(&db),
            before,
            "{mode}: a refused write changed the database"
        );
    }

    // The same commands after the hold: each lands once.
    assert!(amail(&["ack", "5", "--as", "BlueLake", r]).status.success());
    assert!(
        amail(&["reply", "5", r, "--as", "BlueLake", "--body", "now"])
            .status
            .success()
    );
    let (n, ack) = state(&db);
    assert_eq!(n, 12);
    assert!(ack.is_some());
}
