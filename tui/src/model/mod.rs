//! The app state and the read-only questions views and `update` ask of it.
//!
//! Selections are held by key (thread id, message key, task id, agent
//! name), never by index, so a reload that inserts or removes items keeps
//! the user on the same thing. Filtered lists are derived on demand from
//! the inbox, so there is no cached list to go stale.
//!
//! The one concession to immediate-mode rendering: list scroll offsets are
//! `Cell`s written by the view (it alone knows the pane height); they are
//! presentation memory, not state `update` reasons about.
//!
//! The parts, by subject: `screen` (where the user is), `selection`
//! (what is selected and kept across a change), `lists` and `threads`
//! (what the lists show), `counts` (their totals), `search` and
//! `matching` (`/`), `roster` (people and agents), `overlay` and
//! `writes` (what keys type into and what they send), `status`,
//! `detail_rows` and `age` (what the views show besides). This module
//! holds the state itself and what every change of it must clear.

mod age;
mod counts;
mod detail_rows;
mod lists;
mod matching;
mod overlay;
mod roster;
mod screen;
mod search;
mod selection;
mod status;
mod threads;
mod writes;

use chrono::{DateTime, Utc};

use crate::activity::Activity;
use crate::config::UiConfig;
use crate::search_count::Count;
use amail_core::inbox::{Inbox, Patched};
use amail_core::router::TaskSummary;
use roster::RosterAt;
use search::Listed;

pub(crate) use age::age;
pub use counts::Counts;
pub use detail_rows::FileText;
pub(crate) use detail_rows::{DetailRows, RowsKey};
pub use overlay::{ChoiceFor, EditMode, Overlay};
pub(crate) use roster::is_person_in;
pub use roster::{Roster, PERSON, SERVER_PERSON};
pub use screen::{Filter, ListKind, Pane, Screen};
pub use search::Search;
pub(crate) use selection::ListsBefore;
pub use selection::{Marks, Offsets, Selection};
pub(crate) use status::describe_source;
pub use status::{Link, Notice, WatchState};
pub(crate) use writes::Resume;
pub use writes::{writes_in_words, Write};

/// How many parses made again an inbox of `messages` holds before it lets
/// go of them ([`Model::let_go_of_parses`]): a 128th of its messages, and
/// at least 1,024. In proportion because letting go is a pass over every
/// record (a million: 11-15 ms with the frees), made once per that many parses;
/// held, they cost a few KB each (about a tenth of the corpus's own size
/// at the most).
pub fn held_parses(messages: usize) -> usize {
    (messages / 128).max(1_024)
}

