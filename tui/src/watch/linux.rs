//! Linux: inotify, asked for changes only.
//!
//! The mask holds what changes a mailbox's text (a file made, written,
//! moved, removed; a watched folder itself moved or removed) and nothing a
//! reader does: no `IN_OPEN`, `IN_ACCESS` or `IN_CLOSE_NOWRITE`, so
//! reading the mailbox, however much of it, queues nothing (see
//! [`CHANGES`] for the close-after-write and attribute events). A folder made (or moved in) below a watched one
//! is watched at once with every folder below it, and reported: a folder
//! in a change reads everything again, which also takes files written
//! into it before its watch was in. A queue overflow, or an event from a
//! watch not (or no longer) known, reads everything again.
//!
//! The watches are added on a thread of their own (a million-file tree is
//! listed for seconds: `amail_core::source::walk::folders`, the walk's own
//! listing, which reads no file's metadata); the events are read on the
//! app's runtime as they come. A watch is added and recorded under one
//! lock, so an event of it is never read before its folder is known.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use futures::StreamExt;
use inotify::{Event, EventMask, EventStream, Inotify, WatchDescriptor, WatchMask, Watches};
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

use amail_core::source::walk;

use super::Changed;

/// What changes a mailbox's text; nothing a reader does. Not
/// `IN_CLOSE_WRITE` or `IN_ATTRIB` either: a write comes as `IN_MODIFY`
/// anyway, and SQLite's readers open the database's `-wal` for writing
/// and set its owner and mode (a close-after-write and an attribute
/// change with nothing written), which read an mcp_agent_mail root again
/// after each of its own loads.
const CHANGES: WatchMask = WatchMask::CREATE
    .union(WatchMask::DELETE)
    .union(WatchMask::MODIFY)
    .union(WatchMask::MOVED_FROM)
    .union(WatchMask::MOVED_TO)
    .union(WatchMask::DELETE_SELF)
    .union(WatchMask::MOVE_SELF)
    .union(WatchMask::DONT_FOLLOW);

/// Each watch's folder (or file), by the kernel's descriptor.
type Known = Arc<Mutex<HashMap<WatchDescriptor, PathBuf>>>;

/// The paths the app asked to watch (a mailbox's root, ...).
type Roots = Arc<Mutex<Vec<PathBuf>>>;

/// How often a watched root that went away is looked for again.
const ROOT_POLL: std::time::Duration = std::time::Duration::from_millis(250);

