//! Triage no peer offers (issue 14, third part): marks and one ack for
//! many, mark read, compose to one agent / several / all, notifications
//! made safe, and each agent's context and pace in the roster.

use crate::flows::row_with;
use amail_parser::MessageType;
use amail_tui::model::{Overlay, Pane};
use amail_tui::msg::Msg;
use amail_tui::testing::{fixed_now, message, FakeBackend, TestApp};
use amail_tui::UiConfig;

#[test]
fn space_marks_threads_and_one_ack_covers_them_all() {
    let mut app = TestApp::sample().with_identity("BlueLake");
    // ol-527.2 and ol-527.1 both hold acks BlueLake owes.
    app.press("/ol-527.2<enter>");
    app.press("<space>");
    assert_eq!(
        app.model.sel.thread.as_deref(),
        Some("ol-527.1"),
        "Space moves on"
    );
    app.press("<space>");
    let screen = app.render(80, 24);
    assert!(screen.contains("2 marked"), "{screen}");
    assert!(screen.contains("▶■") || screen.contains(" ■"), "{screen}");
    app.press("a");
    assert_eq!(
        app.backend.ack_batches.len(),
        1,
        "one store call: one transaction"
    );
    let batch = &app.backend.ack_batches[0];
    assert!(batch.len() >= 2, "{batch:?}");
    assert!(app.model.marks.is_empty(), "marks go once acked");
    let inbox = &app.model.inbox;
    let owed: Vec<&str> = inbox
        .pending(Some("BlueLake"))
        .iter()
        .map(|p| inbox.thread_for(&inbox.messages[p.message]).id.as_str())
        .collect();
    assert!(
        !owed.contains(&"ol-527.2") && !owed.contains(&"ol-527.1"),
        "{owed:?}"
    );
}

#[test]
fn v_marks_a_range_of_messages_and_esc_drops_marks() {
    let mut app = TestApp::sample();
    app.press("/ol-527.2<enter><enter>g");
    assert_eq!(app.model.focus, Pane::Messages);
    app.press("<space>");
    app.press("G");
    app.press("V");
    let n = app.model.thread("ol-527.2").unwrap().messages.len();
    assert_eq!(app.model.marks.messages.len(), n, "first to last");
    app.press("<esc>");
    assert!(app.model.marks.is_empty());
    assert_eq!(
        app.model.focus,
        Pane::Messages,
        "the first Esc only drops marks"
    );
}

#[test]
fn m_marks_read_without_acknowledging() {
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("/ol-527.2<enter>");
    app.press("m");
    assert!(!app.backend.reads.is_empty());
    let (key, _) = app.backend.reads[0].clone();
    let r = app
        .backend
        .inbox
        .message_by_key(&key)
        .unwrap()
        .recipients
        .iter()
        .find(|r| r.agent == "BlueLake")
        .unwrap()
        .clone();
    assert!(r.read_at.is_some());
    assert!(r.ack_at.is_none(), "read, not acknowledged");
    assert!(app.backend.acks.is_empty());
    assert!(app.render(80, 24).contains("marked"), "says so");
}

#[test]
fn compose_to_several_agents_with_a_protocol_type() {
    let mut app = TestApp::sample();
    app.press("c");
    assert!(
        matches!(&app.model.overlay, Some(Overlay::Choose { title, .. }) if title == "Send as")
    );
    // Each chooser says what it asks (both said "Several recipients
    // apply:", the ack and reply choosers' line).
    let screen = app.render(100, 30);
    assert!(screen.contains("Who is sending:"), "{screen}");
    assert!(!screen.contains("recipients apply"), "{screen}");
    app.press("<enter>"); // Overseer, a person
    let Some(Overlay::Pick { options, .. }) = &app.model.overlay else {
        panic!("{:?}", app.model.overlay);
    };
    let blue = options.iter().position(|o| o == "BlueLake").unwrap();
    let red = options.iter().position(|o| o == "RedFox").unwrap();
    for _ in 0..blue {
        app.press("j");
    }
    app.press("<space>");
    for _ in blue + 1..red {
        app.press("j");
    }
    app.press("<space><enter>");
    // Type: GUIDANCE is first.
    assert!(matches!(&app.model.overlay, Some(Overlay::Choose { .. })));
    let screen = app.render(100, 30);
    assert!(screen.contains("Which type:"), "{screen}");
    assert!(!screen.contains("recipients apply"), "{screen}");
    app.press("<enter>");
    assert!(app
        .render(100, 30)
        .contains("New GUIDANCE from Overseer → BlueLake, RedFox"));
    app.type_text("Use the spec");
    app.press("<enter>");
    app.type_text("Refresh tokens last 15 minutes.");
    app.press("<ctrl-s>");
    let d = &app.backend.sent[0];
    assert_eq!(d.from, "Overseer");
    assert_eq!(d.to, ["BlueLake", "RedFox"]);
    assert_eq!(d.kind.as_deref(), Some("GUIDANCE"));
    assert_eq!(d.subject, "Use the spec");
    assert_eq!(d.body, "Refresh tokens last 15 minutes.");
    assert!(app.render(80, 24).contains("✓ sent to BlueLake, RedFox"));
}

