//! A reader that stops early (`amail threads | head`) is not an error: amail
//! exits quietly with success instead of panicking on the closed pipe.

use std::io::Read;
use std::process::{Command, Stdio};

fn amail() -> Command {
    Command::new(env!("CARGO_BIN_EXE_amail"))
}

/// Runs amail with stdout piped, reads one chunk, closes the pipe, and
/// returns (exit code, stderr).
fn run_and_close_early(args: &[&str]) -> (Option<i32>, String) {
    let mut child = amail()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn amail");
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = [0u8; 256];
    let n = stdout.read(&mut buf).unwrap();
    assert!(
        n > 0,
        "the command printed something before the pipe closed"
    );
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let status = amail()
        .args(["demo", "--messages", "3000"])
        .arg(&corpus)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let mail = corpus.join("mail");
    let mail = mail.to_str().unwrap();
    // Far more output than a pipe buffer holds, through both writers: the
    // `parse` stream and the line printer the other commands use.
    for args in [
        vec!["parse", "--format", "json", mail],
        vec!["threads", mail],
        vec!["pending", mail],
    ] {
        let (code, stderr) = run_and_close_early(&args);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
    }
}