#[derive(Debug)]
pub struct Model {
    pub inbox: Inbox,
    pub tasks: Vec<TaskSummary>,
    /// Task files the board skipped (they do not parse, or cannot be
    /// read), each naming the file and why: the board says how many.
    pub tasks_skipped: Vec<String>,
    pub now: DateTime<Utc>,
    /// `--as`: whose acks are pending and who replies.
    pub identity: Option<String>,
    /// Without `--as`: the agent the person said they are when a reply
    /// asked, so the next reply neither asks again nor guesses.
    pub reply_as: Option<String>,
    /// Where mail comes from, for the status bar.
    pub source: String,
    pub config: UiConfig,
    pub screen: Screen,
    pub focus: Pane,
    /// The roster's second pane, the selected agent's task queues, has
    /// the focus (`Tab` on the roster).
    pub queue_focus: bool,
    pub filter: Filter,
    pub sel: Selection,
    /// Rows of the message view scrolled past (a row of wrapped text,
    /// not a line: a soak test's log runs past 65,535 of them).
    pub detail_scroll: usize,
    pub raw: bool,
    /// The file `v` shows (the current message's, once read). Shared
    /// with the message view's kept rows, which know it by its pointer.
    pub file: Option<std::rc::Rc<FileText>>,
    pub overlay: Option<Overlay>,
    /// Replies put aside with Esc then `k`, or whose write failed, by the
    /// key of the message they answer; the next reply to that message
    /// starts from its draft. A reply on its way to the store is its
    /// write's ([`Write::Reply`]), not here.
    pub drafts: std::collections::HashMap<String, String>,
    /// Rejection reasons put aside with Esc, or whose write failed, by
    /// task id: the next `X` on that task starts from its reason (a
    /// sentence for the Work Log is not thrown away by one key, or by a
    /// store that failed, as a reply is not). One on its way to the store
    /// is its write's ([`Write::Reject`]).
    pub reasons: std::collections::HashMap<String, String>,
    /// `q` was pressed with drafts a quit would lose: a second `q` quits.
    pub quit_asked: bool,
    /// `q` was pressed while writes were out ([`Model::writing`]): the app
    /// quits once they are written, and stays, a text kept, when one
    /// fails. Quitting at once let the worker finish the write on the way
    /// out, and a failure (and its text) went with the process.
    pub quit_after_writes: bool,
    /// Every write handed to the worker and not yet answered, in the
    /// order asked (acks and read marks too, which carry no text), with
    /// the text it writes: `q` waits for them on screen, `q` again quits
    /// at once and the runtime tells what became of them once the
    /// terminal is restored (`runtime::settle_writes`). An ack out quit at
    /// once, its outcome never shown. A failed write's text goes back
    /// where it came from (a draft, a reason, the editor of a new message;
    /// new messages are answered in the order sent, as the worker answers).
    pub writing: Vec<Write>,
    /// New messages put aside with Esc then `k`, or whose send failed
    /// while another overlay was open, in their editors: `c` opens the
    /// last one again. A failed send's text lives only here, so `q`
    /// counts them.
    pub composed: Vec<Overlay>,
    /// Space / `V` marks.
    pub marks: Marks,
    /// Keys of every message seen so far (for notifications: each new help
    /// request or failure rings once); `None` until the first load.
    pub seen: Option<std::collections::HashSet<String>>,
    /// Notifications for the runtime to send to the terminal, already made
    /// safe (see `notify`).
    pub notify: Vec<String>,
    /// The screen Enter jumped from (a task, an agent), where Esc goes back.
    pub came_from: Option<Screen>,
    pub search: Search,
    /// The selected agent's task queues (agents view), read through the
    /// backend when the selection or the data changes: whose, and what
    /// came back.
    pub queues: Option<(String, Result<amail_core::router::mailbox::Mailbox, String>)>,
    /// The agent whose queues were last asked for since the data changed
    /// (so a selection asks once, and a reload asks again).
    pub queues_asked: Option<String>,
    pub notice: Option<Notice>,
    pub watch: WatchState,
    /// `Some` for a polled store (a server): whether its last poll
    /// answered; `None` for mail on disk.
    pub link: Option<Link>,
    pub load_error: Option<String>,
    /// Backend work (a load, an ack, a reply) has not reported yet.
    pub working: bool,
    /// How far the load on the worker is: files done, in all, per second.
    pub progress: Option<(usize, usize, u64)>,
    /// The inbox on screen is the newest part of a mailbox still loading
    /// (`Msg::Partial`), not all of it, until `Msg::Loaded`.
    pub partial: bool,
    pub size: (u16, u16),
    pub offsets: Offsets,
    /// Lazily computed [`Counts`]; cleared by [`Model::data_changed`].
    counts: std::cell::RefCell<Option<Counts>>,
    /// The `/` search's count ([`Model::search_matches`]), made a slice
    /// at a time (`search_count`): the tab line, the list title and the
    /// prompt all ask each frame, and a whole answer is a pass over every
    /// message.
    search_cache: std::cell::RefCell<Option<Count<Listed>>>,
    /// The agents view's [`Activity`], made once per change of the inbox
    /// and of the minute (a pass over every message).
    activity: std::cell::RefCell<Option<std::rc::Rc<Activity>>>,
    /// The roster's agents ([`Model::roster`]), made once per change of
    /// the inbox: a frame of the roster asked for it four times, each a
    /// list made anew.
    roster: std::cell::RefCell<Option<RosterAt>>,
    /// [`amail_core::inbox::parsed_again`] when the inbox last let go of
    /// the parses its rows and views made ([`Model::let_go_of_parses`]).
    parses_let_go_at: usize,
    /// The threads the filter shows (indices, in display order) and the
    /// filter they are for: every frame asks, and each answer is a pass
    /// over every thread (318,000 of them in a million messages). Cleared
    /// by [`Model::data_changed`].
    visible: std::cell::RefCell<Option<(Filter, std::sync::Arc<[usize]>)>>,
    /// Where the thread last looked up by id is (the first with that id;
    /// checked before use, reset by [`Model::data_changed`]): the selected
    /// thread is asked for many times a frame.
    last_thread: std::cell::Cell<usize>,
    /// The message view's rows for what they show
    /// (`view::message::detail_rows`): a key scrolls a 100,000-line log,
    /// and both its bound and its frame asked for every row made anew
    /// (about 100 ms each). Cleared by [`Model::data_changed`] and
    /// [`Model::inbox_patched`].
    pub(crate) detail_rows: std::cell::RefCell<Option<DetailRows>>,
    pub dirty: bool,
    pub quit: bool,
}

