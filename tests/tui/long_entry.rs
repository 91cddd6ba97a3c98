//! Text typed into the app stays in view however long it gets: the reply
//! and compose editors wrap a line wider than themselves, and the
//! one-line prompts (search, a rejection's reason) show their end, where
//! the cursor is. A line wider than the editor ran off its right edge,
//! the cursor stuck at the border, and a long search hid its own count.

use amail_tui::model::Overlay;
use amail_tui::testing::{render_terminal, TestApp};
use ratatui::backend::Backend as _;

const REVIEW: &str = "TASK-527-1";

/// A line of `n` `x`s, then `tail`: wider than any editor here.
fn long_line(n: usize, tail: &str) -> String {
    format!("{}{tail}", "x".repeat(n))
}

/// The screen at `w`×`h`, and the character just left of the cursor.
fn before_cursor(app: &mut TestApp, w: u16, h: u16) -> (String, String) {
    let screen = app.render(w, h);
    let mut term = render_terminal(&app.model, w, h);
    let at = term.backend_mut().get_cursor_position().expect("cursor");
    let buf = term.backend().buffer().clone();
    let cell = buf[(at.x.saturating_sub(1), at.y)].symbol().to_string();
    (screen, cell)
}

#[test]
fn a_reply_line_wider_than_the_editor_wraps_and_the_cursor_follows_it() {
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("/ol-527.2<enter>r");
    assert!(matches!(app.model.overlay, Some(Overlay::Editor { .. })));
    app.type_text("First line 日本語 🎉");
    app.press("<enter>");
    app.type_text(&long_line(190, " TAILMARK"));
    for (w, h) in [(80, 24), (120, 40), (60, 20)] {
        let (screen, cell) = before_cursor(&mut app, w, h);
        assert!(screen.contains("TAILMARK"), "{w}x{h}:\n{screen}");
        assert!(
            screen.contains("First line 日本語 🎉"),
            "{w}x{h}:\n{screen}"
        );
        assert_eq!(
            cell, "K",
            "the cursor is after the last typed char at {w}x{h}"
        );
    }
    // Back to the start of the long line: the cursor goes with it.
    app.press("<home>");
    let (_, cell) = before_cursor(&mut app, 80, 24);
    assert_eq!(cell, "┃", "at the start of the row, after the border");
    app.press("<ctrl-s>");
    assert_eq!(
        app.backend.replies[0].2,
        format!("First line 日本語 🎉\n{}", long_line(190, " TAILMARK")),
        "wrapping is only how it is shown: the text is sent as typed"
    );
}

#[test]
fn a_compose_line_wider_than_the_editor_wraps() {
    let mut app = TestApp::sample();
    app.press("c<enter><space><enter><enter>");
    assert!(
        matches!(app.model.overlay, Some(Overlay::Compose { .. })),
        "{:?}",
        app.model.overlay
    );
    app.type_text(&long_line(150, " SUBJECTEND"));
    let (screen, cell) = before_cursor(&mut app, 80, 24);
    assert!(screen.contains("SUBJECTEND"), "{screen}");
    assert_eq!(cell, "D");
}

#[test]
fn a_long_search_keeps_its_end_and_its_count_in_view() {
    let mut app = TestApp::sample();
    app.press("/");
    app.type_text(&long_line(150, "ENDQ"));
    let screen = app.render(80, 24);
    let prompt = screen.lines().last().unwrap();
    assert!(prompt.contains("ENDQ▏"), "{prompt}");
    assert!(prompt.contains("no match"), "{prompt}");
    assert!(
        prompt.trim_matches('"').starts_with("/…"),
        "the cut front is marked: {prompt:?}"
    );
}

#[test]
fn a_long_rejection_reason_keeps_its_end_in_view() {
    let mut app = TestApp::sample();
    app.press(&format!("t/{REVIEW}<enter>X"));
    app.type_text(&long_line(150, " WHYEND"));
    let screen = app.render(80, 24);
    let prompt = screen.lines().last().unwrap();
    assert!(prompt.contains("WHYEND▏"), "{prompt}");
    assert!(prompt.contains(&format!("reject {REVIEW}")), "{prompt}");
}

