//! The event loop: one channel of [`Msg`]s fed by the keyboard/resize
//! stream, a 1 s clock tick and the debounced file watcher; `update`;
//! commands executed through the [`Backend`]; redraw only when dirty.
//!
//! Runs on a current-thread tokio runtime: the app is single-user, so one
//! thread keeps the model free of locks. Backend work (loading, acks,
//! replies) runs on the [`Worker`]'s thread and reports back through the
//! same channel, so the screen never waits for a disk or a database.

use std::io;
use std::time::Duration;

use chrono::Utc;
use futures::StreamExt;
use ratatui::crossterm::event::{Event, EventStream, MouseButton, MouseEventKind};
use ratatui::prelude::CrosstermBackend;
use ratatui::Terminal;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};
use tokio::task::JoinHandle;

use super::backend::Backend;
use super::config::UiConfig;
use super::model::Model;
use super::msg::{Command, Msg, WatchState};
use super::terminal::{install_panic_hook, CrosstermOps, TerminalGuard};
use super::update::update;
use super::view::view;
use super::watch::start_watcher;
use super::worker::Worker;
use amail_core::inbox::{Inbox, SourceKind};

pub struct RunOptions {
    pub identity: Option<String>,
    pub config: UiConfig,
}

/// How long a forced quit waits for the writes still out, with the
/// terminal restored, before it says they may not have landed.
pub const SETTLE_WITHIN: Duration = Duration::from_secs(10);

/// How the app ended: what became of the writes still out when the user
/// forced the quit (`q` twice), one note each for stderr, and whether
/// every one of them was written.
#[derive(Debug)]
pub struct Exit {
    pub notes: Vec<String>,
    pub clean: bool,
}

/// After a forced quit, the terminal restored: takes in the answers of
/// the writes still out ([`Model::writing`]) as `next` gives them (the
/// worker's reports; `None` when the wait is over), for at most `within`,
/// and tells each one's outcome ([`crate::update::outcome`]: a refused
/// reply or message with its text), then any still out (they may not have
/// landed). With nothing out it returns at once, with no notes.
pub fn settle_writes(
    m: &mut Model,
    within: Duration,
    mut next: impl FnMut(Duration) -> Option<Msg>,
) -> Exit {
    let until = std::time::Instant::now() + within;
    let mut exit = Exit {
        notes: Vec::new(),
        clean: true,
    };
    while !m.writing.is_empty() {
        let left = until.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            break;
        }
        let Some(msg) = next(left) else { break };
        // Keys, ticks and the watch are no one's now.
        if !msg.from_backend() {
            continue;
        }
        let note = crate::update::outcome(m, &msg);
        let before = m.writing.len();
        let _ = update(m, msg);
        if let Some((written, note)) = note {
            exit.clean &= written;
            exit.notes.push(note);
        } else if m.writing.len() < before {
            exit.clean = false;
        }
    }
    if let Some(note) = crate::update::still_out(m, within) {
        exit.clean = false;
        exit.notes.push(note);
    }
    exit.notes = exit
        .notes
        .iter()
        .map(|n| amail_core::safe_text::clean_text(n).into_owned())
        .collect();
    exit
}

/// What the event loop hands back when the user quits: the model and the
/// way the worker's answers still come, for [`settle_writes`].
struct Left {
    model: Model,
    rx: tokio::sync::mpsc::UnboundedReceiver<Msg>,
    worker: Worker,
}

pub fn empty_inbox() -> Inbox {
    Inbox::empty(SourceKind::Stdin)
}

/// Runs the app until the user quits. The terminal is restored on return,
/// on error and on panic. Writes still out when the user forced the quit
/// are waited for with the terminal restored (at most [`SETTLE_WITHIN`],
/// saying so on stderr): the [`Exit`] tells what became of them, for the
/// caller to print.
pub fn run(backend: Box<dyn Backend + Send>, opts: RunOptions) -> io::Result<Exit> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let Left {
        mut model,
        mut rx,
        worker,
    } = rt.block_on(run_loop(backend, opts))?;
    if !model.writing.is_empty() {
        use std::io::Write;
        let _ = writeln!(
            io::stderr(),
            "amail: waiting for {} to reach the store (at most {} s)…",
            crate::model::writes_in_words(&model.writing),
            SETTLE_WITHIN.as_secs()
        );
    }
    let exit = settle_writes(&mut model, SETTLE_WITHIN, |left| {
        rt.block_on(async { tokio::time::timeout(left, rx.recv()).await.ok().flatten() })
    });
    if model.writing.is_empty() {
        drop(worker);
    } else {
        // Said above: not waited for without end.
        worker.leave();
    }
    Ok(exit)
}

