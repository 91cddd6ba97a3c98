//! AgentTurn states in the roster (idle, dispatched, running, suspended),
//! derived from Agent Mail, handoff and A2A messages, and the flag for an
//! agent with more than one bead in progress (single-active-turn rule).

use amail_core::inbox::{assemble, turn, Inbox, SourceKind, TurnState};
use amail_tui::testing::render_to_string;
use amail_tui::update::update;
use amail_tui::{Model, UiConfig};
use chrono::{DateTime, Duration, TimeZone, Utc};

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 8, 0, 0).unwrap()
}

fn mail(
    key: &str,
    min: i64,
    from: &str,
    to: &str,
    subject: &str,
    body: &str,
) -> amail_core::inbox::InboxMessage {
    let text = format!(
        "Subject: {subject}\nId: {key}\nFrom: {from}\nTo: {to}\nDate: {}\n\nBody:\n{body}\n",
        (t0() + Duration::minutes(min)).format("%Y-%m-%dT%H:%M:%SZ")
    );
    let msg = amail_parser::parse(&text, &Default::default())
        .unwrap()
        .into_iter()
        .next()
        .unwrap()
        .into_owned();
    amail_core::inbox::InboxMessage {
        key: key.into(),
        recipients: vec![amail_core::inbox::Recipient {
            agent: amail_core::inbox::intern(to),
            kind: amail_core::inbox::RecipientKind::To,
            read_at: None,
            ack_at: None,
        }]
        .into(),
        message: msg.into(),
        path: None,
        project: None,
        thread_from_end: 0,
    }
}

fn protocol(path: &str, text: &str) -> Vec<amail_core::inbox::InboxMessage> {
    let p = amail_core::formats::parse_files(&[amail_core::formats::File::named(
        path.into(),
        text.into(),
    )]);
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    p.items
        .iter()
        .enumerate()
        .map(|(i, it)| amail_core::inbox::protocol_items::to_inbox(it, format!("{path}#{i}")))
        .collect()
}

fn inbox(msgs: Vec<amail_core::inbox::InboxMessage>) -> Inbox {
    assemble(SourceKind::Stdin, msgs, Vec::new())
}

fn turn_of(i: &Inbox, name: &str) -> (TurnState, Vec<String>, bool) {
    let a = i.agent(name).unwrap_or_else(|| panic!("no agent {name}"));
    (a.turn, a.active_beads.clone(), a.multiple_active)
}

#[test]
fn agent_mail_states() {
    let i = inbox(vec![
        mail(
            "1",
            0,
            "W1",
            "O",
            "[b1] BEAD_ACCEPTED",
            "Bead: b1\nTitle: one",
        ),
        mail(
            "2",
            1,
            "W2",
            "O",
            "[b2] BEAD_ACCEPTED",
            "Bead: b2\nTitle: two",
        ),
        mail(
            "3",
            2,
            "W2",
            "O",
            "[b2] HELP_REQUEST",
            "Bead: b2\nIssue type: STUCK\nProblem: p\nQuestion: q",
        ),
        mail(
            "4",
            3,
            "W3",
            "O",
            "[b3] BEAD_ACCEPTED",
            "Bead: b3\nTitle: three",
        ),
        mail("5", 4, "W3", "O", "[b3] DONE", "Bead: b3\nSummary: done"),
        mail(
            "6",
            5,
            "W4",
            "O",
            "[b4] PROGRESS",
            "Bead: b4\nStep: 1\nStatus: waiting for the test runner",
        ),
    ]);
    assert_eq!(
        turn_of(&i, "W1"),
        (TurnState::Running, vec!["b1".into()], false)
    );
    assert_eq!(
        turn_of(&i, "W2"),
        (TurnState::Suspended, vec!["b2".into()], false)
    );
    assert_eq!(turn_of(&i, "W3"), (TurnState::Idle, vec![], false));
    assert_eq!(
        turn_of(&i, "W4").0,
        TurnState::Suspended,
        "waiting on a tool"
    );
    assert_eq!(turn_of(&i, "O"), (TurnState::Idle, vec![], false));
    assert!(turn::warnings(&i).is_empty());
}

#[test]
fn an_answer_resumes_the_turn() {
    let mut help = mail(
        "2",
        1,
        "W",
        "O",
        "[b1] HELP_REQUEST",
        "Bead: b1\nIssue type: STUCK\nProblem: p\nQuestion: q",
    );
    help.message.thread_id = Some(amail_core::inbox::intern("b1"));
    let mut answer = mail(
        "3",
        2,
        "O",
        "W",
        "[b1] HELP_RESPONSE",
        "Bead: b1\nGuidance: do x",
    );
    answer.message.thread_id = Some(amail_core::inbox::intern("b1"));
    let i = inbox(vec![
        mail(
            "1",
            0,
            "W",
            "O",
            "[b1] BEAD_ACCEPTED",
            "Bead: b1\nTitle: one",
        ),
        help,
        answer,
    ]);
    assert_eq!(turn_of(&i, "W").0, TurnState::Running);
}

