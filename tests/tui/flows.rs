//! Key-driven flows through the real `update` + `execute` + `view`, on the
//! in-memory fake mailbox: asserted on the model, the fake store and the
//! rendered screen.

use amail_core::inbox::HelpState;
use amail_parser::MessageType;
use amail_tui::model::{Filter, Pane, Screen};
use amail_tui::msg::Msg;
use amail_tui::testing::{fixed_now, message, render_terminal, FakeBackend, TestApp};
use amail_tui::UiConfig;
use chrono::Duration;

/// The row of the rendered screen that carries the selection cursor.
fn selected_row(screen: &str) -> String {
    screen
        .lines()
        .find(|l| l.starts_with("\"┃▶") || l.starts_with("\"│▶"))
        .unwrap_or_else(|| panic!("no selected row in\n{screen}"))
        .to_string()
}

pub(crate) fn row_with(screen: &str, needle: &str) -> String {
    screen
        .lines()
        .find(|l| (l.starts_with("\"┃") || l.starts_with("\"│")) && l.contains(needle))
        .unwrap_or_else(|| panic!("no row with {needle:?} in\n{screen}"))
        .to_string()
}

#[test]
fn navigate_with_vim_keys_and_arrows() {
    let mut app = TestApp::sample();
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-531"));
    app.press("jj");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-527.2"));
    assert!(selected_row(&app.render(80, 24)).contains("ol-527.2"));
    app.press("<up>");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-666"));
    app.press("G");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-529"));
    app.press("g");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-531"));
    app.press("<ctrl-d>");
    assert_ne!(app.model.sel.thread.as_deref(), Some("ol-531"));
    app.press("<ctrl-u>");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-531"));
    // Past either end stays put.
    app.press("kkk");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-531"));

    // Enter drills down, Esc comes back; Tab cycles panes.
    app.press("jj<enter>");
    assert_eq!(app.model.focus, Pane::Messages);
    // Entering a thread selects the message still waiting for an ack.
    assert_eq!(app.model.sel.message.as_deref(), Some("3"));
    let screen = app.render(80, 24);
    assert!(selected_row(&screen).contains("? HELP"), "{screen}");
    app.press("k");
    assert_eq!(app.model.sel.message.as_deref(), Some("2"));
    app.press("<enter>");
    assert_eq!(app.model.focus, Pane::Message);
    assert!(app
        .render(80, 24)
        .contains("handler compiles, expiry test red"));
    app.press("<esc><esc>");
    assert_eq!(app.model.focus, Pane::Threads);
    app.press("<tab>");
    assert_eq!(app.model.focus, Pane::Messages);
    app.press("<tab><tab>");
    assert_eq!(app.model.focus, Pane::Threads);
}

#[test]
fn narrow_shows_one_pane_wide_shows_all() {
    let mut app = TestApp::sample();
    let narrow = app.render(80, 24);
    assert!(narrow.contains("Threads · All"));
    assert!(!narrow.contains("Thread ol-531 ·"));
    let wide = app.render(160, 48);
    assert!(wide.contains("Threads · All"));
    assert!(wide.contains("Thread ol-531 · 1 message"));
    assert!(wide.contains("context usage  [")); // the message pane too
}

#[test]
fn number_keys_filter_with_counts() {
    let mut app = TestApp::sample();
    let screen = app.render(160, 48);
    assert!(screen.contains("[1 All 7]"));
    assert!(screen.contains("2 Pending 2"));
    assert!(screen.contains("5 Failed 1"));
    app.press("3");
    assert_eq!(app.model.filter, Filter::Help);
    let ids: Vec<_> = app
        .model
        .visible_threads()
        .iter()
        .map(|t| t.id.clone())
        .collect();
    assert_eq!(ids, ["ol-527.2", "ol-529"]);
    let screen = app.render(80, 24);
    assert!(screen.contains("[3 Help 2]"));
    assert!(!screen.contains("ol-531"));
    app.press("5");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-530"));
    app.press("2");
    let ids: Vec<_> = app
        .model
        .visible_threads()
        .iter()
        .map(|t| t.id.clone())
        .collect();
    assert_eq!(ids, ["ol-527.2", "ol-527.1"]);
    // Esc on the list clears the filter.
    app.press("<esc>");
    assert_eq!(app.model.filter, Filter::All);
}

