//! Issue 17's TUI part: a task in review answered from the board (`A`
//! approves, `X` rejects with a reason) and the selected agent's three
//! task queues (AOF's mailbox view) under the agents roster. Driven
//! through the real `update` + `execute` loop against the fake backend,
//! which records the calls; snapshots show the screens.

use amail_core::aof::TaskStatus;
use amail_core::router::TaskSummary;
use amail_tui::model::{Overlay, Screen};
use amail_tui::testing::{FakeBackend, TestApp};
use amail_tui::{Backend, UiConfig};

/// The sample's task in review (GreenCastle's login flow).
const REVIEW: &str = "TASK-527-1";

fn task<B: amail_tui::Backend>(app: &TestApp<B>, id: &str) -> TaskStatus {
    app.model
        .tasks
        .iter()
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("{id} on the board"))
        .status
}

fn extra(b: &FakeBackend, id: &str, title: &str, status: TaskStatus, agent: &str) -> TaskSummary {
    TaskSummary {
        id: id.into(),
        title: title.into(),
        status,
        bead: None,
        agent: Some(agent.into()),
        updated_at: Some(b.now - chrono::Duration::minutes(7)),
    }
}

/// The sample plus a task that waits only for the one in review.
fn with_dependent() -> FakeBackend {
    let mut b = FakeBackend::sample();
    let t = extra(
        &b,
        "TASK-542",
        "Session cookies",
        TaskStatus::Backlog,
        "GreenCastle",
    );
    b.tasks.push(t);
    b.dependents.insert(REVIEW.into(), vec!["TASK-542".into()]);
    b
}

/// The footer's last line (key hints), without the test backend's quotes.
fn hint_line(screen: &str) -> String {
    let last = screen.lines().last().unwrap_or("");
    last.trim_matches('"').trim().to_string()
}

#[test]
fn a_approves_the_task_in_review_and_the_board_shows_the_cascade() {
    let mut app = TestApp::new(with_dependent(), UiConfig::default());
    app.press(&format!("t/{REVIEW}<enter>"));
    assert_eq!(app.model.sel.task.as_deref(), Some(REVIEW));
    app.press("A");
    assert_eq!(app.backend.approvals, vec![REVIEW.to_string()]);
    // The board was read again: the task is done, its dependent ready.
    assert_eq!(task(&app, REVIEW), TaskStatus::Done);
    assert_eq!(task(&app, "TASK-542"), TaskStatus::Ready);
    let n = app.notice();
    assert_eq!(
        n,
        format!("✓ {REVIEW} approved: done; 1 dependent ready now: TASK-542")
    );
    assert!(!app.model.notice.as_ref().unwrap().error);
    let screen = app.render(80, 24);
    assert!(screen.contains("1 dependent ready now"), "{screen}");
}

#[test]
fn x_asks_why_refuses_an_empty_reason_then_rejects_with_it() {
    let mut app = TestApp::sample();
    app.press(&format!("t/{REVIEW}<enter>X"));
    assert!(
        matches!(&app.model.overlay, Some(Overlay::Reason { task, .. }) if task == REVIEW),
        "{:?}",
        app.model.overlay
    );
    let screen = app.render(80, 24);
    assert!(
        screen.contains(&format!("reject {REVIEW} · why:")),
        "{screen}"
    );
    // Keys type into the prompt, not into the board: `A` is a letter here.
    app.press("<enter>");
    assert!(app.model.overlay.is_some(), "an empty reason is refused");
    assert!(app.model.notice.as_ref().unwrap().error);
    assert!(app.notice().contains("type why"), "{}", app.notice());
    app.type_text("  ");
    app.press("<enter>");
    assert!(app.backend.rejections.is_empty(), "blanks are no reason");
    app.type_text("Add a test for the PKCE verifier");
    app.press("<enter>");
    assert_eq!(
        app.backend.rejections,
        vec![(
            REVIEW.to_string(),
            "Add a test for the PKCE verifier".to_string()
        )]
    );
    assert!(app.model.overlay.is_none());
    assert_eq!(task(&app, REVIEW), TaskStatus::InProgress);
    assert_eq!(
        app.notice(),
        format!("✓ {REVIEW} rejected: back in progress")
    );
    assert!(app.backend.approvals.is_empty());
    assert!(app.model.reasons.is_empty(), "a written reason is not kept");
}

