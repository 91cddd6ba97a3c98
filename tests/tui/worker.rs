//! Backend work runs on the worker, not the UI thread (issue 16): while a
//! backend blocks (a slow disk, a locked database) keys are still handled
//! and the status bar says work is out; the outcome then arrives as the
//! same message an inline call returned.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

use amail_core::inbox::Inbox;
use amail_core::router::Board;
use amail_tui::runtime::empty_inbox;
use amail_tui::testing::{render_to_string, FakeBackend};
use amail_tui::update::update;
use amail_tui::worker::Worker;
use amail_tui::{Backend, Command, Model, Msg, UiConfig};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Opens once; everything waiting on it then goes on.
#[derive(Clone, Default)]
struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    fn open(&self) {
        *self.0 .0.lock().unwrap() = true;
        self.0 .1.notify_all();
    }
    fn wait(&self) {
        let mut open = self.0 .0.lock().unwrap();
        while !*open {
            open = self.0 .1.wait(open).unwrap();
        }
    }
}

/// The fake mailbox, but every load and ack waits for the gate.
struct Blocking {
    inner: FakeBackend,
    gate: Gate,
    done: Arc<AtomicBool>,
}

impl Backend for Blocking {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn load(&mut self) -> Result<Inbox, amail_tui::ReadError> {
        self.gate.wait();
        self.done.store(true, Ordering::SeqCst);
        self.inner.load()
    }
    fn tasks(&mut self) -> Result<Board, String> {
        self.inner.tasks()
    }
    fn ack(&mut self, inbox: &Inbox, keys: &[String], as_agent: &str) -> Result<usize, String> {
        self.gate.wait();
        self.done.store(true, Ordering::SeqCst);
        self.inner.ack(inbox, keys, as_agent)
    }
    fn reply(
        &mut self,
        inbox: &Inbox,
        key: &str,
        as_agent: &str,
        body: &str,
    ) -> Result<(), String> {
        self.inner.reply(inbox, key, as_agent, body)
    }
    fn watch_paths(&self) -> Vec<PathBuf> {
        Vec::new()
    }
}

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

/// A worker over a blocked backend, its reports, and a watchdog that
/// opens the gate after a while: if the worker ran the job inline the test
/// then fails (the job is done before the key) instead of hanging.
fn blocked() -> (
    Worker,
    mpsc::Receiver<Msg>,
    Gate,
    Arc<AtomicBool>,
    FakeBackend,
) {
    let fake = FakeBackend::sample();
    let gate = Gate::default();
    let done = Arc::new(AtomicBool::new(false));
    let backend = Blocking {
        inner: fake.clone(),
        gate: gate.clone(),
        done: Arc::clone(&done),
    };
    let (tx, rx) = mpsc::channel();
    let worker = Worker::spawn(Box::new(backend), move |m| {
        let _ = tx.send(m);
    });
    let watchdog = gate.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(20));
        watchdog.open();
    });
    (worker, rx, gate, done, fake)
}

#[test]
fn keys_are_handled_while_the_backend_blocks_on_load() {
    let (mut worker, rx, gate, done, fake) = blocked();
    let mut model = Model::new(empty_inbox(), Vec::new(), fake.now, UiConfig::default());
    model.size = (100, 30);

    assert!(worker.dispatch(&mut model.inbox, Command::Load).is_none());
    model.working = worker.busy();
    assert!(model.working);
    assert!(render_to_string(&model, 100, 30).contains("working"));

    // The load is still blocked: keys work (the help overlay opens).
    update(&mut model, key('?'));
    assert!(model.overlay.is_some(), "a key was not handled");
    assert!(
        !done.load(Ordering::SeqCst),
        "the load ran on the UI thread"
    );
    assert!(rx.try_recv().is_err());

    gate.open();
    let msg = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert!(matches!(msg, Msg::Loaded { .. }), "{msg:?}");
    assert!(msg.from_backend());
    worker.reported();
    update(&mut model, msg);
    model.working = worker.busy();
    assert!(!model.working);
    assert_eq!(model.inbox.messages.len(), fake.inbox.messages.len());
    assert!(!render_to_string(&model, 100, 30).contains("working"));
}

#[test]
fn an_ack_runs_on_the_worker_with_only_its_messages() {
    let (mut worker, rx, gate, done, fake) = blocked();
    let mut inbox = fake.inbox.clone();
    let before = inbox.clone();
    let m = inbox
        .messages
        .iter()
        .find(|m| m.message.ack_required)
        .unwrap();
    let (key, agent) = (m.key.to_string(), m.recipients[0].agent.to_string());
    let cmd = Command::Ack {
        keys: vec![key.clone()],
        agent: agent.clone(),
    };
    assert!(worker.dispatch(&mut inbox, cmd).is_none());
    assert!(worker.busy());
    assert!(!done.load(Ordering::SeqCst));
    gate.open();
    match rx.recv_timeout(Duration::from_secs(60)).unwrap() {
        Msg::Acked {
            agent: a,
            done,
            errors,
        } => {
            assert_eq!((a, done, errors), (agent, 1, Vec::<String>::new()));
        }
        other => panic!("{other:?}"),
    }
    // The inbox on screen was not touched: the reload shows the ack.
    assert_eq!(inbox, before);
}

#[test]
fn keys_are_handled_while_a_reload_blocks() {
    let (mut worker, rx, gate, done, fake) = blocked();
    let mut model = Model::new(
        fake.inbox.clone(),
        Vec::new(),
        fake.now,
        UiConfig::default(),
    );
    model.size = (100, 30);
    let changed = Msg::FilesChanged(vec![PathBuf::from("/mail/BlueLake/new.md")]);
    let reload = update(&mut model, changed).unwrap();
    assert!(matches!(reload, Command::Reload { .. }));
    // The worker is idle, and still the reload (its reading blocks on the
    // gate) is not done here.
    assert!(worker.dispatch(&mut model.inbox, reload).is_none());
    model.working = worker.busy();
    assert!(model.working);

    update(&mut model, key('?'));
    assert!(model.overlay.is_some(), "a key was not handled");
    assert!(
        !done.load(Ordering::SeqCst),
        "the reload ran on the UI thread"
    );
    assert!(rx.try_recv().is_err());

    gate.open();
    let msg = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert!(matches!(msg, Msg::Reloaded { .. }), "{msg:?}");
    assert!(msg.from_backend());
    worker.reported();
    assert!(!worker.busy());
    update(&mut model, msg);
    assert_eq!(model.load_error, None);
    assert_eq!(model.inbox, fake.inbox);
}