#[test]
fn incremental_search_then_n_and_shift_n() {
    let mut app = TestApp::sample();
    app.press("/");
    assert!(app.model.search.typing);
    app.type_text("green");
    // First match from where the search started: ol-527.1 (GreenCastle).
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-527.1"));
    assert!(app.render(80, 24).contains("/green▏"));
    app.press("<enter>");
    assert!(!app.model.search.typing);
    app.press("n");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-529"));
    app.press("n");
    assert_eq!(
        app.model.sel.thread.as_deref(),
        Some("ol-527.1"),
        "wraps around"
    );
    app.press("N");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-529"));
    assert!(app.render(80, 24).contains("Threads · All · 7 · /green"));

    // Esc while typing goes back to where the search started.
    app.press("g/");
    app.type_text("deadlock");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-530"));
    app.press("<esc>");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-531"));

    // No match says so.
    app.press("/");
    app.type_text("zzz-nothing");
    app.press("<enter>");
    assert!(app.render(80, 24).contains("no match for “zzz-nothing”"));
}

#[test]
fn ack_from_thread_list_updates_store_and_mark() {
    let mut app = TestApp::sample();
    app.press("/ol-527.2<enter>");
    let before = app.render(80, 24);
    assert!(row_with(&before, "ol-527.2").contains("●ACK ‼HELP"));
    app.press("a");
    assert_eq!(
        app.backend.acks,
        vec![("3".to_string(), "BlueLake".to_string())]
    );
    let m = app.backend.inbox.message_by_key("3").unwrap();
    assert!(m.recipients[0].ack_at.is_some(), "the store changed");
    let after = app.render(80, 24);
    let row = row_with(&after, "ol-527.2");
    assert!(!row.contains("●ACK"), "{row}");
    // An ack is not an answer: the help request still reads unanswered.
    assert!(row.contains("‼HELP"), "{row}");
    assert!(after.contains("✓ acknowledged 1 message as BlueLake"));
    // Acking again has nothing to do.
    app.press("a");
    assert_eq!(app.backend.acks.len(), 1);
    assert!(app.render(80, 24).contains("nothing here waits for an ack"));
}

#[test]
fn ack_asks_which_recipient_when_several_apply() {
    let mut app = TestApp::sample();
    app.press("/ol-527.1<enter>a");
    let screen = app.render(80, 24);
    assert!(screen.contains("Acknowledge as"));
    assert!(screen.contains("1. BlueLake") && screen.contains("2. HumanOverseer"));
    app.press("j<enter>");
    assert_eq!(
        app.backend.acks,
        vec![("4".to_string(), "HumanOverseer".to_string())]
    );
    // BlueLake still owes one: the mark stays, now without a count.
    let row = row_with(&app.render(80, 24), "ol-527.1");
    assert!(row.contains("●ACK ") && !row.contains("●ACK2"), "{row}");
    // Only one recipient left: no question this time.
    app.press("a");
    assert_eq!(app.backend.acks.last().unwrap().1, "BlueLake");
    assert!(!row_with(&app.render(80, 24), "ol-527.1").contains("●ACK"));
    // Esc in the chooser cancels.
    let mut app = TestApp::sample();
    app.press("/ol-527.1<enter>a<esc>");
    assert!(app.model.overlay.is_none());
    assert!(app.backend.acks.is_empty());
}

#[test]
fn ack_with_identity_needs_no_question() {
    let mut app = TestApp::sample().with_identity("HumanOverseer");
    // Only the offering waits for HumanOverseer.
    assert_eq!(app.model.pending_total(), 1);
    app.press("/ol-527.1<enter>a");
    assert_eq!(
        app.backend.acks,
        vec![("4".to_string(), "HumanOverseer".to_string())]
    );
    assert_eq!(app.model.pending_total(), 0);
    assert!(app.render(80, 24).contains("as HumanOverseer"));
}