/// A task store that cannot write a rejection (a read-only disk).
struct ReadOnly(FakeBackend);

const READ_ONLY: &str = "store/review/TASK-527-1.md: Read-only file system (os error 30)";

impl Backend for ReadOnly {
    fn describe(&self) -> String {
        self.0.describe()
    }
    fn load(&mut self) -> Result<amail_core::inbox::Inbox, amail_tui::ReadError> {
        self.0.load()
    }
    fn tasks(&mut self) -> Result<amail_core::router::Board, String> {
        self.0.tasks()
    }
    fn ack(
        &mut self,
        i: &amail_core::inbox::Inbox,
        k: &[String],
        a: &str,
    ) -> Result<usize, String> {
        self.0.ack(i, k, a)
    }
    fn reply(
        &mut self,
        i: &amail_core::inbox::Inbox,
        k: &str,
        a: &str,
        b: &str,
    ) -> Result<(), String> {
        self.0.reply(i, k, a, b)
    }
    fn watch_paths(&self) -> Vec<std::path::PathBuf> {
        Vec::new()
    }
    fn reject(&mut self, _: &str, _: &str) -> Result<String, String> {
        Err(READ_ONLY.into())
    }
}

/// A reason the store failed to write is kept, as Esc keeps one: the
/// notice says so and the next `X` on the task starts from it. It was
/// lost: the person had to type the sentence again.
#[test]
fn a_reject_the_store_fails_to_write_keeps_the_reason() {
    let fake = FakeBackend::sample();
    let now = fake.now;
    let mut app = TestApp::with_backend(ReadOnly(fake), now, UiConfig::default());
    app.press(&format!("t/{REVIEW}<enter>X"));
    app.type_text("Add a test for the PKCE verifier");
    app.press("<enter>");
    let n = app.notice();
    assert_eq!(
        n,
        format!("✗ rejecting {REVIEW} failed: {READ_ONLY} (your reason is kept: X starts from it)")
    );
    assert!(app.model.notice.as_ref().unwrap().error);
    assert_eq!(task(&app, REVIEW), TaskStatus::Review);
    app.press("X");
    assert!(
        matches!(&app.model.overlay, Some(Overlay::Reason { text, .. }) if text == "Add a test for the PKCE verifier"),
        "{:?}",
        app.model.overlay
    );
}

#[test]
fn esc_cancels_the_reason_and_nothing_is_written() {
    let mut app = TestApp::sample();
    app.press(&format!("t/{REVIEW}<enter>X"));
    app.type_text("not yet");
    app.press("<esc>");
    assert!(app.model.overlay.is_none());
    assert!(app.backend.rejections.is_empty());
    assert_eq!(task(&app, REVIEW), TaskStatus::Review);
    assert_eq!(
        app.notice(),
        "reject cancelled (your reason is kept: X starts from it)"
    );
    // Ctrl-c cancels as Esc does.
    app.press("X");
    app.press("<ctrl-c>");
    assert!(app.model.overlay.is_none());
    assert!(!app.quit, "Ctrl-c in the prompt cancels, it does not quit");
}

#[test]
fn the_keys_act_only_on_a_task_in_review_and_say_why_not() {
    let mut app = TestApp::sample();
    // TASK-531 is in progress.
    app.press("t/TASK-531<enter>");
    app.press("A");
    assert!(app.backend.approvals.is_empty());
    let n = app.notice();
    assert_eq!(
        n,
        "TASK-531 is in-progress: A approves only a task in review"
    );
    assert!(app.model.notice.as_ref().unwrap().error);
    app.press("X");
    assert!(
        app.model.overlay.is_none(),
        "no prompt for a task not in review"
    );
    assert_eq!(
        app.notice(),
        "TASK-531 is in-progress: X rejects only a task in review"
    );
    // Away from the board the keys point to it.
    app.press("i");
    app.press("A");
    assert_eq!(
        app.notice(),
        "A approves a task in review on the task board (t)"
    );
    app.press("X");
    assert!(app.model.overlay.is_none());
    assert!(app.backend.approvals.is_empty() && app.backend.rejections.is_empty());
    let screen = app.render(80, 24);
    assert!(screen.contains("X rejects a task in review"), "{screen}");
}