/// Before the reload moved to the worker, a reload that found the worker
/// busy became a full load there; now it simply queues behind the job and
/// its outcome is applied when it arrives.
#[test]
fn a_reload_while_the_worker_is_busy_queues_behind_its_job() {
    let (mut worker, rx, gate, _done, fake) = blocked();
    let mut model = Model::new(empty_inbox(), Vec::new(), fake.now, UiConfig::default());
    assert!(worker.dispatch(&mut model.inbox, Command::Load).is_none());
    let reload = update(&mut model, Msg::FilesChanged(vec![PathBuf::from("/x.md")])).unwrap();
    assert!(matches!(reload, Command::Reload { .. }));
    assert!(worker.dispatch(&mut model.inbox, reload).is_none());
    gate.open();
    let first = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert!(matches!(first, Msg::Loaded { .. }), "{first:?}");
    worker.reported();
    update(&mut model, first);
    let second = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert!(matches!(second, Msg::Reloaded { .. }), "{second:?}");
    worker.reported();
    update(&mut model, second);
    assert!(!worker.busy());
    assert_eq!(model.inbox, fake.inbox);
}

/// Reports progress until the gate opens, then loads.
struct Counting {
    inner: FakeBackend,
    gate: Gate,
}

impl Backend for Counting {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn load(&mut self) -> Result<Inbox, amail_tui::ReadError> {
        self.inner.load()
    }
    fn load_with_progress(
        &mut self,
        progress: &dyn Fn(usize, usize),
    ) -> Result<Inbox, amail_tui::ReadError> {
        while !*self.gate.0 .0.lock().unwrap() {
            progress(5, 10);
            std::thread::sleep(Duration::from_millis(10));
        }
        self.inner.load()
    }
    fn tasks(&mut self) -> Result<Board, String> {
        self.inner.tasks()
    }
    fn ack(&mut self, inbox: &Inbox, keys: &[String], as_agent: &str) -> Result<usize, String> {
        self.inner.ack(inbox, keys, as_agent)
    }
    fn reply(
        &mut self,
        inbox: &Inbox,
        key: &str,
        as_agent: &str,
        body: &str,
    ) -> Result<(), String> {
        self.inner.reply(inbox, key, as_agent, body)
    }
    fn watch_paths(&self) -> Vec<PathBuf> {
        Vec::new()
    }
}

#[test]
fn a_load_reports_its_progress_in_the_status_bar() {
    let fake = FakeBackend::sample();
    let gate = Gate::default();
    let backend = Counting {
        inner: fake.clone(),
        gate: gate.clone(),
    };
    let (tx, rx) = mpsc::channel();
    let mut worker = Worker::spawn(Box::new(backend), move |m| {
        let _ = tx.send(m);
    });
    let mut model = Model::new(empty_inbox(), Vec::new(), fake.now, UiConfig::default());
    assert!(worker.dispatch(&mut model.inbox, Command::Load).is_none());
    model.working = worker.busy();
    let msg = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert!(
        matches!(
            msg,
            Msg::Progress {
                done: 5,
                total: 10,
                ..
            }
        ),
        "{msg:?}"
    );
    assert!(!msg.from_backend());
    update(&mut model, msg);
    let screen = render_to_string(&model, 120, 30);
    assert!(screen.contains("loading 5/10 · "), "{screen}");
    gate.open();
    until_the_job_ends(&mut worker, &rx, |msg| {
        update(&mut model, msg);
    });
    model.working = worker.busy();
    assert_eq!(model.progress, None);
    assert_eq!(model.inbox.messages.len(), fake.inbox.messages.len());
    assert!(!render_to_string(&model, 120, 30).contains("loading"));
}

/// A polled server is live while it answers: the status bar said "not
/// watching", or "watch failed (R reloads)" when its one watched path (a
/// task store that was not there) could not be watched, while new mail
/// came in on every poll.
#[test]
fn a_polled_server_that_answers_shows_live_whatever_the_file_watch() {
    use amail_tui::model::Link;
    use amail_tui::msg::WatchState;
    use amail_tui::testing::TestApp;
    let mut app = TestApp::sample();
    app.model.link = Some(Link::Up);
    for watch in [
        WatchState::Off,
        WatchState::Starting,
        WatchState::Failed("/home/me/.local/share/amail/store: no such file".into()),
    ] {
        app.model.watch = watch.clone();
        let screen = app.render(140, 30);
        assert!(screen.contains("◉ live"), "{watch:?}:\n{screen}");
        assert!(!screen.contains("watch"), "{watch:?}:\n{screen}");
    }
}