#[test]
fn inline_reply_appears_in_thread_and_board_changes() {
    let mut app = TestApp::sample();
    app.press("t");
    assert!(row_with(&app.render(80, 24), "TASK-527-2").contains("⊘"));
    app.press("i/ol-527.2<enter>r");
    let screen = app.render(80, 24);
    assert!(
        screen.contains("Reply as BlueLake → PurpleBear"),
        "{screen}"
    );
    assert!(
        screen.contains("> Issue Type: SPEC_UNCLEAR"),
        "quotes the request: {screen}"
    );
    app.type_text("The spec wins: 15 minutes.");
    app.press("<enter>");
    app.type_text("Update the two tests.");
    assert!(app.render(80, 24).contains("Update the two tests."));
    app.press("<ctrl-s>");
    assert_eq!(
        app.backend.replies,
        vec![(
            "3".to_string(),
            "BlueLake".to_string(),
            "The spec wins: 15 minutes.\nUpdate the two tests.".to_string()
        )]
    );
    let t = app.model.thread("ol-527.2").unwrap();
    assert_eq!(t.messages.len(), 4);
    assert_eq!(t.help, HelpState::Answered);
    let screen = app.render(80, 24);
    assert!(screen.contains("✓ reply sent to PurpleBear"));
    let row = row_with(&screen, "ol-527.2");
    assert!(row.contains("↩ ANSWER") && !row.contains("‼HELP"), "{row}");
    // The reply is in the thread's messages.
    app.press("<enter>");
    let screen = app.render(80, 24);
    assert!(
        row_with(&screen, "↩ ANSWER").contains("BlueLake"),
        "{screen}"
    );
    // And the task board moved the task out of blocked.
    app.press("t");
    assert!(row_with(&app.render(80, 24), "TASK-527-2").contains("…"));
}

#[test]
fn reply_discarded_with_esc_and_empty_refused() {
    let mut app = TestApp::sample();
    app.press("r<ctrl-s>");
    assert!(app.model.overlay.is_some(), "empty reply is not sent");
    app.type_text("never mind");
    // Text typed: Esc asks first; y discards.
    app.press("<esc>y");
    assert!(app.model.overlay.is_none());
    assert!(app.backend.replies.is_empty());
}

#[test]
fn reply_through_external_editor() {
    let mut app = TestApp::sample();
    app.press("/ol-527.2<enter>e");
    assert_eq!(app.editor_requests.len(), 1);
    assert!(app.editor_requests[0].contains("# amail: reply from BlueLake to PurpleBear"));
    app.send(Msg::EditorClosed(Ok(
        "Keep 24 h for now.\n# amail: ignored\n".into(),
    )));
    // Reviewed before it goes (y sends).
    assert!(app.backend.replies.is_empty());
    app.press("y");
    assert_eq!(app.backend.replies[0].2, "Keep 24 h for now.");
    assert_eq!(
        app.model.thread("ol-527.2").unwrap().help,
        HelpState::Answered
    );
}

#[test]
fn help_overlay_lists_rebinds_from_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        "[keys]\nquit = \"Q\"\ndown = [\"n\", \"ctrl-n\"]\nack = \"A\"\n[theme]\nname = \"light\"\n",
    )
    .unwrap();
    let config = UiConfig::load(&path, false);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let mut app = TestApp::new(FakeBackend::sample(), config);
    app.press("?");
    let screen = app.render(160, 48);
    assert!(
        row_with(&screen, "move down").contains("n Ctrl-n"),
        "{screen}"
    );
    assert!(row_with(&screen, "next match").contains("(unbound)"));
    assert!(row_with(&screen, "acknowledge  ").contains(" A "));
    app.press("G");
    let screen = app.render(160, 48);
    assert!(
        screen.contains(&format!("Config: {}", path.display())),
        "{screen}"
    );
    assert!(screen.contains("Theme: light"));
    // The rebinds are live, and the hints follow them.
    app.press("<esc>n");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-666"));
    assert!(app.render(80, 24).contains("A ack"));
    app.press("q");
    assert!(!app.quit, "q is no longer quit");
    app.press("Q");
    assert!(app.quit);
}

