//! Snapshots of the app over real data: the demo mailbox (`inbox::demo`,
//! fixed clock, routed into a store by the real backend) and the
//! mcp_agent_mail 0.1.0 fixture store, at 80x24 and 160x48.

use amail::backend::RealBackend;
use amail_tui::keymap::Chord;
use amail_tui::msg::{Command, Msg};
use amail_tui::testing::render_to_string;
use amail_tui::update::update;
use amail_tui::{Backend, Model, UiConfig};
use chrono::{DateTime, TimeZone, Utc};

/// How a scenario answers the one command navigation asks for: an
/// agent's task queues (`Command::Mailbox`), from the real backend.
type Queues<'a> = &'a dyn Fn(&str) -> amail_core::router::mailbox::Mailbox;

fn press(m: &mut Model, keys: &str, queues: Queues) {
    let mut chars = keys.chars().peekable();
    while let Some(c) = chars.next() {
        let spec = if c == '<' && chars.peek().is_some_and(|n| *n != '>') {
            chars.by_ref().take_while(|n| *n != '>').collect()
        } else {
            c.to_string()
        };
        // Navigation only: the one command expected is the agents view's
        // queues; nothing else is executed.
        let mut next = update(m, Msg::Key(Chord::parse(&spec).unwrap().to_event()));
        while let Some(cmd) = next.take() {
            if let Command::Mailbox { agent } = cmd {
                let result = Ok(queues(&agent));
                next = update(m, Msg::MailboxRead { agent, result });
            }
        }
    }
}

fn snap_all(name: &str, make: &dyn Fn() -> Model, queues: Queues, scenarios: &[(&str, &str)]) {
    for (view, keys) in scenarios {
        for (w, h) in crate::snapshots::SIZES {
            let mut m = make();
            let _ = update(&mut m, Msg::Resize(w, h));
            press(&mut m, keys, queues);
            let screen = render_to_string(&m, w, h);
            insta::with_settings!({
                snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
                prepend_module_to_snapshot => false,
                omit_expression => true,
                description => format!("keys: {keys:?}"),
            }, {
                insta::assert_snapshot!(format!("tui_{name}_{view}_{w}x{h}"), screen);
            });
        }
    }
}

const SCENARIOS: &[(&str, &str)] = &[
    ("threads", ""),
    ("help_request", "3<enter><enter>"),
    ("tasks", "t"),
    ("agents", "w"),
];

/// Task ids and update times come from the router's clock: make them
/// stable. Returns the tasks and each router id's stable name.
fn stable_tasks(
    mut tasks: Vec<amail_core::router::TaskSummary>,
) -> (
    Vec<amail_core::router::TaskSummary>,
    std::collections::HashMap<String, String>,
) {
    tasks.sort_by(|a, b| a.bead.cmp(&b.bead));
    let mut names = std::collections::HashMap::new();
    for (i, t) in tasks.iter_mut().enumerate() {
        let stable = format!("TASK-{:02}", i + 1);
        names.insert(std::mem::replace(&mut t.id, stable.clone()), stable);
        t.updated_at = None;
    }
    (tasks, names)
}

#[test]
fn demo_mailbox() {
    let now: DateTime<Utc> = Utc.with_ymd_and_hms(2026, 11, 22, 5, 0, 0).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let info = amail::demo::mailbox::write_demo_at(dir.path(), now).unwrap();
    let mut backend = RealBackend::new(
        info.mailbox.clone(),
        amail_core::stores::LoadOptions::default(),
        info.store.clone(),
        true,
    );
    let inbox = backend.load().unwrap();
    let (tasks, names) = stable_tasks(backend.tasks().unwrap().tasks);
    assert!(!tasks.is_empty(), "the demo routes into tasks");
    // The router's own mailbox view of the demo store, ids made stable.
    let backend = std::cell::RefCell::new(backend);
    let queues = |agent: &str| {
        let mut q = backend.borrow_mut().mailbox(agent).unwrap();
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
    let make = || {
        let mut m = Model::new(inbox.clone(), tasks.clone(), now, UiConfig::default());
        m.source = "demo/mail".into();
        m
    };
    snap_all("demo", &make, &queues, SCENARIOS);
}

#[test]
fn mcp_agent_mail_fixture() {
    let dir = crate::support::copy::fixture_copy();
    let inbox =
        amail_core::stores::load(dir.path(), &amail_core::stores::LoadOptions::default()).unwrap();
    // Just after the fixture's mail was written.
    let now: DateTime<Utc> = Utc.with_ymd_and_hms(2026, 11, 22, 3, 30, 0).unwrap();
    let make = || {
        let mut m = Model::new(inbox.clone(), Vec::new(), now, UiConfig::default())
            .with_identity(Some("BlueLake".into()));
        m.source = "mcp-agent-mail-0.1.0".into();
        m
    };
    // The fixture has no task store: the real backend says so with empty
    // queues.
    let backend = std::cell::RefCell::new(RealBackend::new(
        dir.path().to_path_buf(),
        amail_core::stores::LoadOptions::default(),
        dir.path().join("no-task-store"),
        false,
    ));
    let queues = |agent: &str| backend.borrow_mut().mailbox(agent).unwrap();
    snap_all(
        "mcp_fixture",
        &make,
        &queues,
        &[
            ("threads", ""),
            ("help_request", "3<enter><enter>"),
            ("agents", "w"),
        ],
    );
}
