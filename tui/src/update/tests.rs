//! What a person meets driving the inbox, keys as they press them: each
//! test names a defect met in a terminal.

use crate::model::Overlay;
use crate::testing::TestApp;

/// The inbox's mail keys (`a`, `m`, `r`, `e`, Space, `V`, `v`) on the task
/// board and the roster: each says that it acts in the inbox and which key
/// goes there, as `A`/`X` away from the board point to it. `v` flipped the
/// inbox's raw view unseen (the next message opened showed its file), and
/// Space and `V` did nothing without a word.
#[test]
fn inbox_keys_away_from_the_inbox_say_where_they_act() {
    for screen in ["t", "w"] {
        for key in ["a", "m", "r", "e", " ", "V", "v"] {
            let mut app = TestApp::sample();
            app.press(screen);
            app.press(key);
            let said = app.notice();
            assert!(
                said.ends_with("in the inbox (i)"),
                "{screen} then {key:?}: {said:?}"
            );
            assert!(app.model.overlay.is_none(), "{screen} then {key:?}");
            assert!(!app.model.raw, "{screen} then {key:?}: raw view flipped");
            assert!(app.model.marks.is_empty(), "{screen} then {key:?}");
        }
    }
}

/// `h` and `←` are "back / close" in `?`: they closed the "Send as"
/// chooser and the help, but the recipients' list ("To…") after it kept
/// them, so only Esc left it.
#[test]
fn back_keys_close_the_recipients_list_as_they_close_a_chooser() {
    for back in ["h", "<left>", "<esc>"] {
        let mut app = TestApp::sample();
        app.press("c<enter>");
        assert!(
            matches!(app.model.overlay, Some(Overlay::Pick { .. })),
            "the recipients' list is open"
        );
        app.press(back);
        assert!(app.model.overlay.is_none(), "{back} closes the recipients");
    }
}

/// `/` (and `n`/`N`) pressed in the roster's task queues searched the
/// roster, behind the focused queues: the agent changed under a cursor
/// still in the queues, and the queues' hints never said `n/N match`.
/// The search is the roster's, so it takes the focus back to the roster.
#[test]
fn searching_from_the_task_queues_searches_the_roster_with_the_focus_on_it() {
    let mut app = TestApp::sample();
    app.press("w/GreenCastle<enter>");
    // The queues show (and take the focus) on a terminal this tall.
    app.render(100, 30);
    app.press("<tab>");
    assert!(app.model.queue_focus);
    app.press("/Blue");
    assert!(!app.model.queue_focus, "the focus is on the list searched");
    app.press("<enter>");
    assert_eq!(app.model.sel.agent.as_deref(), Some("BlueLake"));
    let screen = app.render(100, 30);
    let hints = screen.lines().last().unwrap().trim_matches('"');
    assert!(hints.starts_with(" n/N match"), "{hints}");
    // n from the queues likewise.
    app.press("/Green<enter><tab>");
    assert!(app.model.queue_focus);
    app.press("n");
    assert!(!app.model.queue_focus);
}

/// `Ctrl-s` on an empty reply or message says to type one first; the
/// notice stayed while the text was typed, and over the discard question
/// that `Esc` asks, where it hid the answers' keys (`y`, `k`): the footer
/// said "type a reply first" under a reply half written.
#[test]
fn the_editors_refusal_goes_once_typing_starts_and_the_discard_keys_show() {
    for (open, hint) in [
        ("/ol-527.2<enter>r", "Ctrl-s send"),
        ("c<enter><enter>", "Ctrl-s send"),
    ] {
        let mut app = TestApp::sample().with_identity("BlueLake");
        app.press(open);
        app.press("<ctrl-s>");
        assert!(
            app.notice().starts_with("type a "),
            "{open}: {}",
            app.notice()
        );
        app.type_text("Use the spec");
        let screen = app.render(100, 30);
        let footer = screen.lines().last().unwrap().trim_matches('"');
        assert!(footer.starts_with(&format!(" {hint}")), "{open}: {footer}");
        app.press("<esc>");
        let screen = app.render(100, 30);
        let footer = screen.lines().last().unwrap().trim_matches('"');
        assert!(footer.contains("y discard"), "{open}: {footer}");
    }
}

/// `n`/`N` with no search kept did nothing, without a word (vim says there
/// is no previous pattern): now the footer says which key starts one.
#[test]
fn next_match_with_no_search_says_how_to_start_one() {
    for key in ["n", "N"] {
        let mut app = TestApp::sample();
        let before = app.model.sel.thread.clone();
        app.press(key);
        assert_eq!(app.model.sel.thread, before);
        assert_eq!(app.notice(), "no search to repeat: / starts one", "{key}");
    }
}

/// The roster's "owes" column was 8 wide whatever it held: an agent owing
/// 454 acks (a 5,000-message demo) read `●454 a…` at 200 columns, with
/// the last message's column wide and empty beside it. It is as wide as
/// its widest value.
#[test]
fn the_roster_never_cuts_how_many_acks_an_agent_owes() {
    use crate::testing::{fixed_now, message, FakeBackend, InboxBuilder};
    use amail_parser::MessageType;
    let now = fixed_now();
    let mut b = InboxBuilder::new("mail");
    b.owed_progress(1200, 2000, now);
    // Lead writes too, so the roster lists it.
    let msg = message(
        MessageType::Unknown,
        "Keep going",
        "Lead",
        &["Worker"],
        "ol-9.1",
        now,
        "Keep going.",
        |_| {},
    );
    b.add("lead", msg, &[], &[]);
    let mut app = TestApp::new(
        FakeBackend::new(b.build(), Vec::new(), now),
        crate::UiConfig::default(),
    );
    app.press("w");
    for (w, h) in [(200, 40), (120, 30), (80, 24)] {
        let screen = app.render(w, h);
        let row = screen
            .lines()
            .find(|l| l.contains("Lead"))
            .unwrap_or_else(|| panic!("{screen}"));
        assert!(row.contains("●1200 ack "), "{w}x{h}: {row}");
    }
}