/// Once a person has sent as "Overseer", the mailbox has an agent of
/// that name: "Send as" listed it twice, the person first and the agent
/// among the others, the same sender under two numbers.
#[test]
fn send_as_lists_the_person_once_after_they_have_written() {
    let mut app = TestApp::sample();
    app.press("c<enter><space><enter>G<enter>");
    app.type_text("Standup in 5");
    app.press("<ctrl-s>");
    assert_eq!(app.backend.sent.len(), 1);
    assert!(app.model.inbox.agents.iter().any(|a| a.name == "Overseer"));
    app.press("c");
    let Some(Overlay::Choose { options, .. }) = &app.model.overlay else {
        panic!("{:?}", app.model.overlay);
    };
    let overseers = options.iter().filter(|o| o.as_str() == "Overseer").count();
    assert_eq!(overseers, 1, "{options:?}");
    assert_eq!(options[0], "Overseer");
}

/// "all agents" is the agents: once the person had written as
/// "Overseer", a GUIDANCE (or a TERMINATE) to all agents went to the
/// person too, and the count said one more. The person stays in the list,
/// to be picked by name.
#[test]
fn all_agents_leaves_out_the_person_who_has_written() {
    let mut app = TestApp::sample();
    app.press("c<enter><space><enter>G<enter>");
    app.type_text("Standup in 5");
    app.press("<ctrl-s>");
    let agents = app.model.inbox.agents.len();
    let mut app_as =
        TestApp::new(app.backend.clone(), UiConfig::default()).with_identity("BlueLake");
    app_as.press("c");
    let Some(Overlay::Pick { options, .. }) = &app_as.model.overlay else {
        panic!("{:?}", app_as.model.overlay);
    };
    // Everyone but BlueLake and the person.
    assert_eq!(options[0], format!("all agents ({})", agents - 2));
    assert!(options.iter().any(|o| o == "Overseer"), "{options:?}");
    app_as.press("<enter>G<enter>");
    app_as.type_text("Rebase on main");
    app_as.press("<ctrl-s>");
    let d = app_as.backend.sent.last().unwrap();
    assert_eq!(d.from, "BlueLake");
    assert!(!d.to.iter().any(|t| t == "Overseer"), "{:?}", d.to);
    assert_eq!(d.to.len(), agents - 2);
}

#[test]
fn compose_to_all_agents_of_the_project() {
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("c<enter>");
    // "plain message" is the last type.
    app.press("G<enter>");
    app.type_text("Standup in 5");
    app.press("<ctrl-s>");
    let d = &app.backend.sent[0];
    assert_eq!(d.from, "BlueLake");
    assert_eq!(d.kind, None);
    let mut all: Vec<String> = app
        .model
        .inbox
        .agents
        .iter()
        .map(|a| a.name.clone())
        .filter(|a| a != "BlueLake")
        .collect();
    all.sort();
    let mut to = d.to.clone();
    to.sort();
    assert_eq!(to, all);
}