impl Model {
    pub fn new(
        inbox: Inbox,
        tasks: Vec<TaskSummary>,
        now: DateTime<Utc>,
        config: UiConfig,
    ) -> Model {
        let mut m = Model {
            inbox,
            tasks,
            tasks_skipped: Vec::new(),
            now,
            identity: None,
            reply_as: None,
            source: String::new(),
            config,
            screen: Screen::Inbox,
            focus: Pane::Threads,
            queue_focus: false,
            filter: Filter::All,
            sel: Selection::default(),
            detail_scroll: 0,
            raw: false,
            file: None,
            overlay: None,
            drafts: Default::default(),
            reasons: Default::default(),
            quit_asked: false,
            quit_after_writes: false,
            writing: Vec::new(),
            composed: Vec::new(),
            marks: Marks::default(),
            seen: None,
            notify: Vec::new(),
            came_from: None,
            search: Search::default(),
            queues: None,
            queues_asked: None,
            notice: None,
            watch: WatchState::Off,
            link: None,
            load_error: None,
            working: false,
            progress: None,
            partial: false,
            size: (80, 24),
            offsets: Offsets::default(),
            counts: Default::default(),
            search_cache: Default::default(),
            activity: Default::default(),
            roster: Default::default(),
            parses_let_go_at: amail_core::inbox::parsed_again(),
            visible: Default::default(),
            detail_rows: Default::default(),
            last_thread: Default::default(),
            dirty: true,
            quit: false,
        };
        m.source = describe_source(&m.inbox.source);
        if !m.config.warnings.is_empty() {
            let n = m.config.warnings.len();
            m.notice = Some(Notice::error(format!(
                "⚠ config: {n} problem{} ignored; ? lists them",
                amail_core::words::plural(n)
            )));
        }
        m.fix_selection(&Selection::default(), &[None; 4]);
        m
    }

    pub fn with_identity(mut self, identity: Option<String>) -> Model {
        self.identity = identity;
        self.data_changed();
        self
    }

    /// Call after changing `inbox`, `tasks` or `identity`.
    pub(crate) fn data_changed(&mut self) {
        self.counts.replace(None);
        self.search_cache.replace(None);
        self.activity.replace(None);
        self.roster.replace(None);
        self.visible.replace(None);
        self.detail_rows.replace(None);
        self.last_thread.set(0);
    }

    /// Call after a store's change was applied to `inbox` (and `tasks`
    /// may have changed), with what the patch did when it could say
    /// ([`Inbox::take_patched`]): the totals are moved by what changed
    /// in the threads it touched, the thread last looked up is followed
    /// to where it went, and the list of all threads is made again
    /// without reading a thread, so the frame after one new file in a
    /// million messages costs in proportion to it. A filter's list is
    /// made again on first use (a pass over the threads), the search's
    /// answer too.
    /// `None` counts everything again ([`Model::data_changed`]).
    pub(crate) fn inbox_patched(&mut self, patched: Option<Patched>) {
        let Some(p) = patched else {
            self.data_changed();
            return;
        };
        self.search_cache.replace(None);
        self.activity.replace(None);
        self.roster.replace(None);
        self.visible.replace(None);
        self.detail_rows.replace(None);
        self.last_thread
            .set(p.thread_now(self.last_thread.get()).unwrap_or(0));
        let counted = self.counts.borrow_mut().take();
        if let Some(mut c) = counted {
            self.count_patch(&mut c, &p);
            self.counts.replace(Some(c));
        }
    }

    /// Rows a list pane shows (for half-page moves).
    pub(crate) fn page_rows(&self) -> usize {
        (self.size.1 as usize).saturating_sub(6).max(2)
    }

    /// After a frame: once the records have parsed [`held_parses`] of their
    /// messages again (a thread row's summary, the message shown, a thread
    /// opened), the inbox lets go of them all, and what is on screen is
    /// parsed again by the next frame (a few dozen, about a microsecond
    /// each). Without it, paging through a big inbox kept one parse per
    /// thread it passed, a few KB each, for good.
    pub fn let_go_of_parses(&mut self) {
        let now = amail_core::inbox::parsed_again();
        if now.wrapping_sub(self.parses_let_go_at) >= held_parses(self.inbox.messages.len()) {
            self.inbox.let_go_of_parses();
            self.parses_let_go_at = now;
        }
    }
}