#[test]
fn a_refusal_from_the_store_is_shown_and_the_board_reloads() {
    let mut app = TestApp::sample();
    app.press(&format!("t/{REVIEW}<enter>"));
    // Someone else sent it back meanwhile: the board on screen is stale.
    app.backend
        .tasks
        .iter_mut()
        .find(|t| t.id == REVIEW)
        .unwrap()
        .status = TaskStatus::InProgress;
    assert_eq!(task(&app, REVIEW), TaskStatus::Review);
    app.press("A");
    assert!(app.backend.approvals.is_empty());
    let n = app.notice();
    assert!(
        n.starts_with(&format!(
            "✗ approving {REVIEW} failed: task {REVIEW} is in 'in-progress', not in review"
        )),
        "{n}"
    );
    assert!(app.model.notice.as_ref().unwrap().error);
    assert_eq!(task(&app, REVIEW), TaskStatus::InProgress, "reloaded");
}

#[test]
fn the_board_hints_help_and_keymap_carry_both_keys() {
    let mut app = TestApp::sample();
    // On a task in review its two answers come first.
    app.press(&format!("t/{REVIEW}<enter>"));
    let screen = app.render(80, 24);
    let hints = hint_line(&screen);
    assert!(hints.starts_with("A approve  X reject"), "{hints}");
    // Elsewhere on the board they are still listed, after the basics.
    app.press("/TASK-531<enter>");
    let screen = app.render(100, 24);
    let hints = hint_line(&screen);
    assert!(
        hints.contains("A approve") && hints.contains("X reject"),
        "{hints}"
    );
    // The search that found the task is kept: its keys lead.
    assert!(hints.starts_with("n/N match  Enter thread"), "{hints}");
    // The help overlay lists them under the board's group.
    app.press("?");
    let help = app.render(100, 60);
    assert!(help.contains("Task board"), "{help}");
    assert!(help.contains("approve the task in review (done)"), "{help}");
    assert!(
        help.contains("reject the task in review (asks why)"),
        "{help}"
    );
    // Rebinding in the config moves the key everywhere.
    let config = UiConfig::from_toml("[keys]\napprove = [\"ctrl-y\"]\nreject = [\"D\"]\n", false);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let mut app = TestApp::new(FakeBackend::sample(), config);
    app.press(&format!("t/{REVIEW}<enter>"));
    let screen = app.render(80, 24);
    let hints = hint_line(&screen);
    assert!(hints.starts_with("Ctrl-y approve  D reject"), "{hints}");
    app.press("A");
    assert!(app.backend.approvals.is_empty(), "A is no longer bound");
    app.press("<ctrl-y>");
    assert_eq!(app.backend.approvals, vec![REVIEW.to_string()]);
}

#[test]
fn the_agents_view_reads_the_selected_agents_queues() {
    let mut app = TestApp::sample();
    assert!(app.backend.mailbox_calls.is_empty(), "not read until shown");
    app.press("w");
    assert_eq!(app.model.screen, Screen::Agents);
    let first = app.model.sel.agent.clone().unwrap();
    assert_eq!(app.backend.mailbox_calls, vec![first.clone()]);
    // Moving about the roster asks once per agent selected.
    app.press("/GreenCastle<enter>");
    assert_eq!(
        app.backend.mailbox_calls.last().map(String::as_str),
        Some("GreenCastle")
    );
    let calls = app.backend.mailbox_calls.len();
    let screen = app.render(120, 36);
    assert_eq!(
        app.backend.mailbox_calls.len(),
        calls,
        "drawing asks nothing"
    );
    assert!(
        screen.contains("Task queues · GreenCastle · 0 to do · 0 working · 1 in review"),
        "{screen}"
    );
    assert!(screen.contains("OUTBOX 1"), "{screen}");
    assert!(screen.contains(REVIEW), "{screen}");
    // Approving on the board empties the outbox: the queues are read
    // again after the reload.
    app.press(&format!("t/{REVIEW}<enter>A"));
    app.press("w");
    assert_eq!(app.model.sel.agent.as_deref(), Some("GreenCastle"));
    assert_eq!(
        app.backend.mailbox_calls.last().map(String::as_str),
        Some("GreenCastle")
    );
    assert_eq!(app.backend.mailbox_calls.len(), calls + 1);
    let screen = app.render(120, 36);
    assert!(screen.contains("0 in review"), "{screen}");
    assert!(screen.contains("OUTBOX 0"), "{screen}");
}

