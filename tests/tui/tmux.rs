//! End to end: the real binary in a real terminal (tmux), driven with
//! send-keys and read back with capture-pane. Skipped, with a printed
//! reason, where tmux is not installed.
//!
//! Waiting is by polling the screen for expected text with a generous
//! limit; nothing asserts on how long anything took.

use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::support::tmux;

/// How long a wait may take before the test fails. Nothing here is
/// measured: a wait returns as soon as the screen shows what it waits
/// for, so the limit costs nothing when things work and is made long
/// enough for a machine busy with other builds (20 s was not, at load 9:
/// the 20,000-message test failed once).
const WAIT: Duration = Duration::from_secs(90);

/// The limit for a large mailbox's load and what follows it, read by the
/// debug binary while other tests (or builds) share the machine.
const LARGE: Duration = Duration::from_secs(300);

struct Tmux {
    session: String,
    /// The `AMAIL_HOME` of a session started from [`shell`]: removed when
    /// the session is killed (fields drop after `Drop::drop`), so no run
    /// leaves a demo mailbox behind in the temporary folder.
    _home: Option<tempfile::TempDir>,
}

/// A command line for a session, with the fresh home it runs in.
struct Shell {
    cmd: String,
    home: tempfile::TempDir,
}

impl Tmux {
    fn start(name: &str, cmd: &str) -> Option<Tmux> {
        Tmux::start_with(name, cmd, None)
    }

    /// Starts `shell`'s command; its home lives as long as the session.
    fn start_shell(name: &str, shell: Shell) -> Option<Tmux> {
        Tmux::start_with(name, &shell.cmd, Some(shell.home))
    }

    fn start_with(name: &str, cmd: &str, home: Option<tempfile::TempDir>) -> Option<Tmux> {
        if !tmux::present() {
            return None;
        }
        let session = format!("amail-e2e-{name}");
        let ok = tmux::new_session(&session, &["-x", "110", "-y", "32", "sh", "-c", cmd]);
        assert!(ok, "tmux new-session failed");
        Some(Tmux {
            session,
            _home: home,
        })
    }

    fn screen(&self) -> String {
        let out = tmux::run(&["capture-pane", "-p", "-t", &self.session]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.session];
        args.extend_from_slice(keys);
        assert!(tmux::run(&args).status.success());
    }

    fn text(&self, text: &str) {
        assert!(tmux::run(&["send-keys", "-t", &self.session, "-l", text])
            .status
            .success());
    }

    /// Polls until `needle` is on screen; panics with the screen if it never is.
    fn wait_for(&self, needle: &str) -> String {
        self.wait_until(needle, |s| s.contains(needle))
    }

    /// Polls until the inbox has loaded: the first frame comes before the
    /// load (the worker reads the mailbox behind it), so keys that need the
    /// mail (compose needs the roster) wait for threads and a quiet status
    /// bar.
    fn wait_loaded(&self) -> String {
        self.wait_until("the loaded inbox", |s| {
            let threads = s
                .split("Threads · All · ")
                .nth(1)
                .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|n| n.parse::<usize>().ok());
            threads.is_some_and(|n| n > 0) && !s.contains("loading") && !s.contains("working")
        })
    }

    fn wait_until(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        self.wait_within(WAIT, what, ready)
    }

    /// [`Self::wait_until`] with its own limit, for what takes long even
    /// on an idle machine (a whole load of a large mailbox by the debug
    /// binary).
    fn wait_within(&self, limit: Duration, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if ready(&s) {
                return s;
            }
            if start.elapsed() > limit {
                panic!(
                    "never saw {what:?} in {limit:?} (session {}); the screen:\n{s}",
                    self.session
                );
            }
            sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = tmux::run(&["kill-session", "-t", &self.session]);
    }
}

fn shell(extra_env: &str) -> Shell {
    shell_in_home(extra_env, "")
}