#[test]
fn notifications_ring_once_per_new_help_request_or_failure() {
    let config = UiConfig::from_toml("notify = \"osc9\"", false);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let mut app = TestApp::new(FakeBackend::sample(), config);
    assert!(
        app.model.notify.is_empty(),
        "what was there at start does not ring"
    );
    let now = fixed_now();
    let hostile = message(
        MessageType::HelpRequest,
        "[ol-9] HELP_REQUEST \x1b]52;c;cm0=\x07",
        "Mallory",
        &["BlueLake"],
        "ol-9",
        now,
        "stuck",
        |_| {},
    );
    app.backend.deliver("new-help", hostile);
    app.send(Msg::MailChanged);
    assert_eq!(app.model.notify.len(), 1, "{:?}", app.model.notify);
    let n = &app.model.notify[0];
    assert!(n.starts_with("\x1b]9;help request from Mallory"), "{n:?}");
    assert_eq!(
        n.matches('\x1b').count(),
        1,
        "no agent escape inside: {n:?}"
    );
    assert_eq!(n.matches('\x07').count(), 1, "{n:?}");
    app.model.notify.clear();
    app.send(Msg::MailChanged);
    assert!(app.model.notify.is_empty(), "once per message");
    // Off by default.
    let mut quiet = TestApp::sample();
    quiet.backend.deliver(
        "x",
        message(
            MessageType::Failed,
            "[ol-9] FAILED",
            "RedFox",
            &["BlueLake"],
            "ol-9",
            now,
            "boom",
            |_| {},
        ),
    );
    quiet.send(Msg::MailChanged);
    assert!(quiet.model.notify.is_empty());
}

#[test]
fn the_roster_shows_context_over_time_and_messages_per_hour() {
    let mut app = TestApp::sample();
    let now = fixed_now();
    for (i, pct) in [40u8, 55, 71, 88].into_iter().enumerate() {
        let at = now - chrono::Duration::minutes(40 - 13 * i as i64);
        let msg = message(
            MessageType::Progress,
            "[ol-531] PROGRESS",
            "OrangeOwl",
            &["BlueLake"],
            "ol-531",
            at,
            "step",
            |p| p.context_usage = Some(pct),
        );
        app.backend.deliver(&format!("p{i}"), msg);
    }
    app.send(Msg::MailChanged);
    app.press("w");
    let screen = app.render(160, 30);
    let head = screen
        .lines()
        .find(|l| l.contains("agent") && l.contains("state"))
        .unwrap();
    assert!(head.contains("context") && head.contains("msg/h"), "{head}");
    let row = screen.lines().find(|l| l.contains("OrangeOwl")).unwrap();
    assert!(row.contains("88%"), "latest reading: {row}");
    assert!(row.contains('█') || row.contains('▇'), "a sparkline: {row}");
}

/// A chooser numbers its options, and the number typed is the option
/// taken: `1` then `0` is the tenth, not the first (with `0` ignored),
/// so a long list of agents or types sent as the wrong one on Enter.
/// The numbers stand right-aligned so the names line up past nine.
#[test]
fn a_chooser_takes_the_number_typed_past_nine() {
    let mut app = TestApp::sample();
    // Twelve agents: four more than the sample's.
    more_agents(&mut app, &["Alder", "Birch", "Cedar", "Dogwood"]);
    app.press("c");
    let Some(Overlay::Choose { options, .. }) = &app.model.overlay else {
        panic!("who is sending: {:?}", app.model.overlay);
    };
    let options = options.clone();
    assert!(options.len() >= 10, "{options:?}");
    let index = |app: &TestApp| match &app.model.overlay {
        Some(Overlay::Choose { index, .. }) => *index,
        o => panic!("{o:?}"),
    };
    app.press("10");
    assert_eq!(index(&app), 9);
    // A digit that makes no option starts a new number.
    app.press("3");
    assert_eq!(index(&app), 2);
    app.press("2");
    assert_eq!(index(&app), 1, "32 is no option: 2 is");
    // A move ends the number: the next digit starts one.
    app.press("1j0");
    assert_eq!(index(&app), 1, "0 alone is no option");
    app.press("1");
    assert_eq!(index(&app), 0);
    let screen = app.render(120, 40);
    let at = |n: usize| {
        let line = screen
            .lines()
            .find(|l| l.contains(&format!("{n}. {}", options[n - 1])))
            .unwrap_or_else(|| panic!("option {n}: {screen}"));
        line.find(&options[n - 1]).unwrap()
    };
    assert_eq!(at(9), at(10), "{screen}");
    // The `1` before is still open: `0` makes it ten.
    app.press("0");
    assert_eq!(index(&app), 9);
    app.press("<enter><enter><enter>");
    let screen = app.render(120, 40);
    assert!(
        screen.contains(&format!(" from {} → ", options[9])),
        "{screen}"
    );
}