/// `Enter` in the roster's task queues shows the task on the board; `Esc`
/// there went to the inbox, though `Esc` from a thread opened from the
/// board or the roster goes back where `Enter` was pressed. It now goes
/// back to the queues, the task still selected there, and the board's
/// hints say so.
#[test]
fn esc_from_the_board_goes_back_to_the_queues_it_was_opened_from() {
    let mut app = TestApp::sample();
    app.render(100, 40);
    app.press("w/GreenCastle<enter><tab><enter>");
    assert_eq!(app.model.screen, Screen::Tasks);
    assert_eq!(app.model.sel.task.as_deref(), Some(REVIEW));
    let footer = app.render(100, 40).lines().last().unwrap().to_string();
    assert!(footer.contains("Esc roster"), "{footer}");
    app.press("<esc>");
    assert_eq!(app.model.screen, Screen::Agents, "Esc left for the inbox");
    assert!(app.model.queue_focus);
    assert_eq!(app.model.sel.queued.as_deref(), Some(REVIEW));
    // The board reached by its key leaves as before: for the inbox.
    app.press("t<esc>");
    assert_eq!(app.model.screen, Screen::Inbox);
}

/// A task file the queues' folders hold but that does not parse may be
/// the agent's: the queues say they skipped it (they were silent, as if
/// complete), wide and narrow.
#[test]
fn the_agents_queues_say_when_they_skip_a_task_file() {
    let mut backend = FakeBackend::sample();
    backend.mailbox_skipped =
        vec!["/s/tasks/ready/TASK-9.md:2:8: bad front matter: title: unclosed".into()];
    let mut app = TestApp::new(backend, UiConfig::default());
    app.press("w/GreenCastle<enter>");
    for (w, h) in [(120, 36), (70, 24)] {
        let screen = app.render(w, h);
        assert!(
            screen.contains("⚠ 1 task file skipped"),
            "{w}x{h}:\n{screen}"
        );
    }
}

/// GreenCastle with something in every queue, and more than fits at 60x20.
fn busy_backend() -> FakeBackend {
    let mut b = FakeBackend::sample();
    let agent = "GreenCastle";
    let more = [
        ("TASK-533", "Refresh token rotation", TaskStatus::Ready),
        ("TASK-534", "Audit log for logins", TaskStatus::Ready),
        ("TASK-535", "Password reset mail", TaskStatus::Ready),
        ("TASK-536", "Device list page", TaskStatus::Ready),
        ("TASK-537", "Login rate limits", TaskStatus::Ready),
        ("TASK-538", "OAuth scopes", TaskStatus::InProgress),
        ("TASK-539", "SSO with the IdP", TaskStatus::Blocked),
        ("TASK-540", "Logout everywhere", TaskStatus::Review),
        ("TASK-541", "Old session sweep", TaskStatus::Done),
    ];
    for (id, title, status) in more {
        let t = extra(&b, id, title, status, agent);
        b.tasks.push(t);
    }
    b
}