#[test]
fn escape_sequences_in_mail_never_reach_the_buffer() {
    let mut app = TestApp::sample();
    app.press("/ol-666<enter>");
    for keys in ["", "<enter><enter>", "v"] {
        app.press(keys);
        for (w, h) in [(80, 24), (160, 48)] {
            app.send(Msg::Resize(w, h));
            let term = render_terminal(&app.model, w, h);
            for cell in term.backend().buffer().content() {
                for c in cell.symbol().chars() {
                    let u = c as u32;
                    assert!(
                        u >= 0x20
                            && !(0x7f..=0x9f).contains(&u)
                            && !('\u{202A}'..='\u{202E}').contains(&c),
                        "control char {u:#x} in a cell after {keys:?}"
                    );
                }
            }
        }
    }
    // The raw view shows the escapes as visible pictures instead.
    let screen = app.render(80, 24);
    assert!(screen.contains("␛[2J"));
    assert!(screen.contains("<U+202E>"));
}

#[test]
fn new_mail_on_reload_keeps_the_selection() {
    let mut app = TestApp::sample();
    app.press("/ol-527.1<enter><enter>");
    assert_eq!(app.model.sel.message.as_deref(), Some("4"));
    let before = app
        .model
        .selected_index(amail_tui::model::ListKind::Threads);
    // A new file lands: a newer thread sorts above ours.
    let now = fixed_now();
    app.backend.deliver(
        "12",
        message(
            MessageType::HelpRequest,
            "[ol-540] HELP_REQUEST",
            "TealHeron",
            &["BlueLake"],
            "ol-540",
            now,
            "Bead: ol-540\n## Question\nWhich port?\n",
            |p| {
                p.question = Some("Which port?".into());
            },
        ),
    );
    app.send(Msg::MailChanged);
    assert_eq!(app.model.inbox.threads.len(), 8);
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-527.1"));
    assert_eq!(app.model.sel.message.as_deref(), Some("4"));
    assert_eq!(app.model.focus, Pane::Messages);
    let after = app
        .model
        .selected_index(amail_tui::model::ListKind::Threads);
    assert_eq!(after, before.map(|i| i + 1), "same thread, one row lower");
    app.press("<esc>");
    let screen = app.render(80, 24);
    assert!(selected_row(&screen).contains("ol-527.1"));
    assert!(screen.contains("TealHeron: Which port?"));
    // (The kept search takes its room first: the tabs lose their digits.)
    assert!(screen.contains("All 8]"), "{screen}");
}

#[test]
fn selection_survives_its_thread_disappearing() {
    let mut app = TestApp::sample();
    app.press("jj");
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-527.2"));
    app.backend.inbox.threads.retain(|t| t.id != "ol-527.2");
    app.send(Msg::MailChanged);
    // The thread now at the same position is selected.
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-527.1"));
}

#[test]
fn no_color_keeps_every_state_readable() {
    let config = UiConfig::from_toml("color = \"never\"", false);
    let mut app = TestApp::new(FakeBackend::sample(), config);
    app.send(Msg::Resize(80, 24));
    let term = render_terminal(&app.model, 80, 24);
    use ratatui::style::Color;
    for cell in term.backend().buffer().content() {
        assert_eq!(cell.fg, Color::Reset);
        assert_eq!(cell.bg, Color::Reset);
    }
    let screen = term.backend().to_string();
    for word in [
        "●ACK",
        "‼HELP",
        "? HELP",
        "◆ OFFERED",
        "✗ FAILED",
        "⟳ CHECKPT",
        "✓ DONE",
        "… PROGRESS",
        "▶ ",
    ] {
        assert!(screen.contains(word), "{word} missing");
    }
    // The selection is reverse video, visible without colour.
    let sel = term.backend().buffer()[(2, 3)].modifier;
    assert!(sel.contains(ratatui::style::Modifier::REVERSED));
}