/// A team larger than the screen: the chooser and the recipients' list
/// keep the option under the cursor in view (they were cut at the
/// screen's bottom, and the cursor moved on out of sight).
#[test]
fn choosers_longer_than_the_screen_keep_the_cursor_in_view() {
    let mut app = TestApp::sample();
    let crowd: Vec<String> = (0..30).map(|n| format!("Crowd{n:02}")).collect();
    more_agents(&mut app, &crowd);
    app.press("c");
    let Some(Overlay::Choose { options, .. }) = app.model.overlay.clone() else {
        panic!("{:?}", app.model.overlay);
    };
    let last = options.last().unwrap().clone();
    let first = options[0].clone();
    assert!(!app.render(80, 24).contains(&last));
    app.press("G");
    let screen = app.render(80, 24);
    assert!(
        screen.contains(&format!("▶ {}. {last}", options.len())),
        "{screen}"
    );
    assert!(!screen.contains(&first), "{screen}");
    app.press("g");
    let screen = app.render(80, 24);
    assert!(screen.contains(&format!("▶  1. {first}")), "{screen}");
    // The recipients' list: Overseer sends, the cursor goes to the end.
    app.press("<enter>G");
    let Some(Overlay::Pick { options, .. }) = app.model.overlay.clone() else {
        panic!("{:?}", app.model.overlay);
    };
    let last = options.last().unwrap().clone();
    let screen = app.render(80, 24);
    assert!(screen.contains(&format!("▶ [ ] {last}")), "{screen}");
}

/// One message from each of `names` lands: they join the agents.
fn more_agents(app: &mut TestApp, names: &[impl AsRef<str>]) {
    let now = app.model.now;
    for (n, from) in names.iter().enumerate() {
        app.backend.deliver(
            &format!("more-{n}"),
            message(
                MessageType::Progress,
                "[ol-9] PROGRESS",
                from.as_ref(),
                &["BlueLake"],
                "ol-9",
                now,
                "busy",
                |_| {},
            ),
        );
    }
    app.send(Msg::MailChanged);
}

/// What `c` sends as GUIDANCE (or NUDGE, TERMINATE; a handoff, an A2A
/// item, any `[bead] WORD` the protocol does not list) is shown by that
/// name: the thread's row, the message's row and its header said
/// `· NOTE`, so the person who had just sent guidance read it back as a
/// note. Mail with no such word stays a NOTE.
#[test]
fn a_type_the_protocol_does_not_list_is_shown_by_its_name() {
    let mut app = TestApp::sample().with_identity("BlueLake");
    let now = fixed_now();
    let mut guidance = message(
        MessageType::Unknown,
        "[ol-560] GUIDANCE: hold the release",
        "Overseer",
        &["BlueLake"],
        "ol-560",
        now,
        "GUIDANCE\n\nRefresh tokens last 15 minutes.",
        |_| {},
    );
    guidance.raw_type = Some("GUIDANCE".into());
    app.backend.deliver("g1", guidance);
    let mut note = message(
        MessageType::Unknown,
        "standup in five",
        "Overseer",
        &["BlueLake"],
        "note-1",
        now - chrono::Duration::seconds(1),
        "Standup in five.",
        |_| {},
    );
    note.raw_type = None;
    app.backend.deliver("n1", note);
    app.send(Msg::MailChanged);
    let screen = app.render(120, 30);
    let row = row_with(&screen, "ol-560");
    assert!(
        row.contains("· GUIDANCE") && !row.contains("NOTE"),
        "{screen}"
    );
    assert!(row_with(&screen, "note-1").contains("· NOTE"), "{screen}");
    app.press("gg<enter>");
    let screen = app.render(120, 30);
    assert!(
        screen.contains("· GUIDANCE · [ol-560] GUIDANCE"),
        "{screen}"
    );
    assert!(screen.contains("type  · GUIDANCE"), "{screen}");
}