/// An agent's queue longer than its column ended in "+N more", counting
/// the tasks above the selected one with those below; the board's
/// columns say "↑ N more" over their cards and "↓ N more" under them.
/// The queues say it the board's way (the board's code), and a click
/// still lands on the task drawn under it.
#[test]
fn an_agents_queue_says_how_many_tasks_are_out_of_view_each_way() {
    let mut app = TestApp::new(busy_backend(), UiConfig::default());
    app.press("w/GreenCastle<enter>");
    let inbox = |screen: &str| -> Vec<String> {
        screen
            .lines()
            .skip_while(|l| !l.contains("INBOX 5"))
            .skip(1)
            .take_while(|l| !l.starts_with('└'))
            .map(|l| l.chars().skip(1).take(18).collect::<String>())
            .collect()
    };
    let screen = app.render(60, 20);
    assert!(!screen.contains("+3 more"), "{screen}");
    let rows = inbox(&screen);
    assert!(rows.iter().any(|r| r.contains("↓ ")), "{rows:#?}");
    assert!(!rows.iter().any(|r| r.contains("↑ ")), "{rows:#?}");
    // Down to the inbox's last task: those above it are said above.
    app.press("<tab>jjjj");
    assert_eq!(app.model.sel.queued.as_deref(), Some("TASK-537"));
    let screen = app.render(60, 20);
    let rows = inbox(&screen);
    let shown = rows.iter().filter(|r| r.contains("TASK-")).count();
    let above = format!("↑ {} more", 5 - shown);
    assert!(rows[0].contains(&above), "{rows:#?}");
    assert!(rows.iter().any(|r| r.contains("TASK-537")), "{rows:#?}");
    assert!(!rows.iter().any(|r| r.contains("↓ ")), "{rows:#?}");
}

#[test]
fn queue_snapshots() {
    for (w, h) in [(60, 20), (80, 24), (120, 36), (200, 60)] {
        let mut app = TestApp::new(busy_backend(), UiConfig::default());
        app.press("w/GreenCastle<enter>");
        let screen = app.render(w, h);
        // Done tasks are in no queue.
        assert!(!screen.contains("TASK-541"), "{screen}");
        insta::with_settings!({
            snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => "keys: \"w/GreenCastle<enter>\" (GreenCastle busy)",
        }, {
            insta::assert_snapshot!(format!("tui_agent_queues_{w}x{h}"), screen);
        });
    }
}

#[test]
fn review_snapshots() {
    for (name, keys) in [
        ("board_reject_reason", "t/TASK-527-1<enter>X"),
        ("board_approved", "t/TASK-527-1<enter>A"),
        ("board_not_in_review", "t/TASK-531<enter>A"),
    ] {
        for (w, h) in [(60, 20), (80, 24)] {
            let mut app = TestApp::new(with_dependent(), UiConfig::default());
            app.press(keys);
            if name == "board_reject_reason" {
                app.type_text("needs a test");
            }
            let screen = app.render(w, h);
            insta::with_settings!({
                snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
                prepend_module_to_snapshot => false,
                omit_expression => true,
                description => format!("keys: {keys:?}"),
            }, {
                insta::assert_snapshot!(format!("tui_{name}_{w}x{h}"), screen);
            });
        }
    }
}

/// The same keys over the real backend and a real AOF store: `A` runs
/// the router's approval (the dependent is promoted on disk), `X` its
/// rejection (the reason lands in the Work Log), and the agents view
/// reads the router's own mailbox view.
#[test]
fn the_keys_write_through_the_real_backend_to_the_store() {
    use amail_core::router::task::Task;
    use amail_core::router::Store;
    const A: &str = "TASK-2026-02-09-301";
    const B: &str = "TASK-2026-02-09-302";
    const C: &str = "TASK-2026-02-09-303";
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    let store = Store::open(&root).unwrap();
    let put = |id: &str, status: &str, deps: &[&str]| {
        let mut t = Task::new(
            id,
            &format!("Task {id}"),
            status,
            "2026-02-09T20:00:00.000Z",
        );
        t.fm.routing.agent = Some("ann".into());
        t.fm.depends_on = deps.iter().map(|d| d.to_string()).collect();
        store.insert(t).unwrap();
    };
    put(A, "review", &[]);
    put(B, "backlog", &[A]);
    put(C, "review", &[]);
    let mut app = real_app(dir.path(), &root);
    assert_eq!(app.model.tasks.len(), 3, "{:?}", app.model.load_error);
    app.press(&format!("t/{A}<enter>A"));
    let status = |id: &str| store.get(id).unwrap().unwrap().0;
    assert_eq!(status(A), TaskStatus::Done);
    assert_eq!(status(B), TaskStatus::Ready, "the cascade ran");
    assert_eq!(
        app.notice(),
        format!("✓ {A} approved: done; 1 dependent ready now: {B}")
    );
    assert_eq!(task(&app, B), TaskStatus::Ready, "the board reloaded");
    app.press(&format!("/{C}<enter>X"));
    app.type_text("missing tests");
    app.press("<enter>");
    assert_eq!(status(C), TaskStatus::InProgress);
    let (_, t) = store.get(C).unwrap().unwrap();
    let log = t.body.split("## Work Log").nth(1).expect("a Work Log");
    assert!(log.contains("missing tests"), "{log}");
    // ann has B ready and C back in progress; nothing in review.
    let q = amail_tui::Backend::mailbox(&mut app.backend, "ann").unwrap();
    assert_eq!(q.inbox.len(), 1);
    assert_eq!(q.processing.len(), 1);
    assert!(q.outbox.is_empty());
}