#[test]
fn screens_task_board_and_roster() {
    let mut app = TestApp::sample();
    app.press("t");
    assert_eq!(app.model.screen, Screen::Tasks);
    let screen = app.render(80, 24);
    for s in [
        "BACKLOG (1)",
        "READY (1)",
        "IN-PROGRESS (1)",
        "BLOCKED (1)",
        "REVIEW (1)",
        "DONE (1)",
        "CANCELLED (1)",
        "DEADLETTER (1)",
    ] {
        assert!(screen.contains(s), "{s}");
    }
    // Enter on a task opens its thread (l l: two columns right, to the
    // task in progress).
    app.press("ll<enter>");
    assert_eq!(app.model.screen, Screen::Inbox);
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-531"));
    app.press("w");
    let screen = app.render(80, 24);
    assert!(row_with(&screen, "PurpleBear").contains("? needs help"));
    assert!(row_with(&screen, "BlueLake").contains("●2 ack"));
}

#[test]
fn redraw_only_when_something_changed() {
    let mut app = TestApp::sample();
    app.model.dirty = false;
    app.send(Msg::Tick(fixed_now() + Duration::seconds(20)));
    assert!(!app.model.dirty, "same minute: nothing to redraw");
    app.send(Msg::Tick(fixed_now() + Duration::seconds(70)));
    assert!(app.model.dirty, "ages changed");
    app.model.dirty = false;
    app.press("j");
    assert!(app.model.dirty);
}

#[test]
fn message_view_scrolls_and_raw_toggles() {
    let mut app = TestApp::sample();
    app.press("/ol-527.2<enter><enter><enter>");
    app.send(Msg::Resize(80, 24));
    assert_eq!(app.model.detail_scroll, 0);
    // Scrolling stops once the end of the message shows (two rows here).
    app.press("jjj");
    assert_eq!(app.model.detail_scroll, 2);
    let screen = app.render(80, 24);
    assert!(!screen.contains("type  ? HELP"), "scrolled past the header");
    app.press("G");
    assert!(app.render(80, 24).contains("Should I change the endpoint"));
    app.press("v");
    assert!(app.model.raw);
    assert_eq!(app.model.detail_scroll, 0);
    assert!(app.render(80, 24).contains("✓ no parse diagnostics"));
}

#[test]
fn quit_keys() {
    let mut app = TestApp::sample();
    app.press("<ctrl-c>");
    assert!(app.quit);
    let mut app = TestApp::sample();
    app.press("q");
    assert!(app.quit);
}

#[test]
fn manual_reload_reports_and_keeps_place() {
    let mut app = TestApp::sample();
    app.press("jjj");
    let sel = app.model.sel.thread.clone();
    app.press("R");
    assert_eq!(app.model.sel.thread, sel);
    assert!(app
        .render(80, 24)
        .contains("✓ reloaded: 7 threads, 8 tasks"));
}

#[test]
fn colour_marks_pending_ack_in_the_warn_colour() {
    let mut app = TestApp::sample();
    app.send(Msg::Resize(80, 24));
    let term = render_terminal(&app.model, 80, 24);
    let buf = term.backend().buffer();
    let warn = app.model.config.theme.warn;
    // Row of ol-527.2 (third thread): the ●ACK mark starts at column 3.
    let (x, y) = (0..24u16)
        .flat_map(|y| (0..80u16).map(move |x| (x, y)))
        .find(|&(x, y)| buf[(x, y)].symbol() == "●" && y > 2)
        .expect("an ack mark");
    assert_eq!(buf[(x, y)].fg, warn);
    // And the selected row has the selection background.
    assert_eq!(buf[(2, 3)].bg, app.model.config.theme.selection_bg);
}

#[test]
fn search_from_the_message_view_searches_the_thread() {
    let mut app = TestApp::sample();
    app.press("/ol-527.2<enter><enter><enter>");
    assert_eq!(app.model.sel.message.as_deref(), Some("3"));
    app.press("/");
    app.type_text("accepted");
    app.press("<enter>");
    assert_eq!(app.model.sel.message.as_deref(), Some("1"));
    assert!(app.render(80, 24).contains("Token refresh endpoint"));
}