async fn run_loop(backend: Box<dyn Backend + Send>, opts: RunOptions) -> io::Result<Left> {
    install_panic_hook();
    let opts_mouse = opts.config.mouse;
    // Test hook, only with the `test-hooks` feature: the key in
    // `AMAIL_TEST_PANIC_KEY` panics the app, so the end-to-end test can
    // prove a panic restores the terminal.
    #[cfg(feature = "test-hooks")]
    let panic_key = std::env::var("AMAIL_TEST_PANIC_KEY")
        .ok()
        .and_then(|s| s.chars().next());
    let mut model =
        Model::new(empty_inbox(), Vec::new(), Utc::now(), opts.config).with_identity(opts.identity);
    model.source = backend.describe();
    let watch_paths = backend.watch_paths();
    let poll = backend.poll_interval();
    model.link = poll.map(|_| crate::model::Link::Up);

    let mut ops = CrosstermOps::stdout();
    ops.mouse = opts_mouse;
    let mut guard = TerminalGuard::enter(ops)?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    let size = terminal.size()?;
    model.size = (size.width, size.height);

    let (tx, mut rx) = unbounded_channel::<Msg>();
    let report = tx.clone();
    let mut worker = Worker::spawn(backend, move |msg| {
        let _ = report.send(msg);
    });
    // The first frame is drawn at once; the inbox arrives when loaded.
    worker.dispatch(&mut model.inbox, Command::Load);
    model.working = worker.busy();
    let mut input = spawn_input(tx.clone());
    spawn_ticks(tx.clone());
    // Kept for the life of the loop: dropped, it stops watching.
    let watcher = start_watcher(watch_paths, tx.clone());
    if watcher.is_some() {
        model.watch = WatchState::Starting;
    }
    if let Some(every) = poll {
        spawn_polls(every, tx.clone());
    }

    loop {
        if model.dirty {
            terminal.draw(|f| view(&model, f))?;
            model.dirty = false;
            model.let_go_of_parses();
        }
        // Notifications (opt-in), already made safe by `notify`.
        if !model.notify.is_empty() {
            use std::io::Write;
            let mut out = io::stdout();
            for n in model.notify.drain(..) {
                out.write_all(n.as_bytes())?;
            }
            out.flush()?;
        }
        if model.search_settle_due() {
            update(&mut model, Msg::SearchCounted);
            continue;
        }
        // A search count still under way (`search_count`): another frame
        // takes it a slice further, after any key that came meanwhile.
        let msg = if model.search_counting() {
            tokio::task::yield_now().await;
            match rx.try_recv() {
                Ok(msg) => msg,
                Err(tokio::sync::mpsc::error::TryRecvError::Empty) => {
                    model.dirty = true;
                    continue;
                }
                Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => break,
            }
        } else {
            let Some(msg) = rx.recv().await else { break };
            msg
        };
        #[cfg(feature = "test-hooks")]
        if let (Some(c), Msg::Key(k)) = (panic_key, &msg) {
            if k.code == ratatui::crossterm::event::KeyCode::Char(c) {
                panic!("AMAIL_TEST_PANIC_KEY pressed");
            }
        }
        if msg.from_backend() {
            worker.reported();
        }
        let mut next = Some(msg);
        while let Some(msg) = next.take() {
            next = match update(&mut model, msg) {
                None => None,
                Some(Command::Quit) => {
                    // The terminal is restored as this returns (the guard
                    // goes); the input stops reading stdin first.
                    input.abort();
                    return Ok(Left { model, rx, worker });
                }
                Some(Command::Editor { initial }) => {
                    let result = hand_over(&mut input, &mut guard, &mut terminal, &tx, || {
                        run_editor(&initial)
                    })
                    .await?;
                    model.dirty = true;
                    Some(Msg::EditorClosed(result))
                }
                Some(Command::Suspend) => {
                    let stopped =
                        hand_over(&mut input, &mut guard, &mut terminal, &tx, stop_as_a_job)
                            .await?;
                    model.dirty = true;
                    (!stopped).then_some(Msg::NotSuspended)
                }
                Some(cmd) => worker.dispatch(&mut model.inbox, cmd),
            };
        }
        if model.working != worker.busy() {
            model.working = worker.busy();
            model.dirty = true;
        }
    }
    input.abort();
    Ok(Left { model, rx, worker })
}

