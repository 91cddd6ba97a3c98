//! Keys and drafts as in the anchors (issue 14, second part): the board's
//! columns, Esc back to the board, a reply never lost on Esc, `$EDITOR`
//! replies reviewed before sending, search counts, the mouse.

use amail_core::aof::TaskStatus;
use amail_tui::model::{EditMode, Filter, Overlay, Pane, Screen};
use amail_tui::msg::Msg;
use amail_tui::testing::{FakeBackend, TestApp};
use amail_tui::UiConfig;

/// The sample with a second task in progress, so a column has two.
fn board_app() -> TestApp {
    let mut backend = FakeBackend::sample();
    let mut extra = backend
        .tasks
        .iter()
        .find(|t| t.status == TaskStatus::InProgress)
        .unwrap()
        .clone();
    extra.id = "TASK-531-b".into();
    extra.title = "Second task in progress".into();
    extra.updated_at = extra.updated_at.map(|t| t - chrono::Duration::minutes(1));
    backend.tasks.push(extra);
    TestApp::new(backend, UiConfig::default())
}

fn status_of(app: &TestApp) -> TaskStatus {
    let id = app.model.sel.task.clone().unwrap();
    app.model.tasks.iter().find(|t| t.id == id).unwrap().status
}

#[test]
fn the_board_moves_between_columns_with_h_l_and_within_with_j_k() {
    let mut app = board_app();
    app.press("t");
    assert_eq!(status_of(&app), TaskStatus::Backlog);
    // j stays in its column (one task in BACKLOG).
    app.press("j");
    assert_eq!(status_of(&app), TaskStatus::Backlog);
    app.press("l");
    assert_eq!(status_of(&app), TaskStatus::Ready);
    app.press("<right>");
    assert_eq!(status_of(&app), TaskStatus::InProgress);
    let first = app.model.sel.task.clone();
    app.press("j");
    assert_eq!(status_of(&app), TaskStatus::InProgress);
    assert_ne!(app.model.sel.task, first, "j moves within the column");
    app.press("j");
    assert_eq!(
        status_of(&app),
        TaskStatus::InProgress,
        "and stops at its end"
    );
    app.press("k");
    assert_eq!(app.model.sel.task, first);
    app.press("h");
    assert_eq!(status_of(&app), TaskStatus::Ready);
    app.press("<left><left><left>");
    assert_eq!(status_of(&app), TaskStatus::Backlog);
    assert_eq!(app.model.screen, Screen::Tasks, "h never leaves the board");
    // The wide board (one column per status) follows the same selection.
    app.press("ll");
    let screen = app.render(200, 60);
    let row = screen.lines().find(|l| l.contains("▶ …")).unwrap();
    assert!(row.contains("ol-531"), "{row}");
}

#[test]
fn esc_from_a_task_returns_to_the_board() {
    let mut app = board_app();
    app.press("tll");
    let task = app.model.sel.task.clone();
    app.press("<enter>");
    assert_eq!(app.model.screen, Screen::Inbox);
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-531"));
    app.press("<esc>");
    assert_eq!(app.model.screen, Screen::Tasks);
    assert_eq!(app.model.sel.task, task);
    // From the roster too.
    app.press("w<enter><esc>");
    assert_eq!(app.model.screen, Screen::Agents);
}

#[test]
fn esc_on_a_reply_with_text_asks_and_can_keep_the_draft() {
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("/ol-527.2<enter>r");
    app.type_text("Use the spec");
    app.press("<esc>");
    assert!(
        matches!(
            app.model.overlay,
            Some(Overlay::Editor {
                mode: EditMode::ConfirmDiscard,
                ..
            })
        ),
        "Esc with text asks first"
    );
    assert!(app.render(80, 24).contains("Discard this reply?"));
    // Any other key goes back to typing, text intact.
    app.press("x");
    app.type_text("'s 15 minutes");
    // k keeps the draft for this message.
    app.press("<esc>k");
    assert!(app.model.overlay.is_none());
    assert!(app.backend.replies.is_empty());
    app.press("r");
    match &app.model.overlay {
        Some(Overlay::Editor { text, .. }) => assert_eq!(text, "Use the spec's 15 minutes"),
        o => panic!("{o:?}"),
    }
    app.press("<ctrl-s>");
    assert_eq!(app.backend.replies[0].2, "Use the spec's 15 minutes");
    assert!(app.model.drafts.is_empty(), "a sent draft is gone");
    // y discards, for good.
    app.press("r");
    app.type_text("scratch that");
    app.press("<esc>y");
    assert!(app.model.overlay.is_none());
    app.press("r");
    assert!(
        matches!(&app.model.overlay, Some(Overlay::Editor { text, .. }) if text.is_empty()),
        "{:?}",
        app.model.overlay
    );
}

