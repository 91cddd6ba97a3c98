//! Test support, public so integration tests (and the lead's demo and
//! fixture snapshots) can use it: an in-memory [`FakeBackend`], a
//! realistic [`sample_inbox`], a key-driven [`TestApp`] harness and
//! [`render_to_string`] to draw any model into a `TestBackend`.
//!
//! Rendering the app from any inbox is one line:
//! `render_to_string(&Model::new(inbox, tasks, now, UiConfig::default()), 80, 24)`.
mod fake;
mod sample;

pub use fake::FakeBackend;
pub use sample::{derive, fixed_now, message, sample_inbox, sample_tasks, InboxBuilder};

use ratatui::backend::TestBackend;
use ratatui::Terminal;

use crate::backend::execute;
use crate::backend::Backend;
use crate::config::UiConfig;
use crate::keymap::Chord;
use crate::model::Model;
use crate::msg::{Command, Msg};
use crate::update::update;
use crate::view::view;

/// Draws `m` into a `w`×`h` `TestBackend` and returns the screen as text.
pub fn render_to_string(m: &Model, w: u16, h: u16) -> String {
    render_terminal(m, w, h).backend().to_string()
}

/// Same, returning the terminal (to inspect cells and styles).
pub fn render_terminal(m: &Model, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    term.draw(|f| view(m, f)).expect("draw");
    term
}

/// Drives the real `update` + `execute` loop with key strings, the way the
/// runtime does, against a [`FakeBackend`] (or any backend: the watcher
/// tests use the real one over a temporary mailbox).
pub struct TestApp<B: Backend = FakeBackend> {
    pub model: Model,
    pub backend: B,
    /// `$EDITOR` requests the app made (the test answers them).
    pub editor_requests: Vec<String>,
    /// How many times the app asked to be suspended (Ctrl-Z).
    pub suspends: usize,
    /// Whether a shell could `fg` the app after Ctrl-Z (the runtime learns
    /// it from the stop itself); `false` plays a process with none.
    pub job_control: bool,
    pub quit: bool,
}

impl TestApp {
    pub fn new(backend: FakeBackend, config: UiConfig) -> Self {
        let now = backend.now;
        TestApp::with_backend(backend, now, config)
    }

    pub fn sample() -> Self {
        TestApp::new(FakeBackend::sample(), UiConfig::default())
    }
}

impl<B: Backend> TestApp<B> {
    /// Starts the app over `backend` as the runtime does (one load), with
    /// the clock at `now`.
    pub fn with_backend(
        mut backend: B,
        now: chrono::DateTime<chrono::Utc>,
        config: UiConfig,
    ) -> Self {
        let mut model = Model::new(crate::runtime::empty_inbox(), Vec::new(), now, config);
        model.source = backend.describe();
        if let Some(msg) = execute(
            &mut backend,
            &mut crate::runtime::empty_inbox(),
            Command::Load,
        ) {
            update(&mut model, msg);
        }
        TestApp {
            model,
            backend,
            editor_requests: Vec::new(),
            suspends: 0,
            job_control: true,
            quit: false,
        }
    }

    pub fn with_identity(mut self, me: &str) -> Self {
        self.model.identity = Some(me.into());
        self.model.data_changed();
        self
    }

    /// Feeds one message and everything it leads to.
    pub fn send(&mut self, msg: Msg) {
        let mut next = Some(msg);
        while let Some(msg) = next.take() {
            next = match update(&mut self.model, msg) {
                None => None,
                Some(Command::Quit) => {
                    self.quit = true;
                    None
                }
                Some(Command::Editor { initial }) => {
                    self.editor_requests.push(initial);
                    None
                }
                Some(Command::Suspend) => {
                    self.suspends += 1;
                    (!self.job_control).then_some(Msg::NotSuspended)
                }
                Some(cmd) => execute(&mut self.backend, &mut self.model.inbox, cmd),
            };
        }
    }

    /// The notice in the footer, or "" when there is none.
    pub fn notice(&self) -> String {
        self.model
            .notice
            .as_ref()
            .map(|n| n.text.clone())
            .unwrap_or_default()
    }

    /// Presses keys: plain characters, or `<spec>` for named keys and
    /// chords (`<enter>`, `<esc>`, `<ctrl-d>`, `<tab>`, `<down>`).
    pub fn press(&mut self, keys: &str) -> &mut Self {
        let mut chars = keys.chars().peekable();
        while let Some(c) = chars.next() {
            let spec = if c == '<' && chars.peek().is_some_and(|n| *n != '>') {
                let mut s = String::new();
                for n in chars.by_ref() {
                    if n == '>' {
                        break;
                    }
                    s.push(n);
                }
                s
            } else if c == ' ' {
                "space".to_string()
            } else {
                c.to_string()
            };
            let chord = Chord::parse(&spec).unwrap_or_else(|e| panic!("bad key {spec:?}: {e}"));
            self.send(Msg::Key(chord.to_event()));
        }
        self
    }

    /// Types literal text (into the editor or search prompt).
    pub fn type_text(&mut self, text: &str) -> &mut Self {
        for c in text.chars() {
            let ev = ratatui::crossterm::event::KeyEvent::new(
                ratatui::crossterm::event::KeyCode::Char(c),
                ratatui::crossterm::event::KeyModifiers::NONE,
            );
            self.send(Msg::Key(ev));
        }
        self
    }

    /// Renders at `w`×`h` (after telling the model its size, as a resize would).
    pub fn render(&mut self, w: u16, h: u16) -> String {
        self.send(Msg::Resize(w, h));
        let screen = render_to_string(&self.model, w, h);
        // As the event loop does after a frame.
        self.model.let_go_of_parses();
        if self.model.search_settle_due() {
            self.send(Msg::SearchCounted);
        }
        screen
    }
}
