//! Live refresh: the mailbox's folders watched, a burst of changes handed
//! to the app as one message.
//!
//! A burst becomes one `FilesChanged` with the paths it touched, or one
//! `MailChanged` when the watcher could not say which (an overflowed
//! kernel queue, an event it cannot place, a watcher error): then
//! everything is read again.
//!
//! Two things about big mailboxes shape this (issue 16, a million files):
//! - The watches are added on a thread of their own, behind the first
//!   frame: watching a tree means listing every folder of it, which takes
//!   seconds there; the app waited for it and showed nothing meanwhile.
//!   `Msg::Watch` says when they are in.
//! - On Linux the kernel is asked for changes only (`linux`): the
//!   portable watcher (notify) also asks inotify for every open and drops
//!   them itself, so reads alone (amail's own load, or any program reading
//!   the mailbox while the watcher lagged) could overflow the kernel's
//!   queue, and an overflow reloads everything: a million-file mailbox was
//!   loaded twice on every start. Elsewhere notify, whose backends there
//!   report no reads.

use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use crate::msg::{Msg, WatchState};

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as os;
#[cfg(not(target_os = "linux"))]
mod portable;
#[cfg(not(target_os = "linux"))]
use portable as os;

/// A burst of file events has settled when this long passes without a new
/// one (trailing edge): one saved file is a handful of events within
/// microseconds, so a new message reaches the screen about this much after
/// it lands, well inside the 100 ms the design allows.
const QUIET: Duration = Duration::from_millis(40);

/// A steady stream of events (a `git checkout`, a sync) still reloads this
/// often: the incremental path is exact for any subset of the changes, so
/// cutting a long burst into pieces costs only the extra reloads.
const MAX_BURST: Duration = Duration::from_millis(250);

/// One watcher event: the paths it names, or `None` when it names none
/// that can be trusted (read everything again).
type Changed = Option<Vec<PathBuf>>;

/// Watches `paths` (a folder with every folder below it that the walk
/// enters; anything else alone), reporting to `tx`: `Msg::Watch` once the
/// watches are in (on a thread of their own), then the bursts. Must be
/// called inside the app's tokio runtime. The watching lasts as long as
/// the handle returned (`None`: nothing to watch).
pub fn start_watcher(paths: Vec<PathBuf>, tx: UnboundedSender<Msg>) -> Option<WatchHandle> {
    if paths.is_empty() {
        return None;
    }
    let (raw_tx, raw_rx) = unbounded_channel::<Changed>();
    let report = tx.clone();
    let watcher = match os::start(raw_tx) {
        Ok((watcher, mut add)) => {
            let spawned = std::thread::Builder::new()
                .name("amail-watch".into())
                .spawn(move || {
                    test_delay();
                    let errors: Vec<String> = paths
                        .iter()
                        .filter_map(|p| add(p).err().map(|e| format!("{}: {e}", p.display())))
                        .collect();
                    let _ = report.send(Msg::Watch(state_of(errors, paths.len())));
                });
            if let Err(e) = spawned {
                // No thread for the watches: none are added.
                let _ = tx.send(Msg::Watch(WatchState::Failed(e.to_string())));
            }
            Some(watcher)
        }
        Err(e) => {
            let _ = tx.send(Msg::Watch(WatchState::Failed(e)));
            None
        }
    };
    tokio::spawn(debounce(raw_rx, tx));
    Some(WatchHandle { _watcher: watcher })
}

/// What adds one path's watches (a folder with the folders below it),
/// on the thread that adds them all.
type Add = Box<dyn FnMut(&std::path::Path) -> Result<(), String> + Send>;

/// Keeps [`start_watcher`]'s watcher alive; dropped, it stops watching.
pub struct WatchHandle {
    _watcher: Option<os::Watcher>,
}

/// The test hook `AMAIL_TEST_WATCH_DELAY_MS` (the `test-hooks` feature):
/// holds the adding of watches back, to show the app does not wait for it.
fn test_delay() {
    #[cfg(feature = "test-hooks")]
    if let Some(ms) = std::env::var("AMAIL_TEST_WATCH_DELAY_MS")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        std::thread::sleep(Duration::from_millis(ms));
    }
}

/// How adding the watches went: failed only if every path failed.
fn state_of(errors: Vec<String>, paths: usize) -> WatchState {
    if errors.len() == paths {
        WatchState::Failed(errors.join("; "))
    } else {
        WatchState::Watching
    }
}

/// Gathers the watcher's events into bursts (quiet for [`QUIET`], at most
/// [`MAX_BURST`] long), each sent on as one message.
async fn debounce(mut raw_rx: UnboundedReceiver<Changed>, tx: UnboundedSender<Msg>) {
    while let Some(first) = raw_rx.recv().await {
        let deadline = tokio::time::Instant::now() + MAX_BURST;
        let mut burst = Burst::default();
        burst.add(first);
        let mut closed = false;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                break;
            }
            let wait = QUIET.min(left);
            match tokio::time::timeout(wait, raw_rx.recv()).await {
                Ok(Some(more)) => burst.add(more),
                Ok(None) => {
                    closed = true;
                    break;
                }
                Err(_elapsed) => break,
            }
        }
        if tx.send(burst.into_msg()).is_err() || closed {
            break;
        }
    }
}

/// The paths of one debounced burst of watcher events, each once, in the
/// order first seen; `unknown` once any event could not name its files.
#[derive(Default)]
struct Burst {
    paths: Vec<PathBuf>,
    seen: std::collections::HashSet<PathBuf>,
    unknown: bool,
}

impl Burst {
    fn add(&mut self, event: Changed) {
        match event {
            None => self.unknown = true,
            Some(paths) => {
                for p in paths {
                    if self.seen.insert(p.clone()) {
                        self.paths.push(p);
                    }
                }
            }
        }
    }

    fn into_msg(self) -> Msg {
        if self.unknown {
            Msg::MailChanged
        } else {
            Msg::FilesChanged(self.paths)
        }
    }
}