/// The new message's editor asks what the reply's asks, with the same
/// keys: `y` discards, `k` keeps the message (the next `c` opens it again,
/// and `q` counts it among the drafts it would lose), any other key goes
/// back to typing. `k` used to go back to typing here.
#[test]
fn esc_on_a_new_message_with_text_asks_as_a_reply_does_and_k_keeps_it() {
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("c<enter>G<enter>");
    app.type_text("Standup in 5");
    app.press("<esc>");
    let screen = app.render(120, 30);
    assert!(
        screen.contains("Discard this message? y discard · k keep as draft"),
        "{screen}"
    );
    let hints = screen.lines().last().unwrap();
    assert!(hints.contains("k keep as draft"), "{hints}");
    // Any other key goes back to typing, text intact.
    app.press("x");
    assert!(
        matches!(&app.model.overlay, Some(Overlay::Compose { text, mode: EditMode::Typing, .. }) if text == "Standup in 5"),
        "{:?}",
        app.model.overlay
    );
    app.press("<esc>k");
    assert!(
        app.model.overlay.is_none(),
        "k keeps the message and closes its editor: {:?}",
        app.model.overlay
    );
    assert!(app.backend.sent.is_empty());
    assert!(app.render(120, 30).contains("draft kept"));
    assert_eq!(app.model.kept_drafts(), 1, "q must warn of it");
    app.press("q");
    assert!(!app.quit, "the first q only warns");
    // The next c opens it again, to the same recipients, and sends it.
    app.press("c");
    match &app.model.overlay {
        Some(Overlay::Compose { text, to, .. }) => {
            assert_eq!(text, "Standup in 5");
            assert!(!to.is_empty());
        }
        o => panic!("{o:?}"),
    }
    app.press("<ctrl-s>");
    assert_eq!(app.backend.sent.len(), 1);
    assert_eq!(app.backend.sent[0].subject, "Standup in 5");
    assert_eq!(app.model.kept_drafts(), 0, "a sent draft is gone");
    // y discards, for good: the next c starts anew.
    app.press("c<enter>G<enter>");
    app.type_text("scratch that");
    app.press("<esc>y");
    assert!(app.model.overlay.is_none());
    app.press("c");
    assert!(
        matches!(&app.model.overlay, Some(Overlay::Pick { .. })),
        "{:?}",
        app.model.overlay
    );
}

/// Tab moves on as it does in the inbox (the next pane, round from the
/// last to the first; Shift-Tab back): the board's panes are its
/// statuses' columns. Tab did nothing here, and no hint named it.
#[test]
fn tab_on_the_board_moves_to_the_next_status_and_round() {
    let mut app = board_app();
    app.press("t");
    assert_eq!(status_of(&app), TaskStatus::Backlog);
    app.press("<tab>");
    assert_eq!(status_of(&app), TaskStatus::Ready);
    app.press("<tab>");
    assert_eq!(status_of(&app), TaskStatus::InProgress);
    app.press("<backtab><backtab>");
    assert_eq!(status_of(&app), TaskStatus::Backlog);
    app.press("<backtab>");
    assert_eq!(status_of(&app), TaskStatus::Deadletter, "round to the last");
    app.press("<tab>");
    assert_eq!(
        status_of(&app),
        TaskStatus::Backlog,
        "and round to the first"
    );
    assert_eq!(app.model.screen, Screen::Tasks);
    for w in [60, 80, 200] {
        let screen = app.render(w, 24);
        let hints = screen.lines().last().unwrap();
        assert!(hints.contains("Tab status"), "{w}: {hints}");
    }
}