/// A server that stops answering (issue 13): a failed poll says so in the
/// status bar, keeps the inbox and the reply being written; the first poll
/// that answers again shows the link up by itself.
#[test]
fn a_failed_poll_shows_the_server_unreachable_and_keeps_the_draft() {
    use amail_tui::model::Link;
    use amail_tui::testing::TestApp;
    let mut app = TestApp::sample();
    app.model.link = Some(Link::Up);
    let held = app.model.inbox.messages.len();
    app.press("r");
    app.type_text("half a reply");
    app.send(Msg::Loaded {
        inbox: Err(away()),
        tasks: Ok(Board::default()),
    });
    assert_eq!(app.model.link, Some(Link::Down));
    let screen = app.render(140, 30);
    assert!(screen.contains("server unreachable · retrying"), "{screen}");
    assert!(screen.contains("half a reply"), "{screen}");
    assert_eq!(app.model.inbox.messages.len(), held);

    let inbox = app.backend.load().unwrap();
    app.send(Msg::Loaded {
        inbox: Ok(inbox),
        tasks: Ok(Board::default()),
    });
    assert_eq!(app.model.link, Some(Link::Up));
    let screen = app.render(140, 30);
    assert!(!screen.contains("server unreachable"), "{screen}");
    assert!(screen.contains("half a reply"), "{screen}");

    // A poll is a refresh: its failure reads the same.
    app.send(Msg::Reloaded {
        refresh: Err(away()),
        tasks: Ok(Board::default()),
    });
    assert_eq!(app.model.link, Some(Link::Down));
    let screen = app.render(140, 30);
    assert!(screen.contains("server unreachable · retrying"), "{screen}");
    assert!(screen.contains("half a reply"), "{screen}");
    assert_eq!(app.model.inbox.messages.len(), held);
}

/// The fake mailbox behind a server that does not answer writes.
struct Away(FakeBackend);

const AWAY: &str = "http://127.0.0.1:9/mcp/: no server answers (connection refused)";

/// A read of a server that nothing answers, as the remote store gives it.
fn away() -> amail_tui::ReadError {
    read_error(amail_remote::ServerError::Unreachable {
        url: "http://127.0.0.1:9/mcp/".into(),
        detail: "connection refused".into(),
    })
}

/// `e` as a read of the server fails with it, through the remote store's
/// own conversion.
fn read_error(e: amail_remote::ServerError) -> amail_tui::ReadError {
    amail_core::stores::Error::from(e).into()
}

/// The sample inbox, its server up, after a poll that failed with `e`.
fn poll_failed_with(e: &amail_remote::ServerError) -> amail_tui::testing::TestApp {
    let mut app = amail_tui::testing::TestApp::sample();
    app.model.link = Some(amail_tui::model::Link::Up);
    app.send(Msg::Reloaded {
        refresh: Err(read_error(e.clone())),
        tasks: Ok(Board::default()),
    });
    app
}

impl Backend for Away {
    fn describe(&self) -> String {
        self.0.describe()
    }
    fn load(&mut self) -> Result<Inbox, amail_tui::ReadError> {
        self.0.load()
    }
    fn tasks(&mut self) -> Result<Board, String> {
        self.0.tasks()
    }
    fn ack(&mut self, _: &Inbox, _: &[String], _: &str) -> Result<usize, String> {
        Err(AWAY.into())
    }
    fn reply(&mut self, _: &Inbox, _: &str, _: &str, _: &str) -> Result<(), String> {
        Err(AWAY.into())
    }
    fn send(&mut self, _: &Inbox, _: &amail_core::stores::Draft) -> Result<(), String> {
        Err(AWAY.into())
    }
    fn watch_paths(&self) -> Vec<PathBuf> {
        Vec::new()
    }
}

/// A reply or a new message sent while the server is away is not lost:
/// the reply stays the message's draft (`r` picks it up), the new message
/// comes back in its editor, each to send again.
#[test]
fn a_send_that_fails_keeps_what_was_written() {
    use amail_tui::model::Overlay;
    use amail_tui::testing::TestApp;
    let fake = FakeBackend::sample();
    let now = fake.now;
    let mut app = TestApp::with_backend(Away(fake), now, UiConfig::default());
    app.press("i/ol-527.2<enter>r");
    app.type_text("The spec wins.");
    app.press("<ctrl-s>");
    let screen = app.render(140, 30);
    assert!(
        screen.contains("reply failed") && screen.contains("draft kept"),
        "{screen}"
    );
    assert!(app.model.overlay.is_none());
    app.press("r");
    assert!(app.render(140, 30).contains("The spec wins."));
    app.press("<esc>y");

    let mut app = app.with_identity("BlueLake");
    app.press("c<enter>G<enter>");
    app.type_text("Standup in 5");
    app.press("<ctrl-s>");
    assert!(
        matches!(&app.model.overlay, Some(Overlay::Compose { text, .. }) if text == "Standup in 5"),
        "{:?}",
        app.model.overlay
    );
    let screen = app.render(140, 30);
    assert!(screen.contains("send failed"), "{screen}");
}

/// Hands out the newest part of the sample as a step, then waits for the
/// gate before the whole inbox; records which kind of load it was asked
/// for.
struct Stepping {
    inner: FakeBackend,
    gate: Gate,
    calls: Arc<Mutex<Vec<&'static str>>>,
    /// The step comes before the walk has counted the files (a mailbox
    /// filed by date: its newest months are listed first).
    before_the_count: bool,
}

impl Backend for Stepping {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn load(&mut self) -> Result<Inbox, amail_tui::ReadError> {
        self.inner.load()
    }
    fn load_with_progress(
        &mut self,
        progress: &dyn Fn(usize, usize),
    ) -> Result<Inbox, amail_tui::ReadError> {
        self.calls.lock().unwrap().push("whole");
        progress(11, 11);
        self.inner.load()
    }
    fn load_in_steps(
        &mut self,
        progress: &dyn Fn(usize, usize),
        partial: &dyn Fn(Inbox),
    ) -> Result<Inbox, amail_tui::ReadError> {
        self.calls.lock().unwrap().push("steps");
        if !self.before_the_count {
            progress(4, 11);
        }
        partial(crate::loading::newest(&self.inner.inbox, 4));
        self.gate.wait();
        self.inner.load()
    }
    fn tasks(&mut self) -> Result<Board, String> {
        self.inner.tasks()
    }
    fn ack(&mut self, inbox: &Inbox, keys: &[String], as_agent: &str) -> Result<usize, String> {
        self.inner.ack(inbox, keys, as_agent)
    }
    fn reply(
        &mut self,
        inbox: &Inbox,
        key: &str,
        as_agent: &str,
        body: &str,
    ) -> Result<(), String> {
        self.inner.reply(inbox, key, as_agent, body)
    }
    fn watch_paths(&self) -> Vec<PathBuf> {
        Vec::new()
    }
}

