//! One mailbox mixing Agent Mail, a `.handoffs/` directory and A2A task
//! JSON: loaded into one inbox and one thread list, drawn by the real TUI
//! views into `TestBackend` (insta snapshots), and routed into one store.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES as MAX;
use amail_core::inbox::Inbox;
use amail_core::router::mailbox::Mailbox;
use amail_core::router::{Router, RouterOptions, Store, TaskSummary};
use amail_core::stores::{self, LoadOptions};
use amail_tui::keymap::Chord;
use amail_tui::msg::Msg;
use amail_tui::testing::render_to_string;
use amail_tui::update::update;
use amail_tui::{Model, UiConfig};
use chrono::{DateTime, TimeZone, Utc};

fn mailbox() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mixed/mail")
}

fn load() -> Inbox {
    stores::load(&mailbox(), &LoadOptions::default()).unwrap()
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 10, 30, 0).unwrap()
}

#[test]
fn one_inbox_one_thread_list() {
    let inbox = load();
    let ids: Vec<&str> = inbox.threads.iter().map(|t| t.id.as_str()).collect();
    for want in [
        "ol-700",
        "ol-701",
        "ol-702",
        "0f1c2d3e-0000-4000-8000-000000000001",
        "0f1c2d3e-0000-4000-8000-000000000006",
        "0f1c2d3e-0000-4000-8000-000000000010",
        "task_data.analysis_1",
        "task_lint_9",
    ] {
        assert!(ids.contains(&want), "{want} missing from {ids:?}");
    }
    assert_eq!(ids.len(), 8, "{ids:?}");
    // Most recent activity first, whatever the protocol.
    let times: Vec<_> = inbox.threads.iter().map(|t| t.last_at).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    // The JSON files became protocol items, not unknown mail.
    for m in &inbox.messages {
        let json = m
            .path
            .as_ref()
            .is_some_and(|p| p.extension().is_some_and(|e| e != "md"));
        let raw = m.message.raw_type.map_or("", |r| r.as_str());
        assert_eq!(
            json,
            ["HANDOFF", "A2A_TASK", "A2A_PROGRESS", "A2A_RESULT"].contains(&raw),
            "{}: {raw}",
            m.key
        );
    }
    // The re-offer history is one thread of four snapshots.
    let t = inbox
        .threads
        .iter()
        .find(|t| t.id == "0f1c2d3e-0000-4000-8000-000000000006")
        .unwrap();
    assert_eq!(t.messages.len(), 4);
    let last = &inbox.messages[*t.messages.last().unwrap()];
    assert_eq!(last.message.parsed.status.as_deref(), Some("re-offered"));
    // The broken handoff is a located problem; the rest still loads.
    assert_eq!(inbox.problems.len(), 1, "{:?}", inbox.problems);
    let (path, why) = &inbox.problems[0];
    assert!(path.ends_with(".handoffs/broken.json"), "{path:?}");
    assert!(why.starts_with("8:3: schema:"), "{why}");
}

#[test]
fn a2a_fields_are_in_the_message() {
    let inbox = load();
    let m = inbox
        .messages
        .iter()
        .find(|m| {
            m.message.raw_type.as_deref() == Some("A2A_TASK")
                && m.message.bead().as_deref() == Some("task_lint_9")
        })
        .unwrap();
    assert!(
        m.message.body.contains("Priority: MEDIUM"),
        "{}",
        m.message.body
    );
    assert!(m
        .message
        .body
        .contains("Deadline: 2026-11-20T12:00:00+00:00"));
    let p = inbox
        .messages
        .iter()
        .find(|m| {
            m.message.raw_type.as_deref() == Some("A2A_PROGRESS")
                && m.message.bead().as_deref() == Some("task_lint_9")
        })
        .unwrap();
    assert!(
        p.message.body.contains("Progress: 30% [###.......]"),
        "{}",
        p.message.body
    );
    assert!(p.message.subject.contains("IN_PROGRESS"));
}

fn route(store: &Path) -> Vec<TaskSummary> {
    let paths = vec![mailbox()];
    let opts = amail_core::source::inputs::InputOptions { max_bytes: MAX };
    let inputs = amail_core::source::inputs::collect(&paths, &opts).unwrap();
    let diags = inputs.diags;
    let (found, items): (Vec<_>, Vec<_>) = inputs
        .items
        .into_iter()
        .partition(|i| matches!(i, amail_core::source::inputs::Item::Protocol(_)));
    assert_eq!(diags.len(), 1, "{diags:?}");
    // The JSON files are routed as protocol items, not as mail.
    assert!(
        items.iter().all(|i| i.location().contains(".md:")),
        "{items:?}"
    );
    let router = Router::new(Store::open(store).unwrap(), RouterOptions::default());
    for item in &items {
        if let amail_core::source::inputs::Item::Mail { msg, .. } = item {
            router
                .route(&amail_core::bridge::mail::routable(msg))
                .unwrap();
        }
    }
    for it in &found {
        if let amail_core::source::inputs::Item::Protocol(it) = it {
            router
                .route(&amail_core::bridge::protocol::routable(it))
                .unwrap();
        }
    }
    router.store.checkpoint().unwrap();
    router.store.list().unwrap()
}