/// The person who writes from the inbox ("Overseer") is not an agent:
/// once they had written, the roster listed them as an idle agent, the
/// header said one agent more, and a search of the roster or a click on
/// its rows counted their row. The roster and every count of agents now
/// leave the person out.
#[test]
fn the_person_who_has_written_is_not_listed_as_an_agent() {
    let mut app = TestApp::sample();
    let agents = app.model.inbox.agents.len();
    app.press("c<enter><space><enter>G<enter>");
    app.type_text("Standup in 5");
    app.press("<ctrl-s>");
    assert_eq!(app.backend.sent.len(), 1);
    // The mailbox has a sender of that name now (the store's fact).
    assert!(app.model.inbox.agents.iter().any(|a| a.name == "Overseer"));
    app.press("w");
    let screen = app.render(120, 40);
    assert!(!screen.contains("Overseer"), "{screen}");
    assert!(screen.contains(&format!("{agents} agents")), "{screen}");
    assert!(screen.contains(&format!("Agents · {agents}")), "{screen}");
    let keys = app.model.list_keys(amail_tui::model::ListKind::Agents);
    assert!(!keys.iter().any(|k| k == "Overseer"), "{keys:?}");
    assert_eq!(keys.len(), agents);
    // The last row is the last agent, not the person.
    app.press("G");
    assert_ne!(app.model.sel.agent.as_deref(), Some("Overseer"));
}

/// The MCP Agent Mail server's web UI and TUI send a person's messages
/// as the agent `HumanOverseer` (program WebUI, model Human): the roster
/// listed it as an idle agent, and the header and "all agents" counted
/// it, as they once did "Overseer". A person by either name is left out
/// of the roster and of "all agents", and stays in the "To" list to be
/// picked by name.
#[test]
fn the_servers_human_sender_is_not_listed_as_an_agent() {
    let mut backend = FakeBackend::sample();
    let agents = backend.inbox.agents.len();
    backend.deliver(
        "overseer-1",
        message(
            MessageType::Unknown,
            "Pause and rebase",
            "HumanOverseer",
            &["BlueLake"],
            "overseer-1",
            fixed_now() - chrono::Duration::minutes(1),
            "🚨 MESSAGE FROM HUMAN OVERSEER 🚨\n\nPause your current work and rebase on main.\n",
            |_| {},
        ),
    );
    assert!(backend
        .inbox
        .agents
        .iter()
        .any(|a| a.name == "HumanOverseer"));
    let mut app = TestApp::new(backend.clone(), UiConfig::default());
    app.press("w");
    let screen = app.render(120, 40);
    assert!(!screen.contains("HumanOverseer"), "{screen}");
    assert!(screen.contains(&format!("{agents} agents")), "{screen}");
    assert!(screen.contains(&format!("Agents · {agents}")), "{screen}");
    let keys = app.model.list_keys(amail_tui::model::ListKind::Agents);
    assert_eq!(keys.len(), agents, "{keys:?}");

    // Who the person may write as, once.
    app.press("c");
    let Some(Overlay::Choose { options, .. }) = &app.model.overlay else {
        panic!("{:?}", app.model.overlay);
    };
    assert_eq!(options[0], "Overseer");
    let humans = options.iter().filter(|o| *o == "HumanOverseer").count();
    assert_eq!(humans, 1, "{options:?}");

    // Addressed by name, not among "all agents".
    let mut app = TestApp::new(backend, UiConfig::default()).with_identity("BlueLake");
    app.press("c");
    let Some(Overlay::Pick { options, .. }) = &app.model.overlay else {
        panic!("{:?}", app.model.overlay);
    };
    assert_eq!(options[0], format!("all agents ({})", agents - 1));
    assert!(options.iter().any(|o| o == "HumanOverseer"), "{options:?}");
    app.press("<enter>G<enter>");
    app.type_text("Rebase on main");
    app.press("<ctrl-s>");
    let d = app.backend.sent.last().unwrap();
    assert!(!d.to.iter().any(|t| t == "HumanOverseer"), "{:?}", d.to);
    assert_eq!(d.to.len(), agents - 1);
}

/// The roster is kept between frames (a frame of the roster made its
/// list four times) and made again when the mail changes: a new agent's
/// mail, and a person's, after a reload.
#[test]
fn the_roster_kept_between_frames_follows_the_mail() {
    let mut app = TestApp::sample();
    app.press("w");
    let agents = app.model.roster().len();
    let screen = app.render(120, 40);
    assert!(screen.contains(&format!("{agents} agents")), "{screen}");
    for (key, from, roster) in [
        ("new-1", "Juniper", agents + 1),
        ("new-2", "HumanOverseer", agents + 1),
    ] {
        app.backend.deliver(
            key,
            message(
                MessageType::Unknown,
                "hello",
                from,
                &["BlueLake"],
                key,
                fixed_now(),
                "hello\n",
                |_| {},
            ),
        );
        app.press("R");
        let screen = app.render(120, 40);
        assert_eq!(app.model.roster().len(), roster, "{screen}");
        assert!(screen.contains(&format!("{roster} agents")), "{screen}");
        assert!(screen.contains("Juniper"), "{screen}");
    }
}

