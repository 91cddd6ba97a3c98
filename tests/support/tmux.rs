//! tmux for the end-to-end tests: a server of this test process's own
//! (`-L`, never the user's), and a session start that tries again while
//! that server is closing. Tests run in parallel: when one test's session
//! was the server's last, the server exits, and a session another test
//! starts in that moment fails with "server exited unexpectedly" (seen
//! in CI once the suite had one more tmux test).

use std::process::{Command, Output};
use std::thread::sleep;
use std::time::Duration;

/// A `tmux` command on this process's own server.
pub fn tmux() -> Command {
    let mut c = Command::new("tmux");
    c.args(["-L", &format!("amail-tests-{}", std::process::id())])
        .env_remove("TMUX");
    c
}

/// `tmux args...` on this process's server, its output.
pub fn run(args: &[&str]) -> Output {
    tmux().args(args).output().expect("tmux runs")
}

/// Whether tmux is installed (the tests that need it skip, saying why,
/// where it is not).
pub fn present() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: tmux is not installed; the end-to-end TUI test needs it");
    }
    ok
}

/// Starts a detached session `name` (`args` after `new-session -d -s
/// name`); true once it runs. Tries again for a few seconds while the
/// server is closing.
pub fn new_session(name: &str, args: &[&str]) -> bool {
    for _ in 0..50 {
        let ok = tmux()
            .args(["new-session", "-d", "-s", name])
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return true;
        }
        sleep(Duration::from_millis(100));
    }
    false
}