#[test]
fn two_beads_in_progress_are_flagged() {
    let i = inbox(vec![
        mail(
            "1",
            0,
            "W",
            "O",
            "[b1] BEAD_ACCEPTED",
            "Bead: b1\nTitle: one",
        ),
        mail(
            "2",
            5,
            "W",
            "O",
            "[b2] BEAD_ACCEPTED",
            "Bead: b2\nTitle: two",
        ),
    ]);
    assert_eq!(
        turn_of(&i, "W"),
        (TurnState::Running, vec!["b1".into(), "b2".into()], true)
    );
    let w = turn::warnings(&i);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].starts_with("W has 2 beads in progress at once (b1, b2)"),
        "{w:?}"
    );
    // Finishing one clears the flag.
    let i = inbox(vec![
        mail(
            "1",
            0,
            "W",
            "O",
            "[b1] BEAD_ACCEPTED",
            "Bead: b1\nTitle: one",
        ),
        mail(
            "2",
            5,
            "W",
            "O",
            "[b2] BEAD_ACCEPTED",
            "Bead: b2\nTitle: two",
        ),
        mail(
            "3",
            9,
            "W",
            "O",
            "[b1] OFFERING_READY",
            "Bead: b1\nSummary: s",
        ),
    ]);
    assert_eq!(
        turn_of(&i, "W"),
        (TurnState::Running, vec!["b2".into()], false)
    );
}

const HANDOFFS: &str = r#"[
 {"task_id": "h1", "from_agent": "P", "to_agent": "X", "status": "offered", "description": "d", "created_at": "2026-11-20T08:00:00Z", "updated_at": "2026-11-20T08:00:00Z"},
 {"task_id": "h2", "from_agent": "P", "to_agent": "Y", "status": "offered", "description": "d", "created_at": "2026-11-20T08:00:00Z", "updated_at": "2026-11-20T08:00:00Z"},
 {"task_id": "h2", "from_agent": "P", "to_agent": "Y", "status": "accepted", "description": "d", "created_at": "2026-11-20T08:00:00Z", "updated_at": "2026-11-20T08:01:00Z"},
 {"task_id": "h3", "from_agent": "P", "to_agent": "Z", "status": "accepted", "description": "d", "created_at": "2026-11-20T08:00:00Z", "updated_at": "2026-11-20T08:01:00Z"},
 {"task_id": "h3", "from_agent": "P", "to_agent": "Z", "status": "completed", "description": "d", "created_at": "2026-11-20T08:00:00Z", "updated_at": "2026-11-20T08:02:00Z"}
]"#;

const A2A: &str = r#"{"task_id": "a1", "task_type": "t", "requester_agent_id": "P", "responder_agent_id": "Y", "created_at": "2026-11-20T08:03:00Z"}
{"task_id": "a1", "status": "IN_PROGRESS", "executor_agent_id": "Y", "progress_data": {"activity": "awaiting_tool_result"}, "updated_at": "2026-11-20T08:04:00Z"}
{"task_id": "a2", "task_type": "t", "requester_agent_id": "P", "responder_agent_id": "V", "created_at": "2026-11-20T08:03:00Z"}
"#;

#[test]
fn handoff_and_a2a_states() {
    let mut msgs = protocol("h.json", HANDOFFS);
    msgs.extend(protocol("a.jsonl", A2A));
    let i = inbox(msgs);
    assert_eq!(turn_of(&i, "X"), (TurnState::Dispatched, vec![], false));
    assert_eq!(turn_of(&i, "Z"), (TurnState::Idle, vec![], false));
    assert_eq!(turn_of(&i, "V").0, TurnState::Dispatched);
    // Y runs the handoff and waits on a tool for the A2A task: two active
    // beads, the latest suspended.
    assert_eq!(
        turn_of(&i, "Y"),
        (TurnState::Suspended, vec!["h2".into(), "a1".into()], true)
    );
}

#[test]
fn roster_view_shows_turns_and_flags() {
    let mut msgs = protocol("h.json", HANDOFFS);
    msgs.extend(protocol("a.jsonl", A2A));
    msgs.push(mail(
        "m1",
        0,
        "W",
        "O",
        "[b1] BEAD_ACCEPTED",
        "Bead: b1\nTitle: one",
    ));
    let i = inbox(msgs);
    let now = t0() + Duration::hours(1);
    let mut m = Model::new(i, Vec::new(), now, UiConfig::default());
    m.source = "roster".into();
    let _ = update(&mut m, amail_tui::msg::Msg::Resize(120, 16));
    let _ = update(
        &mut m,
        amail_tui::msg::Msg::Key(amail_tui::keymap::Chord::parse("w").unwrap().to_event()),
    );
    let screen = render_to_string(&m, 120, 16);
    assert!(screen.contains("⚠ 2 beads"), "{screen}");
    assert!(screen.contains("‖ suspended"));
    assert!(screen.contains("→ dispatched"));
    assert!(screen.contains("▶ running"));
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!("proto_roster_120x16", screen);
    });
}

/// The warning names a few of the beads and counts the rest: it listed
/// every one, and an agent of a big mailbox holds thousands (the 100,000
/// corpus: 4,546 for one agent), so `amail threads` wrote megabytes of
/// warning to the terminal (61 s for a mailbox of a million, most of it
/// the terminal drawing the list).
#[test]
fn the_warning_names_a_few_beads_and_counts_the_rest() {
    let mails: Vec<_> = (0..40)
        .map(|n| {
            mail(
                &n.to_string(),
                n,
                "W",
                "O",
                &format!("[b{n}] BEAD_ACCEPTED"),
                &format!("Bead: b{n}\nTitle: task {n}"),
            )
        })
        .collect();
    let i = inbox(mails);
    let w = turn::warnings(&i);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].starts_with("W has 40 beads in progress at once (b0, b1, b2, b3, b4, and 35 more)"),
        "{w:?}"
    );
    assert!(w[0].len() < 200, "{}", w[0]);
}
