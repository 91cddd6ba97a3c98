//! What a person meets using the inbox in a terminal: keys that do what
//! `?` says on the first press (a key that moves nothing on screen, since
//! the state ran past what is drawn, reads as a dead key), notices that
//! say what happened, config mistakes pointed out.

use amail_parser::MessageType;
use amail_tui::model::{Overlay, WatchState};
use amail_tui::msg::Msg;
use amail_tui::testing::{fixed_now, message, FakeBackend, InboxBuilder, TestApp};
use amail_tui::UiConfig;

/// The help title's window, `(first, last, total)` from `1-18 of 65`.
fn help_window(screen: &str) -> (usize, usize, usize) {
    let title = screen
        .lines()
        .find(|l| l.contains("Help ·"))
        .unwrap_or_else(|| panic!("no help title:\n{screen}"));
    let at = title.find(" of ").expect("the help scrolls at this size");
    let before = &title[..at];
    let range = before.rsplit(' ').next().unwrap();
    let (a, b) = range.split_once('-').unwrap();
    let total: String = title[at + 4..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    (
        a.parse().unwrap(),
        b.parse().unwrap(),
        total.parse().unwrap(),
    )
}

#[test]
fn help_moves_back_up_on_the_first_k_after_running_past_its_end() {
    // One column (below 140) and two columns (the keys beside the legend).
    for (w, h) in [(100, 30), (150, 40), (60, 20)] {
        for run_to_end in ["G", "<ctrl-d><ctrl-d><ctrl-d><ctrl-d><ctrl-d><ctrl-d><ctrl-d><ctrl-d><ctrl-d><ctrl-d><ctrl-d><ctrl-d>", &"j".repeat(150)] {
            let mut app = TestApp::sample();
            app.press("?");
            app.render(w, h);
            app.press(run_to_end);
            let end = help_window(&app.render(w, h));
            assert_eq!(end.1, end.2, "{w}x{h} {run_to_end}: at the end");
            app.press("k");
            let up = help_window(&app.render(w, h));
            assert_eq!(
                up.0 + 1,
                end.0,
                "{w}x{h}: one k after {run_to_end} moves up one line"
            );
        }
    }
}

/// The reply editor's text on screen, when it is open.
fn editor_text(app: &TestApp) -> Option<String> {
    match &app.model.overlay {
        Some(Overlay::Editor { text, .. }) => Some(text.clone()),
        _ => None,
    }
}

#[test]
fn a_kept_draft_erased_and_closed_is_gone_as_the_notice_says() {
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("/ol-527.2<enter>r");
    app.type_text("Use the spec");
    app.press("<esc>k");
    assert_eq!(app.model.kept_drafts(), 1);
    // Back to it, every word deleted, Esc: it closes at once ("reply
    // discarded"), and the draft must not come back on the next r.
    app.press("r<ctrl-u><esc>");
    assert!(app.model.overlay.is_none());
    assert!(app.render(100, 30).contains("reply discarded"));
    assert_eq!(app.model.kept_drafts(), 0, "q must not warn of it");
    app.press("r");
    assert_eq!(editor_text(&app).as_deref(), Some(""));
    app.press("<esc>");

    // The same through $EDITOR: the file comes back empty, which the
    // file's own instructions call cancelling.
    app.press("r");
    app.type_text("Keep 24 h");
    app.press("<esc>k");
    app.press("e");
    assert!(app.editor_requests[0].starts_with("Keep 24 h"));
    app.send(Msg::EditorClosed(
        Ok("# amail: everything deleted\n".into()),
    ));
    assert!(app.model.overlay.is_none());
    assert_eq!(app.model.kept_drafts(), 0);
    app.press("r");
    assert_eq!(editor_text(&app).as_deref(), Some(""));
}

#[test]
fn two_actions_given_the_same_key_in_the_config_file_are_pointed_out() {
    // `ack = "j"` next to the `down` list that keeps j: one of them loses
    // the key, and with it its only binding. That must not pass unsaid.
    let c = UiConfig::from_toml("[keys]\nack = \"j\"\ndown = [\"j\", \"ctrl-n\"]\n", false);
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    let w = &c.warnings[0];
    assert!(
        w.contains("\"j\"") && w.contains("ack") && w.contains("down"),
        "{w}"
    );
    // The warning names the one that keeps it, and the app does as it says.
    let mut app = TestApp::new(FakeBackend::sample(), c.clone());
    let before = app.model.sel.thread.clone();
    app.press("j");
    let moved = app.model.sel.thread != before;
    assert_eq!(moved, w.contains("down keeps it"), "{w}");
    // A key named twice for one action, or once each by different
    // spellings of nothing, is no clash.
    let c = UiConfig::from_toml("[keys]\ndown = [\"j\", \"j\"]\nup = \"k\"\n", false);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn the_thread_list_never_cuts_how_many_acks_are_owed() {
    // A thread of 120 progress reports each owed an ack, beside a help
    // request (so both flag columns show at 120 columns, one shared
    // column at 60): the row said `●ACK1…` or `●ACK…`, as if one.
    let now = fixed_now();
    let mut b = InboxBuilder::new("mail");
    b.owed_progress(120, 200, now);
    for (key, kind, subject) in [
        (
            "h",
            MessageType::HelpRequest,
            "[ol-8.1] HELP_REQUEST: stuck",
        ),
        ("d", MessageType::Done, "[ol-7.1] DONE: finished"),
    ] {
        let mut msg = message(
            kind,
            subject,
            "Other",
            &["Lead"],
            &key.repeat(3),
            now,
            "x",
            |_| {},
        );
        msg.ack_required = true;
        b.add(key, msg, &[], &[]);
    }
    let mut app = TestApp::new(
        FakeBackend::new(b.build(), Vec::new(), now),
        UiConfig::default(),
    );
    for (w, h) in [(120, 30), (80, 24), (60, 20)] {
        let screen = app.render(w, h);
        let row = screen
            .lines()
            .find(|l| l.contains("ol-9.1"))
            .unwrap_or_else(|| panic!("{screen}"));
        assert!(row.contains("●ACK120 "), "{w}x{h}: {row}");
        // The badges after it still line up with the other rows'.
        let done = screen.lines().find(|l| l.contains("✓ DONE")).unwrap();
        let badge = |l: &str| {
            l.char_indices()
                .find(|(_, c)| ['…', '✓', '?'].contains(c))
                .map(|(i, _)| l[..i].chars().count())
        };
        assert_eq!(badge(row), badge(done), "{w}x{h}:\n{row}\n{done}");
    }
}

#[test]
fn a_long_sender_name_never_runs_into_the_message_summary() {
    // Two workers whose names differ only at the end, longer than the
    // thread pane's sender column: the name ran into the summary
    // (`orchestrator…Progress`) and both read the same.
    let now = fixed_now();
    let mut b = InboxBuilder::new("mail");
    for (i, who) in ["orchestrator-worker-01", "orchestrator-worker-02"]
        .into_iter()
        .enumerate()
    {
        let msg = message(
            MessageType::Progress,
            "[ol-9.1] PROGRESS: step",
            who,
            &["Lead"],
            "ol-9.1",
            now - chrono::Duration::minutes(10 - i as i64),
            "Progress: 10%",
            |_| {},
        );
        b.add(&format!("p{i}"), msg, &[], &[]);
    }
    let mut app = TestApp::new(
        FakeBackend::new(b.build(), Vec::new(), now),
        UiConfig::default(),
    );
    app.press("<enter>");
    let screen = app.render(120, 30);
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("PROGRESS orc"))
        .collect();
    assert_eq!(rows.len(), 2, "{screen}");
    for (row, end) in rows.iter().zip(["01 ", "02 "]) {
        assert!(row.contains(end), "the name's end, then a blank: {row}");
    }
}

/// The reason prompt's text, when it is open.
fn reason_text(app: &TestApp) -> Option<String> {
    match &app.model.overlay {
        Some(Overlay::Reason { text, .. }) => Some(text.clone()),
        _ => None,
    }
}

#[test]
fn a_rejection_reason_cancelled_with_esc_comes_back_on_the_next_x() {
    // The sample's task in review. A reason is a sentence or two for the
    // Work Log; one Esc (or Ctrl-c) too soon threw it away, where the
    // reply editor keeps what was typed.
    let mut app = TestApp::sample();
    app.press("t/TASK-527-1<enter>X");
    app.type_text("Add a test for the PKCE verifier");
    app.press("<esc>");
    assert!(app.model.overlay.is_none());
    assert!(app.backend.rejections.is_empty(), "nothing written");
    let screen = app.render(120, 30);
    assert!(
        screen.contains("reject cancelled (your reason is kept: X starts from it)"),
        "{screen}"
    );
    app.press("X");
    assert_eq!(
        reason_text(&app).as_deref(),
        Some("Add a test for the PKCE verifier")
    );
    app.type_text(" and the refresh path");
    app.press("<enter>");
    assert_eq!(
        app.backend.rejections,
        vec![(
            "TASK-527-1".to_string(),
            "Add a test for the PKCE verifier and the refresh path".to_string()
        )]
    );
    // Emptied and cancelled: nothing is kept.
    let mut app = TestApp::sample();
    app.press("t/TASK-527-1<enter>X");
    app.type_text("scratch");
    app.press("<esc>X<ctrl-u><esc>");
    assert_eq!(
        app.model.notice.as_ref().map(|n| n.text.as_str()),
        Some("reject cancelled")
    );
    app.press("X");
    assert_eq!(reason_text(&app).as_deref(), Some(""));
}

#[test]
fn notices_name_the_keys_as_bound_not_the_defaults() {
    // Reply on `o`, reload on Ctrl-l: a notice that says `r` or `R` sends
    // the person to a key that now does something else (or nothing).
    let c = UiConfig::from_toml("[keys]\nreply = \"o\"\nreload = \"ctrl-l\"\n", false);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let mut app = TestApp::new(FakeBackend::sample(), c).with_identity("BlueLake");
    app.press("/ol-527.2<enter>o");
    app.type_text("Use the spec");
    app.press("<esc>k");
    let notice = |app: &TestApp| app.model.notice.as_ref().unwrap().text.clone();
    assert_eq!(notice(&app), "draft kept: o on this message picks it up");
    app.press("o<ctrl-s>");
    let key = app.backend.replies[0].0.clone();
    app.send(Msg::Replied {
        key,
        result: Err("server gone".into()),
    });
    assert!(
        notice(&app).ends_with("(draft kept: o sends it again)"),
        "{}",
        notice(&app)
    );
    app.model.notice = None;
    app.send(Msg::Watch(WatchState::Failed("too many watches".into())));
    let screen = app.render(120, 30);
    assert!(
        screen.contains("✗ watch failed (Ctrl-l reloads)"),
        "{screen}"
    );
}

/// The help at a narrow terminal: every line wraps at its words, a key's
/// description hanging under where it starts, instead of being cut at the
/// border (at 40 columns "half a page do", "an agent was", the config's
/// "(not there: built"). Read whole by scrolling to the end a page at a
/// time, the overlay's text holds each sentence.
#[test]
fn the_help_wraps_its_lines_at_a_narrow_terminal_rather_than_cut_them() {
    for (w, h) in [(40u16, 12u16), (60, 20), (100, 30)] {
        let mut app = TestApp::sample();
        app.press("?");
        let mut seen: Vec<String> = Vec::new();
        for _ in 0..200 {
            let screen = app.render(w, h);
            let (first, last, total) = help_window(&screen);
            // The overlay's columns, from its title's corners.
            let rows: Vec<Vec<char>> = screen
                .lines()
                .map(|l| l.trim_matches('"').chars().collect())
                .collect();
            let top = rows
                .iter()
                .position(|r| r.iter().collect::<String>().contains("Help ·"))
                .unwrap();
            let title: String = rows[top].iter().collect();
            let left = title[..title.find("Help ·").unwrap()].chars().count() - 2;
            let right = left + rows[top][left..].iter().position(|c| *c == '┓').unwrap();
            for r in &rows[top + 1..] {
                if r.get(left) != Some(&'┃') {
                    break;
                }
                seen.push(
                    r[left + 1..right]
                        .iter()
                        .collect::<String>()
                        .trim()
                        .to_string(),
                );
            }
            if last == total {
                break;
            }
            // One page on: the next page starts where this one ended.
            for _ in first..=last {
                app.press("j");
            }
        }
        let text = seen.join(" ");
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for sentence in [
            "half a page down",
            "reject the task in review (asks why)",
            "an agent was started",
            "a note, or the unlisted type its subject names",
            "delete the word / the line before the cursor",
            "a reply (`Re:`), whatever type it names",
        ] {
            assert!(
                text.contains(sentence),
                "{w}x{h}: {sentence:?} not whole in:\n{text}"
            );
        }
    }
}

/// A load error wider than the footer is cut with `…`, as a notice was:
/// a live server's "no server answers (...): is `mcp-agent-mail
/// serve-http` running there, on that port and path?" stopped at the
/// edge mid-word ("serve-ht"), with nothing to say that more was there;
/// the cut line names `?`, where it is whole.
#[test]
fn a_load_error_wider_than_the_footer_is_cut_with_an_ellipsis() {
    let mut app = TestApp::sample();
    app.model.load_error = Some(format!(
        "mail: http://127.0.0.1:8765/mcp/: no server answers (Connection refused (os error 111)): {}",
        "is `mcp-agent-mail serve-http` running there, on that port and path?"
    ));
    app.model.notice = None;
    for w in [40u16, 80, 120] {
        let screen = app.render(w, 24);
        let last = screen.lines().last().unwrap().trim_matches('"').trim_end();
        assert!(
            last.starts_with(" ✗ mail: http://127.0.0.1"),
            "{w}: {last:?}"
        );
        assert!(last.contains('…'), "{w}: {last:?}");
        assert!(last.ends_with("· ? whole"), "{w}: {last:?}");
    }
    let screen = app.render(200, 24);
    assert!(screen.contains("on that port and path?"), "{screen}");
    // Cut on the footer, where it stays while the source fails; whole
    // in the help, which the footer's hint names (it was in no view).
    app.press("?");
    let help = crate::screen::boxed_words(&app.render(80, 300));
    assert!(
        help.contains(&format!(
            "Could not load: {}",
            crate::screen::squeeze(app.model.load_error.as_deref().unwrap())
        )),
        "{help}"
    );
}

/// `v` in the thread list or a thread's messages below 120 columns, where
/// the message view is not on screen: the raw view was switched on unseen
/// (nothing on screen changed, and the next message opened showed its
/// file, as `v` did from the board before). It now opens the message,
/// as its file; `v` there goes back to the fields.
#[test]
fn v_where_the_message_is_not_shown_opens_it_as_its_file() {
    use amail_tui::model::Pane;
    let mut app = TestApp::sample();
    app.render(80, 24);
    app.press("v");
    assert_eq!(app.model.focus, Pane::Message, "v changed nothing seen");
    assert!(app.model.raw);
    let screen = app.render(80, 24);
    assert!(screen.contains("Raw ·"), "{screen}");
    app.press("v");
    assert!(!app.model.raw);
    // From a thread's messages too.
    app.press("<esc>");
    assert_eq!(app.model.focus, Pane::Messages);
    app.press("v");
    assert_eq!(app.model.focus, Pane::Message);
    assert!(app.model.raw);
    // Wide, all three panes show: `v` switches the message view in place.
    let mut app = TestApp::sample();
    app.render(160, 40);
    app.press("v");
    assert_eq!(app.model.focus, Pane::Threads);
    assert!(app.model.raw);
}