/// In the app the three calls run on the backend worker (issue 16) and
/// their outcomes count as its reports, so "working" clears once they
/// are in.
#[test]
fn the_worker_runs_review_and_queue_calls_and_counts_their_reports() {
    use amail_tui::msg::{Msg, Verdict};
    use amail_tui::worker::Worker;
    let (tx, rx) = std::sync::mpsc::channel();
    let mut worker = Worker::spawn(Box::new(FakeBackend::sample()), move |m| {
        let _ = tx.send(m);
    });
    let mut inbox = amail_tui::runtime::empty_inbox();
    for cmd in [
        amail_tui::Command::Mailbox {
            agent: "GreenCastle".into(),
        },
        amail_tui::Command::Reject {
            id: REVIEW.into(),
            reason: "needs a test".into(),
        },
        amail_tui::Command::Approve { id: REVIEW.into() },
    ] {
        assert!(worker.dispatch(&mut inbox, cmd).is_none(), "not inline");
        assert!(worker.busy());
        let msg = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("the worker reports");
        assert!(msg.from_backend(), "{msg:?}");
        worker.reported();
        assert!(!worker.busy());
        match msg {
            Msg::MailboxRead { agent, result } => {
                assert_eq!(agent, "GreenCastle");
                assert_eq!(result.unwrap().outbox.len(), 1);
            }
            Msg::Reviewed {
                id,
                verdict: Verdict::Rejected,
                result,
            } => {
                assert_eq!(id, REVIEW);
                assert_eq!(
                    result.unwrap(),
                    format!("{REVIEW} rejected: back in progress")
                );
            }
            // Rejected first, so the approval is refused: not in review.
            Msg::Reviewed {
                verdict: Verdict::Approved,
                result,
                ..
            } => assert!(result.unwrap_err().contains("not in review")),
            other => panic!("{other:?}"),
        }
    }
}

/// A task file that does not parse was left off the board without a word
/// (`amail tasks` warned, `amail doctor` named it): the board now says
/// how many it skipped and where to look.
#[test]
fn the_board_says_when_it_skips_a_task_file() {
    use amail_core::router::task::Task;
    use amail_core::router::Store;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    let store = Store::open(&root).unwrap();
    for id in ["TASK-2026-02-09-401", "TASK-2026-02-09-402"] {
        store
            .insert(Task::new(id, "A task", "ready", "2026-02-09T20:00:00.000Z"))
            .unwrap();
    }
    let broken = root.join("tasks/ready/TASK-2026-02-09-402.md");
    let text = std::fs::read_to_string(&broken).unwrap();
    std::fs::write(
        &broken,
        text.replacen("title: A task", "title: [unclosed", 1),
    )
    .unwrap();
    let mut app = real_app(dir.path(), &root);
    assert_eq!(app.model.tasks.len(), 1);
    app.press("t");
    let screen = app.render(120, 30);
    assert!(screen.contains("1 task file skipped"), "{screen}");
    assert!(screen.contains("amail doctor"), "{screen}");
    assert_eq!(app.model.tasks_skipped.len(), 1);
    assert!(
        app.model.tasks_skipped[0].contains("TASK-2026-02-09-402.md:"),
        "{:?}",
        app.model.tasks_skipped
    );
}