/// A first load dispatched to a worker over [`Stepping`], and the model
/// its messages go to: the two tests of the step share it.
struct SteppingRun {
    fake: FakeBackend,
    gate: Gate,
    calls: Arc<Mutex<Vec<&'static str>>>,
    worker: Worker,
    rx: mpsc::Receiver<Msg>,
    model: Model,
}

fn first_load_in_steps(before_the_count: bool) -> SteppingRun {
    let fake = FakeBackend::sample();
    let gate = Gate::default();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let backend = Stepping {
        inner: fake.clone(),
        gate: gate.clone(),
        calls: Arc::clone(&calls),
        before_the_count,
    };
    let (tx, rx) = mpsc::channel();
    let mut worker = Worker::spawn(Box::new(backend), move |m| {
        let _ = tx.send(m);
    });
    // A test that fails before opening the gate must not hang the suite.
    let watchdog = gate.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(20));
        watchdog.open();
    });
    let mut model = Model::new(empty_inbox(), Vec::new(), fake.now, UiConfig::default());
    assert!(worker.dispatch(&mut model.inbox, Command::Load).is_none());
    model.working = worker.busy();
    SteppingRun {
        fake,
        gate,
        calls,
        worker,
        rx,
        model,
    }
}

/// The worker's messages until its job's end, which is reported.
fn until_the_job_ends(worker: &mut Worker, rx: &mpsc::Receiver<Msg>, mut each: impl FnMut(Msg)) {
    loop {
        let msg = rx.recv_timeout(Duration::from_secs(60)).unwrap();
        let done = msg.from_backend();
        each(msg);
        if done {
            worker.reported();
            break;
        }
    }
}

/// Issue 16: the first load hands the newest threads to the screen while
/// the rest loads (the count shown beside them), keys work on them, and
/// the whole inbox then takes their place with the selection kept. A load
/// over an inbox already on screen (after an ack, `R`) hands out no steps:
/// the screen never shrinks to one.
#[test]
fn the_first_load_shows_the_newest_threads_while_the_rest_loads() {
    let SteppingRun {
        fake,
        gate,
        calls,
        mut worker,
        rx,
        mut model,
    } = first_load_in_steps(false);

    // The step's progress first, then the step itself, neither the job's end.
    let msg = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert!(matches!(msg, Msg::Progress { done: 4, .. }), "{msg:?}");
    assert!(!msg.from_backend());
    update(&mut model, msg);
    let msg = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert!(matches!(msg, Msg::Partial(_)), "{msg:?}");
    assert!(!msg.from_backend());
    update(&mut model, msg);
    assert!(worker.busy());
    assert_eq!(model.inbox.messages.len(), 4);
    let screen = render_to_string(&model, 120, 30);
    let top = model.visible_threads()[0].id.clone();
    assert!(
        screen.contains("loading 4/11 · ") && screen.contains(&top),
        "{screen}"
    );
    // Keys work on the partial inbox while the load is still out.
    update(&mut model, key('j'));
    let chosen = model.sel.thread.clone().unwrap();
    assert_ne!(chosen, top);
    assert!(rx.try_recv().is_err(), "the load went on without the gate");

    gate.open();
    let msg = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert!(matches!(msg, Msg::Loaded { .. }), "{msg:?}");
    worker.reported();
    update(&mut model, msg);
    model.working = worker.busy();
    assert_eq!(model.inbox, fake.inbox);
    assert_eq!(model.sel.thread.as_deref(), Some(chosen.as_str()));

    // Again, over the inbox on screen: the whole inbox at the end, no step.
    assert!(worker.dispatch(&mut model.inbox, Command::Load).is_none());
    until_the_job_ends(&mut worker, &rx, |msg| {
        assert!(!matches!(msg, Msg::Partial(_)), "a step over a full screen");
    });
    assert_eq!(*calls.lock().unwrap(), ["steps", "whole"]);
}

/// A step that comes before the files are counted (a mailbox filed by
/// date) shows its threads beside what the load is doing, not beside a
/// count of nothing ("loading 0/0 · 0/s" in session 25's tmux run at a
/// million messages).
#[test]
fn a_step_before_the_files_are_counted_says_they_are_being_listed() {
    let SteppingRun {
        gate,
        mut worker,
        rx,
        mut model,
        ..
    } = first_load_in_steps(true);
    loop {
        let msg = rx.recv_timeout(Duration::from_secs(60)).unwrap();
        let step = matches!(msg, Msg::Partial(_));
        update(&mut model, msg);
        if step {
            break;
        }
    }
    let screen = render_to_string(&model, 120, 30);
    let top = model.visible_threads()[0].id.clone();
    assert!(screen.contains(&top), "{screen}");
    assert!(
        screen.contains("loading · listing the files") && !screen.contains("0/0"),
        "{screen}"
    );
    gate.open();
    until_the_job_ends(&mut worker, &rx, drop);
}

/// A reload is applied where the lists stand when its answer arrives, not
/// where they stood when it was asked for: a selection moved while the
/// worker was reading (a slow disk, a server's poll) stays where the user
/// moved it.
#[test]
fn a_selection_moved_while_a_reload_is_out_stays_moved() {
    let mut fake = FakeBackend::sample();
    let mut model = Model::new(
        fake.inbox.clone(),
        Vec::new(),
        fake.now,
        UiConfig::default(),
    );
    model.size = (100, 30);
    let reload = update(&mut model, Msg::FilesChanged(vec![PathBuf::from("/x.md")])).unwrap();
    let asked = model.sel.thread.clone();
    update(&mut model, key('j'));
    let moved = model.sel.thread.clone();
    assert!(moved.is_some() && moved != asked, "{asked:?} -> {moved:?}");

    let msg = amail_tui::backend::execute(&mut fake, &mut empty_inbox(), reload).unwrap();
    assert!(matches!(msg, Msg::Reloaded { .. }), "{msg:?}");
    update(&mut model, msg);
    assert_eq!(model.sel.thread, moved);
}