/// The command line, and the `AMAIL_HOME` it uses (the demo mailbox is
/// `HOME/demo-inbox/mail`). `args` go after `inbox --demo`.
fn shell_in_home(extra_env: &str, args: &str) -> Shell {
    let bin = env!("CARGO_BIN_EXE_amail");
    // One fresh home per session: `inbox --demo` reuses the demo folder of
    // its home, and these tests must not see each other's acks and replies,
    // nor an earlier run's (a home named by pid was reused when the pid
    // came round again, with the help request already answered). It goes
    // with the session ([`Tmux::start_shell`]).
    let home = tempfile::Builder::new()
        .prefix("amail-e2e-home-")
        .tempdir()
        .unwrap();
    // After the app exits, print its status and whether the tty is back in
    // canonical mode (raw mode leaves "-icanon"), then idle for capture.
    let cmd = format!(
        "AMAIL_HOME='{}' AMAIL_CONFIG=/nonexistent/config.toml TERM=xterm-256color {extra_env} '{bin}' inbox --demo {args}; \
         echo \"EXIT=$?\"; stty -a | tr ' ;' '\\n\\n' | grep -x -- '-\\{{0,1\\}}icanon' | sed 's/^/TTY:/'; sleep 120",
        home.path().display()
    );
    Shell { cmd, home }
}

/// The issue's "done when": find the unanswered help request, read it,
/// acknowledge it, answer it, see the task board, quit with the terminal
/// intact. Written against what any demo mailbox shows (one unanswered
/// help request), not against its exact text.
#[test]
fn find_read_ack_answer_and_quit_in_a_real_terminal() {
    let Some(t) = Tmux::start_shell("flow", shell("")) else {
        return;
    };
    t.wait_for("Threads · All");
    t.wait_for("‼HELP");
    t.wait_for("‼1 unanswered");
    // The Help filter puts the unanswered request first; open it and read it.
    t.text("3");
    t.wait_for("[3 Help");
    t.keys(&["Enter"]);
    t.wait_for("Thread ");
    t.keys(&["Enter"]);
    let screen = t.wait_for("? HELP ·");
    assert!(screen.contains("Problem"), "{screen}");
    // Acknowledge it.
    t.text("a");
    t.wait_for("✓ acknowledged 1 message as");
    // Answer it inline.
    t.text("r");
    t.wait_for("Reply as");
    t.text("Follow the spec: 15 minutes.");
    t.keys(&["C-s"]);
    t.wait_for("✓ reply sent to");
    // None unanswered: the total leaves the status line (a zero is not
    // said), and the Help tab still counts the thread.
    t.wait_until("no ‼ total on the status line", |s| {
        let status = s.lines().find(|l| l.contains("◉ live")).unwrap_or("");
        status.contains(" to ack") && !status.contains('‼')
    });
    // The answer is in the thread.
    t.keys(&["Escape"]);
    t.wait_for("↩ ANSWER");
    // The task board shows the thread's task, just updated.
    t.text("t");
    let board = t.wait_for("Task board");
    assert!(
        board.contains("now"),
        "a task updated by the reply:\n{board}"
    );
    t.text("q");
    let after = t.wait_for("EXIT=");
    assert!(after.contains("EXIT=0"), "{after}");
    let after = t.wait_for("TTY:");
    assert!(
        after.contains("TTY:icanon"),
        "terminal left in raw mode:\n{after}"
    );
    assert!(
        !after.contains("Threads · All"),
        "alternate screen not left:\n{after}"
    );
}

/// A session's home (its demo mailbox, acks and replies) goes with it: a
/// run of the tests leaves nothing in the temporary folder (each run left
/// one home per session there).
#[test]
fn a_session_s_home_is_removed_with_the_session() {
    let shell = shell("");
    let home = shell.home.path().to_path_buf();
    let Some(t) = Tmux::start_shell("home", shell) else {
        return;
    };
    t.wait_for("Threads · All");
    assert!(home.join("demo-inbox").join("mail").is_dir());
    drop(t);
    assert!(!home.exists(), "{} left behind", home.display());
}

#[test]
fn a_panic_leaves_the_terminal_usable() {
    let Some(t) = Tmux::start_shell("panic", shell("RUST_BACKTRACE=0 AMAIL_TEST_PANIC_KEY=!"))
    else {
        return;
    };
    t.wait_for("Threads · All");
    t.text("!");
    let after = t.wait_for("TTY:");
    assert!(
        after.contains("AMAIL_TEST_PANIC_KEY pressed"),
        "panic message readable:\n{after}"
    );
    assert!(after.contains("EXIT=101"), "{after}");
    // The message is not overwritten by a second, stale restore.
    let msg_at = after.find("AMAIL_TEST_PANIC_KEY pressed").unwrap();
    assert!(msg_at < after.find("EXIT=101").unwrap(), "{after}");
    assert!(
        after.contains("TTY:icanon"),
        "terminal left in raw mode:\n{after}"
    );
    assert!(
        !after.contains("Threads · All"),
        "alternate screen not left:\n{after}"
    );
}

