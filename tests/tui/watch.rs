//! Live refresh: a file written into a watched mailbox becomes one
//! debounced `FilesChanged` naming it on the app's channel, and that
//! message brings the inbox on screen up to date (incrementally, with the
//! real backend) exactly as a full load would.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use amail::backend::RealBackend;
use amail::demo::corpus::write_corpus;
use amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES;
use amail_core::inbox::Inbox;
use amail_core::stores::LoadOptions;
use amail_parser::MessageType;
use amail_tui::msg::{Msg, WatchState};
use amail_tui::runtime::start_watcher;
use amail_tui::testing::{message, TestApp};
use amail_tui::UiConfig;
use chrono::{DateTime, TimeZone, Utc};
use tokio::sync::mpsc::unbounded_channel;

fn load_mailbox(root: &Path) -> Result<Inbox, amail_core::stores::Error> {
    amail_core::stores::load_mailbox(root, DEFAULT_MAX_MESSAGE_BYTES)
}

#[tokio::test]
async fn new_files_in_the_mailbox_become_files_changed_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let (tx, mut rx) = unbounded_channel();
    let _watcher = start_watcher(vec![dir.path().to_path_buf()], tx).expect("watcher starts");
    match rx.recv().await {
        Some(Msg::Watch(WatchState::Watching)) => {}
        other => panic!("expected Watching, got {other:?}"),
    }
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