#[test]
fn config_problems_are_reported_not_fatal() {
    let config = UiConfig::from_toml(
        "[keys]\nfly = \"x\"\nquit = \"\\u001b\"\n[theme]\nok = \"#zz\"\n",
        false,
    );
    assert_eq!(config.warnings.len(), 3, "{:?}", config.warnings);
    let mut app = TestApp::new(FakeBackend::sample(), config);
    assert!(app
        .render(80, 24)
        .contains("⚠ config: 3 problems ignored; ? lists them"));
    app.press("?G");
    let screen = app.render(160, 48);
    assert!(screen.contains("unknown action \"fly\""), "{screen}");
    assert!(screen.contains("unprintable key"), "{screen}");
    assert!(screen.contains("bad colour \"#zz\""), "{screen}");
}

#[test]
fn mouse_wheel_scrolls_the_focused_list() {
    let config = UiConfig::from_toml("mouse = true", false);
    assert!(config.mouse);
    assert!(!UiConfig::default().mouse, "off unless asked for");
    let mut app = TestApp::new(FakeBackend::sample(), config);
    app.send(Msg::Scroll(3));
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-527.1"));
    app.send(Msg::Scroll(-3));
    assert_eq!(app.model.sel.thread.as_deref(), Some("ol-531"));
}

#[test]
fn ctrl_c_cancels_prompts_and_overlays_before_it_quits() {
    let mut app = TestApp::sample();
    app.press("/gre<ctrl-c>");
    assert!(!app.model.search.typing && !app.quit);
    app.press("r");
    app.type_text("draft");
    // With text typed it asks first (y discards), as Esc does.
    app.press("<ctrl-c>");
    assert!(app.model.overlay.is_some() && !app.quit);
    app.press("y");
    assert!(app.model.overlay.is_none() && !app.quit);
    app.press("?<ctrl-c>");
    assert!(app.model.overlay.is_none() && !app.quit);
    app.press("<ctrl-c>");
    assert!(app.quit);
}

/// A plain reply (`Re: [ol-527.1] OFFERING_READY`, "Approved") is
/// conversation in the thread, not the type its subject names: its row
/// said `◆ OFFERED` from the reviewer, as if the reviewer had offered the
/// work (and a reply in a help thread said `? HELP`, a new request). The
/// model already took it as a reply (no agent state, no AOF event, an
/// answer in a help thread); the rows and the message view now say so.
#[test]
fn a_plain_reply_shows_as_a_reply_not_as_its_subject_s_type() {
    let mut app = TestApp::sample();
    app.press("/ol-527.1<enter><enter>");
    let screen = app.render(100, 30);
    assert!(
        row_with(&screen, "GreenCastle").contains("◆ OFFERED"),
        "{screen}"
    );
    // Reply as BlueLake (the first of the two recipients asked about).
    app.press("r<enter>");
    app.type_text("Approved; merge it.");
    app.press("<ctrl-s>");
    let screen = app.render(100, 30);
    assert!(screen.contains("✓ reply sent to GreenCastle"), "{screen}");
    let reply = app
        .model
        .inbox
        .messages
        .iter()
        .find(|m| m.message.from.as_deref() == Some("BlueLake") && m.is_reply())
        .expect("the reply is in the inbox");
    assert_eq!(reply.message.kind, MessageType::OfferingReady);
    let row = row_with(&screen, "Approved");
    assert!(
        row.contains("↪ REPLY") && !row.contains("OFFERED"),
        "{screen}"
    );
    // Opened, its header says so too.
    app.press("G<tab>");
    let screen = app.render(100, 30);
    assert!(
        screen.contains("↪ REPLY · Re: [ol-527.1] OFFERING_READY"),
        "{screen}"
    );
    // The thread itself stays offered: its phase is its own.
    app.press("<esc><esc>");
    let screen = app.render(100, 30);
    assert!(
        row_with(&screen, "ol-527.1").contains("◆ OFFERED"),
        "{screen}"
    );
}

/// `--as` a name no agent of the mailbox has (a typo, another case): the
/// inbox said nothing, and showed nothing pending, as if all were done.
/// `amail pending` warned; the inbox now says so once loaded.
#[test]
fn an_identity_no_agent_has_is_pointed_out_once_loaded() {
    let mut app = TestApp::sample().with_identity("bluelake");
    app.press("R");
    let screen = app.render(140, 30);
    assert!(
        screen.contains("no agent named bluelake (did you mean `BlueLake`?)"),
        "{screen}"
    );
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("R");
    let screen = app.render(140, 30);
    assert!(!screen.contains("no agent named"), "{screen}");
}

