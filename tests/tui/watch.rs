//! Live refresh: a file written into a watched mailbox becomes one
//! debounced `FilesChanged` naming it on the app's channel, and that
//! message brings the inbox on screen up to date (incrementally, with the
//! real backend) exactly as a full load would.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use amail::backend::RealBackend;
use amail::demo::corpus::{mcp, write_corpus};
use amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES;
use amail_core::inbox::Inbox;
use amail_core::stores::LoadOptions;
use amail_parser::MessageType;
use amail_tui::msg::{Msg, WatchState};
use amail_tui::testing::{message, TestApp};
use amail_tui::watch::start_watcher;
use amail_tui::UiConfig;
use chrono::{DateTime, TimeZone, Utc};
use tokio::sync::mpsc::unbounded_channel;

fn load_mailbox(root: &Path) -> Result<Inbox, amail_core::stores::Error> {
    amail_core::stores::load_mailbox(root, DEFAULT_MAX_MESSAGE_BYTES)
}

#[tokio::test]
async fn new_files_in_the_mailbox_become_files_changed_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let (_watcher, mut rx) = watching(vec![dir.path().to_path_buf()]).await;
    // A burst of writes (the way mail servers write) ...
    let written: HashSet<PathBuf> = (0..5)
        .map(|i| {
            let p = dir.path().join(format!("msg-{i}.md"));
            std::fs::write(&p, "# PROGRESS\n").unwrap();
            p
        })
        .collect();
    // ... arrives as reload requests naming those files, each once per
    // request (a slow machine may split the burst). The limit only bounds
    // a broken run.
    let mut seen = HashSet::new();
    while seen != written {
        let got = tokio::time::timeout(Duration::from_secs(30), rx.recv()).await;
        match got {
            Ok(Some(Msg::FilesChanged(paths))) => {
                let unique: HashSet<&PathBuf> = paths.iter().collect();
                assert_eq!(unique.len(), paths.len(), "{paths:?}");
                seen.extend(paths);
            }
            other => panic!("expected FilesChanged, got {other:?}"),
        }
    }
}

/// A spec-text PROGRESS mail on `bead`, in a thread of its own, newer
/// than the corpus.
fn write_mail(path: &Path, id: &str, bead: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        format!(
            "Subject: [{bead}] PROGRESS\nId: {id}\nFrom: GreenCastle\nTo: BlueLake\nThread: {id}\n\
             Date: 2030-01-01T00:00:00Z\nImportance: normal\nAck-Required: true\n\n\
             Body:\nBead: {bead}\nStep: Step 1 - watch\nStatus: running\n"
        ),
    )
    .unwrap();
}

/// The app over a generated corpus of `messages` in `dir`/mail, through
/// the real backend (no task store), its clock at `now`; the mailbox's
/// root.
pub(crate) fn corpus_app(
    dir: &Path,
    messages: usize,
    now: DateTime<Utc>,
) -> (PathBuf, TestApp<RealBackend>) {
    let root = write_corpus(&dir.join("mail"), messages, now)
        .unwrap()
        .mailbox;
    let backend = RealBackend::new(
        root.clone(),
        LoadOptions::default(),
        dir.join("no-store"),
        false,
    );
    let app = TestApp::with_backend(backend, now, UiConfig::default());
    (root, app)
}

#[test]
fn files_changed_with_the_real_backend_patches_the_inbox_as_a_full_load_would() {
    let dir = tempfile::tempdir().unwrap();
    let now = chrono::Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    let (root, mut app) = corpus_app(dir.path(), 200, now);
    app.press("jj");
    let selected = app.model.sel.thread.clone().expect("a thread is selected");

    // A new file: newest activity, so it takes the top row; the selection
    // stays on its thread.
    let new = root.join("GreenCastle").join("zz-watch-new.md");
    write_mail(&new, "watch-new-1", "ol-9999.1");
    app.send(Msg::FilesChanged(vec![new.clone()]));
    assert_eq!(app.model.load_error, None);
    assert_eq!(app.model.inbox, load_mailbox(&root).unwrap());
    assert_eq!(app.model.sel.thread.as_deref(), Some(selected.as_str()));
    let screen = app.render(120, 36);
    assert!(screen.contains("ol-9999.1"), "{screen}");

    // Edited, then removed: the thread follows, then goes.
    write_mail(&new, "watch-new-1", "ol-8888.1");
    app.send(Msg::FilesChanged(vec![new.clone()]));
    assert_eq!(app.model.inbox, load_mailbox(&root).unwrap());
    let screen = app.render(120, 36);
    assert!(screen.contains("ol-8888.1") && !screen.contains("ol-9999.1"));
    std::fs::remove_file(&new).unwrap();
    app.send(Msg::FilesChanged(vec![new]));
    assert_eq!(app.model.inbox, load_mailbox(&root).unwrap());
    assert!(!app.render(120, 36).contains("ol-8888.1"));
    assert_eq!(app.model.sel.thread.as_deref(), Some(selected.as_str()));
}

