//! Everywhere but Linux: notify's recommended watcher (FSEvents on macOS,
//! kqueue on the BSDs, ReadDirectoryChangesW on Windows), recursive on a
//! folder; reads are not reported there.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use notify::{EventKind, RecursiveMode, Watcher as _};
use tokio::sync::mpsc::UnboundedSender;

use super::Changed;
use crate::msg::{Msg, WatchState};

/// The watcher, once its watches are in (the thread adding them puts it
/// here; dropped with this, it stops).
pub(super) struct Watcher {
    _slot: Arc<Mutex<Option<notify::RecommendedWatcher>>>,
}

/// Starts watching `paths` on a thread of its own: events to `raw`,
/// `Msg::Watch` to `report` once the watches are in.
pub(super) fn start(
    paths: Vec<PathBuf>,
    raw: UnboundedSender<Changed>,
    report: UnboundedSender<Msg>,
) -> Watcher {
    let slot = Arc::new(Mutex::new(None));
    let held = Arc::downgrade(&slot);
    let fail = report.clone();
    let spawned = std::thread::Builder::new()
        .name("amail-watch".into())
        .spawn(move || {
            super::test_delay();
            let (watcher, state) = add_watches(&paths, raw);
            // The app may be gone already; then the watcher goes too.
            if let (Some(w), Some(slot)) = (watcher, held.upgrade()) {
                *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(w);
            }
            let _ = report.send(Msg::Watch(state));
        });
    if let Err(e) = spawned {
        let _ = fail.send(Msg::Watch(WatchState::Failed(e.to_string())));
    }
    Watcher { _slot: slot }
}

/// The watcher over `paths`, its events sent to `raw`, and how it went.
fn add_watches(
    paths: &[PathBuf],
    raw: UnboundedSender<Changed>,
) -> (Option<notify::RecommendedWatcher>, WatchState) {
    let watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let changed = match res {
            // Reads, and what SQLite's readers do to the database's side
            // files (see `linux::CHANGES`): no change to any text.
            Ok(ev)
                if matches!(
                    ev.kind,
                    EventKind::Access(_)
                        | EventKind::Modify(notify::event::ModifyKind::Metadata(_))
                ) =>
            {
                return
            }
            Ok(ev) if ev.need_rescan() || ev.paths.is_empty() => None,
            Ok(ev) => Some(ev.paths),
            Err(_) => None,
        };
        let _ = raw.send(changed);
    });
    let mut watcher = match watcher {
        Ok(w) => w,
        Err(e) => return (None, WatchState::Failed(e.to_string())),
    };
    let errors: Vec<String> = paths
        .iter()
        .filter_map(|p| {
            let mode = if p.is_dir() {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            watcher
                .watch(p, mode)
                .err()
                .map(|e| format!("{}: {e}", p.display()))
        })
        .collect();
    (Some(watcher), super::state_of(errors, paths.len()))
}