fn by_bead(tasks: &[TaskSummary]) -> BTreeMap<String, String> {
    tasks
        .iter()
        .filter_map(|t| Some((t.bead.clone()?, t.status.to_string())))
        .collect()
}

#[test]
fn routes_into_one_store() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = route(dir.path());
    let s = by_bead(&tasks);
    let want = [
        ("ol-700", "in-progress"),
        ("ol-701", "in-progress"),
        ("ol-702", "blocked"),
        ("0f1c2d3e-0000-4000-8000-000000000001", "ready"),
        // offered, accepted, failed (blocked), re-offered: ready again.
        ("0f1c2d3e-0000-4000-8000-000000000006", "ready"),
        ("0f1c2d3e-0000-4000-8000-000000000010", "in-progress"),
        ("task_lint_9", "in-progress"),
        ("task_data.analysis_1", "review"),
    ];
    for (bead, status) in want {
        assert_eq!(
            s.get(bead).map(String::as_str),
            Some(status),
            "{bead}: {s:?}"
        );
    }
    let reoffered = tasks
        .iter()
        .find(|t| t.bead.as_deref() == Some("0f1c2d3e-0000-4000-8000-000000000006"))
        .unwrap();
    assert_eq!(
        reoffered.agent.as_deref(),
        Some("tester"),
        "re-offered to tester"
    );
    // A2A priority and deadline reach the board (title) and the task file.
    let a2a = tasks
        .iter()
        .find(|t| t.bead.as_deref() == Some("task_data.analysis_1"))
        .unwrap();
    assert_eq!(a2a.title, "data.analysis · HIGH · due 2026-11-21 12:00");
    let store = Store::open(dir.path()).unwrap();
    let (_, task) = store.get(&a2a.id).unwrap().unwrap();
    assert_eq!(task.fm.priority, "high");
    assert_eq!(task.fm.metadata["deadline"], "2026-11-21T12:00:00+00:00");
    // Routing the same mailbox again changes nothing.
    let again = route(dir.path());
    assert_eq!(by_bead(&again), s);
    assert_eq!(again.len(), tasks.len());
}

/// Presses keys; the one command navigation asks for, an agent's task
/// queues (the agents view), is answered by `queues`.
fn press(m: &mut Model, keys: &str, queues: &dyn Fn(&str) -> Mailbox) {
    let mut chars = keys.chars().peekable();
    while let Some(c) = chars.next() {
        let spec = if c == '<' && chars.peek().is_some_and(|n| *n != '>') {
            chars.by_ref().take_while(|n| *n != '>').collect()
        } else {
            c.to_string()
        };
        let mut next = update(m, Msg::Key(Chord::parse(&spec).unwrap().to_event()));
        while let Some(cmd) = next.take() {
            if let amail_tui::Command::Mailbox { agent } = cmd {
                let result = Ok(queues(&agent));
                next = update(m, Msg::MailboxRead { agent, result });
            }
        }
    }
}

#[test]
fn tui_snapshots() {
    let inbox = load();
    let dir = tempfile::tempdir().unwrap();
    let mut tasks = route(dir.path());
    tasks.sort_by(|a, b| a.bead.cmp(&b.bead));
    let mut names = std::collections::HashMap::new();
    for (i, t) in tasks.iter_mut().enumerate() {
        let stable = format!("TASK-{:02}", i + 1);
        names.insert(std::mem::replace(&mut t.id, stable.clone()), stable);
        t.updated_at = None;
    }
    // The router's own mailbox view of the store, ids made stable.
    let store = Store::open(dir.path()).unwrap();
    let queues = |agent: &str| {
        let mut q = store.mailbox(agent).unwrap();
        for t in q
            .inbox
            .iter_mut()
            .chain(&mut q.processing)
            .chain(&mut q.outbox)
        {
            t.id = names[&t.id].clone();
            t.updated_at = None;
        }
        q
    };
    for (view, keys) in [
        ("threads", ""),
        (
            "a2a_progress",
            "/task_lint_9<enter><enter><enter><down><enter>",
        ),
        ("handoff_history", "/000000000006<enter><enter>"),
        ("tasks", "t"),
        ("agents", "w"),
    ] {
        for (w, h) in [(80u16, 24u16), (160, 48)] {
            let mut m = Model::new(inbox.clone(), tasks.clone(), now(), UiConfig::default());
            m.source = "mixed/mail".into();
            let _ = update(&mut m, Msg::Resize(w, h));
            press(&mut m, keys, &queues);
            let screen = render_to_string(&m, w, h);
            insta::with_settings!({
                snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
                prepend_module_to_snapshot => false,
                omit_expression => true,
                description => format!("keys: {keys:?}"),
            }, {
                insta::assert_snapshot!(format!("proto_mixed_{view}_{w}x{h}"), screen);
            });
        }
    }
}