/// The raw view of a message with no file says where it came from: a
/// server's said "the message came from a database" (so did piped JSON's).
#[test]
fn the_raw_view_of_a_message_with_no_file_names_where_it_came_from() {
    use amail_core::inbox::SourceKind;
    for (source, says) in [
        (
            SourceKind::Server {
                url: "http://127.0.0.1:8765/mcp/".into(),
            },
            "came from the server",
        ),
        (SourceKind::Stdin, "came from standard input"),
        (
            SourceKind::McpStore {
                root: "/srv/mail".into(),
                db: "/srv/mail/storage.sqlite3".into(),
            },
            "came from the database",
        ),
    ] {
        let mut app = TestApp::sample();
        app.model.inbox.source = source.clone();
        for m in &mut app.model.inbox.messages {
            m.path = None;
        }
        app.press("<enter>v");
        let screen = app.render(120, 36);
        assert!(screen.contains(says), "{source:?}:\n{screen}");
    }
}

/// A reply kept as a draft (Esc, then `k`) lived only in the app: `q` quit
/// at once and it was gone. `q` now says how many drafts quitting loses and
/// quits on a second `q`; any other key stays.
#[test]
fn quitting_with_a_kept_draft_asks_first() {
    let mut app = TestApp::sample();
    app.press("r");
    app.type_text("A long careful answer");
    app.press("<esc>k");
    assert_eq!(app.model.drafts.len(), 1);
    app.press("q");
    assert!(!app.quit, "quit with a draft unasked");
    let screen = app.render(120, 30);
    assert!(screen.contains("1 unsent draft"), "{screen}");
    // Another key stays, and asks again next time.
    app.press("j");
    assert!(!app.quit);
    app.press("q");
    assert!(!app.quit);
    app.press("q");
    assert!(app.quit, "a second q quits");
    // With no draft, q quits at once.
    let mut app = TestApp::sample();
    app.press("q");
    assert!(app.quit);
}

/// On an mcp_agent_mail store or a server, `--as` names an agent as the
/// server does, without regard to ASCII case, as `amail ack` and `amail
/// pending` match it there: the inbox `--as bluelake` counted nothing
/// pending and warned of no agent named bluelake, where `a` would have
/// acked BlueLake's row. A plain mailbox still matches exactly (above).
#[test]
fn an_identity_in_another_case_is_the_agent_on_an_mcp_store_or_a_server() {
    use amail_core::inbox::SourceKind;
    use amail_tui::testing::{sample_inbox, sample_tasks};
    for source in [
        SourceKind::McpStore {
            root: "/srv/mail".into(),
            db: "/srv/mail/storage.sqlite3".into(),
        },
        SourceKind::Server {
            url: "http://127.0.0.1:8765/mcp/".into(),
        },
    ] {
        let app = |me: &str| {
            let mut inbox = sample_inbox(fixed_now());
            inbox.source = source.clone();
            let mut app = TestApp::new(
                FakeBackend::new(inbox, sample_tasks(fixed_now()), fixed_now()),
                UiConfig::default(),
            )
            .with_identity(me);
            app.press("R");
            app
        };
        let exact = app("BlueLake");
        let owed = exact.model.counts().pending;
        assert!(owed > 0, "{source:?}");
        let mut lower = app("bluelake");
        assert_eq!(lower.model.counts().pending, owed, "{source:?}");
        let screen = lower.render(140, 30);
        assert!(!screen.contains("no agent named"), "{source:?}: {screen}");
        // The status bar names the agent as the store spells it, as the
        // commands' output does.
        assert!(screen.contains(" as BlueLake · "), "{source:?}: {screen}");
        let owes = |app: &TestApp| -> Vec<Option<bool>> {
            app.model
                .inbox
                .messages
                .iter()
                .map(|m| app.model.owes_ack(m))
                .collect()
        };
        assert_eq!(owes(&lower), owes(&exact), "{source:?}");
    }
}
