//! Everywhere but Linux: notify's recommended watcher (FSEvents on macOS,
//! kqueue on the BSDs, ReadDirectoryChangesW on Windows), recursive on a
//! folder; reads are not reported there.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use notify::{EventKind, RecursiveMode, Watcher as _};
use tokio::sync::mpsc::UnboundedSender;

use super::Changed;

/// The watcher (dropped with this, it stops), shared with what adds
/// its watches on the adding thread.
pub(super) struct Watcher {
    _shared: Arc<Mutex<notify::RecommendedWatcher>>,
}

/// The watcher, its events sent to `raw`, and what adds a path to it
/// (recursive on a folder).
pub(super) fn start(raw: UnboundedSender<Changed>) -> Result<(Watcher, super::Add), String> {
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
    })
    .map_err(|e| e.to_string())?;
    let shared = Arc::new(Mutex::new(watcher));
    let adding = Arc::clone(&shared);
    let add = move |p: &Path| {
        let mode = if p.is_dir() {
            RecursiveMode::Recursive
        } else {
            RecursiveMode::NonRecursive
        };
        let mut w = adding.lock().unwrap_or_else(PoisonError::into_inner);
        w.watch(p, mode).map_err(|e| e.to_string())
    };
    Ok((Watcher { _shared: shared }, Box::new(add)))
}
