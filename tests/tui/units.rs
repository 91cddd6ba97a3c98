//! What the inbox's numbers count, said where they show: the status
//! line's totals against the tabs' thread counts, the lists' positions
//! when rows scroll out of view.

use amail_core::aof::TaskStatus;
use amail_tui::model::{Filter, ListKind};
use amail_tui::testing::TestApp;

/// The status line (the second line from the bottom) of a rendered screen.
fn status_line(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    lines[lines.len() - 2].to_string()
}

/// The status line's "●4 pending" counted acks (message and recipient)
/// while the tab beside it, "Pending 3", counted threads: a person read
/// them as one number that disagreed with itself. Now the status line
/// names both units, the threads' count being the tab's.
#[test]
fn pending_total_names_its_units_and_matches_the_tab() {
    let mut app = TestApp::sample();
    let acks = app.model.pending_total();
    let at = Filter::ALL.iter().position(|f| *f == Filter::PendingAck);
    let threads = app.model.counts().filters[at.unwrap()];
    assert_ne!(acks, threads, "the sample must tell the two apart");
    let screen = app.render(120, 36);
    let status = status_line(&screen);
    assert!(
        status.contains(&format!("●{acks} to ack in {threads} threads")),
        "{status}"
    );
    assert!(screen.contains(&format!("Pending {threads}")), "{screen}");
    // Help: the status line's count is of threads when unanswered, the
    // Help tab's of every thread with a help request.
    let unanswered = app.model.counts().unanswered_help;
    assert!(
        status.contains(&format!("‼{unanswered} unanswered")),
        "{status}"
    );
    // Narrow: the glyphs alone, and `?` says what each counts.
    let narrow = status_line(&app.render(60, 20));
    assert!(
        narrow.contains(&format!("●{acks} ‼{unanswered} ")),
        "{narrow}"
    );
    app.press("?");
    let help = app.render(120, 200);
    let legend = help
        .lines()
        .find(|l| l.contains("●  (status line)"))
        .unwrap_or_else(|| panic!("no legend of ● in\n{help}"));
    assert!(
        legend.contains("acks still owed (the Pending tab: their threads)"),
        "{legend}"
    );
}

/// The title line of the pane whose title starts with `head`.
fn title_with(screen: &str, head: &str) -> String {
    screen
        .lines()
        .find(|l| l.contains(head))
        .unwrap_or_else(|| panic!("no {head:?} in\n{screen}"))
        .to_string()
}

/// A list longer than its pane said nothing of the rows out of view:
/// "Threads · All · 7" over four rows, the rest below unannounced. A
/// list that scrolls says which rows show, of how many, and which way
/// more are; one that shows whole keeps its count alone.
#[test]
fn lists_that_scroll_say_which_rows_show() {
    let mut app = TestApp::sample();
    let threads = app.model.list_keys(ListKind::Threads).len();
    let screen = app.render(80, 10);
    let title = title_with(&screen, "Threads · All");
    assert!(
        title.contains(&format!("Threads · All · 1-4 of {threads} ↓")),
        "{title}"
    );
    app.press("G");
    let title = title_with(&app.render(80, 10), "Threads · All");
    let from = threads - 3;
    assert!(
        title.contains(&format!("· {from}-{threads} of {threads} ↑")),
        "{title}"
    );
    // All of it in view: the count alone.
    let title = title_with(&app.render(80, 24), "Threads · All");
    assert!(
        title.contains(&format!("Threads · All · {threads} ")),
        "{title}"
    );

    // The roster.
    app.press("w");
    let agents = app.model.roster().len();
    let title = title_with(&app.render(80, 10), "Agents ·");
    // Borders and the headings: three rows of the six below the tabs.
    assert!(
        title.contains(&format!("Agents · 1-3 of {agents} ↓")),
        "{title}"
    );

    // The board as a list (headings are rows too).
    app.press("t");
    let title = title_with(&app.render(80, 12), "┏ Task board");
    assert!(
        title.contains(&format!("Task board · 1-3 of {} ", app.model.tasks.len())),
        "{title}"
    );
    assert!(title.contains(" ↓ "), "{title}");
}