/// A shell script in `dir` that stands in for `$EDITOR`, running `body`
/// (`$1` is the file to edit).
fn fake_editor(dir: &std::path::Path, body: &str) -> std::path::PathBuf {
    let editor = dir.join("fake-editor.sh");
    std::fs::write(&editor, format!("#!/bin/sh\n{body}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    editor
}

#[test]
fn reply_through_editor_suspends_and_restores_the_app() {
    let dir = tempfile::Builder::new()
        .prefix("amail-e2e-editor-")
        .tempdir()
        .unwrap();
    // Stands in for $EDITOR: prints to the (restored) terminal, writes a body.
    let editor = fake_editor(
        dir.path(),
        "echo EDITOR-RAN-ON \"$1\"\nprintf 'Answer written in the editor.\\n' > \"$1\"",
    );
    let env = format!("VISUAL= EDITOR='{}'", editor.display());
    let Some(t) = Tmux::start_shell("editor", shell(&env)) else {
        return;
    };
    t.wait_for("Threads · All");
    t.text("3");
    t.wait_for("[3 Help 2]");
    t.text("e");
    // Back in the app after the editor: the reply comes up for review (as
    // in aerc), and `y` sends it.
    t.wait_for("Review reply as");
    t.text("y");
    t.wait_for("✓ reply sent to");
    let screen = t.wait_for("Answer written in the editor.");
    assert!(screen.contains("↩ ANSWER"), "{screen}");
    assert!(screen.contains("Threads · Help"), "{screen}");
    // Keys still work after the input stream was restarted.
    t.text("q");
    let after = t.wait_for("EXIT=");
    assert!(after.contains("EXIT=0"), "{after}");
}

/// An editor that saves in another encoding (Latin-1 here): what was
/// written there is not lost with the temp file, which is kept and named
/// with the line and column of its first byte that is not UTF-8.
#[test]
fn an_editor_s_text_that_is_not_utf8_is_kept_and_named() {
    let dir = tempfile::Builder::new()
        .prefix("amail-e2e-latin1-")
        .tempdir()
        .unwrap();
    let editor = fake_editor(dir.path(), "printf 'Caf\\351 is ready.\\n' > \"$1\"");
    let env = format!(
        "VISUAL= EDITOR='{}' TMPDIR='{}'",
        editor.display(),
        dir.path().display()
    );
    let Some(t) = Tmux::start_shell("latin1", shell(&env)) else {
        return;
    };
    t.wait_for("Threads · All");
    t.text("3");
    t.wait_for("[3 Help 2]");
    t.text("e");
    let screen = t.wait_for("invalid UTF-8 (byte 0xe9)");
    let kept: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("amail-reply-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}\n{screen}");
    assert_eq!(std::fs::read(&kept[0]).unwrap(), b"Caf\xe9 is ready.\n");
    assert!(
        screen.contains(&format!("{}:1:4:", kept[0].display())),
        "{screen}"
    );
}

/// The issue's "done when": compose a message to an agent from the
/// keyboard, then mark several threads and acknowledge them with one key,
/// and find both in the mailbox on disk.
#[test]
fn compose_a_message_and_ack_several_at_once_in_a_real_terminal() {
    let shell = shell_in_home("", "--as BlueLake");
    let mail = shell.home.path().join("demo-inbox").join("mail");
    let Some(t) = Tmux::start_shell("triage", shell) else {
        return;
    };
    t.wait_loaded();
    // c: as BlueLake (--as), to one agent, as GUIDANCE.
    t.text("c");
    t.wait_for("To…");
    t.keys(&["j", "Space", "Enter"]);
    t.wait_for("Type of the message to");
    t.keys(&["Enter"]);
    t.wait_for("New GUIDANCE from BlueLake");
    t.text("Hold the release");
    t.keys(&["Enter"]);
    t.text("Wait for the limiter fix before tagging.");
    t.keys(&["C-s"]);
    t.wait_for("✓ sent to");
    let sent: Vec<String> = std::fs::read_dir(mail.join("BlueLake"))
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.unwrap().path()).ok())
        .filter(|t| t.contains("GUIDANCE: Hold the release"))
        .collect();
    assert_eq!(sent.len(), 1, "the message is a file in the mailbox");
    assert!(sent[0].contains("Wait for the limiter fix before tagging."));
    // The Pending filter, every thread marked, one a.
    let journal = mail.join(".amail-acks.jsonl");
    let before = std::fs::read_to_string(&journal)
        .unwrap_or_default()
        .lines()
        .count();
    t.text("2");
    let screen = t.wait_for("[2 Pending");
    let pending: usize = screen
        .split("[2 Pending ")
        .nth(1)
        .and_then(|s| s.split(']').next())
        .and_then(|n| n.trim().parse().ok())
        .expect("the Pending tab's count");
    assert!(
        pending >= 2,
        "the demo has several threads to ack:\n{screen}"
    );
    t.keys(&["g", "V", "G"]);
    t.keys(&["V"]);
    t.wait_for(&format!("{pending} marked"));
    t.text("a");
    let done = t.wait_for("✓ acknowledged");
    assert!(done.contains("messages as BlueLake"), "{done}");
    let after = std::fs::read_to_string(&journal).unwrap().lines().count();
    assert!(
        after >= before + pending,
        "one ack line per message: {before} -> {after}"
    );
    t.text("q");
    let out = t.wait_for("EXIT=");
    assert!(out.contains("EXIT=0"), "{out}");
}