/// The app over the real backend: an empty mailbox in `dir`, the board
/// the store at `root`.
fn real_app(dir: &std::path::Path, root: &std::path::Path) -> TestApp<amail::backend::RealBackend> {
    let mail = dir.join("mail");
    std::fs::create_dir_all(&mail).unwrap();
    let backend = amail::backend::RealBackend::new(
        mail,
        amail_core::stores::LoadOptions::default(),
        root.to_path_buf(),
        false,
    );
    TestApp::with_backend(backend, chrono::Utc::now(), UiConfig::default())
}

/// The board's list names each task's bead and agent by the end that tells
/// it from its neighbours, never running one column into the next or under
/// the border: the agent from 40 columns up, the bead from 48 (narrower,
/// those columns give way to the title, the bead first).
#[test]
fn the_board_tells_long_beads_and_agents_apart_at_any_width() {
    let mut b = FakeBackend::sample();
    for (i, (agent, bead)) in crate::lookalike::PAIRS.into_iter().enumerate() {
        let mut t = extra(
            &b,
            &format!("TASK-90{i}"),
            "Pool work",
            TaskStatus::Ready,
            agent,
        );
        t.bead = Some(bead.into());
        b.tasks.push(t);
    }
    let mut app = TestApp::new(b, UiConfig::default());
    app.press("t");
    for w in [36u16, 40, 48, 60, 80, 120] {
        let screen = app.render(w, 40);
        for (id, ends) in ["TASK-900", "TASK-901"]
            .into_iter()
            .zip(crate::lookalike::ENDS)
        {
            let row = screen
                .lines()
                .find(|l| l.contains(&id[id.len() - 3..]))
                .unwrap_or_else(|| panic!("{id} at {w}:\n{screen}"));
            // ENDS name the agent's end, then the bead's.
            let shown = match w {
                ..40 => 0,
                40..48 => 1,
                _ => 2,
            };
            for end in &ends[..shown] {
                crate::lookalike::assert_ends_apart(row, [end, end], w, &screen);
            }
            for end in &ends[shown..] {
                assert!(!row.contains(end), "{end} shown at {w}:\n{screen}");
            }
        }
    }
}

/// The characters a title keeps in the board's list before the other
/// columns go (a few words: "Token refresh e…", the cut's `…` after them).
const TITLE_KEPT: usize = 15;

/// Narrow, the board's list gives up the columns a person can do without
/// (the age, then the bead, then the agent) and narrows the ids before a
/// task's title becomes unreadable: at 60 columns the titles of the demo's
/// long router ids were cut to three characters, at 40 to none.
#[test]
fn the_board_keeps_titles_readable_at_narrow_widths() {
    // Router ids as the demo writes them, long and alike.
    let mut b = FakeBackend::sample();
    for t in &mut b.tasks {
        t.id = format!("TASK-2026-11-28-{}", t.id.trim_start_matches("TASK-"));
    }
    let mut app = TestApp::new(b, UiConfig::default());
    app.press("t");
    for w in [36u16, 40, 48, 60, 80, 120] {
        let screen = app.render(w, 40);
        for t in &app.model.tasks {
            let kept: String = t.title.chars().take(TITLE_KEPT).collect();
            assert!(
                screen.contains(&kept),
                "{:?} cut shorter than {TITLE_KEPT} at {w}:\n{screen}",
                t.title
            );
        }
        // Nothing runs under the border.
        for l in screen.lines().filter(|l| l.starts_with('┃')) {
            assert!(l.ends_with('┃'), "{w}: {l}");
        }
    }
}