/// A board whose tasks all show, with only empty headings cut below,
/// said "Task board · 1-12 of 12 ↓": every task in view, and an arrow to
/// more. At any height, the board names a range only when a task is out
/// of view, and its arrows point at tasks.
#[test]
fn the_board_names_a_range_only_when_a_task_is_out_of_view() {
    let mut app = TestApp::sample();
    // The last headings empty, as on most boards (nothing cancelled or
    // dead-lettered): they are the rows cut first.
    for t in &mut app.model.tasks {
        if matches!(t.status, TaskStatus::Cancelled | TaskStatus::Deadletter) {
            t.status = TaskStatus::Review;
        }
    }
    app.press("t");
    let tasks = app.model.tasks.len();
    let mut ranges = 0;
    for rows in 8..=48 {
        let title = title_with(&app.render(80, rows), "┏ Task board");
        if let Some(at) = title.find(&format!(" of {tasks}")) {
            ranges += 1;
            let shown = title[..at].rsplit(" · ").next().unwrap();
            let (first, last) = shown.split_once('-').unwrap();
            let (first, last): (usize, usize) = (first.parse().unwrap(), last.parse().unwrap());
            assert!(first > 1 || last < tasks, "{rows} rows: {title}");
            let after = &title[at + format!(" of {tasks}").len()..];
            assert_eq!(after.contains('↓'), last < tasks, "{rows} rows: {title}");
        }
    }
    assert!(ranges > 0, "no height cut the board");
}

/// A thread's messages scroll the same way.
#[test]
fn a_long_thread_says_which_messages_show() {
    let mut app = TestApp::sample();
    // The thread with the most messages.
    let (id, n) = app
        .model
        .inbox
        .threads
        .iter()
        .map(|t| (t.id.clone(), t.messages.len()))
        .max_by_key(|(_, n)| *n)
        .unwrap();
    assert!(n >= 3, "the sample's longest thread has {n}");
    app.press(&format!("/{id}<enter><enter>"));
    // Two rows of messages at this height.
    let title = title_with(&app.render(80, 8), "Thread ");
    assert!(title.contains(&format!("{n} messages · ")), "{title}");
    assert!(title.contains(&format!(" of {n} ")), "{title}");
}

/// The board's columns (wide terminals): a column longer than its room
/// showed the cards from the selected one up with nothing said of those
/// above it, and its `+N more` below fell off when the cards filled the
/// column. Each side out of view now says how many.
#[test]
fn a_board_column_says_how_many_cards_are_out_of_view() {
    use amail_tui::testing::FakeBackend;
    use amail_tui::UiConfig;
    let mut backend = FakeBackend::sample();
    let first = backend.tasks[0].clone();
    for i in 0..6 {
        let mut t = first.clone();
        t.id = format!("{}-copy{i}", first.id);
        backend.tasks.push(t);
    }
    let status = first.status;
    let n = backend.tasks.iter().filter(|t| t.status == status).count();
    let mut app = TestApp::new(backend, UiConfig::default());
    app.press("t");
    // To the copies' column. At this height a column holds three cards
    // (and a line above them and one below).
    while app.model.sel.task.as_deref() != Some(first.id.as_str()) {
        app.press("l");
    }
    let screen = app.render(200, 24);
    assert!(screen.contains(&format!("↓ {} more", n - 3)), "{screen}");
    assert!(!screen.contains("↑ "), "{screen}");
    for _ in 0..n {
        app.press("j");
    }
    let screen = app.render(200, 24);
    assert!(screen.contains(&format!("↑ {} more", n - 3)), "{screen}");
}

/// At 40 columns a thread's row showed its marks, badge, id and age and
/// one column of what it says (`B…`): the id's third of the row left the
/// sender and subject nothing. The id gives way to them (down to its
/// front and end, then out), so every row still says who wrote, and
/// what as far as the row goes.
#[test]
fn a_narrow_thread_row_keeps_who_wrote_what() {
    let mut app = TestApp::sample();
    let screen = app.render(40, 20);
    let keys = app.model.list_keys(ListKind::Threads);
    for (row, id) in screen.lines().skip(3).take(keys.len()).zip(keys.iter()) {
        let t = app.model.thread(id).unwrap();
        let state = amail_core::safe_text::clean_line(&app.model.inbox.thread_state(t)).to_string();
        // The sender whole, at least (before, one column of it).
        let colon = state.find(": ").expect("who: what");
        let head = &state[..colon + 1];
        assert!(row.contains(head), "{head:?} not in {row}\n{screen}");
    }
}