#[test]
fn files_changed_asks_the_backend_to_reload_just_those_paths() {
    let mut app = TestApp::sample();
    app.press("j");
    let selected = app.model.sel.thread.clone();
    let now = app.backend.now;
    app.backend.deliver(
        "12",
        message(
            MessageType::HelpRequest,
            "[ol-540] HELP_REQUEST",
            "TealHeron",
            &["BlueLake"],
            "ol-540",
            now,
            "Bead: ol-540\n## Question\nWhich port?\n",
            |p| {
                p.question = Some("Which port?".into());
            },
        ),
    );
    let path = PathBuf::from("/mail/TealHeron/12.md");
    app.send(Msg::FilesChanged(vec![path.clone()]));
    assert_eq!(app.backend.reloads, vec![vec![path]]);
    assert_eq!(app.model.sel.thread, selected);
    assert!(app.render(80, 24).contains("ol-540"));
}

#[tokio::test]
async fn watching_a_missing_path_reports_failure() {
    let (tx, mut rx) = unbounded_channel();
    let _w = start_watcher(vec!["/definitely/not/here".into()], tx);
    match rx.recv().await {
        Some(Msg::Watch(WatchState::Failed(why))) => assert!(why.contains("/definitely/not/here")),
        other => panic!("expected Failed, got {other:?}"),
    }
}

/// Reading the mailbox is no change to it, and the kernel is asked for
/// changes only. The watcher used to ask it for every open too (notify's
/// inotify mask holds `IN_OPEN`) and drop them itself: while it was busy
/// adding the watches of a big tree, the load's own reads filled the
/// kernel's event queue (`max_queued_events`, 16,384 by default), and an
/// overflow reloads everything: a million-file mailbox loaded twice on
/// every start, and again whenever another program read it while the
/// watcher lagged. Checked where the kernel says what it watches for
/// (`/proc/self/fdinfo`), then by reading more files than the queue holds.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_kernel_is_asked_for_changes_not_reads() {
    use std::os::unix::fs::MetadataExt;
    let limit: usize = std::fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(16_384)
        .min(100_000);
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("BlueLake");
    std::fs::create_dir(&agent).unwrap();
    let files: Vec<PathBuf> = (0..limit + 1_000)
        .map(|i| agent.join(format!("{i:06}.md")))
        .collect();
    for f in &files {
        std::fs::write(f, "Subject: [ol-1] PROGRESS\n").unwrap();
    }
    let (_watcher, mut rx) = watching(vec![dir.path().to_path_buf()]).await;
    // Each watch on our folders, as the kernel holds it: `mask:` in hex.
    let ours: HashSet<u64> = [dir.path(), agent.as_path()]
        .iter()
        .map(|d| std::fs::metadata(d).unwrap().ino())
        .collect();
    let mut masks = Vec::new();
    for fd in std::fs::read_dir("/proc/self/fdinfo").unwrap() {
        let Ok(info) = std::fs::read_to_string(fd.unwrap().path()) else {
            continue;
        };
        for line in info.lines().filter(|l| l.starts_with("inotify wd:")) {
            let field = |name: &str| {
                line.split_whitespace()
                    .find_map(|f| f.strip_prefix(name))
                    .and_then(|v| u64::from_str_radix(v, 16).ok())
            };
            if field("ino:").is_some_and(|ino| ours.contains(&ino)) {
                masks.push(field("mask:").unwrap());
            }
        }
    }
    assert_eq!(masks.len(), 2, "one watch per folder: {masks:x?}");
    const IN_ACCESS: u64 = 0x1;
    const IN_CLOSE_NOWRITE: u64 = 0x10;
    const IN_OPEN: u64 = 0x20;
    for mask in &masks {
        assert_eq!(
            mask & (IN_ACCESS | IN_CLOSE_NOWRITE | IN_OPEN),
            0,
            "a watch asks for reads: mask {mask:#x}"
        );
    }

    for f in &files {
        std::fs::read(f).unwrap();
    }
    let new = agent.join("new.md");
    std::fs::write(&new, "Subject: [ol-1] PROGRESS\n").unwrap();
    match tokio::time::timeout(Duration::from_secs(30), rx.recv()).await {
        Ok(Some(Msg::FilesChanged(paths))) => assert_eq!(paths, [new]),
        other => panic!("expected the new file alone, got {other:?}"),
    }
}

/// A folder made after the watch started (a new agent, a new month of an
/// mcp_agent_mail archive) is reported (a folder reads everything again,
/// files written into it before its watch was in included), and then
/// watched like the others: a file written into it comes by name.
#[tokio::test]
async fn a_folder_made_later_is_watched_too() {
    let dir = tempfile::tempdir().unwrap();
    let (_watcher, mut rx) = watching(vec![dir.path().to_path_buf()]).await;
    let agent = dir.path().join("TealHeron");
    std::fs::create_dir(&agent).unwrap();
    assert_eq!(next_files(&mut rx).await, std::slice::from_ref(&agent));
    // Its watch is in before the folder is reported; a file in it now is
    // named (the write may come in more than one burst).
    let file = agent.join("1.md");
    std::fs::write(&file, "Subject: [ol-1] PROGRESS\n").unwrap();
    let mut seen = next_files(&mut rx).await;
    assert!(seen.iter().all(|p| *p == file), "{seen:?}");
    while seen.is_empty() {
        seen = next_files(&mut rx).await;
    }
}