/// Issue 16: backend work never freezes the screen. A generated
/// mcp_agent_mail store whose database another process holds locked: the
/// first frame shows the spinner while the load waits for the lock, keys
/// work (help opens and closes), and once the lock is let go the full
/// inbox arrives (its thread count in the title) and the spinner goes.
/// `amail inbox ROOT` with a home under ROOT and no config, waiting up to
/// ten minutes on a locked database, then the exit code on screen.
fn waiting_inbox(root: &std::path::Path) -> String {
    let bin = env!("CARGO_BIN_EXE_amail");
    format!(
        "AMAIL_HOME='{}' AMAIL_CONFIG=/nonexistent/config.toml AMAIL_SQLITE_BUSY_MS=600000 TERM=xterm-256color '{bin}' inbox '{}'; echo \"EXIT=$?\"; sleep 120",
        root.join("home").display(),
        root.display()
    )
}

#[test]
fn a_locked_database_shows_the_spinner_and_keys_still_work() {
    use rusqlite::Connection;
    let dir = tempfile::tempdir().unwrap();
    let now = chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 1, 15, 12, 0, 0).unwrap();
    amail::demo::corpus::mcp::write_mcp_corpus(dir.path(), 1100, now).unwrap();
    let threads = amail_core::stores::load(dir.path(), &Default::default())
        .unwrap()
        .threads
        .len();
    let db = dir.path().join("storage.sqlite3");
    let lock = Connection::open(&db).unwrap();
    // A rollback-journal database: an exclusive writer shuts readers out
    // (in WAL mode they would read past it).
    lock.execute_batch("PRAGMA journal_mode=DELETE; BEGIN EXCLUSIVE; UPDATE messages SET importance = importance WHERE id = 1;")
        .unwrap();

    let cmd = waiting_inbox(dir.path());
    let Some(t) = Tmux::start("locked", &cmd) else {
        return;
    };
    t.wait_for("working");
    t.wait_for("Threads · All · 0");
    // Keys are handled while the load waits.
    t.text("?");
    t.wait_for("Help · ? closes");
    t.text("?");
    t.wait_for("Threads · All · 0");
    assert!(t.screen().contains("working"), "{}", t.screen());

    lock.execute_batch("COMMIT").unwrap();
    t.wait_until(&format!("all {threads} threads"), |s| {
        threads_total(s) == Some(threads)
    });
    t.wait_until("the spinner gone", |s| !s.contains("working"));
    t.text("q");
    let after = t.wait_for("EXIT=");
    assert!(after.contains("EXIT=0"), "{after}");
}

