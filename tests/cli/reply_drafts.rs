//! A reply whose body came on stdin and whose send failed is never lost.

use std::io::Write;
use std::process::{Command, Stdio};

/// The draft is kept under the data dir's `drafts/`; when that cannot be
/// written either (the data dir a file, a full disk, no permission) the
/// line said "... failed too (not a directory): it is lost", and the
/// answer typed once was gone. The text is printed back on stderr, under
/// the error, to be copied from the terminal or the log.
#[test]
fn a_reply_that_can_be_kept_nowhere_is_printed_back() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    crate::support::fs::copy_dir(&crate::support::fixture::fixture(), &root);
    let home = dir.path().join("home-is-a-file");
    std::fs::write(&home, "").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(["reply", "999", root.to_str().unwrap(), "--as", "BlueLake"])
        .env("AMAIL_HOME", &home)
        .env("AMAIL_CONFIG", dir.path().join("no-config.toml"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let body = "Keep the partial index,\nand drop the trigger.\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(body.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no message 999"), "{err}");
    assert!(err.ends_with(body), "the text is not on stderr: {err}");
}

/// `--db` naming a folder (the archive, or the folder holding the
/// database) said "ROOT/archive: disk I/O error" (threads, pending) or
/// "unable to open database file" (ack): the folder read as a database
/// by SQLite. Every command that takes --db says it is a folder and what
/// to give, before anything is read or written.
#[test]
fn db_naming_a_folder_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    crate::support::fs::copy_dir(&crate::support::fixture::fixture(), &root);
    let (r, a) = (
        root.display().to_string(),
        root.join("archive").display().to_string(),
    );
    for args in [
        &["threads", &r, "--db", &a][..],
        &["pending", &r, "--db", &a, "--as", "BlueLake"][..],
        &["ack", "5", &r, "--db", &a, "--as", "BlueLake"][..],
        &[
            "reply", "5", &r, "--db", &a, "--as", "BlueLake", "--body", "x",
        ][..],
        &["inbox", &r, "--db", &a][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_amail"))
            .args(args)
            .env("AMAIL_HOME", dir.path().join("home"))
            .env("AMAIL_CONFIG", dir.path().join("no-config.toml"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("--db {a}: a folder")),
            "{args:?}: {err}"
        );
    }
}
