//! The built `amail` binary run as a user runs it: arguments, optional
//! standard input, and an `AMAIL_HOME` of its own, so the home of the
//! machine running the tests does not get in.

/// Runs the built `amail` binary.
pub fn amail(args: &[&str], stdin: Option<&str>) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(args)
        .env(
            "AMAIL_HOME",
            std::env::temp_dir().join("amail-test-home-unused"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(s) = stdin {
        input.write_all(s.as_bytes()).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}