/// `q` twice while an ack waits for a locked database: the inbox goes,
/// the shell is back, and stderr says what is being waited for, then
/// what became of the ack once the lock is let go; the exit code says
/// it was written. (An ack out quit behind a frozen screen, its outcome
/// never shown.)
#[test]
fn a_forced_quit_tells_on_stderr_what_became_of_an_ack_in_flight() {
    use rusqlite::Connection;
    let dir = tempfile::tempdir().unwrap();
    let now = chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 1, 15, 12, 0, 0).unwrap();
    amail::demo::corpus::mcp::write_mcp_corpus(dir.path(), 200, now).unwrap();
    let cmd = waiting_inbox(dir.path());
    let Some(t) = Tmux::start("forced-quit", &cmd) else {
        return;
    };
    t.wait_loaded();
    let db = dir.path().join("storage.sqlite3");
    let lock = Connection::open(&db).unwrap();
    lock.execute_batch("PRAGMA journal_mode=DELETE; BEGIN EXCLUSIVE; UPDATE messages SET importance = importance WHERE id = 1;")
        .unwrap();
    t.text("2");
    t.wait_for("Threads · Pending");
    t.text("a");
    t.wait_for("working");
    t.text("q");
    t.wait_for("sending 1 ack, then quitting: q again quits now");
    t.text("q");
    t.wait_for("amail: waiting for 1 ack to reach the store");
    lock.execute_batch("COMMIT").unwrap();
    let after = t.wait_for("EXIT=");
    assert!(
        after.contains("amail: ✓ acknowledged 1 message as"),
        "{after}"
    );
    assert!(after.contains("EXIT=0"), "{after}");
}

/// Issue 16: a large generated mailbox opens at once with the load's
/// progress (files done of all, per second) in the status bar, shows its
/// newest threads while that count still runs (and takes keys on them),
/// then the full counts. (The load of 20,000 files in a test build takes
/// far longer than the 100 ms between progress reports, and the first
/// threads come after about a twentieth of it, so both are on screen for
/// many polls.)
#[test]
fn a_large_mailbox_shows_the_load_progress_then_the_full_counts() {
    let dir = tempfile::tempdir().unwrap();
    let now = chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 1, 15, 12, 0, 0).unwrap();
    let mail = dir.path().join("mail");
    amail::demo::corpus::write_corpus(&mail, 20_000, now).unwrap();
    let threads = amail_core::stores::load(&mail, &Default::default())
        .unwrap()
        .threads
        .len();
    let bin = env!("CARGO_BIN_EXE_amail");
    let home = dir.path().join("home");
    let cmd = format!(
        "AMAIL_HOME='{}' AMAIL_CONFIG=/nonexistent/config.toml TERM=xterm-256color '{bin}' inbox '{}' 2>/dev/null; echo \"EXIT=$?\"; sleep 120",
        home.display(),
        mail.display()
    );
    let Some(t) = Tmux::start("large", &cmd) else {
        return;
    };
    let shown = threads_total;
    // Each wait also ends when the whole inbox is there, so a load that
    // outran the polls fails at once, saying so, not at the limit.
    let done = |s: &str| shown(s) == Some(threads) && !s.contains("loading ");
    let loading = t.wait_within(LARGE, "the load's progress", |s| {
        s.contains("/20000 · ") || done(s)
    });
    assert!(
        loading.contains("loading ") && loading.contains("/20000 · "),
        "the load was done before a poll saw its progress:\n{loading}"
    );
    // The newest threads, while the rest loads behind them.
    let partial = t.wait_within(LARGE, "threads while loading", |s| {
        (s.contains("loading ") && shown(s).is_some_and(|n| n > 0)) || done(s)
    });
    assert!(
        !done(&partial),
        "the load was done before a poll saw its first threads:\n{partial}"
    );
    assert!(shown(&partial).unwrap() < threads, "{partial}");
    assert!(partial.contains("▶"), "no thread row selected:\n{partial}");
    // Keys work on them: a filter, and back.
    t.text("6");
    t.wait_within(LARGE, "the Done filter", |s| {
        s.contains("Threads · Done · ")
    });
    t.text("1");
    t.wait_within(LARGE, &format!("all {threads} threads"), |s| {
        threads_total(s) == Some(threads)
    });
    t.wait_within(LARGE, "the load's progress gone", |s| {
        !s.contains("loading ")
    });
    t.text("q");
    let after = t.wait_within(LARGE, "the exit", |s| s.contains("EXIT="));
    assert!(after.contains("EXIT=0"), "{after}");
}

