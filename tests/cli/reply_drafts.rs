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