/// A server's polls and loads take the one reload path: a poll is a
/// refresh answered as `Reloaded` (never a copy of the inbox reloaded on
/// the worker), and so is a load over a server's inbox on screen (a paged
/// store keeps what it holds); only a load onto a screen without one
/// reads the server whole.
#[test]
fn a_server_is_polled_and_reloaded_through_refresh() {
    let mut fake = FakeBackend::sample();
    fake.poll = Some(Duration::from_secs(1));
    let (tx, rx) = mpsc::channel();
    let mut worker = Worker::spawn(Box::new(fake.clone()), move |msg| {
        let _ = tx.send(msg);
    });
    let mut model = Model::new(empty_inbox(), Vec::new(), fake.now, UiConfig::default());
    worker.dispatch(&mut model.inbox, Command::Load);
    let msg = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert!(matches!(msg, Msg::Loaded { .. }), "{msg:?}");
    worker.reported();

    model.inbox = fake.inbox.clone();
    model.inbox.source = amail_core::inbox::SourceKind::Server {
        url: "http://127.0.0.1:8765/mcp/".into(),
    };
    let poll = update(&mut model, Msg::FilesChanged(Vec::new())).unwrap();
    for cmd in [poll, Command::Load] {
        worker.dispatch(&mut model.inbox, cmd);
        // Only a refresh answers `Reloaded`.
        let msg = rx.recv_timeout(Duration::from_secs(60)).unwrap();
        assert!(matches!(msg, Msg::Reloaded { .. }), "{msg:?}");
        worker.reported();
    }
}

/// Quitting while a load runs does not wait for it: a load only reads
/// (what it routes into the task store, in the demo, is atomic per
/// message and safe to cut), and a million-message one held `q` for
/// seconds. The load is still blocked when the worker is gone.
#[test]
fn quitting_during_a_load_does_not_wait_for_it() {
    let (mut worker, _rx, _gate, done, _fake) = blocked();
    worker.dispatch(&mut empty_inbox(), Command::Load);
    let (dropped, gone) = mpsc::channel();
    std::thread::spawn(move || {
        drop(worker);
        let _ = dropped.send(());
    });
    // The gate opens after 20 s (the watchdog): well before that, the
    // worker must be gone.
    gone.recv_timeout(Duration::from_secs(15))
        .expect("quitting waited for the load");
    assert!(!done.load(Ordering::SeqCst));
}

/// But a write in hand (an ack, a reply) is finished first: what the user
/// asked to write is never cut off by `q`.
#[test]
fn quitting_waits_for_an_ack_in_hand() {
    let (mut worker, _rx, gate, done, fake) = blocked();
    let mut inbox = fake.inbox.clone();
    let m = inbox
        .messages
        .iter()
        .find(|m| m.message.ack_required)
        .unwrap();
    let cmd = Command::Ack {
        keys: vec![m.key.to_string()],
        agent: m.recipients[0].agent.to_string(),
    };
    worker.dispatch(&mut inbox, cmd);
    let (dropped, gone) = mpsc::channel();
    let seen = Arc::clone(&done);
    std::thread::spawn(move || {
        drop(worker);
        // Whether the ack was done when the worker was gone.
        let _ = dropped.send(seen.load(Ordering::SeqCst));
    });
    std::thread::sleep(Duration::from_millis(200));
    gate.open();
    let acked = gone.recv_timeout(Duration::from_secs(60)).unwrap();
    assert!(acked, "quitting cut the ack off");
}

/// A server that refuses the token (401, or 403 for what the token may
/// not do): the pane said why, the status bar said "server unreachable ·
/// retrying". It answered, and asking again with the same token will not
/// help: the status bar says the token was refused. The sentences are the
/// remote store's own (`ServerError`'s text is what reaches the TUI).
#[test]
fn a_refused_token_is_not_an_unreachable_server() {
    use amail_remote::ServerError;
    use amail_tui::model::Link;
    let url = "http://127.0.0.1:8765/mcp/".to_string();
    let refusals = [
        ServerError::Unauthorized {
            url: url.clone(),
            token_from: Some("AMAIL_SERVER_TOKEN".into()),
        },
        ServerError::Unauthorized {
            url: url.clone(),
            token_from: None,
        },
        ServerError::Forbidden {
            url: url.clone(),
            what: "fetch_inbox".into(),
            token_from: Some("--token-file".into()),
        },
    ];
    for refused in refusals {
        let mut app = poll_failed_with(&refused);
        assert_eq!(app.model.link, Some(Link::Refused), "{refused}");
        let screen = app.render(140, 30);
        assert!(
            screen.contains("✗ server refused the token"),
            "{refused}:\n{screen}"
        );
        assert!(!screen.contains("unreachable"), "{refused}:\n{screen}");
        assert!(!screen.contains("retrying"), "{refused}:\n{screen}");
        let narrow = app.render(60, 20);
        assert!(narrow.contains("✗ refused"), "{refused}:\n{narrow}");
        assert!(!narrow.contains("offline"), "{refused}:\n{narrow}");

        // Fixed on the server's side (its token, its roles): the next poll
        // that answers shows the link up.
        let inbox = app.backend.load().unwrap();
        app.send(Msg::Loaded {
            inbox: Ok(inbox),
            tasks: Ok(Board::default()),
        });
        assert_eq!(app.model.link, Some(Link::Up));
    }
    // Nothing answering is still unreachable, and a timeout too.
    for away in [
        ServerError::Unreachable {
            url: url.clone(),
            detail: "connection refused".into(),
        },
        ServerError::Timeout {
            url: url.clone(),
            what: "fetch_inbox".into(),
            after: Duration::from_secs(30),
        },
    ] {
        let mut app = poll_failed_with(&away);
        assert_eq!(app.model.link, Some(Link::Down), "{away}");
        let screen = app.render(140, 30);
        assert!(
            screen.contains("server unreachable · retrying"),
            "{away}:\n{screen}"
        );
    }
}