/// The file watcher is set up behind the first frame, not before it: on a
/// big tree its recursive watch lists every folder (a million-file
/// mailbox: seconds, during which the screen stayed blank). Held back here
/// (the `test-hooks` feature's `AMAIL_TEST_WATCH_DELAY_MS`), the inbox
/// still shows, takes keys and quits; the status bar says the watch is
/// starting, not that there is none.
#[test]
fn the_inbox_shows_and_takes_keys_while_the_watch_is_set_up() {
    let Some(t) = Tmux::start_shell("watch", shell("AMAIL_TEST_WATCH_DELAY_MS=600000")) else {
        return;
    };
    let screen = t.wait_loaded();
    assert!(screen.contains("starting watch"), "{screen}");
    assert!(!screen.contains("not watching"), "{screen}");
    t.text("?");
    t.wait_for("Help · ? closes");
    t.text("?");
    t.text("q");
    let after = t.wait_for("EXIT=");
    assert!(after.contains("EXIT=0"), "{after}");
}

/// `amail inbox -`: a `fetch_inbox` result piped in opens as a read-only
/// inbox, keys read from the terminal (`-` names stdin everywhere amail
/// takes mail: `threads -` and `pending -` read it; `inbox -` looked for a
/// file named `-`). Read once: a reload shows the same mail, and an ack
/// says it cannot be written back.
#[test]
fn piped_fetch_inbox_json_opens_as_a_read_only_inbox() {
    let dir = tempfile::tempdir().unwrap();
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/mcp-agent-mail-0.1.0/tool_results.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let fetched = results
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tool"] == "fetch_inbox")
        .expect("a fetch_inbox result");
    let json = dir.path().join("inbox.json");
    std::fs::write(&json, fetched["result"].to_string()).unwrap();
    let bin = env!("CARGO_BIN_EXE_amail");
    let cmd = format!(
        "AMAIL_HOME='{}' AMAIL_CONFIG=/nonexistent/config.toml TERM=xterm-256color '{bin}' inbox - --as BlueLake < '{}'; echo \"EXIT=$?\"; sleep 120",
        dir.path().join("home").display(),
        json.display()
    );
    let Some(t) = Tmux::start("piped", &cmd) else {
        return;
    };
    let screen = t.wait_for("ol-527.2");
    assert!(screen.contains("stdin"), "{screen}");
    // Keys come from the terminal, not the pipe.
    t.text("R");
    t.wait_for("✓ reloaded");
    assert!(
        t.screen().contains("ol-527.2"),
        "the reload lost the mail:\n{}",
        t.screen()
    );
    t.text("2");
    t.wait_for("Threads · Pending");
    t.text("a");
    t.wait_for("read-only");
    t.text("q");
    let after = t.wait_for("EXIT=");
    assert!(after.contains("EXIT=0"), "{after}");
}

/// Ctrl-Z stops the app the way it stops any terminal program: the shell
/// comes back with the terminal as it was (canonical mode, the normal
/// screen), and `fg` brings the inbox back, redrawn and taking keys (the
/// key reached the app as a plain key before, and nothing happened).
/// Run by `sh -c` (tmux's own way, a script, a service) there is no
/// shell to `fg` it and the kernel drops the stop: the inbox stays,
/// says why, and keeps taking keys.
#[test]
fn ctrl_z_without_job_control_says_so_and_keeps_the_inbox() {
    let Some(t) = Tmux::start_shell("nojobs", shell("")) else {
        return;
    };
    t.wait_loaded();
    t.keys(&["C-z"]);
    let screen = t.wait_for("not suspended");
    assert!(screen.contains("Threads · All"), "{screen}");
    t.text("3");
    t.wait_for("Threads · Help");
    t.text("q");
    // The tty's line comes after the exit status: wait for it, as the
    // other sessions do (waiting for "EXIT=" alone raced the `stty`).
    let after = t.wait_for("TTY:");
    assert!(after.contains("EXIT=0"), "{after}");
    assert!(after.contains("TTY:icanon"), "{after}");
}