/// The sample, as BlueLake, with a help request to BlueLake newest of
/// all (the first thread) whose thread and bead were not UTF-8 where they
/// were read (`ol-�9`).
pub(crate) fn help_in_a_damaged_thread() -> TestApp {
    let mut backend = FakeBackend::sample();
    backend.deliver(
        "late.md",
        message(
            MessageType::HelpRequest,
            "[ol-\u{fffd}9] HELP_REQUEST",
            "PurpleBear",
            &["BlueLake"],
            "ol-\u{fffd}9",
            fixed_now(),
            "Problem: the token store\nQuestion: which one?",
            |_| {},
        ),
    );
    TestApp::new(backend, UiConfig::default()).with_identity("BlueLake")
}

/// `c` inside a thread whose id or bead was not UTF-8 where it was read:
/// the message went into the thread as shown (`t-�1`), a thread no agent
/// matching the bytes as written has, and now the store refuses it. Said
/// before any chooser or editor opens, so nothing typed is lost to the
/// refusal; outside the thread `c` starts a new thread as ever.
#[test]
fn compose_inside_a_thread_that_was_not_utf8_is_refused_before_typing() {
    let mut app = help_in_a_damaged_thread();
    app.press("<enter>");
    assert_eq!(app.model.focus, Pane::Messages);
    app.press("c");
    assert!(app.model.overlay.is_none(), "{:?}", app.model.overlay);
    let notice = app.notice();
    assert!(
        notice.contains("\"ol-\u{fffd}9\" was not UTF-8 where it was read"),
        "{notice}"
    );
    app.press("<esc>c");
    assert!(app.model.overlay.is_some(), "{}", app.notice());
}

/// An agent whose name was not UTF-8 where it was read (`Blue�Lake`)
/// is in the roster, and `c` offered it: picked, the message was typed
/// and then refused at the send, and "all agents" took it in too, so a
/// message to everyone was refused over one damaged file. Picked alone
/// it is refused in the picker, which stays open to pick again; "all
/// agents" leaves it out and says so.
#[test]
fn compose_leaves_out_a_name_that_was_not_utf8() {
    let now = fixed_now();
    let mut backend = FakeBackend::sample();
    backend.deliver(
        "latin1.md",
        message(
            MessageType::Progress,
            "[ol-9] PROGRESS",
            "Blue\u{fffd}Fox",
            &["BlueLake"],
            "ol-9",
            now,
            "Status: ok",
            |_| {},
        ),
    );
    let mut app = TestApp::new(backend, UiConfig::default()).with_identity("BlueLake");
    app.press("c");
    let Some(Overlay::Pick { options, .. }) = &app.model.overlay else {
        panic!("{:?}", app.model.overlay);
    };
    let damaged = options.iter().position(|o| o == "Blue\u{fffd}Fox").unwrap();
    // Counted as "all agents" takes them: without it (no person here).
    assert_eq!(options[0], format!("all agents ({})", options.len() - 2));
    for _ in 0..damaged {
        app.press("j");
    }
    app.press("<enter>");
    assert!(
        matches!(app.model.overlay, Some(Overlay::Pick { .. })),
        "{:?}",
        app.model.overlay
    );
    let notice = app.notice();
    assert!(
        notice.contains("\"Blue\u{fffd}Fox\" was not UTF-8 where it was read"),
        "{notice}"
    );
    // All agents: the others, and a word on who was left out.
    app.press("g<enter><enter>");
    assert!(
        app.notice().contains("left out Blue\u{fffd}Fox"),
        "{}",
        app.notice()
    );
    app.type_text("Hold the release");
    app.press("<ctrl-s>");
    let sent = &app.backend.sent;
    assert_eq!(sent.len(), 1, "{}", app.notice());
    assert!(!sent[0].to.iter().any(|t| t.contains('\u{fffd}')));
    assert!(sent[0].to.len() > 2, "{:?}", sent[0].to);
}