/// A rejection's reason on a narrow terminal: the prompt names a long
/// router id in the middle-cut form, so the reason typed keeps room on
/// the line (at 40 columns `reject TASK-2026-11-28-R6GR2xJw · why:` took
/// all of it and nothing typed showed).
#[test]
fn the_reason_shows_beside_a_long_task_id_at_40_columns() {
    let mut b = amail_tui::testing::FakeBackend::sample();
    for t in &mut b.tasks {
        t.id = format!("TASK-2026-11-28-{}", t.id.trim_start_matches("TASK-"));
    }
    let mut app = amail_tui::testing::TestApp::new(b, amail_tui::UiConfig::default());
    app.press("t/TASK-2026-11-28-527-1<enter>X");
    app.type_text("Needs a test");
    for w in [40u16, 60] {
        let screen = app.render(w, 12);
        let line = screen.lines().last().unwrap();
        assert!(line.contains("Needs a test"), "{w}: {line}");
        assert!(line.contains("527-1"), "{w}: the id's end: {line}");
    }
}

/// A chooser's title longer than its box (the type of a message to many
/// agents) is cut with `…` before the note of where the list is, which
/// stays: on a short terminal "1-2 of 5 ↓" says more options are below
/// (it was cut off with the title's end, no `…` either).
#[test]
fn a_long_chooser_title_keeps_its_window_note() {
    let mut app = amail_tui::testing::TestApp::sample().with_identity("BlueLake");
    app.press("c<enter>");
    let screen = app.render(40, 9);
    let title = screen
        .lines()
        .find(|l| l.contains("Type of the message to"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(title.contains("of 5 ↓"), "{screen}");
    assert!(title.contains("…"), "{screen}");
}

/// The app over a mailbox of one PROGRESS message from BlueLake whose
/// body ends with `section`, read by the real backend.
fn one_message(section: &str) -> (tempfile::TempDir, TestApp<amail::backend::RealBackend>) {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    std::fs::create_dir(&mail).unwrap();
    let head = "From: BlueLake\nTo: RedStone\nDate: 2026-11-22T04:00:00Z\nSubject: [ol-1] PROGRESS\n\nBead: ol-1\nStatus: soak\n\n";
    std::fs::write(mail.join("one.md"), format!("{head}{section}")).unwrap();
    let backend =
        amail::backend::RealBackend::new(mail, Default::default(), dir.path().join("store"), false);
    let app = TestApp::with_backend(backend, chrono::Utc::now(), Default::default());
    (dir, app)
}

/// A message longer than 65,535 rows (a soak test's log) scrolls to its
/// end: `G` showed a line a third of the way down (the scroll position
/// was a 16-bit row, and wrapped), and its last lines could not be read.
#[test]
fn the_end_of_a_message_longer_than_65535_rows_is_reached() {
    let mut log = String::from("## Log\n");
    for i in 0..100_000 {
        log.push_str(&format!("- line {i}: ok\n"));
    }
    log.push_str("- THE LAST LINE\n");
    let (_dir, mut app) = one_message(&log);
    for (keys, view) in [("<enter><enter>", "structured"), ("v", "raw")] {
        app.press(keys);
        app.render(100, 30);
        app.press("G");
        let screen = app.render(100, 30);
        assert!(
            screen.contains("THE LAST LINE"),
            "{view}, after G:\n{screen}"
        );
        assert!(screen.contains("line 99999: ok"), "{view}:\n{screen}");
        // Back up a page and down again: the same end.
        app.press("<pageup>G");
        assert!(app.render(100, 30).contains("THE LAST LINE"), "{view}");
        app.press("g");
        assert!(
            app.render(100, 30).contains("line 0: ok"),
            "{view}: g is the top again"
        );
    }
}

/// A message of long wrapped lines scrolls to its last line: the rows
/// `G` can scroll past are the rows the view draws (the count guessed
/// a line's rows from its width, where wrapping at words takes more).
#[test]
fn the_end_of_a_message_of_wrapped_lines_is_reached() {
    let mut text = String::from("## Notes\n");
    for i in 0..80 {
        // Words of nine letters: a row of 98 columns holds nine of them
        // (90 columns), so 190 columns take three rows, not two.
        let words: Vec<String> = (0..19).map(|w| format!("w{i:03}x{w:04}")).collect();
        text.push_str(&words.join(" "));
        text.push('\n');
    }
    text.push_str("THE END MARK\n");
    let (_dir, mut app) = one_message(&text);
    app.press("<enter><enter>");
    for (w, h) in [(100, 30), (130, 40), (60, 20)] {
        app.render(w, h);
        app.press("G");
        let screen = app.render(w, h);
        assert!(
            screen.contains("THE END MARK"),
            "{w}x{h}, after G:\n{screen}"
        );
        app.press("g");
    }
}

/// The message view's rows are made once for what they show, and made
/// again when what they show changes: the age of a message moves on
/// with the clock (a minute at a time), not only when a key is pressed.
#[test]
fn the_message_view_follows_the_clock() {
    let mut app = TestApp::sample();
    app.press("<enter><enter>");
    let sent = |screen: &str| {
        screen
            .lines()
            .find(|l| l.contains(" sent "))
            .map(|l| l.split('(').nth(1).unwrap_or("").to_string())
            .unwrap_or_default()
    };
    let before = sent(&app.render(100, 30));
    assert!(before.contains("ago"), "{before:?}");
    let later = app.model.now + chrono::Duration::minutes(90);
    app.send(amail_tui::msg::Msg::Tick(later));
    let after = sent(&app.render(100, 30));
    assert_ne!(before, after, "the age did not move with the clock");
    assert!(after.contains("h ago"), "{after:?}");
}

/// A message scrolled to its end, then shown in a taller pane, still
/// fills the pane to its last line: the scroll a shorter pane allowed is
/// past the taller one's end, and the rows below the last line were left
/// blank (until the next key).
#[test]
fn a_taller_pane_keeps_the_end_of_a_scrolled_message_at_its_bottom() {
    let mut text = String::from("## Notes\n");
    for i in 0..60 {
        text.push_str(&format!("note line {i:02}\n"));
    }
    text.push_str("THE END MARK\n");
    let (_dir, mut app) = one_message(&text);
    app.press("<enter><enter>");
    app.render(100, 20);
    app.press("G");
    for (w, h) in [(100, 40), (100, 60)] {
        let screen = app.render(w, h);
        let lines: Vec<&str> = screen.lines().collect();
        let end = lines.iter().position(|l| l.contains("THE END MARK"));
        let end = end.unwrap_or_else(|| panic!("{w}x{h}: no end\n{screen}"));
        assert!(
            lines[end + 1].contains('┗'),
            "{w}x{h}: rows left blank below the end\n{screen}"
        );
        assert!(
            !lines[end - 1].contains('┏'),
            "{w}x{h}: the pane is not full\n{screen}"
        );
    }
    // The next key scrolls from what the pane shows: one line up shows
    // one line less of the end.
    app.press("k");
    let screen = app.render(100, 60);
    assert!(!screen.contains("THE END MARK"), "k did not move\n{screen}");
}

/// However narrow the pane, every word of a long field value and of a
/// long raw line shows: a row is never wider than the pane (the text
/// past its edge would be cut off, not wrapped).
#[test]
fn a_narrow_pane_shows_every_word_of_a_long_line() {
    let words: Vec<String> = (0..12).map(|i| format!("wd{i:02}q")).collect();
    let (_dir, mut app) = one_message(&format!("Step: {}\n", words.join(" ")));
    app.press("<enter><enter>");
    for view in ["structured", "raw"] {
        for w in 18..=40 {
            let screen = app.render(w, 70);
            for word in &words {
                assert!(
                    screen.contains(word.as_str()),
                    "{view} at {w} columns: {word} is missing\n{screen}"
                );
            }
        }
        app.press("v");
    }
}