/// Gives the terminal to `away` (the editor, or the shell after Ctrl-Z)
/// and takes it back afterwards, repainted and reading keys again.
async fn hand_over<T>(
    input: &mut JoinHandle<()>,
    guard: &mut TerminalGuard<CrosstermOps<io::Stdout>>,
    terminal: &mut Terminal<CrosstermBackend<io::Stdout>>,
    tx: &UnboundedSender<Msg>,
    away: impl FnOnce() -> T,
) -> io::Result<T> {
    // The input task would race the editor or the shell for stdin: stop
    // it, and wait until its stream is really dropped, so its reader
    // thread no longer competes for stdin.
    input.abort();
    let _ = (&mut *input).await;
    guard.suspend()?;
    let result = away();
    guard.resume()?;
    // A fresh Terminal repaints everything. (`Terminal::clear` would query
    // the cursor position, which can time out right after the tty comes
    // back.)
    *terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    *input = spawn_input(tx.clone());
    Ok(result)
}

/// Stops the process as the shell's job (SIGTSTP, what Ctrl-Z sends a
/// program not in raw mode); returns once `fg` continues it, with `true`.
/// Where no shell can continue it (an orphaned process group: the app
/// run by `sh -c`, a script, a service) the kernel drops the signal and
/// this returns `false`, for the inbox to say so.
///
/// Told apart by SIGCONT, which every continue sends and a dropped stop
/// never does, rather than by walking the process tree (which needs
/// `/proc`, and guesses about shells). The signal reaches some thread of
/// the process, maybe not this one, just after the stop ends: a dropped
/// stop is concluded when none came within `SIGCONT_WITHIN`.
#[cfg(unix)]
fn stop_as_a_job() -> bool {
    use signal_hook::consts::{SIGCONT, SIGTSTP};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    const SIGCONT_WITHIN: std::time::Duration = std::time::Duration::from_millis(250);
    let continued = Arc::new(AtomicBool::new(false));
    let Ok(id) = signal_hook::flag::register(SIGCONT, Arc::clone(&continued)) else {
        // Nothing to tell by: stop, and take it that `fg` continued it.
        let _ = signal_hook::low_level::raise(SIGTSTP);
        return true;
    };
    let _ = signal_hook::low_level::raise(SIGTSTP);
    let since = std::time::Instant::now();
    while !continued.load(Ordering::SeqCst) && since.elapsed() < SIGCONT_WITHIN {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    signal_hook::low_level::unregister(id);
    continued.load(Ordering::SeqCst)
}

/// No job control to stop into: say so.
#[cfg(not(unix))]
fn stop_as_a_job() -> bool {
    false
}

fn spawn_input(tx: UnboundedSender<Msg>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut events = EventStream::new();
        while let Some(ev) = events.next().await {
            let msg = match ev {
                Ok(Event::Key(k)) => Msg::Key(k),
                Ok(Event::Resize(w, h)) => Msg::Resize(w, h),
                Ok(Event::Mouse(me)) => {
                    let (x, y) = (me.column, me.row);
                    match me.kind {
                        MouseEventKind::ScrollDown => Msg::ScrollAt { x, y, lines: 3 },
                        MouseEventKind::ScrollUp => Msg::ScrollAt { x, y, lines: -3 },
                        MouseEventKind::Down(MouseButton::Left) => Msg::Click { x, y },
                        _ => continue,
                    }
                }
                Ok(_) => continue,
                Err(_) => break,
            };
            if tx.send(msg).is_err() {
                break;
            }
        }
    })
}

