//! Live refresh plumbing: a file written into a watched mailbox becomes
//! one debounced `MailChanged` message on the app's channel.

use std::time::Duration;

use amail::tui::msg::{Msg, WatchState};
use amail::tui::runtime::start_watcher;
use tokio::sync::mpsc::unbounded_channel;

#[tokio::test]
async fn a_new_file_in_the_mailbox_becomes_mail_changed() {
    let dir = tempfile::tempdir().unwrap();
    let (tx, mut rx) = unbounded_channel();
    let _watcher = start_watcher(vec![dir.path().to_path_buf()], tx).expect("watcher starts");
    match rx.recv().await {
        Some(Msg::Watch(WatchState::Watching)) => {}
        other => panic!("expected Watching, got {other:?}"),
    }
    // A burst of writes (the way mail servers write) ...
    for i in 0..5 {
        std::fs::write(dir.path().join(format!("msg-{i}.md")), "# PROGRESS\n").unwrap();
    }
    // ... arrives as a reload request. The limit only bounds a broken run.
    let got = tokio::time::timeout(Duration::from_secs(30), rx.recv()).await;
    assert!(matches!(got, Ok(Some(Msg::MailChanged))), "{got:?}");
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