/// `Ctrl-s` in the compose editor, answered later (the worker's `Sent`).
fn send_composed(app: &mut amail_tui::testing::TestApp, text: &str) -> Command {
    app.press("c<enter>G<enter>");
    app.type_text(text);
    let ctrl_s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
    let cmd = update(&mut app.model, Msg::Key(ctrl_s));
    assert!(matches!(cmd, Some(Command::Send(_))), "{cmd:?}");
    cmd.unwrap()
}

fn compose_text(m: &Model) -> Option<&str> {
    match &m.overlay {
        Some(amail_tui::model::Overlay::Compose { text, .. }) => Some(text),
        _ => None,
    }
}

/// A new message whose send failed while another overlay was open (the
/// help, a reply being written) stayed where sends wait and was never
/// reopened, counted by `q`, or reachable by `c`: its text was lost. And
/// a second send while the first was out took its place, so the first's
/// failure reopened the second. Each failed message is kept: reopened
/// when nothing is open, else kept for `c` and counted by `q`.
#[test]
fn a_send_that_fails_behind_another_overlay_is_kept_for_c() {
    use amail_tui::testing::TestApp;
    let to = vec!["BlueLake".to_string()];
    let failed = || Msg::Sent {
        to: vec!["BlueLake".into()],
        result: Err(AWAY.into()),
    };
    let mut app = TestApp::sample().with_identity("BlueLake");
    send_composed(&mut app, "Standup in 5");
    app.press("?");
    app.send(failed());
    assert!(
        matches!(
            app.model.overlay,
            Some(amail_tui::model::Overlay::Help { .. })
        ),
        "{:?}",
        app.model.overlay
    );
    let n = app.model.notice.clone().unwrap();
    assert!(n.text.contains("send failed"), "{n:?}");
    assert!(n.text.ends_with("c opens it again)"), "{n:?}");
    app.press("<esc>q");
    assert!(!app.quit, "q drops the failed message silently");
    let n = app.model.notice.clone().unwrap();
    assert!(n.text.starts_with("1 unsent draft"), "{n:?}");
    app.press("<esc>c");
    assert_eq!(compose_text(&app.model), Some("Standup in 5"));

    // Two sends out at once: each answer is the right message's.
    let mut app = TestApp::sample().with_identity("BlueLake");
    send_composed(&mut app, "first");
    send_composed(&mut app, "second");
    app.send(failed());
    assert_eq!(compose_text(&app.model), Some("first"));
    app.send(Msg::Sent {
        to: to.clone(),
        result: Ok(()),
    });
    assert_eq!(compose_text(&app.model), Some("first"));
    assert_eq!(app.model.kept_drafts(), 0);
}

/// The rest of the family: a server that answers, with an error that is
/// not about the token (its tool failed, an answer that is not MCP Agent
/// Mail's, a release without the tool), was called unreachable too. The
/// status bar says the server gave an error; polls go on (a tool that
/// failed on a busy database may pass next time), so it says it retries.
#[test]
fn a_server_that_answers_with_an_error_is_not_unreachable() {
    use amail_remote::ServerError;
    use amail_tui::model::Link;
    let url = "http://127.0.0.1:8765/mcp/".to_string();
    for answered in [
        ServerError::Tool {
            url: url.clone(),
            tool: "fetch_inbox".into(),
            message: "database is locked".into(),
        },
        ServerError::Protocol {
            url: url.clone(),
            detail: "HTTP 502 Bad Gateway".into(),
        },
        ServerError::TooOld {
            url: url.clone(),
            release: "0.2",
            feature: "fetch_inbox's since_ts".into(),
        },
    ] {
        let mut app = poll_failed_with(&answered);
        assert_eq!(app.model.link, Some(Link::Failing), "{answered}");
        let screen = app.render(140, 30);
        assert!(
            screen.contains("✗ server error · retrying"),
            "{answered}:\n{screen}"
        );
        assert!(!screen.contains("unreachable"), "{answered}:\n{screen}");
        let narrow = app.render(60, 20);
        assert!(narrow.contains("✗ error"), "{answered}:\n{narrow}");
    }
}

/// `q` while a new message was out to the store quit at once: the worker
/// finished the write on the way out, and when it failed, the message
/// (reopened or kept, as any failed send is) went with the process
/// unseen. Quitting now waits in the loop for the writes that carry typed
/// text (messages, replies, rejection reasons); one that fails takes the
/// quit back, its text kept as always, and the notice says so; when all
/// are written, the app quits.
#[test]
fn quitting_while_a_send_is_out_waits_and_a_failure_takes_the_quit_back() {
    use amail_tui::testing::TestApp;
    let sent = |result: Result<(), String>| Msg::Sent {
        to: vec!["BlueLake".into()],
        result,
    };
    let mut app = TestApp::sample().with_identity("BlueLake");
    send_composed(&mut app, "Standup in 5");
    app.press("q");
    assert!(!app.quit, "quit with the message still out");
    let n = app.model.notice.clone().unwrap();
    assert!(n.text.contains("sending 1 message, then quitting"), "{n:?}");
    app.send(sent(Err(AWAY.into())));
    assert!(!app.quit, "quit though the send failed");
    assert_eq!(compose_text(&app.model), Some("Standup in 5"));
    let n = app.model.notice.clone().unwrap();
    assert!(
        n.text.contains("send failed") && n.text.contains("quit cancelled"),
        "{n:?}"
    );

    // Written: the quit asked for goes ahead.
    let mut app = TestApp::sample().with_identity("BlueLake");
    send_composed(&mut app, "Standup in 5");
    app.press("q");
    assert!(!app.quit);
    app.send(sent(Ok(())));
    assert!(app.quit, "the send was written and the quit did not follow");

    // Any other key while waiting takes the quit back, as it takes back
    // the question about kept drafts.
    let mut app = TestApp::sample().with_identity("BlueLake");
    send_composed(&mut app, "Standup in 5");
    app.press("qj");
    app.send(sent(Ok(())));
    assert!(!app.quit, "a key after q did not take the quit back");
}

