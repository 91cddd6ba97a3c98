//! The permissions of the files amail writes (found by a new user: `ls -l`
//! after `amail reply` showed the reply `-rw-------` beside the agents'
//! `-rw-r--r--` mail). Every atomic write went through a temp file, which
//! the `tempfile` crate creates `0600` whatever the umask, and the rename
//! kept that mode: replies, the demo's mail, the mcp archive copies a
//! reply writes and every task file were readable by their writer alone,
//! so agents or a server running as another user (or group) could not
//! read the answer meant for them. A file amail creates gets the mode any
//! program's new file gets (`0666` less the umask); a file it replaces
//! keeps the mode it had. And a write that fails names the folder, not
//! the temp file it never made.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::fx::{accepted, mail, stderr, stdout, Fx};
use crate::support::walk::files_under;

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// The mode a new file gets under this process's umask (which the
/// command inherits): a file the test creates itself.
fn new_file_mode(fx: &Fx) -> u32 {
    let probe = fx.path("probe-umask");
    fs::write(&probe, b"x").unwrap();
    let m = mode(&probe);
    fs::remove_file(&probe).unwrap();
    m
}

/// The files a command printed as `wrote PATH`.
fn written(out: &std::process::Output) -> Vec<PathBuf> {
    assert!(out.status.success(), "{}", stderr(out));
    let paths: Vec<PathBuf> = stdout(out)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("wrote "))
        .map(PathBuf::from)
        .collect();
    assert!(!paths.is_empty(), "nothing written: {}", stdout(out));
    paths
}

fn assert_modes(files: &[PathBuf], want: u32) {
    let wrong: Vec<String> = files
        .iter()
        .filter(|p| mode(p) != want)
        .map(|p| format!("{:o} {}", mode(p), p.display()))
        .collect();
    assert!(
        wrong.is_empty(),
        "want {want:o}, got:\n{}",
        wrong.join("\n")
    );
}

/// A mailbox `mail` holding one help request, `h-1`, from `worker` to
/// `boss`.
fn help_request(fx: &Fx) -> PathBuf {
    let m = fx.path("mail");
    mail(
        &m,
        "help.md",
        "h-1",
        "worker",
        1,
        "[ol-1] HELP_REQUEST",
        "Issue Type: STUCK\n## Problem\nno keys\n## Question\nwhich?",
    );
    m
}

/// `amail reply h-1 MAILBOX --as boss --body BODY`.
fn reply_to_help(fx: &Fx, m: &Path, body: &str) -> std::process::Output {
    fx.run(&[
        "reply",
        "h-1",
        m.to_str().unwrap(),
        "--as",
        "boss",
        "--body",
        body,
    ])
}

#[test]
fn a_reply_in_a_mailbox_is_readable_as_any_new_file() {
    let fx = Fx::new();
    let m = help_request(&fx);
    let out = reply_to_help(&fx, &m, "use the vault");
    assert_modes(&written(&out), new_file_mode(&fx));
}

#[test]
fn a_reply_in_an_mcp_store_writes_archive_copies_as_the_server_does() {
    let fx = Fx::new();
    let root = fx.path("root");
    crate::support::fs::copy_dir(&crate::support::fixture::fixture(), &root);
    let out = fx.run(&[
        "reply",
        "5",
        root.to_str().unwrap(),
        "--as",
        "BlueLake",
        "--body",
        "Keep the index.",
    ]);
    let paths = written(&out);
    // The thread digest existed before: it keeps its own mode (below);
    // the three copies are new.
    let fresh: Vec<PathBuf> = paths
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("/threads/"))
        .collect();
    assert_eq!(fresh.len(), 3, "{fresh:?}");
    assert_modes(&fresh, new_file_mode(&fx));
}

#[test]
fn the_demo_and_a_routed_store_are_readable_as_any_new_file() {
    let fx = Fx::new();
    let demo = fx.path("demo");
    let out = fx.run(&["demo", demo.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let want = new_file_mode(&fx);
    assert_modes(&files_under(&demo.join("mail")), want);
    let tasks: Vec<PathBuf> = files_under(&demo.join("store").join("tasks"));
    assert!(!tasks.is_empty());
    assert_modes(&tasks, want);
}

#[test]
fn a_task_file_rewritten_in_place_keeps_its_mode() {
    let fx = Fx::new();
    let m = fx.path("mail");
    accepted(&m, 1, "worker", 1, "ol-1", "Wire the API");
    assert!(fx.route(&m).status.success());
    let task = files_under(&fx.path("store").join("tasks"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "md"))
        .expect("a task file");
    fs::set_permissions(&task, fs::Permissions::from_mode(0o640)).unwrap();
    let before = fs::read_to_string(&task).unwrap();
    mail(
        &m,
        "2.md",
        "2",
        "worker",
        2,
        "[ol-1] PROGRESS",
        "Bead: ol-1\nStatus: wiring\nStep: 2 - routes\nContext usage: 40%",
    );
    assert!(fx.route(&m).status.success());
    assert_ne!(fs::read_to_string(&task).unwrap(), before, "not rewritten");
    assert_eq!(format!("{:o}", mode(&task)), "640", "{}", task.display());
}

/// A write that cannot be made names the folder it could not write in,
/// not a hidden temp file that was never made (`amail reply` with a file
/// where `replies/` goes said `d3/mail/replies: Not a directory (os error
/// 20) at path "/tmp/.../replies/.amail-tmp-gc8u6z"`: the `tempfile`
/// crate's own error text, naming the temp file it had tried to create).
#[test]
fn a_failed_write_names_the_folder_not_a_temp_file() {
    let fx = Fx::new();
    let m = help_request(&fx);
    fs::write(m.join("replies"), b"").unwrap();
    let out = reply_to_help(&fx, &m, "x");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}: ", m.join("replies").display())),
        "{err}"
    );
    assert!(!err.contains(".amail-tmp"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