/// A store with nothing on disk to watch (a server) is asked for what is
/// new every `every`, as if its files had changed. A failed poll shows in
/// the status bar and the next one tries again (the store reconnects).
fn spawn_polls(every: Duration, tx: UnboundedSender<Msg>) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(every);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        every.tick().await;
        loop {
            every.tick().await;
            if tx.send(Msg::FilesChanged(Vec::new())).is_err() {
                break;
            }
        }
    });
}

fn spawn_ticks(tx: UnboundedSender<Msg>) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(1));
        loop {
            every.tick().await;
            if tx.send(Msg::Tick(Utc::now())).is_err() {
                break;
            }
        }
    });
}

/// Runs `$VISUAL`/`$EDITOR` (else `vi`) on a temp file holding `initial`.
fn run_editor(initial: &str) -> Result<String, String> {
    let editor = std::env::var("VISUAL")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .or_else(|| {
            std::env::var("EDITOR")
                .ok()
                .filter(|s| !s.trim().is_empty())
        })
        .unwrap_or_else(|| "vi".into());
    let file = tempfile::Builder::new()
        .prefix("amail-reply-")
        .suffix(".md")
        .tempfile()
        .map_err(|e| e.to_string())?;
    std::fs::write(file.path(), initial).map_err(|e| e.to_string())?;
    let status = editor_command(&editor, file.path())
        .status()
        .map_err(|e| format!("could not run {editor}: {e}"))?;
    if !status.success() {
        return Err(format!("{editor} exited with {status}"));
    }
    let bytes = std::fs::read(file.path()).map_err(|e| e.to_string())?;
    // Saved in another encoding: what was written is kept where it was
    // written, not removed with the temp file, and named.
    amail_core::utf8_text::text(bytes).map_err(|at| match file.keep() {
        Ok((_, path)) => format!("{}:{at}: kept there", path.display()),
        Err(e) => format!("{at}: and the file could not be kept: {e}"),
    })
}

/// The editor on `file`. `$VISUAL`/`$EDITOR` is a shell command, as git
/// reads it (`sh -c '$EDITOR "$@"'`): a quoted path with spaces, quoted
/// arguments (`emacsclient -a ''`); the file goes as its own argument, so
/// its name is never read by the shell. Split on whitespace, the quotes
/// reached the editor as characters. Without a shell, split on whitespace.
fn editor_command(editor: &str, file: &std::path::Path) -> std::process::Command {
    if cfg!(unix) {
        let mut cmd = std::process::Command::new("sh");
        cmd.arg("-c")
            .arg(format!("{editor} \"$@\""))
            .arg(editor)
            .arg(file);
        return cmd;
    }
    let mut parts = editor.split_whitespace();
    let mut cmd = std::process::Command::new(parts.next().unwrap_or("vi"));
    cmd.args(parts).arg(file);
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `$EDITOR` is a shell command, as git reads it: a path with a space,
    /// quoted, and quoted arguments (`emacsclient -a ''`, `"/opt/my
    /// editor/ed" --wait`). Split on whitespace, the quotes reached the
    /// editor as characters and a quoted path was cut in two.
    #[cfg(unix)]
    #[test]
    fn the_editor_is_run_as_the_shell_reads_it() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("my editor");
        std::fs::create_dir(&bin).unwrap();
        let script = bin.join("ed.sh");
        let log = dir.path().join("args");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '{}'\n",
                log.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let file = dir.path().join("reply file.md");
        std::fs::write(&file, "x").unwrap();
        let editor = format!("'{}' --wait -a ''", script.display());
        let status = editor_command(&editor, &file).status().unwrap();
        assert!(status.success());
        let args = std::fs::read_to_string(&log).unwrap();
        let args: Vec<&str> = args.lines().collect();
        assert_eq!(args, ["--wait", "-a", "", file.to_str().unwrap()]);
    }
}