/// The running watcher: the task reading its events (stopped, with the
/// inotify instance, when this is dropped).
pub(super) struct Watcher {
    reader: JoinHandle<()>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// The watcher, its events read as they come and sent to `raw`, and
/// what adds a path's watches (a folder with the folders below it).
pub(super) fn start(raw: UnboundedSender<Changed>) -> Result<(Watcher, super::Add), String> {
    let inotify = Inotify::init().map_err(|e| e.to_string())?;
    let watches = inotify.watches();
    // 64 KiB: a burst of a few hundred events per read.
    let stream = inotify
        .into_event_stream(vec![0u8; 64 * 1024])
        .map_err(|e| e.to_string())?;
    let known = Known::default();
    let roots = Roots::default();
    let (mut adding, held, named) = (watches.clone(), Arc::clone(&known), Arc::clone(&roots));
    let add = move |p: &Path| {
        named
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(p.to_path_buf());
        add_tree(&mut adding, &held, p).map_err(|e| e.to_string())
    };
    let reader = tokio::spawn(read_events(stream, watches, known, roots, raw));
    Ok((Watcher { reader }, Box::new(add)))
}

/// Watches `root`, and every folder below it the walk enters when it is
/// a folder. The error is `root`'s own; a folder below that cannot be
/// watched (gone meanwhile) is left out.
fn add_tree(
    watches: &mut Watches,
    known: &Mutex<HashMap<WatchDescriptor, PathBuf>>,
    root: &Path,
) -> std::io::Result<()> {
    let folders = if root.is_dir() {
        walk::folders(root)
    } else {
        vec![root.to_path_buf()]
    };
    let mut folders = folders.into_iter();
    if let Some(first) = folders.next() {
        add(watches, known, first)?;
    }
    for folder in folders {
        let _ = add(watches, known, folder);
    }
    Ok(())
}

/// One watch, recorded under the lock the reader takes to place events.
fn add(
    watches: &mut Watches,
    known: &Mutex<HashMap<WatchDescriptor, PathBuf>>,
    path: PathBuf,
) -> std::io::Result<()> {
    let mut map = known.lock().unwrap_or_else(PoisonError::into_inner);
    let wd = watches.add(&path, CHANGES)?;
    map.insert(wd, path);
    Ok(())
}

/// Reads the events as they come, each handed to `raw` as the paths it
/// changed; ends when the app stops listening.
async fn read_events(
    mut stream: EventStream<Vec<u8>>,
    mut watches: Watches,
    known: Known,
    roots: Roots,
    raw: UnboundedSender<Changed>,
) {
    while let Some(event) = stream.next().await {
        if let Ok(event) = &event {
            root_gone(event, &mut watches, &known, &roots, &raw);
        }
        let changed = match event {
            Ok(event) => match place(&event, &known) {
                Placed::Nothing => continue,
                Placed::Unknown => None,
                Placed::Path(path) => Some(vec![path]),
                Placed::Folder(path) => {
                    // Below it too; its files come with the full read a
                    // folder in a change asks for.
                    let _ = add_tree(&mut watches, &known, &path);
                    Some(vec![path])
                }
            },
            Err(_) => None,
        };
        if raw.send(changed).is_err() {
            break;
        }
    }
}

/// A watched root removed or moved away (`rm -rf mail` and a new run, a
/// sync that replaces the folder, `mv mail old`) takes its watch with it,
/// or the watch follows it to where it went: then nothing made at the
/// root's path again was ever seen. Its watches (and, moved, those of the
/// folders below it, which would name the old paths) are let go, and the
/// path is looked for every [`ROOT_POLL`] until it is back, then watched
/// again and read whole.
fn root_gone(
    event: &Event<OsString>,
    watches: &mut Watches,
    known: &Known,
    roots: &Roots,
    raw: &UnboundedSender<Changed>,
) {
    if !event
        .mask
        .intersects(EventMask::DELETE_SELF | EventMask::MOVE_SELF)
    {
        return;
    }
    let map = known.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(root) = map.get(&event.wd).cloned() else {
        return;
    };
    let is_root = roots
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .contains(&root);
    if !is_root {
        return;
    }
    if event.mask.contains(EventMask::MOVE_SELF) {
        let below: Vec<WatchDescriptor> = map
            .iter()
            .filter(|(_, p)| p.starts_with(&root))
            .map(|(wd, _)| wd.clone())
            .collect();
        for wd in below {
            // The kernel's IN_IGNORED for each then drops it from `known`.
            let _ = watches.remove(wd);
        }
    }
    drop(map);
    let (mut watches, known, raw) = (watches.clone(), Arc::clone(known), raw.clone());
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(ROOT_POLL).await;
            if raw.is_closed() {
                return;
            }
            if std::fs::symlink_metadata(&root).is_ok() {
                let _ = add_tree(&mut watches, &known, &root);
                // What was written before the watch was in is read whole.
                let _ = raw.send(None);
                return;
            }
        }
    });
}

/// What one event means to the app.
#[derive(Debug, PartialEq)]
enum Placed {
    /// Nothing to read again (a watch's end).
    Nothing,
    /// Something changed, which the event cannot say.
    Unknown,
    /// This path changed.
    Path(PathBuf),
    /// A folder came (made or moved in): to watch, and changed.
    Folder(PathBuf),
}

/// Places `event` by its watch's folder.
fn place(event: &Event<OsString>, known: &Mutex<HashMap<WatchDescriptor, PathBuf>>) -> Placed {
    if event.mask.contains(EventMask::Q_OVERFLOW) {
        return Placed::Unknown;
    }
    let mut map = known.lock().unwrap_or_else(PoisonError::into_inner);
    if event.mask.contains(EventMask::IGNORED) {
        // The watch ended (its folder removed or unmounted): the removal
        // itself came as its own event.
        map.remove(&event.wd);
        return Placed::Nothing;
    }
    let Some(folder) = map.get(&event.wd) else {
        return Placed::Unknown;
    };
    let path = match &event.name {
        Some(name) => folder.join(name),
        None => folder.clone(),
    };
    let came = event
        .mask
        .intersects(EventMask::CREATE | EventMask::MOVED_TO);
    if came && event.mask.contains(EventMask::ISDIR) {
        Placed::Folder(path)
    } else {
        Placed::Path(path)
    }
}