/// The app with an ack handed out, not yet answered: `a` on the first
/// thread that waits for BlueLake's ack, its command returned to the test.
fn ack_out() -> (amail_tui::testing::TestApp, Command) {
    use amail_tui::testing::TestApp;
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.render(80, 24);
    app.press("2");
    let cmd = update(&mut app.model, key('a'));
    assert!(matches!(cmd, Some(Command::Ack { .. })), "{cmd:?}");
    (app, cmd.unwrap())
}

/// `q` while an ack was out to the store quit at once: the worker
/// finished it on the way out with the screen gone, and whether it landed
/// was never shown. As for a message being sent, `q` now says what is
/// being written and quits once it is (a failure takes the quit back and
/// shows); `q` again quits at once, the outcome then told on stderr
/// (`runtime::settle_writes`).
#[test]
fn quitting_with_an_ack_out_says_so_and_quits_once_it_is_written() {
    let acked = |errors: Vec<String>| Msg::Acked {
        agent: "BlueLake".into(),
        done: if errors.is_empty() { 1 } else { 0 },
        errors,
    };
    let (mut app, _) = ack_out();
    app.press("q");
    assert!(!app.quit, "quit with the ack still out");
    let screen = app.render(80, 24);
    assert!(
        screen.contains("sending 1 ack, then quitting") && screen.contains("q again quits now"),
        "{screen}"
    );
    app.send(acked(Vec::new()));
    assert!(app.quit, "the ack was written and the quit did not follow");

    // A failure takes the quit back, and shows.
    let (mut app, _) = ack_out();
    app.press("q");
    app.send(acked(vec![AWAY.into()]));
    assert!(!app.quit, "quit though the ack failed");
    let n = app.notice();
    assert!(
        n.contains("quit cancelled") && n.contains("connection refused"),
        "{n}"
    );

    // `q` again quits now, the ack still out.
    let (mut app, _) = ack_out();
    app.press("qq");
    assert!(app.quit, "q twice did not quit");
}

/// After a forced quit (`q` twice) the terminal is given back and what
/// became of each write still out is told, once the worker answers: here
/// an ack the blocked backend finishes after the quit.
#[test]
fn a_forced_quit_tells_what_became_of_an_ack_in_flight() {
    let (mut worker, rx, gate, _done, _fake) = blocked();
    let (mut app, cmd) = ack_out();
    worker.dispatch(&mut app.model.inbox, cmd);
    let mut m = app.model;
    assert_eq!(update(&mut m, key('q')), None);
    assert_eq!(update(&mut m, key('q')), Some(Command::Quit));
    let opener = gate.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        opener.open();
    });
    let exit = amail_tui::runtime::settle_writes(&mut m, Duration::from_secs(60), |left| {
        rx.recv_timeout(left).ok()
    });
    assert!(exit.clean, "{:?}", exit.notes);
    assert_eq!(exit.notes.len(), 1, "{:?}", exit.notes);
    assert!(
        exit.notes[0].contains("acknowledged 1 message as BlueLake"),
        "{:?}",
        exit.notes
    );
    drop(worker);
}

/// A write that does not answer within the wait is not passed over in
/// silence: the notes say it was still being written, so it may or may
/// not have landed, and where to look; the worker is left to the
/// process's end rather than waited for without end.
#[test]
fn a_forced_quit_says_which_writes_were_still_out_when_the_wait_ended() {
    let (mut worker, rx, _gate, _done, _fake) = blocked();
    let (mut app, cmd) = ack_out();
    worker.dispatch(&mut app.model.inbox, cmd);
    let mut m = app.model;
    update(&mut m, key('q'));
    assert_eq!(update(&mut m, key('q')), Some(Command::Quit));
    let exit = amail_tui::runtime::settle_writes(&mut m, Duration::from_millis(200), |left| {
        rx.recv_timeout(left).ok()
    });
    assert!(!exit.clean);
    let notes = exit.notes.join("\n");
    assert!(
        notes.contains("1 ack") && notes.contains("may not have landed"),
        "{notes}"
    );
    worker.leave();
}

/// A reply out when the user forced the quit, and the store refused it:
/// its text lived only in the app, and went with it. The notes give the
/// failure and the text, so nothing typed is lost.
#[test]
fn a_forced_quit_prints_a_failed_reply_with_its_text() {
    use amail_tui::testing::TestApp;
    let (tx, rx) = mpsc::channel();
    let mut worker = Worker::spawn(Box::new(Away(FakeBackend::sample())), move |m| {
        let _ = tx.send(m);
    });
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.render(80, 24);
    app.press("/ol-527.2<enter>r");
    app.type_text("Merged; ship it");
    let ctrl_s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
    let cmd = update(&mut app.model, Msg::Key(ctrl_s));
    assert!(matches!(cmd, Some(Command::Reply { .. })), "{cmd:?}");
    worker.dispatch(&mut app.model.inbox, cmd.unwrap());
    let mut m = app.model;
    update(&mut m, key('q'));
    assert_eq!(update(&mut m, key('q')), Some(Command::Quit));
    let exit = amail_tui::runtime::settle_writes(&mut m, Duration::from_secs(60), |left| {
        rx.recv_timeout(left).ok()
    });
    assert!(!exit.clean);
    let notes = exit.notes.join("\n");
    assert!(
        notes.contains("not sent") && notes.contains("connection refused"),
        "{notes}"
    );
    assert!(
        notes.contains("Merged; ship it"),
        "the text is lost:\n{notes}"
    );
}

/// "other keys stay": a key bound to nothing (`z`) left the quit waiting
/// for the ack, and the app quit once it was written, the notice still
/// saying it would. Any key takes the quit back, and the notice goes.
#[test]
fn an_unbound_key_takes_back_a_quit_waiting_for_writes() {
    let (mut app, _) = ack_out();
    app.press("qz");
    assert!(app.notice().is_empty(), "{}", app.notice());
    app.send(Msg::Acked {
        agent: "BlueLake".into(),
        done: 1,
        errors: Vec::new(),
    });
    assert!(!app.quit, "quit after a key that said stay");
}