/// On the roster `Tab` goes to its second pane, the selected agent's task
/// queues, and back (`Esc` too), as it goes round the inbox's panes;
/// there `j`/`k` move through the queued tasks and `Enter` shows the task
/// on the board. Tab did nothing here, and no hint named it.
#[test]
fn tab_on_the_roster_moves_into_the_agents_task_queues_and_back() {
    let mut app = TestApp::sample();
    app.press("w");
    for _ in 0..20 {
        if app.model.sel.agent.as_deref() == Some("GreenCastle") {
            break;
        }
        app.press("j");
    }
    assert_eq!(app.model.sel.agent.as_deref(), Some("GreenCastle"));
    let screen = app.render(100, 30);
    let hints = screen.lines().last().unwrap();
    assert!(hints.contains("Tab queues"), "{hints}");
    app.press("<tab>");
    assert!(app.model.queue_focus);
    // GreenCastle's one queued task: its login flow, in review.
    assert_eq!(app.model.sel.queued.as_deref(), Some("TASK-527-1"));
    let screen = app.render(100, 30);
    let row = screen
        .lines()
        .find(|l| l.contains("TASK-527-1"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(row.contains("▶◆TASK-527-1"), "{screen}");
    let hints = screen.lines().last().unwrap();
    assert!(hints.contains("Enter on the board"), "{hints}");
    // j/k move among the queued tasks, not the roster.
    app.press("j");
    assert_eq!(app.model.sel.agent.as_deref(), Some("GreenCastle"));
    app.press("<enter>");
    assert_eq!(app.model.screen, Screen::Tasks);
    assert_eq!(app.model.sel.task.as_deref(), Some("TASK-527-1"));
    // Back on the roster, Esc (or Tab) leaves the queues for the roster.
    app.press("w<esc>");
    assert!(!app.model.queue_focus);
    assert_eq!(app.model.screen, Screen::Agents);
    app.press("<tab><backtab>");
    assert!(!app.model.queue_focus);
    // An agent with nothing queued keeps the focus in the roster and says so.
    app.press("g");
    assert_eq!(app.model.sel.agent.as_deref(), Some("BlueLake"));
    app.press("<tab>");
    assert!(!app.model.queue_focus);
    let screen = app.render(100, 30);
    assert!(
        screen.contains("BlueLake has no task in its queues"),
        "{screen}"
    );
}

#[test]
fn an_editor_reply_comes_back_for_review_with_the_message_quoted() {
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("/ol-527.2<enter>e");
    let file = &app.editor_requests[0];
    // The message answered, quoted in full in instruction lines.
    assert!(
        file.contains("# amail: PurpleBear wrote on 2026-11-22"),
        "{file}"
    );
    assert!(
        file.contains("# amail: > Should I change the endpoint to match the spec"),
        "{file}"
    );
    assert!(
        file.contains("# amail: > - Searched the ADRs for a decision: none"),
        "{file}"
    );
    app.send(Msg::EditorClosed(Ok(
        "Keep 24 h\n# amail: > quoted\n".into()
    )));
    assert!(app.backend.replies.is_empty(), "not sent unseen");
    assert!(app.render(100, 30).contains("Review reply as"));
    // e: edit again, starting from the text.
    app.press("e");
    assert_eq!(app.editor_requests.len(), 2);
    assert!(app.editor_requests[1].starts_with("Keep 24 h\n"));
    app.send(Msg::EditorClosed(Ok("Keep 24 h for now.\n".into())));
    app.press("y");
    assert_eq!(app.backend.replies[0].2, "Keep 24 h for now.");
    // d discards.
    app.press("e");
    app.send(Msg::EditorClosed(Ok("never mind".into())));
    app.press("d");
    assert!(app.model.overlay.is_none());
    assert_eq!(app.backend.replies.len(), 1);
}

#[test]
fn search_counts_matches_and_n_moves_after_the_prompt_closes() {
    let mut app = TestApp::sample();
    app.press("/");
    app.type_text("green");
    let screen = app.render(80, 24);
    assert!(screen.contains("/green▏  1/2"), "{screen}");
    app.press("<enter>");
    assert!(app
        .render(80, 24)
        .contains("Threads · All · 7 · /green 1/2"));
    app.press("n");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-529"));
    assert!(app.render(80, 24).contains("/green 2/2"));
    app.press("/");
    app.type_text("zzz-nothing");
    assert!(app.render(80, 24).contains("no match"));
}

#[test]
fn mouse_clicks_select_tabs_and_rows_and_the_wheel_scrolls_the_pane_under_it() {
    let config = UiConfig::from_toml("mouse = true", false);
    let mut app = TestApp::new(FakeBackend::sample(), config);
    let screen = app.render(160, 48);
    let tabs = screen.lines().nth(1).unwrap();
    // A filter tab: the column where "3 Help" starts (the line is quoted).
    let x = tabs.find("3 Help").unwrap() as u16 - 1;
    app.send(Msg::Click { x, y: 1 });
    assert_eq!(app.model.filter, Filter::Help);
    app.send(Msg::Click { x: 3, y: 1 });
    assert_eq!(app.model.filter, Filter::All);
    // A thread row: the third row of the list (border at y=2, rows from 3).
    app.send(Msg::Click { x: 10, y: 5 });
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-527.2"));
    assert_eq!(app.model.focus, Pane::Threads);
    // The wheel over the message pane scrolls it, not the focused list.
    app.render(160, 24);
    app.send(Msg::ScrollAt {
        x: 120,
        y: 20,
        lines: 3,
    });
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-527.2"));
    assert!(app.model.detail_scroll > 0);
    // Over the thread list it moves the list.
    app.send(Msg::ScrollAt {
        x: 10,
        y: 10,
        lines: 3,
    });
    assert_ne!(app.model.sel.thread.as_deref(), Some("ol-527.2"));
    // A message row focuses the messages pane.
    app.send(Msg::Click { x: 100, y: 3 });
    assert_eq!(app.model.focus, Pane::Messages);
    // Screen tabs on the header row.
    let header = app.render(160, 48).lines().next().unwrap().to_string();
    let x = header.find("Tasks").unwrap() as u16 - 1;
    app.send(Msg::Click { x, y: 0 });
    assert_eq!(app.model.screen, Screen::Tasks);
    // A task row in the list board (first task under BACKLOG).
    app.render(100, 30);
    app.send(Msg::Click { x: 10, y: 4 });
    let id = app.model.sel.task.clone().unwrap();
    assert_eq!(
        app.model.tasks.iter().find(|t| t.id == id).unwrap().status,
        TaskStatus::Backlog
    );
}

/// The column of `needle` in a screen line (the lines hold box-drawing
/// characters, several bytes each, one column each).
fn column_of(line: &str, needle: &str) -> u16 {
    let at = line
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} in {line:?}"));
    line[..at].chars().count() as u16
}

/// A click focuses the pane it lands in, wherever the wheel scrolls one:
/// on the roster's task queues it did nothing (the wheel there gave them
/// the focus, and `Tab` does), so a click on a queued task neither
/// selected it nor focused the queues, and a click back on the roster's
/// heading left the focus in the queues. Now a click on a task selects it
/// with the focus; on the queues' headings, the focus (the task selected
/// stays); on the roster, anywhere in it, the roster.
#[test]
fn a_click_focuses_the_roster_s_task_queues_and_the_roster_again() {
    let config = UiConfig::from_toml("mouse = true", false);
    let mut app = TestApp::new(FakeBackend::sample(), config);
    app.press("w/GreenCastle<enter>");
    let screen = app.render(100, 40);
    let heading = screen
        .lines()
        .position(|l| l.contains("OUTBOX 1"))
        .unwrap_or_else(|| panic!("the queues show:\n{screen}"));
    let x = column_of(screen.lines().nth(heading).unwrap(), "OUTBOX 1") + 3;
    app.send(Msg::Click {
        x,
        y: heading as u16 + 1,
    });
    assert!(app.model.queue_focus, "the click gave the queues no focus");
    assert_eq!(app.model.sel.queued.as_deref(), Some("TASK-527-1"));
    assert_eq!(app.model.sel.agent.as_deref(), Some("GreenCastle"));
    // The roster's column headings: the roster has the focus again.
    let roster = screen.lines().position(|l| l.contains("Agents ·")).unwrap();
    app.send(Msg::Click {
        x: 5,
        y: roster as u16 + 1,
    });
    assert!(
        !app.model.queue_focus,
        "a click on the roster left the queues focused"
    );
    assert_eq!(app.model.sel.agent.as_deref(), Some("GreenCastle"));
    // The queues' headings: the focus, on the task selected before.
    app.send(Msg::Click {
        x: 5,
        y: heading as u16,
    });
    assert!(app.model.queue_focus, "a click on the queues' headings");
    assert_eq!(app.model.sel.queued.as_deref(), Some("TASK-527-1"));
    let screen = app.render(100, 40);
    assert!(
        screen.contains("▶"),
        "the selected task is marked:\n{screen}"
    );
}

/// On the board's columns (140 columns and up) a status is a pane, as
/// `h`/`l` and `Tab` move between them: a click on a column's heading or
/// below its cards did nothing (only a card took a click). It now moves
/// to that column as `h`/`l` would (at the same row where it can).
#[test]
fn a_click_in_a_board_column_outside_its_cards_moves_to_that_column() {
    let config = UiConfig::from_toml("mouse = true", false);
    let mut app = TestApp::new(FakeBackend::sample(), config);
    app.press("t");
    let screen = app.render(200, 50);
    let (y, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("REVIEW"))
        .unwrap_or_else(|| panic!("columns:\n{screen}"));
    let x = column_of(line, "REVIEW");
    assert_ne!(status_of(&app), TaskStatus::Review);
    app.send(Msg::Click { x, y: y as u16 });
    assert_eq!(
        status_of(&app),
        TaskStatus::Review,
        "a click on the heading"
    );
    // Below the last card (the only one) of another column.
    let x = column_of(line, "BLOCKED");
    app.send(Msg::Click { x, y: 45 });
    assert_eq!(
        status_of(&app),
        TaskStatus::Blocked,
        "a click under the cards"
    );
}

/// The wheel scrolls the pane under the pointer; on the board's columns
/// a status is a pane, but the wheel over another column moved the
/// selection within the selected task's column. It now goes to the
/// column under the pointer, and moves there.
#[test]
fn the_wheel_over_another_board_column_moves_in_that_column() {
    // Two tasks in progress.
    let mut app = board_app();
    app.press("t");
    let screen = app.render(200, 50);
    let (y, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("IN-PROGRESS"))
        .unwrap();
    assert_ne!(status_of(&app), TaskStatus::InProgress);
    let x = column_of(line, "IN-PROGRESS");
    app.send(Msg::ScrollAt {
        x,
        y: y as u16 + 3,
        lines: 1,
    });
    assert_eq!(status_of(&app), TaskStatus::InProgress, "the wheel stayed");
    // Over the selected column, it moves within it as before.
    let before = app.model.sel.task.clone();
    app.send(Msg::ScrollAt {
        x,
        y: y as u16 + 3,
        lines: 1,
    });
    assert_eq!(status_of(&app), TaskStatus::InProgress);
    assert_ne!(app.model.sel.task, before);
}

/// The line editing of the terminal tools the inbox sits among (readline,
/// fzf, lazygit's prompts): `Ctrl-w` deletes the word before the cursor,
/// `Ctrl-u` the line up to it, in the search prompt and in the editors
/// (reply, new message, a rejection's reason). Neither did anything: a
/// mistyped search was unpicked a key at a time.
#[test]
fn ctrl_w_and_ctrl_u_delete_a_word_and_the_line_as_readline_does() {
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("/");
    app.type_text("help request  ");
    app.press("<ctrl-w>");
    assert_eq!(app.model.search.query, "help ");
    app.press("<ctrl-u>");
    assert_eq!(app.model.search.query, "");
    app.press("<esc>");
    app.press("/ol-527.2<enter>r");
    app.type_text("First line\nKeep the index, drop it");
    app.press("<ctrl-w>");
    let text = |app: &TestApp| match &app.model.overlay {
        Some(Overlay::Editor { text, .. }) => text.clone(),
        o => panic!("{o:?}"),
    };
    assert_eq!(text(&app), "First line\nKeep the index, drop ");
    app.press("<ctrl-u>");
    assert_eq!(text(&app), "First line\n", "only the cursor's line");
    app.press("<ctrl-u>");
    assert_eq!(
        text(&app),
        "First line\n",
        "nothing before the cursor on it"
    );
}

/// `Ctrl-w` after a word that follows a wide space (U+3000, as Japanese
/// and Chinese text is spaced) cut the text inside that character and
/// panicked; the word goes, the space stays.
#[test]
fn ctrl_w_after_a_wide_space_deletes_the_word_whole() {
    let mut app = TestApp::sample();
    app.press("/");
    app.type_text("検索\u{3000}語");
    app.press("<ctrl-w>");
    assert_eq!(app.model.search.query, "検索\u{3000}");
    app.press("<ctrl-w>");
    assert_eq!(app.model.search.query, "");
}

/// Ctrl-Z asks the runtime to suspend (the tmux test shows the shell and
/// `fg`); it writes nothing and leaves the screen as it was. In text
/// entry it is no command: the reply being typed stays.
#[test]
fn ctrl_z_suspends_and_keeps_the_screen() {
    let mut app = TestApp::sample();
    app.press("3");
    let filter = app.model.filter;
    app.press("<ctrl-z>");
    assert_eq!(app.suspends, 1);
    assert_eq!(app.model.filter, filter);
    assert!(!app.quit);
    app.press("/ol-527.2<enter>r");
    app.type_text("half a reply");
    app.press("<ctrl-z>");
    assert_eq!(app.suspends, 1, "a text entry takes Ctrl-Z as no command");
    assert!(app.model.overlay.is_some(), "the reply is still open");
}

/// Started with no job-control shell (`sh -c`, a service), nothing can
/// `fg` a stopped process and the kernel drops the stop: the inbox says
/// so instead of flashing and carrying on without a word.
#[test]
fn ctrl_z_without_job_control_says_why_it_carried_on() {
    let mut app = TestApp::sample();
    app.job_control = false;
    app.press("3");
    let filter = app.model.filter;
    app.press("<ctrl-z>");
    assert_eq!(app.suspends, 1);
    assert!(!app.quit);
    assert_eq!(app.model.filter, filter);
    let notice = app.model.notice.as_ref().expect("a notice");
    assert!(!notice.error, "{}", notice.text);
    assert!(notice.text.contains("not suspended"), "{}", notice.text);
    assert!(notice.text.contains("fg"), "{}", notice.text);
    assert!(app.render(100, 30).contains("not suspended"));
    // With job control the same key leaves no such notice.
    let mut app = TestApp::sample();
    app.press("<ctrl-z>");
    assert!(app.model.notice.is_none(), "{:?}", app.model.notice);
}

/// A kept search says how to use it: `n`/`N` go on to the next match,
/// and, in the thread list, Esc clears it. The hints said neither, so
/// the only trace of a kept search was the count in the pane's title.
#[test]
fn a_kept_search_says_its_keys_in_the_hints() {
    let mut app = TestApp::sample();
    // The screen's lines come quoted.
    let hints = |app: &mut TestApp| {
        let screen = app.render(100, 24);
        screen.lines().last().unwrap().trim_matches('"').to_string()
    };
    assert!(!hints(&mut app).contains("n/N"));
    app.press("/");
    app.type_text("green");
    app.press("<enter>");
    let kept = hints(&mut app);
    assert!(kept.starts_with(" n/N match  Esc clear search"), "{kept}");
    // The messages pane searches its own list: the thread list's search
    // is not the one `n` moves there, and Esc goes back a pane.
    app.press("<enter>");
    assert_eq!(app.model.focus, Pane::Messages);
    let there = hints(&mut app);
    assert!(
        !there.contains("n/N") && !there.contains("clear search"),
        "{there}"
    );
    app.press("<esc>");
    app.press("<esc>");
    assert!(app.model.search.query.is_empty());
    let cleared = hints(&mut app);
    assert!(!cleared.contains("n/N"), "{cleared}");
}

/// A reply on its way to the store is its write's: `r` on the message
/// meanwhile starts from its text, and discarding that second editor
/// does not take the text the first write still holds (it came back to
/// nothing when the write failed: "draft kept" over no draft).
#[test]
fn a_reply_out_keeps_its_text_through_a_second_editor_discarded() {
    use amail_tui::msg::Command;
    use amail_tui::update::update;
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("r");
    app.type_text("Follow the spec");
    // Sent, not answered yet (the worker holds it).
    let ctrl_s = amail_tui::keymap::Chord::parse("ctrl-s")
        .unwrap()
        .to_event();
    let Some(Command::Reply { key, body, .. }) = update(&mut app.model, Msg::Key(ctrl_s)) else {
        panic!("no reply sent: {:?}", app.model.overlay);
    };
    assert_eq!(body, "Follow the spec");
    assert_eq!(app.model.kept_drafts(), 0, "a reply out is waited for");
    app.press("r");
    assert!(
        matches!(&app.model.overlay, Some(Overlay::Editor { text, .. }) if text == "Follow the spec"),
        "{:?}",
        app.model.overlay
    );
    app.press("<esc>y");
    assert!(app.model.overlay.is_none());
    app.send(Msg::Replied {
        key: key.clone(),
        result: Err("disk full".into()),
    });
    assert!(app.notice().contains("draft kept"), "{}", app.notice());
    assert_eq!(
        app.model.drafts.get(&key).map(String::as_str),
        Some("Follow the spec")
    );
    assert_eq!(app.model.kept_drafts(), 1);
}
