//! The frame after a patch: a model whose inbox a changed file patched
//! moves its counts, its thread list and its selection by what the patch
//! did (`Inbox::take_patched`) instead of making them again, and must
//! still show exactly what a model made from the reloaded inbox shows, on
//! screen and in its counts: dated and undated mail, a new thread, a reply
//! lifting an old thread, an ack recorded meanwhile, a removed file that
//! empties its thread; with no filter, with one, and with `--as`.

use std::path::{Path, PathBuf};

use amail::backend::RealBackend;
use amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES;
use amail_core::inbox::{Inbox, SourceKind};
use amail_tui::msg::Msg;
use amail_tui::testing::{render_to_string, TestApp};
use amail_tui::{Model, UiConfig};
use chrono::{DateTime, TimeZone, Utc};

fn load_mailbox(root: &Path) -> Inbox {
    amail_core::stores::load_mailbox(root, DEFAULT_MAX_MESSAGE_BYTES).unwrap()
}

/// The app over a 300-message corpus, with its clock at the corpus's now.
fn app() -> (tempfile::TempDir, PathBuf, TestApp<RealBackend>) {
    let dir = tempfile::tempdir().unwrap();
    let (root, app) = crate::watch::corpus_app(dir.path(), 300, now());
    (dir, root, app)
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap()
}

/// A PROGRESS mail to BlueLake that needs an ack, in `thread`; dated
/// `date` (undated: it sorts before every message).
fn mail(path: &Path, id: &str, thread: &str, date: Option<&str>) {
    let date = date.map_or(String::new(), |d| format!("Date: {d}\n"));
    std::fs::write(
        path,
        format!(
            "Subject: Re: [{thread}] PROGRESS\nId: {id}\nFrom: GreenCastle\nTo: BlueLake\n\
             Thread: {thread}\n{date}Importance: normal\nAck-Required: true\n\n\
             Body:\nBead: {thread}\nStep: Step 1 - patch\nStatus: running\n"
        ),
    )
    .unwrap();
}

/// A model made from the mailbox as it is now, looking where `app` looks
/// (screen, filter, selection, identity, size, scroll).
fn fresh_like(app: &TestApp<RealBackend>, root: &Path) -> Model {
    let m = &app.model;
    let mut fresh = Model::new(
        load_mailbox(root),
        m.tasks.clone(),
        m.now,
        UiConfig::default(),
    )
    .with_identity(m.identity.clone());
    fresh.source = m.source.clone();
    fresh.screen = m.screen;
    fresh.focus = m.focus;
    fresh.filter = m.filter;
    fresh.sel = m.sel.clone();
    fresh.size = m.size;
    fresh.offsets.threads.set(m.offsets.threads.get());
    fresh.offsets.messages.set(m.offsets.messages.get());
    fresh
}

/// Draws first (so the counts and the list are made), reports `changed`
/// as the watcher does, and compares the patched model with a fresh one.
fn change_then_compare(app: &mut TestApp<RealBackend>, root: &Path, changed: &Path, what: &str) {
    app.render(120, 36);
    app.send(Msg::FilesChanged(vec![changed.to_path_buf()]));
    assert_eq!(app.model.load_error, None, "{what}");
    let fresh = fresh_like(app, root);
    assert!(app.model.inbox == fresh.inbox, "{what}: the inbox");
    assert_eq!(app.model.counts(), fresh.counts(), "{what}: the counts");
    assert_eq!(
        render_to_string(&app.model, 120, 36),
        render_to_string(&fresh, 120, 36),
        "{what}: the screen"
    );
}

/// Every kind of change in turn, each compared with a fresh model.
fn every_change(app: &mut TestApp<RealBackend>, root: &Path) {
    let dir = root.join("GreenCastle");
    // A new thread, dated now: it takes the top row.
    let new_thread = dir.join("zz-new-thread.md");
    mail(
        &new_thread,
        "p-1",
        "ol-9999.1",
        Some("2030-01-01T00:00:00Z"),
    );
    change_then_compare(app, root, &new_thread, "a new thread");

    // A reply lifting the oldest thread to the top.
    let old = app.model.inbox.threads.last().unwrap().id.clone();
    let reply = dir.join("zz-reply.md");
    mail(&reply, "p-2", &old, Some("2030-01-01T00:01:00Z"));
    change_then_compare(app, root, &reply, "a reply lifting an old thread");

    // Undated: it sorts before every message, in the thread below the top.
    let second = app.model.inbox.threads[1].id.clone();
    let undated = dir.join("zz-undated.md");
    mail(&undated, "p-3", &second, None);
    change_then_compare(app, root, &undated, "an undated message");

    // An ack recorded meanwhile (the journal is read again with the new
    // file): a kept message's thread owes one ack less.
    let pending = app.model.inbox.pending(None);
    let owed = pending
        .iter()
        .find(|p| p.message > 10)
        .expect("a pending ack");
    let key = app.model.inbox.messages[owed.message].key.to_string();
    let source = SourceKind::Mailbox {
        root: root.to_path_buf(),
    };
    amail_core::stores::ack(&source, &[key], &owed.agent, DEFAULT_MAX_MESSAGE_BYTES).unwrap();
    let with_ack = dir.join("zz-with-ack.md");
    mail(&with_ack, "p-4", "ol-9999.2", Some("2030-01-01T00:02:00Z"));
    change_then_compare(app, root, &with_ack, "an ack and a new file");

    // The new thread's one file removed: its thread empties and goes.
    std::fs::remove_file(&new_thread).unwrap();
    change_then_compare(app, root, &new_thread, "a removed file");
}

#[test]
fn each_change_shows_what_a_fresh_model_shows() {
    let (_d, root, mut app) = app();
    app.press("jj");
    every_change(&mut app, &root);
}

#[test]
fn under_a_filter_each_change_shows_what_a_fresh_model_shows() {
    for tab in ["2", "3", "4", "6"] {
        let (_d, root, mut app) = app();
        app.press(tab).press("j");
        every_change(&mut app, &root);
    }
}

#[test]
fn with_an_identity_each_change_shows_what_a_fresh_model_shows() {
    for tab in ["1", "2"] {
        let (_d, root, app) = app();
        let mut app = app.with_identity("BlueLake");
        app.press(tab);
        every_change(&mut app, &root);
    }
}
