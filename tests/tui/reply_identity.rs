//! Issue 12 item 1: `r` answers the message the person chose, as the
//! identity the person is (configured, `--as`, or asked once and
//! remembered), and the reply's type fits what it answers.

use amail_tui::model::{Overlay, Pane};
use amail_tui::testing::TestApp;

#[test]
fn a_second_reply_on_a_thread_does_not_swap_sender_and_recipient() {
    let mut app = TestApp::sample();
    app.press("/ol-527.2<enter>r");
    assert!(app
        .render(80, 24)
        .contains("Reply as BlueLake → PurpleBear"));
    app.type_text("The spec wins.");
    app.press("<ctrl-s>");
    assert_eq!(app.backend.replies.len(), 1);

    // The thread now has mail to both agents: the person is asked who
    // they are, not given the newest message's recipient.
    app.press("r");
    let screen = app.render(80, 24);
    assert!(!screen.contains("Reply as PurpleBear"), "{screen}");
    match &app.model.overlay {
        Some(Overlay::Choose { options, .. }) => assert_eq!(options, &["BlueLake", "PurpleBear"]),
        o => panic!("expected the identity chooser, got {o:?}"),
    }
    app.press("<enter>");
    assert!(
        app.render(80, 24)
            .contains("Reply as BlueLake → PurpleBear"),
        "{}",
        app.render(80, 24)
    );
    app.type_text("And update the tests.");
    app.press("<ctrl-s>");
    // BlueLake answers the newest message addressed to BlueLake: the request.
    assert_eq!(app.backend.replies[1].0, "3");
    assert_eq!(app.backend.replies[1].1, "BlueLake");

    // Remembered while the inbox is open: no second question.
    app.press("r");
    assert!(
        matches!(app.model.overlay, Some(Overlay::Editor { ref agent, .. }) if agent == "BlueLake"),
        "{:?}",
        app.model.overlay
    );
}

#[test]
fn a_reply_to_the_selected_message_answers_that_message() {
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("/ol-527.2<enter><enter>");
    assert_eq!(app.model.focus, Pane::Messages);
    // The progress report, not the help request.
    app.press("k");
    let key = app.model.sel.message.clone().unwrap();
    assert_ne!(key, "3");
    app.press("r");
    match &app.model.overlay {
        Some(Overlay::Editor { key: k, agent, .. }) => {
            assert_eq!(k, &key);
            assert_eq!(agent, "BlueLake");
        }
        o => panic!("{o:?}"),
    }
}

#[test]
fn a_reply_to_an_offering_is_not_a_help_response() {
    let mut app = TestApp::sample();
    app.press("/ol-527.1<enter>e");
    // Mail in this thread reached two agents: the person picks BlueLake.
    assert!(matches!(app.model.overlay, Some(Overlay::Choose { .. })));
    app.press("<enter>");
    assert_eq!(
        app.editor_requests.len(),
        1,
        "{:?} {:?}",
        app.model.notice,
        app.model.overlay
    );
    let t = &app.editor_requests[0];
    assert!(t.contains("reply from BlueLake to GreenCastle"), "{t}");
    assert!(!t.contains("HELP_RESPONSE"), "{t}");
    // A help request's answer says so.
    let mut app = TestApp::sample();
    app.press("/ol-527.2<enter>e");
    assert!(app.editor_requests[0].contains("HELP_RESPONSE"));
}