/// `c` from a folder above a mailbox (`amail inbox DIR` after `amail demo
/// DIR`): the worker handed the store an empty part of the inbox for a
/// send, so the store could not tell which mailbox the sender's mail is
/// in and the message went into `DIR/<from>/`, which the agents reading
/// `DIR/mail` never see. It hands over the messages that decide it.
#[test]
fn a_send_from_a_folder_above_a_mailbox_goes_into_the_mailbox() {
    let dir = tempfile::tempdir().unwrap();
    let info = amail::demo::mailbox::write_demo_at(dir.path(), chrono::Utc::now()).unwrap();
    assert_ne!(info.mailbox, dir.path());
    let (mut worker, rx, mut inbox) = real_worker(dir.path());
    let draft = amail_core::stores::Draft {
        from: "BlueLake".into(),
        to: vec!["GreenCastle".into()],
        kind: Some("NUDGE".into()),
        bead: None,
        subject: "pick up ol-527.5".into(),
        body: "It failed; take it.".into(),
        thread: None,
        importance: None,
        ack_required: false,
    };
    assert!(worker
        .dispatch(&mut inbox, Command::Send(Box::new(draft)))
        .is_none());
    let mut sent = None;
    until_the_job_ends(&mut worker, &rx, |msg| {
        if let Msg::Sent { result, .. } = msg {
            sent = Some(result);
        }
    });
    assert_eq!(sent, Some(Ok(())));
    let written: Vec<_> = std::fs::read_dir(info.mailbox.join("BlueLake"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("pick-up"))
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    assert!(!dir.path().join("BlueLake").exists());
}

/// The worker hands the store only the messages a write names; from a
/// folder above mailboxes the key a journal records a message under can
/// depend on others (the message holding its id, its mailbox's others
/// renamed against it): an ack of one of two messages of one mailbox
/// renamed against a third's id was recorded under the id, which that
/// mailbox's own view gives to one of the two, so the ack could show on
/// the other. It is recorded under the message's path, as a store
/// handed the whole inbox records it.
#[test]
fn an_ack_from_a_folder_above_is_recorded_under_the_key_its_mailbox_knows() {
    let dir = tempfile::tempdir().unwrap();
    for (file, bead) in [
        ("alpha/000001-a.md", "a"),
        ("alpha/000002-b.md", "b"),
        ("beta/999999-c.md", "c"),
    ] {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            format!("Subject: [{bead}] HELP_REQUEST\nId: 1\nFrom: W\nTo: O\nAck-Required: true\n\nBody:\nBead: {bead}\nIssue Type: STUCK\n"),
        )
        .unwrap();
        std::fs::write(path.with_file_name(".amail-acks.jsonl"), "").unwrap();
    }
    let (mut worker, rx, mut inbox) = real_worker(dir.path());
    let renamed = inbox
        .messages
        .iter()
        .map(|m| m.key.to_string())
        .find(|k| k.starts_with("alpha/"))
        .expect("alpha's messages are keyed by their paths from above");
    let cmd = Command::Ack {
        keys: vec![renamed.clone()],
        agent: "O".into(),
    };
    assert!(worker.dispatch(&mut inbox, cmd).is_none());
    until_the_job_ends(&mut worker, &rx, |msg| {
        if let Msg::Acked { done, errors, .. } = msg {
            assert_eq!((done, errors), (1, Vec::<String>::new()));
        }
    });
    let journal = std::fs::read_to_string(dir.path().join("alpha/.amail-acks.jsonl")).unwrap();
    let local = renamed.trim_start_matches("alpha/");
    assert!(
        journal.contains(&format!(r#""key":"{local}""#)),
        "{journal}"
    );
}

/// The same for a reply's thread: replying on the worker, from a folder
/// above a mailbox, to a message in a thread named by a message with no
/// id, thread or bead (`Thread: ask.md` in the mailbox, `mail/ask.md`
/// from above) wrote `Thread: mail/ask.md`, a thread of its own in the
/// mailbox: the message naming the thread was not in what the worker
/// handed over.
#[test]
fn a_reply_from_a_folder_above_names_the_thread_as_its_mailbox_does() {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    std::fs::create_dir_all(&mail).unwrap();
    std::fs::write(mail.join(".amail-acks.jsonl"), "").unwrap();
    std::fs::write(
        mail.join("ask.md"),
        "Subject: a question\nFrom: O\nTo: W\n\nBody:\nhow?\n",
    )
    .unwrap();
    std::fs::write(
        mail.join("answer.md"),
        "Subject: Re: a question\nFrom: W\nTo: O\nThread: ask.md\n\nBody:\nlike so\n",
    )
    .unwrap();
    let (mut worker, rx, mut inbox) = real_worker(dir.path());
    assert_eq!(
        inbox.threads.len(),
        1,
        "the answer is in the question's thread"
    );
    let cmd = Command::Reply {
        key: "mail/answer.md".into(),
        agent: "O".into(),
        body: "thanks".into(),
    };
    assert!(worker.dispatch(&mut inbox, cmd).is_none());
    until_the_job_ends(&mut worker, &rx, |msg| {
        if let Msg::Replied { result, .. } = msg {
            assert_eq!(result, Ok(()));
        }
    });
    let replies: Vec<_> = std::fs::read_dir(mail.join("replies"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(replies.len(), 1);
    assert!(replies[0].contains("\nThread: ask.md\n"), "{}", replies[0]);
}

/// The real backend over `root` on a worker, and the inbox it loads.
fn real_worker(root: &std::path::Path) -> (Worker, mpsc::Receiver<Msg>, Inbox) {
    let mut backend = amail::backend::RealBackend::new(
        root.to_path_buf(),
        Default::default(),
        root.join("store"),
        false,
    );
    let inbox = backend.load().unwrap();
    let (tx, rx) = mpsc::channel();
    let worker = Worker::spawn(Box::new(backend), move |m| {
        let _ = tx.send(m);
    });
    (worker, rx, inbox)
}