#[test]
fn ctrl_z_gives_the_shell_back_and_fg_brings_the_inbox_back() {
    // An interactive shell: job control (`fg`) is an interactive shell's.
    let Some(t) = Tmux::start("suspend", "PS1='$ ' exec sh -i") else {
        return;
    };
    let home = tempfile::Builder::new()
        .prefix("amail-e2e-home-")
        .tempdir()
        .unwrap();
    t.text(&format!(
        "AMAIL_HOME='{}' AMAIL_CONFIG=/nonexistent/config.toml TERM=xterm-256color '{}' inbox --demo\n",
        home.path().display(),
        env!("CARGO_BIN_EXE_amail")
    ));
    t.wait_loaded();
    t.keys(&["C-z"]);
    let stopped = t.wait_for("Stopped");
    assert!(
        !stopped.contains("Threads · All"),
        "alternate screen not left:\n{stopped}"
    );
    t.text("stty -a | tr ' ;' '\\n\\n' | grep -x -- '-\\{0,1\\}icanon' | sed 's/^/TTY:/'\n");
    // (The command line itself holds "TTY:": wait for a line it printed.)
    let tty = t.wait_until("the tty's mode", |s| {
        s.lines().any(|l| l.starts_with("TTY:"))
    });
    assert!(
        tty.lines().any(|l| l == "TTY:icanon"),
        "terminal left in raw mode:\n{tty}"
    );
    t.text("fg\n");
    t.wait_loaded();
    // Keys still work after the input stream was restarted.
    t.text("3");
    t.wait_for("Threads · Help");
    t.text("q");
    // The shell's prompt, once the app has exited (a line typed before
    // that goes to the app's own reader, still reading as it closes).
    t.wait_until("the shell's prompt after quitting", |s| {
        !s.contains("Threads · ") && s.lines().rfind(|l| !l.trim().is_empty()) == Some("$")
    });
    t.text("echo EXIT=$?\n");
    // The line it printed: the typed command holds "EXIT=" too, and
    // waiting for that alone read the screen before the answer (failed
    // once on a loaded machine).
    let after = t.wait_until("the exit status", |s| {
        s.lines().any(|l| l.starts_with("EXIT="))
    });
    assert!(after.lines().any(|l| l == "EXIT=0"), "{after}");
}

/// The thread list's total in its title: `Threads · All · 14`, or the
/// `200` of `Threads · All · 1-27 of 200 ↓` once it scrolls.
fn threads_total(s: &str) -> Option<usize> {
    let rest = s.split("Threads · All · ").nth(1)?;
    let rest = match rest.split_once(" of ") {
        Some((range, total)) if range.chars().all(|c| c.is_ascii_digit() || c == '-') => total,
        _ => rest,
    };
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// A refusal wider than the terminal, seen in a real one: `r` on a help
/// request whose thread was not UTF-8 is refused before any editor
/// opens, and the whole refusal is on screen (it was cut to the footer's
/// width, `… so nothing is written b…`) until the next key.
#[test]
fn a_refusal_wider_than_the_terminal_is_read_whole() {
    let home = tempfile::Builder::new()
        .prefix("amail-e2e-home-")
        .tempdir()
        .unwrap();
    let mail = home.path().join("mail");
    std::fs::create_dir_all(&mail).unwrap();
    std::fs::write(
        mail.join("ask.md"),
        b"Id: m1\nThread: t-\xff1\nSubject: [ol-1] HELP_REQUEST\nFrom: BlueLake\nTo: Chiron\n\nBody:\nProblem: the token store\nQuestion: which one?\n",
    )
    .unwrap();
    let cmd = format!(
        "AMAIL_HOME='{home}' AMAIL_CONFIG=/nonexistent/config.toml TERM=xterm-256color '{bin}' inbox '{mail}' --as Chiron; echo \"EXIT=$?\"; sleep 120",
        home = home.path().display(),
        bin = env!("CARGO_BIN_EXE_amail"),
        mail = mail.display(),
    );
    let Some(t) = Tmux::start_shell("refusal", Shell { cmd, home }) else {
        return;
    };
    t.wait_loaded();
    t.text("r");
    let screen = t.wait_for("was not UTF-8");
    let words = crate::screen::squeeze(&screen);
    assert!(
        words.contains(
            "message m1: its thread \"t-\u{fffd}1\" was not UTF-8 where it was read \
             (shown with U+FFFD), so nothing is written into it; nothing was changed"
        ),
        "{screen}"
    );
    t.text("j");
    t.wait_until("the refusal gone", |s| !s.contains("was not UTF-8"));
    t.text("q");
    let after = t.wait_for("EXIT=");
    assert!(after.contains("EXIT=0"), "{after}");
    assert_eq!(
        std::fs::read_dir(&mail).unwrap().count(),
        1,
        "nothing written"
    );
}
