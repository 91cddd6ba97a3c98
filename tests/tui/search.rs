//! `/` over a large inbox (issue 16: the UI never blocked): the count of
//! matches ("3/7") is made a slice of the thread list per frame (on every
//! core), so a keystroke never waits for a pass over every message; frame
//! by frame it reaches the count one pass gives, and only then says "no
//! match".

use chrono::{TimeZone, Utc};

use super::watch::corpus_app;

/// Enough messages for several frames' slices of the thread list on any
/// machine: a frame counts 1,024 threads a core, on at most eight cores.
const MESSAGES: usize = 30_000;

#[test]
fn the_count_grows_frame_by_frame_to_the_whole_count() {
    let dir = tempfile::tempdir().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    let (_, mut app) = corpus_app(dir.path(), MESSAGES, now);
    let threads = app.model.visible_threads().len();
    assert!(threads > 8 * 1_024, "{threads} threads: too few for slices");
    // What one pass over every thread finds.
    let query = "ol-98";
    let whole = app
        .model
        .visible_threads()
        .iter()
        .filter(|t| {
            let q = query.to_lowercase();
            t.id.to_lowercase().contains(&q)
                || t.subject.to_lowercase().contains(&q)
                || t.messages.iter().any(|&i| {
                    let m = &app.model.inbox.messages[i];
                    let msg = &m.message;
                    [
                        m.key.as_str(),
                        &msg.subject,
                        msg.from.as_deref().unwrap_or(""),
                        msg.kind.as_str(),
                        msg.body_text(),
                    ]
                    .iter()
                    .any(|s| s.to_lowercase().contains(&q))
                })
        })
        .count();
    assert!(whole > 0);

    app.press("/");
    app.type_text(query);
    let first = app.render(120, 36);
    assert!(
        app.model.search_counting(),
        "one frame counted every thread"
    );
    assert!(first.contains('…'), "{first}");
    let mut frames = 1;
    while app.model.search_counting() {
        app.render(120, 36);
        frames += 1;
        assert!(frames <= threads, "the count never ends");
    }
    let (n, at) = app.model.search_matches().unwrap();
    assert_eq!(n, whole);
    assert!(at.is_some(), "typing selected a match");
    let done = app.render(120, 36);
    assert!(done.contains(&format!("/{n}")), "{done}");
    assert!(
        !done
            .lines()
            .any(|l| l.contains("Enter keep") && l.contains('…')),
        "{done}"
    );

    // `n` and `N` step through the counted matches, in list order.
    app.press("<enter>");
    let here = app
        .model
        .search_matches()
        .unwrap()
        .1
        .expect("a match is selected");
    app.press("n");
    assert_eq!(app.model.search_matches().unwrap(), (n, Some(here % n + 1)));
    app.press("N");
    assert_eq!(app.model.search_matches().unwrap(), (n, Some(here)));
    app.press("<esc>/");
    app.type_text(query);
    while app.model.search_counting() {
        app.render(120, 36);
    }

    // Typing on narrows the count from the matches of the query before.
    app.type_text("1");
    app.render(120, 36);
    while app.model.search_counting() {
        app.render(120, 36);
    }
    assert!(app.model.search_matches().unwrap().0 <= n);

    // A query nothing holds says "no match" once, and only when counted.
    app.press("<esc>/");
    app.type_text("zzqx-nowhere");
    let mut screen = app.render(120, 36);
    while app.model.search_counting() {
        assert!(!screen.contains("no match"), "{screen}");
        screen = app.render(120, 36);
    }
    assert!(app.render(120, 36).contains("no match"));
}
