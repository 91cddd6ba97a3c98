//! The fixture the command-line regression tests share: the built binary
//! run in an empty amail home of its own (no config file, no test hooks),
//! a temp directory to build mailboxes and stores in, and the JSON the
//! reading commands print.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// Runs the built binary with `stdin` (empty when `None`), in an empty
/// amail home and without a config file.
pub(crate) fn amail_in(home: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = command_in(home, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run amail");
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(stdin.unwrap_or_default()).unwrap();
    drop(pipe);
    child.wait_with_output().unwrap()
}

/// The built binary with `args`, in an empty amail home and without a
/// config file.
fn command_in(home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_amail"));
    c.args(args)
        .env("AMAIL_HOME", home)
        .env("AMAIL_CONFIG", home.join("no-config.toml"))
        .env_remove("AMAIL_CRASH_AFTER");
    c
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A mail file in the protocol's text framing.
pub(crate) fn mail(
    dir: &Path,
    name: &str,
    id: &str,
    from: &str,
    minute: u32,
    subject: &str,
    body: &str,
) {
    fs::create_dir_all(dir).unwrap();
    fs::write(
        dir.join(name),
        format!(
            "Subject: {subject}\nFrom: {from}\nTo: boss\nId: {id}\nDate: 2026-11-22T01:{minute:02}:00Z\n\nBody:\n{body}\n"
        ),
    )
    .unwrap();
}

/// A mailbox at `dir` holding message `5`, a PROGRESS from `worker` to
/// `boss`.
pub(crate) fn message_5(dir: &Path) {
    mail(dir, "5.md", "5", "worker", 1, "[b-1] PROGRESS", "Bead: b-1");
}

/// A BEAD_ACCEPTED for `bead` titled `title`, as file `N.md` with id `N`.
pub(crate) fn accepted(dir: &Path, n: u32, from: &str, minute: u32, bead: &str, title: &str) {
    mail(
        dir,
        &format!("{n}.md"),
        &n.to_string(),
        from,
        minute,
        &format!("[{bead}] BEAD_ACCEPTED"),
        &format!("Accepted bead: {bead}\nTitle: {title}"),
    );
}

/// Every path under `dir`, relative, sorted.
pub(crate) fn tree(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            out.push(p.strip_prefix(root).unwrap().display().to_string());
            if p.is_dir() {
                walk(root, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

pub(crate) struct Fx {
    pub(crate) dir: tempfile::TempDir,
}

impl Fx {
    pub(crate) fn new() -> Fx {
        Fx {
            dir: tempfile::tempdir().unwrap(),
        }
    }
    pub(crate) fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }
    pub(crate) fn run(&self, args: &[&str]) -> Output {
        amail_in(self.dir.path(), args, None)
    }
    pub(crate) fn run_stdin(&self, args: &[&str], input: &[u8]) -> Output {
        amail_in(self.dir.path(), args, Some(input))
    }
    /// `args` with `stdin` opened on `from` (a shell's `< from`).
    pub(crate) fn run_stdin_from(&self, args: &[&str], from: &Path) -> Output {
        command_in(self.dir.path(), args)
            .stdin(fs::File::open(from).unwrap())
            .output()
            .unwrap()
    }
    pub(crate) fn store(&self) -> String {
        self.path("store").display().to_string()
    }
    /// `amail demo FX/d`: the demo's folder (`mail/` and `store/`).
    pub(crate) fn demo(&self) -> PathBuf {
        let root = self.path("d");
        let out = self.run(&["demo", root.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        root
    }
    /// Every command that reads a mailbox named by its path (`parse`,
    /// `threads`, `pending`, `route` into the fixture's store), run on
    /// `path`: each one's words and its output.
    pub(crate) fn each_reader(&self, path: &str) -> Vec<(String, Output)> {
        let store = self.store();
        [
            vec!["parse", path],
            vec!["threads", path],
            vec!["pending", path],
            vec!["route", path, "--store", &store],
        ]
        .into_iter()
        .map(|args| (args.join(" "), self.run(&args)))
        .collect()
    }
    /// `amail route PATH --store STORE`.
    pub(crate) fn route(&self, path: &Path) -> Output {
        self.run(&["route", path.to_str().unwrap(), "--store", &self.store()])
    }
    pub(crate) fn tasks(&self) -> Vec<Value> {
        let out = self.run(&["tasks", "--store", &self.store(), "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap()
    }
    pub(crate) fn task_of(&self, bead: &str) -> Value {
        self.tasks()
            .into_iter()
            .find(|t| t["bead_id"] == bead)
            .unwrap_or_else(|| panic!("no task for {bead}: {:?}", self.tasks()))
    }
    pub(crate) fn events(&self) -> Vec<Value> {
        let out = self.run(&["events", "--store", &self.store(), "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// `err` names `hint` as the word (an id, an agent) it is a slip from,
/// or, `None`, no word.
pub(crate) fn assert_hint(err: &str, hint: Option<&str>, asked: &dyn std::fmt::Debug) {
    match hint {
        Some(h) => assert!(
            err.contains(&format!("(did you mean `{h}`?)")),
            "{asked:?}: {err}"
        ),
        None => assert!(!err.contains("did you mean"), "{asked:?}: {err}"),
    }
}

/// Writes `dir/name` (making `dir`) holding one ack-required
/// HELP_REQUEST with id `id`, from `w` to `to`: the message the ack and
/// reply tests act on.
pub(crate) fn write_help_request(dir: &Path, name: &str, id: &str, to: &str) {
    fs::create_dir_all(dir).unwrap();
    fs::write(
        dir.join(name),
        format!(
            "Subject: [b1] HELP_REQUEST\nFrom: w\nTo: {to}\nId: {id}\nDate: 2026-11-22T01:01:00Z\nAck-Required: yes\n\nBody:\nBead: b1\nIssue Type: STUCK\n\n## Problem\nstuck\n"
        ),
    )
    .unwrap();
}