/// The paths of the next `FilesChanged` on `rx`; anything else fails.
async fn next_files(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>) -> Vec<PathBuf> {
    match tokio::time::timeout(Duration::from_secs(30), rx.recv()).await {
        Ok(Some(Msg::FilesChanged(paths))) => paths,
        other => panic!("expected FilesChanged, got {other:?}"),
    }
}

/// A watched mcp_agent_mail root is not changed by reading it. SQLite's
/// readers rewrite the database's wal-index, open its WAL for writing and
/// set the WAL's owner and mode; each of those reached the store as a
/// change, which loaded the root again, whose reading changed it again:
/// a root read itself for good (the status bar said "working" forever).
/// Now what a reader leaves is no change to the store, and a real change
/// after it still is one.
#[tokio::test]
async fn reading_an_mcp_root_s_database_is_no_change_to_it() {
    use amail_core::stores::Refresh;
    let dir = tempfile::tempdir().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    let info = amail::demo::corpus::mcp::write_mcp_corpus(dir.path(), 40, now).unwrap();
    let store = amail_core::stores::open(dir.path(), &LoadOptions::default()).unwrap();
    let (_watcher, mut rx) = watching(store.watch_paths()).await;
    // What the load does to the database, twice (the first open may make
    // the side files).
    store.load().unwrap();
    store.load().unwrap();
    // Then a real change: a message file lands in the archive.
    let month = info
        .archive
        .join("projects")
        .join(mcp::PROJECT_SLUG)
        .join("messages/2026/01");
    std::fs::create_dir_all(&month).unwrap();
    let landed = month.join("2026-01-15T12-00-00Z__new__999.md");
    std::fs::write(&landed, "---json\n{}\n---\n").unwrap();
    loop {
        let paths = next_files(&mut rx).await;
        let (real, rest): (Vec<PathBuf>, Vec<PathBuf>) =
            paths.into_iter().partition(|p| *p == landed || *p == month);
        if !rest.is_empty() {
            assert!(
                matches!(store.refresh(&rest).unwrap(), Refresh::Unchanged),
                "a reader's trace read as a change: {rest:?}"
            );
        }
        if !real.is_empty() {
            assert!(matches!(store.refresh(&real).unwrap(), Refresh::Whole(_)));
            break;
        }
    }
}

/// A watcher over `paths`, once it says its watches are in, and its
/// channel.
async fn watching(
    paths: Vec<PathBuf>,
) -> (
    amail_tui::watch::WatchHandle,
    tokio::sync::mpsc::UnboundedReceiver<Msg>,
) {
    let (tx, mut rx) = unbounded_channel();
    let watcher = start_watcher(paths, tx).expect("watcher starts");
    match rx.recv().await {
        Some(Msg::Watch(WatchState::Watching)) => {}
        other => panic!("expected Watching, got {other:?}"),
    }
    (watcher, rx)
}

/// A mailbox folder removed and made again (`rm -rf mail` and a new
/// run, a sync that replaces the folder, `mv mail old && mkdir mail`)
/// took its watch with it: the status bar still said `◉ live`, and mail
/// written into the new folder never came, not even after `R`. The
/// watcher now watches the folder again once it is back, and what is
/// in it is read.
#[tokio::test]
async fn a_mailbox_folder_removed_and_made_again_is_watched_again() {
    let dir = tempfile::tempdir().unwrap();
    for how in ["removed", "moved away"] {
        let mail = dir.path().join(format!("mail-{}", how.len()));
        std::fs::create_dir_all(mail.join("BlueLake")).unwrap();
        let (_watcher, mut rx) = watching(vec![mail.clone()]).await;
        if how == "removed" {
            std::fs::remove_dir_all(&mail).unwrap();
        } else {
            std::fs::rename(&mail, dir.path().join("old")).unwrap();
        }
        // Its going is a change (whatever it says) ...
        let _ = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        std::fs::create_dir_all(mail.join("BlueLake")).unwrap();
        let new = mail.join("BlueLake/new.md");
        // ... and mail written into the folder made again reaches the
        // app: named, or as a change to read whole.
        let mut arrived = false;
        for i in 0..40 {
            std::fs::write(&new, format!("Subject: [b-{i}] PROGRESS\n")).unwrap();
            match tokio::time::timeout(Duration::from_millis(250), rx.recv()).await {
                Ok(Some(Msg::MailChanged)) => arrived = true,
                Ok(Some(Msg::FilesChanged(paths))) => {
                    arrived = paths.iter().any(|p| p.starts_with(&mail));
                }
                _ => {}
            }
            if arrived {
                break;
            }
        }
        assert!(arrived, "mail in the folder made again ({how}) never came");
        let _ = std::fs::remove_dir_all(dir.path().join("old"));
    }
}
