//! The agents view over a large inbox (issue 16): what it shows of each
//! agent's pace comes from the records as loaded, made once per change.

use std::path::Path;

use amail::backend::RealBackend;
use amail_tui::testing::TestApp;
use chrono::{TimeZone, Utc};

use super::watch::corpus_app;

/// The app over a generated mailbox of 2,000 messages in `dir`.
fn app_of(dir: &Path) -> TestApp<RealBackend> {
    let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    corpus_app(dir, 2_000, now).1
}

/// How many messages hold their full parse (parsed again since the load).
fn held(app: &TestApp<RealBackend>) -> usize {
    app.model
        .inbox
        .messages
        .iter()
        .filter(|m| m.message.full_if_held().is_some())
        .count()
}

/// The agents view reads each agent's context readings from the records
/// as loaded: it parsed every message again (through the full message),
/// which at a million messages took 2.5 s and 1.8 GB more than the whole
/// inbox when `w` was pressed.
#[test]
fn the_agents_view_parses_no_message_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_of(dir.path());
    let before = held(&app);
    app.press("w");
    let screen = app.render(140, 40);
    assert!(screen.contains("context"), "{screen}");
    assert!(screen.contains('%'), "the readings are shown:\n{screen}");
    assert_eq!(held(&app), before, "the agents view parsed messages again");
}

/// The family: no screen, filter or search parses every message again.
/// A thread row's summary line reads its newest message's fields, parsed
/// on demand and kept (a few dozen rows a list frame: 172 over the frames
/// here); a pass over the whole inbox through the full message is what
/// made `w` cost a million parses (2,000 here).
#[test]
fn browsing_every_screen_and_filter_parses_no_list_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_of(dir.path());
    for keys in [
        "1", "2", "3", "4", "5", "6", "1", "t", "w", "i", "?", "?", "G", "g",
    ] {
        app.press(keys);
        app.render(140, 40);
    }
    app.press("/");
    app.type_text("sandbox");
    while app.model.search_counting() {
        app.render(140, 40);
    }
    app.press("<enter>n");
    app.render(140, 40);
    let held_now = held(&app);
    assert!(held_now <= 400, "{held_now} of 2,000 messages parsed again");
}

/// A thread row's summary parses its newest message on demand; those
/// parses were kept for good, so paging through every thread of a big
/// inbox held one parse per thread (a few KB each: at 100,000 threads
/// more than the whole inbox). The held parses stay bounded, and the rows
/// still read the same after they are let go.
#[test]
fn paging_through_every_thread_holds_a_bounded_number_of_parses() {
    let dir = tempfile::tempdir().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    let mut app = corpus_app(dir.path(), 12_000, now).1;
    app.render(140, 40);
    let threads = app.model.inbox.threads.len();
    let limit = amail_tui::model::held_parses(app.model.inbox.messages.len());
    assert!(threads > 2 * limit, "{threads} threads: too few to test");
    let first = app.render(140, 40);
    let mut most = 0;
    for _ in 0..threads / 15 + 10 {
        app.press("<pagedown>");
        app.render(140, 40);
        most = most.max(held(&app));
    }
    assert!(
        most <= limit + 200,
        "{most} parses held after paging through {threads} threads (limit {limit})"
    );
    app.press("g");
    assert_eq!(app.render(140, 40), first, "the rows read the same again");
}

/// `Tab` pressed on the roster before the selected agent's queues were
/// read (they are read on the worker; `w` then `Tab` at once is enough)
/// said "BlueLake has no task in its queues" over queues that showed two
/// tasks a moment later. Until they are read it says so, and `Tab` once
/// they show focuses them.
#[test]
fn tab_before_the_queues_are_read_says_they_are_being_read() {
    let mut app = TestApp::sample();
    app.press("w/GreenCastle<enter>");
    app.render(120, 40);
    assert!(
        !app.model.queued_tasks().is_empty(),
        "GreenCastle has queued tasks"
    );
    // As the roster is before the worker answers.
    let read = app.model.queues.take();
    app.press("<tab>");
    assert!(!app.model.queue_focus);
    let notice = app.notice();
    assert!(!notice.contains("no task"), "{notice}");
    assert!(notice.contains("still being read"), "{notice}");
    // The answer comes: Tab focuses them.
    app.model.queues = read;
    app.press("<tab>");
    assert!(app.model.queue_focus, "{}", app.notice());
}