/// The status line with a file that could not be read (`⚠1 unreadable`)
/// dropped every word at 80 columns, "●1 ‼1 ✗0 ⚠1 ○": its forms were all
/// words or none, and the words with the ⚠ and the watch state did not
/// fit. The words give way in steps (the threads, then the watch state's,
/// then the totals'), so 80 columns keep what each total counts; the
/// glyphs stay at every width; a total of zero does not show (as ⚠ never
/// did), so "✗0" is not said.
#[test]
fn the_status_line_keeps_its_words_beside_an_unreadable_file() {
    use amail_tui::testing::{fixed_now, sample_inbox, sample_tasks, FakeBackend};
    let now = fixed_now();
    let mut inbox = sample_inbox(now);
    inbox
        .problems
        .push(("mail/broken.md".into(), "not UTF-8".into()));
    let app = || {
        TestApp::new(
            FakeBackend::new(inbox.clone(), sample_tasks(now), now),
            amail_tui::UiConfig::default(),
        )
    };
    // As anyone, every total; as RedFox, who owes no ack, "●0" would show.
    for mut app in [app(), app().with_identity("RedFox")] {
        let acks = app.model.pending_total();
        let help = app.model.counts().unanswered_help;
        let at = Filter::ALL.iter().position(|f| *f == Filter::Failed);
        let failed = app.model.counts().filters[at.unwrap()];
        for w in [60u16, 80, 100, 120] {
            let status = status_line(&app.render(w, 24));
            // The glyphs at every width, and no total of zero.
            for (glyph, n) in [("●", acks), ("‼", help), ("✗", failed), ("⚠", 1)] {
                assert_eq!(
                    status.contains(&format!("{glyph}{n}")),
                    n > 0,
                    "{w} columns: {glyph}{n} in {status:?}"
                );
            }
            if w >= 80 {
                // The short words at least.
                let ack = if acks > 0 { "to ack" } else { "" };
                for words in [ack, "unanswered", "⚠1 problem"] {
                    assert!(
                        status.contains(words),
                        "{w} columns: {words:?} in {status:?}"
                    );
                }
            }
            if w >= 120 && acks > 0 {
                assert!(status.contains(" threads "), "{w} columns: {status:?}");
            }
        }
    }
    // Where only the glyph shows, `?` says what it counts.
    let mut app = app();
    app.press("?");
    let help = app.render(120, 200);
    assert!(
        help.lines()
            .any(|l| l.contains("⚠  (status line)") && l.contains("mail not read")),
        "{help}"
    );
}

/// The status line counted "⚠7 unreadable" and nothing in the inbox said
/// which: a person had to quit and run `amail threads` to learn what the
/// seven were, and some were read (a file or database row that is not
/// UTF-8 loads with U+FFFD). The count says "problems", and `?` lists each
/// as the command line names it, path and why, after the config's.
#[test]
fn the_mail_problems_are_listed_in_help() {
    use amail_tui::testing::{fixed_now, sample_inbox, sample_tasks, FakeBackend};
    let now = fixed_now();
    let mut inbox = sample_inbox(now);
    inbox.problems.push((
        "mail/broken.md".into(),
        "invalid UTF-8 at 3:7; read with U+FFFD".into(),
    ));
    inbox.problems.push((
        "mail/big.md".into(),
        "over the 10 MiB limit; skipped".into(),
    ));
    let mut app = TestApp::new(
        FakeBackend::new(inbox, sample_tasks(now), now),
        amail_tui::UiConfig::default(),
    );
    let status = status_line(&app.render(120, 24));
    assert!(status.contains("⚠2 problems"), "{status:?}");
    app.press("?");
    let help = app.render(100, 300);
    for line in [
        "Mail problems: 2",
        "⚠ mail/broken.md: invalid UTF-8 at 3:7; read with U+FFFD",
        "⚠ mail/big.md: over the 10 MiB limit; skipped",
    ] {
        assert!(
            help.lines().any(|l| l.contains(line)),
            "{line:?} in\n{help}"
        );
    }
}

/// A refusal wider than the footer was cut to its width (`… so nothing
/// is written b…`): the part that says what was refused and why was lost,
/// and no key brought it back (the command line's words were the only
/// place it was whole). A notice too long for one line now takes the
/// lines above the footer it needs, over the bottom of the panes, and
/// goes with the next key, as any notice does.
#[test]
fn a_long_refusal_is_shown_whole() {
    let mut app = crate::triage::help_in_a_damaged_thread();
    app.press("r");
    let notice = app.notice();
    assert!(notice.contains("was not UTF-8"), "{notice}");
    for (w, h) in [(80, 24), (60, 24), (120, 30)] {
        let screen = app.render(w, h);
        let shown = crate::screen::words(&screen);
        let whole = crate::screen::squeeze(&notice);
        assert!(shown.contains(&whole), "{w}x{h}: {whole:?} in\n{screen}");
    }
    // The next key takes it away, and the panes are whole again.
    app.press("j");
    assert!(!app.render(80, 24).contains("was not UTF-8"));
}
