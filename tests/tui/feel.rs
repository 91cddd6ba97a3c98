//! What a person meets using the inbox in a terminal: keys that do what
//! `?` says on the first press (a key that moves nothing on screen, since
//! the state ran past what is drawn, reads as a dead key), notices that
//! say what happened, config mistakes pointed out.

use amail_tui::model::Overlay;
use amail_tui::msg::Msg;
use amail_tui::testing::TestApp;

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
