//! `--db` where there is no database to name.

use crate::fx::{stderr, stdout, Fx};

/// `amail threads MAILBOX --db FILE` (a plain mailbox, or JSON on stdin)
/// read the mailbox and left `--db` unused without a word: exit 0, and
/// a user who meant a storage root's database never learnt it was not
/// read; an ack or reply went to the mailbox's own journal. Found by
/// giving the demo mailbox the fixture's database. A usage error (exit
/// 2) naming both, before anything is read or written.
#[test]
fn a_db_beside_a_source_with_no_database_is_refused() {
    let fx = Fx::new();
    let demo = fx.demo();
    let mailbox = demo.join("mail").display().to_string();
    let db = crate::support::fixture::fixture()
        .join("storage.sqlite3")
        .display()
        .to_string();
    let before = crate::support::tree::store_bytes(&demo);
    for args in [
        &["threads", &mailbox][..],
        &["pending", &mailbox, "--as", "BlueLake"][..],
        &["ack", "demo-07", &mailbox, "--as", "BlueLake"][..],
        &[
            "reply", "demo-07", &mailbox, "--as", "BlueLake", "--body", "x",
        ][..],
        &["threads", "-"][..],
    ] {
        let args = [args, &["--db", &db][..]].concat();
        let out = fx.run(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("--db {db}")) && err.contains("no database"),
            "{args:?}: {err}"
        );
        assert_eq!(stdout(&out), "", "{args:?}");
    }
    assert_eq!(crate::support::tree::store_bytes(&demo), before);
}