/// A reason kept for a task's next `X` (after Esc, or a write that
/// failed) is typed text a quit throws away, as a kept reply is: `q`
/// quit at once and the sentence for the Work Log was gone. It asks as
/// for drafts; a reject still being written is waited for, not counted.
#[test]
fn quitting_counts_a_kept_rejection_reason() {
    use amail_tui::update::update;
    use amail_tui::{Command, Msg};
    // Kept with Esc.
    let mut app = TestApp::sample();
    app.press(&format!("t/{REVIEW}<enter>X"));
    app.type_text("Add a test for the PKCE verifier");
    app.press("<esc>q");
    assert!(!app.quit, "a kept reason is not dropped by one q");
    let n = app.notice();
    assert!(n.contains("1 rejection reason"), "{n}");
    assert!(n.contains("q again quits"), "{n}");
    app.press("q");
    assert!(app.quit);

    // Kept by a write that failed.
    let fake = FakeBackend::sample();
    let now = fake.now;
    let mut app = TestApp::with_backend(ReadOnly(fake), now, UiConfig::default());
    app.press(&format!("t/{REVIEW}<enter>X"));
    app.type_text("Add a test for the PKCE verifier");
    app.press("<enter>q");
    assert!(!app.quit);
    let n = app.notice();
    assert!(n.contains("1 rejection reason"), "{n}");
    app.press("<esc>");

    // On its way to the store: quitting waits for the write (in the loop,
    // so a failure would keep the reason on screen), then quits.
    let mut app = TestApp::sample();
    app.press(&format!("t/{REVIEW}<enter>X"));
    app.type_text("Add a test for the PKCE verifier");
    let enter = ratatui::crossterm::event::KeyEvent::new(
        ratatui::crossterm::event::KeyCode::Enter,
        ratatui::crossterm::event::KeyModifiers::NONE,
    );
    let cmd = update(&mut app.model, Msg::Key(enter));
    assert!(matches!(cmd, Some(Command::Reject { .. })), "{cmd:?}");
    let q = ratatui::crossterm::event::KeyEvent::new(
        ratatui::crossterm::event::KeyCode::Char('q'),
        ratatui::crossterm::event::KeyModifiers::NONE,
    );
    assert_eq!(update(&mut app.model, Msg::Key(q)), None);
    assert!(
        app.notice().contains("sending 1 rejection, then quitting"),
        "{}",
        app.notice()
    );
    let Some(Command::Reject { id, .. }) = cmd else {
        unreachable!()
    };
    let written = Msg::Reviewed {
        id,
        verdict: amail_tui::msg::Verdict::Rejected,
        result: Ok("rejected".into()),
    };
    assert_eq!(update(&mut app.model, written), Some(Command::Quit));
}

/// At 40 columns a notice was cut at the right edge, and with it the
/// part that says which key to press: the quit warning ended "… would
/// be l". A notice too wide for the footer now takes the rows it needs
/// above it (`units::a_long_refusal_is_shown_whole`); one that would
/// take more than half the screen keeps the key it names whole and gives
/// up its description instead, from the end, where it says least
/// (`footer`'s unit tests).
#[test]
fn a_narrow_footer_keeps_the_key_a_notice_names() {
    /// Whether the whole notice is on a `w`-column screen.
    fn whole(app: &mut TestApp<impl Backend>, w: u16) -> bool {
        let notice = crate::screen::squeeze(&app.notice());
        crate::screen::words(&app.render(w, 20)).contains(&notice)
    }
    let mut app = TestApp::sample();
    app.press(&format!("t/{REVIEW}<enter>X"));
    app.type_text("Add a test for the PKCE verifier");
    app.press("<esc>");
    assert!(whole(&mut app, 40), "{}", app.render(40, 20));
    app.press("q");
    assert!(app.notice().ends_with("q again quits, other keys stay"));
    assert!(whole(&mut app, 40), "{}", app.render(40, 20));
    // Wide enough, the whole sentence on the footer's line.
    let line = hint_line(&app.render(140, 20));
    assert!(
        line.starts_with("1 rejection reason (kept for X) would be lost: "),
        "{line}"
    );

    // A long error before the key, whole too.
    let fake = FakeBackend::sample();
    let now = fake.now;
    let mut app = TestApp::with_backend(ReadOnly(fake), now, UiConfig::default());
    app.press(&format!("t/{REVIEW}<enter>X"));
    app.type_text("Add a test for the PKCE verifier");
    app.press("<enter>");
    assert!(app
        .notice()
        .ends_with("(your reason is kept: X starts from it)"));
    for w in [40, 60, 80] {
        assert!(whole(&mut app, w), "{w}: {}", app.render(w, 20));
    }
}
