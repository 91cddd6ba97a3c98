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

use std::cell::Cell;

use chrono::{DateTime, Utc};

use super::activity::Activity;
use super::config::UiConfig;
use super::search_count::{Count, CountKey, SLICE};
use amail_core::inbox::{
    Agent, HelpState, Inbox, InboxMessage, Patched, Phase, SourceKind, Thread,
};
use amail_core::router::TaskSummary;
use amail_core::source::parallel;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Inbox,
    Tasks,
    Agents,
}

/// The inbox screen's panes, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Threads,
    Messages,
    Message,
}

/// The name a person sends as when no `--as` says otherwise.
pub const PERSON: &str = "Overseer";

/// The name the MCP Agent Mail server's web UI and TUI send a person's
/// messages as (the agent `HumanOverseer`, program `WebUI`, model
/// `Human`): a person too, not an agent.
pub const SERVER_PERSON: &str = "HumanOverseer";

/// [`Model::is_person`] for a store's names (where the model is borrowed
/// in parts).
pub(crate) fn is_person_in(source: &SourceKind, name: &str) -> bool {
    [PERSON, SERVER_PERSON]
        .iter()
        .any(|p| source.same_agent(name, p))
}

/// The roster's agents: positions in `Inbox::agents`, kept by the model
/// with the agents they were made of (where they are, how many).
#[derive(Debug, Clone)]
struct RosterAt {
    of: (usize, usize),
    at: std::rc::Rc<[usize]>,
}

/// The agents the roster lists ([`Model::roster`]), in the inbox's order.
pub struct Roster<'a> {
    agents: &'a [Agent],
    at: std::rc::Rc<[usize]>,
}

impl<'a> Roster<'a> {
    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'a Agent> + '_ {
        let agents = self.agents;
        self.at.iter().map(move |&i| &agents[i])
    }
}

/// Quick filters over threads (number keys 1-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    All,
    PendingAck,
    Help,
    InProgress,
    Failed,
    Done,
}

impl Filter {
    pub const ALL: [Filter; 6] = [
        Filter::All,
        Filter::PendingAck,
        Filter::Help,
        Filter::InProgress,
        Filter::Failed,
        Filter::Done,
    ];

    /// One name at every width (tabs, pane titles, help), so a person
    /// who resizes the terminal never has to learn a second vocabulary.
    /// Whether a thread in this state is listed under the tab: `owes`,
    /// whether it still waits for an ack (the person's, with `--as`), is
    /// asked only by the Pending tab (with `--as` it reads the messages).
    pub(crate) fn lists(self, owes: impl FnOnce() -> bool, help: HelpState, phase: Phase) -> bool {
        match self {
            Filter::All => true,
            Filter::PendingAck => owes(),
            Filter::Help => help != HelpState::None,
            Filter::Failed => phase == Phase::Failed,
            Filter::Done => phase == Phase::Done,
            Filter::InProgress => phase == Phase::Active,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Filter::All => "All",
            Filter::PendingAck => "Pending",
            Filter::Help => "Help",
            Filter::InProgress => "Active",
            Filter::Failed => "Failed",
            Filter::Done => "Done",
        }
    }
}

/// The lists a selection can live in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Threads,
    Messages,
    Tasks,
    Agents,
}

/// What a recipient choice is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChoiceFor {
    Ack {
        keys: Vec<String>,
    },
    /// Who the person is, asked before a reply; the answer is remembered.
    Reply {
        external_editor: bool,
    },
    MarkRead {
        keys: Vec<String>,
    },
    /// `c`: who the new message is from.
    ComposeFrom,
    /// `c`: which protocol type it is.
    ComposeKind {
        from: String,
        to: Vec<String>,
    },
}

impl ChoiceFor {
    /// The chooser's first line: what it asks.
    pub(crate) fn prompt(&self) -> &'static str {
        match self {
            ChoiceFor::Ack { .. } | ChoiceFor::Reply { .. } | ChoiceFor::MarkRead { .. } => {
                "Several recipients apply:"
            }
            ChoiceFor::ComposeFrom => "Who is sending:",
            ChoiceFor::ComposeKind { .. } => "Which type:",
        }
    }
}

/// Which kept text an editor resumes: a reply's draft (by message key) or
/// a rejection's reason (by task id).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Resume {
    Reply,
    Reason,
}

/// A write the user asked for, handed to the worker and not yet
/// answered: what `q` waits for, and what a forced quit tells the fate of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
    /// An ack of this many messages.
    Ack(usize),
    /// A read mark on this many messages.
    MarkRead(usize),
    /// A reply to the message with this key, and its text: out of
    /// `drafts` while it is written, back there if the write fails.
    Reply { key: String, text: String },
    /// A new message, in its editor as it was sent: the editor comes back
    /// if the send fails.
    Send(Box<Overlay>),
    /// Approving the task with this id.
    Approve(String),
    /// Rejecting the task with this id, and the reason as typed: out of
    /// `reasons` while it is written, back there if the write fails.
    Reject { id: String, reason: String },
}

impl Write {
    /// The write `cmd` asks for, if it writes ([`Command::writes`]) and
    /// carries all the write holds. A send and a rejection do not (the
    /// editor as sent, the reason as typed): the keys that send them
    /// push their writes.
    pub fn of(cmd: &crate::msg::Command) -> Option<Write> {
        use crate::msg::Command as C;
        Some(match cmd {
            C::Ack { keys, .. } => Write::Ack(keys.len()),
            C::MarkRead { keys, .. } => Write::MarkRead(keys.len()),
            C::Reply { key, body, .. } => Write::Reply {
                key: key.clone(),
                text: body.clone(),
            },
            C::Approve { id } => Write::Approve(id.clone()),
            _ => return None,
        })
    }

    /// The text this write carries that the user typed, with what it is.
    pub fn text(&self) -> Option<(&'static str, &str)> {
        match self {
            Write::Reply { text, .. } => Some(("your reply", text)),
            Write::Reject { reason, .. } => Some(("your reason", reason)),
            Write::Send(o) => match o.as_ref() {
                Overlay::Compose { text, .. } => Some(("your message", text)),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether `msg` is this write's answer, and if so whether it was
    /// written.
    pub fn answered_by(&self, msg: &crate::msg::Msg) -> Option<bool> {
        use crate::msg::{Msg as M, Verdict};
        match (self, msg) {
            (Write::Ack(_), M::Acked { errors, .. }) => Some(errors.is_empty()),
            (Write::MarkRead(_), M::MarkedRead { result, .. }) => Some(result.is_ok()),
            (Write::Reply { key: k, .. }, M::Replied { key, result }) if k == key => {
                Some(result.is_ok())
            }
            (Write::Send(_), M::Sent { result, .. }) => Some(result.is_ok()),
            (
                Write::Approve(i),
                M::Reviewed {
                    id,
                    verdict: Verdict::Approved,
                    result,
                },
            )
            | (
                Write::Reject { id: i, .. },
                M::Reviewed {
                    id,
                    verdict: Verdict::Rejected,
                    result,
                },
            ) if i == id => Some(result.is_ok()),
            _ => None,
        }
    }
}

/// "1 ack and 2 replies": the writes out, counted by kind, in words.
pub fn writes_in_words(writes: &[Write]) -> String {
    let mut n = [0usize; 6];
    for w in writes {
        match w {
            Write::Ack(k) => n[0] += (*k).max(1),
            Write::MarkRead(k) => n[1] += (*k).max(1),
            Write::Reply { .. } => n[2] += 1,
            Write::Send(_) => n[3] += 1,
            Write::Approve(_) => n[4] += 1,
            Write::Reject { .. } => n[5] += 1,
        }
    }
    let names = [
        ("ack", "acks"),
        ("read mark", "read marks"),
        ("reply", "replies"),
        ("message", "messages"),
        ("approval", "approvals"),
        ("rejection", "rejections"),
    ];
    let parts: Vec<String> = n
        .iter()
        .zip(names)
        .filter(|(k, _)| **k > 0)
        .map(|(k, (one, many))| format!("{k} {}", if *k == 1 { one } else { many }))
        .collect();
    match parts.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    Help {
        scroll: u16,
    },
    /// One of several: which agent acts (several recipients apply), who
    /// sends, which type ([`ChoiceFor`] says which, and its prompt).
    Choose {
        title: String,
        options: Vec<String>,
        index: usize,
        /// The number typed so far while more digits could still name an
        /// option (`1` of a list of twelve: `10`-`12` may follow); 0 when
        /// the next digit starts a number.
        typed: usize,
        purpose: ChoiceFor,
    },
    /// Several choices at once (`c`'s recipients): Space marks, Enter takes
    /// the marked ones (or the one under the cursor).
    Pick {
        title: String,
        options: Vec<String>,
        marked: Vec<bool>,
        index: usize,
        /// Who the message is from.
        from: String,
    },
    /// `c`: a new message. The first line of `text` is the subject, the
    /// rest the body.
    Compose {
        from: String,
        to: Vec<String>,
        kind: Option<String>,
        bead: Option<String>,
        thread: Option<String>,
        text: String,
        cursor: usize,
        mode: EditMode,
    },
    /// `X` on a task in review: the one-line reason it goes back to work
    /// (asked in the footer; empty is refused, Esc cancels).
    Reason {
        task: String,
        text: String,
        cursor: usize,
    },
    /// The inline reply editor. `cursor` is a byte offset into `text`.
    Editor {
        key: String,
        agent: String,
        /// Every recipient, comma-separated.
        to: String,
        kind: amail_core::stores::reply_rule::ReplyKind,
        text: String,
        cursor: usize,
        mode: EditMode,
    },
}

impl Overlay {
    /// A chooser with its first option under the cursor.
    pub(crate) fn choose(
        title: impl Into<String>,
        options: Vec<String>,
        purpose: ChoiceFor,
    ) -> Self {
        Overlay::Choose {
            title: title.into(),
            options,
            index: 0,
            typed: 0,
            purpose,
        }
    }

    /// The overlays keys type text into (the editors, a reject's reason):
    /// they bind no Alt chord and no key of the keymap.
    pub(crate) fn takes_text(&self) -> bool {
        matches!(
            self,
            Overlay::Editor { .. } | Overlay::Compose { .. } | Overlay::Reason { .. }
        )
    }
}

/// What keys in the reply editor do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum EditMode {
    /// Keys type into the text.
    #[default]
    Typing,
    /// Esc was pressed with text typed: `y` discards, `k` keeps the draft
    /// for this message (the next reply to it starts from it), anything
    /// else goes back to typing.
    ConfirmDiscard,
    /// Back from `$EDITOR` (as in aerc): `y` sends, `e` edits again, `d`
    /// discards, Esc edits inline.
    Review,
}

/// `/` search: incremental while typing, then `n`/`N`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    pub query: String,
    /// The prompt is open and takes keys.
    pub typing: bool,
    /// The selection when the prompt opened (Esc goes back to it).
    pub origin: Option<String>,
    /// The list searched; counts are shown only while it is the one `/`
    /// would search now.
    pub list: Option<ListKind>,
    /// Typing found no match near the origin in a long thread list: the
    /// first one is selected once the count has them all
    /// (`Msg::SearchCounted`).
    pub pending: bool,
}

/// A mail file as `v` shows it, read through the backend on demand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileText {
    pub path: std::path::PathBuf,
    pub text: Result<String, String>,
}

/// The message view's rows and what they were made for
/// (`view::message::detail_rows`).
#[derive(Debug)]
pub(crate) struct DetailRows {
    pub key: RowsKey,
    pub rows: std::rc::Rc<[ratatui::text::Line<'static>]>,
}

/// Everything the message view's rows are made of but the inbox (whose
/// every change clears the kept rows): the message, the width, the view,
/// the ages it shows, whether the load is partial, and the file `v` shows.
#[derive(Debug)]
pub(crate) struct RowsKey {
    /// The message's key (a shared text: a count, not a copy, a frame).
    pub message: Option<amail_core::inbox::Text>,
    pub inner: usize,
    pub raw: bool,
    /// The ages the view shows (when it was sent, when each recipient
    /// acked), not the clock: they change a minute at a time, the clock
    /// every second, and a long message's rows took a tenth of a second
    /// to make again.
    pub ages: Vec<String>,
    pub partial: bool,
    /// The file `v` shows, the very one (a file read again is a new one).
    pub file: Option<std::rc::Rc<FileText>>,
}

impl PartialEq for RowsKey {
    fn eq(&self, other: &Self) -> bool {
        let same_file = match (&self.file, &other.file) {
            (Some(a), Some(b)) => std::rc::Rc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        same_file
            && self.message == other.message
            && self.inner == other.inner
            && self.raw == other.raw
            && self.partial == other.partial
            && self.ages == other.ages
    }
}

/// Items marked with Space or `V` for one ack or mark-read: thread ids in
/// the thread list, message keys in a thread's messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    pub threads: std::collections::BTreeSet<String>,
    pub messages: std::collections::BTreeSet<String>,
    /// Where a `V` range starts: the last item marked.
    pub anchor: Option<String>,
}

impl Marks {
    pub fn is_empty(&self) -> bool {
        self.threads.is_empty() && self.messages.is_empty()
    }
}

/// A one-line message for the user in the footer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
    /// How many bytes at the end of `text` tell which key to press: a
    /// footer too narrow for the whole cuts the description before them,
    /// never them (cut at the edge, the quit warning lost its key).
    pub keep: usize,
}

impl Notice {
    /// A notice with no key to keep whole; `error` draws it as a failure.
    pub(crate) fn new(text: impl Into<String>, error: bool) -> Notice {
        Notice {
            text: text.into(),
            error,
            keep: 0,
        }
    }

    /// What happened, as news.
    pub(crate) fn info(text: impl Into<String>) -> Notice {
        Notice::new(text, false)
    }

    /// What failed or was refused.
    pub(crate) fn error(text: impl Into<String>) -> Notice {
        Notice::new(text, true)
    }

    /// `what` then `keys`, the part that names the key to press (kept
    /// whole on a narrow footer).
    pub(crate) fn keyed(what: String, keys: &str, error: bool) -> Notice {
        Notice {
            keep: keys.len(),
            text: what + keys,
            error,
        }
    }
}

/// Totals the header and footer show on every frame. Computed once per
/// data change (each is a pass over every message), not once per frame.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    pub filters: [usize; 6],
    pub pending: usize,
    pub unanswered_help: usize,
    /// Acks each agent still owes, by name.
    pub owed: std::collections::BTreeMap<String, usize>,
}

#[derive(Debug, Default)]
pub struct Offsets {
    pub threads: Cell<usize>,
    pub messages: Cell<usize>,
    pub tasks: Cell<usize>,
    pub agents: Cell<usize>,
    /// The open chooser's or recipients' list (one at a time).
    pub choice: Cell<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    pub thread: Option<String>,
    pub message: Option<String>,
    pub task: Option<String>,
    pub agent: Option<String>,
    /// The task selected in the roster's task queues (`Tab` there).
    pub queued: Option<String>,
}

/// Whether live refresh is running, shown in the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchState {
    /// Not started yet (tests, or before the first event loop turn).
    Off,
    /// Its watches are being added (a big tree takes a while), behind
    /// the first frame.
    Starting,
    Watching,
    /// Watching failed; the reason, and reload is manual (`R`).
    Failed(String),
}

/// A polled store's (a server's) connection, as the last poll found it.
/// A poll that fails shows why in the status bar (the line under the
/// panes has the whole sentence); the next poll tries again (the store
/// reconnects), and the first that succeeds shows the link up again.
/// Nothing on screen is dropped meanwhile: the inbox stays as last read,
/// drafts stay in their editors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    Up,
    /// Nothing answered, or not in time.
    Down,
    /// The server answered and refused the token (401, or 403 for what
    /// the token may not do): asking again with the same token will not
    /// help, so the status bar does not call it unreachable. Polls go on,
    /// so a fix on the server's side still brings the link up.
    Refused,
    /// The server answered with another error (its tool failed, an
    /// answer that is not an MCP Agent Mail server's, a release without
    /// a tool): not unreachable; it may pass on a later poll.
    Failing,
}

impl Link {
    /// The link after a failed load or poll, by how asking the server
    /// failed (a read error that is no server's is an answer gone wrong).
    pub fn after_error(error: &crate::msg::ReadError) -> Link {
        use amail_core::stores::ServerFailure;
        match error.server {
            Some(ServerFailure::Refused) => Link::Refused,
            Some(ServerFailure::Unreachable) => Link::Down,
            Some(ServerFailure::Answered) | None => Link::Failing,
        }
    }
}

/// The selection before a data change and where each selected key stood
/// in its list, for [`Model::fix_selection`] once the new data is in. Only
/// the positions: copying every thread's key on each reload of a large
/// inbox cost more than the patch itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ListsBefore {
    pub sel: Selection,
    /// Index of the selected key in the threads, messages, tasks and agents
    /// lists (in [`ListKind`] order as [`LISTS`] gives it); `None` when
    /// nothing was selected or the key was not in its list.
    pub at: [Option<usize>; 4],
}

/// The lists [`ListsBefore::at`] indexes, in order.
const LISTS: [ListKind; 4] = [
    ListKind::Threads,
    ListKind::Messages,
    ListKind::Tasks,
    ListKind::Agents,
];

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
                if n == 1 { "" } else { "s" }
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

    /// Moves the totals `c` (counted before the patch `p`) by what `p`
    /// did to the threads it touched: each such thread's share taken out
    /// as it was and put in as it is.
    fn count_patch(&self, c: &mut Counts, p: &Patched) {
        for t in &p.touched {
            let now = t.now.and_then(|q| self.inbox.threads.get(q));
            // What the person at the keyboard is owed in it (with
            // `--as`; else everyone), now and before the patch.
            let owed_now = now.map_or(0, |t| self.thread_pending(t));
            let change: isize = t
                .owed
                .iter()
                .filter(|(agent, _)| self.is_me(agent))
                .map(|&(_, n)| n)
                .sum();
            if let Some(b) = t.before {
                let owed_before = owed_now.checked_add_signed(-change).unwrap_or(0);
                for (n, f) in c.filters.iter_mut().zip(Filter::ALL) {
                    *n -= usize::from(f.lists(|| owed_before > 0, b.help, b.phase));
                }
                c.unanswered_help -= usize::from(b.help == HelpState::Unanswered);
            }
            if let Some(t) = now {
                for (n, f) in c.filters.iter_mut().zip(Filter::ALL) {
                    *n += usize::from(f.lists(|| owed_now > 0, t.help, t.phase));
                }
                c.unanswered_help += usize::from(t.help == HelpState::Unanswered);
            }
            for &(agent, n) in &t.owed {
                let entry = c.owed.entry(agent.to_string()).or_default();
                *entry = entry.checked_add_signed(n).unwrap_or(0);
                if *entry == 0 {
                    c.owed.remove(agent.as_str());
                }
            }
        }
        c.pending = c
            .owed
            .iter()
            .filter(|(agent, _)| self.is_me(agent))
            .map(|(_, n)| n)
            .sum();
    }

    /// The cached totals, computed on first use after a change.
    pub fn counts(&self) -> Counts {
        if let Some(c) = self.counts.borrow().as_ref() {
            return c.clone();
        }
        let mut c = Counts::default();
        // One pass over the threads for all six tabs (a pass per tab was
        // most of the frame after one new file at a million messages);
        // each tab asks one fact the thread carries.
        for t in &self.inbox.threads {
            for (n, f) in c.filters.iter_mut().zip(Filter::ALL) {
                *n += usize::from(self.matches_filter(t, f));
            }
            c.unanswered_help += usize::from(t.help == HelpState::Unanswered);
        }
        // Counted by borrowed name: thousands of pending acks, a few agents.
        // Only the threads still owed an ack are read (`Thread::pending`
        // counts the same recipients), not every message: the first frame
        // after one new file walked all 100,000 twice for these.
        let mut owed: std::collections::BTreeMap<&str, usize> = Default::default();
        let waiting = self.inbox.threads.iter().filter(|t| t.pending > 0);
        for &i in waiting.flat_map(|t| &t.messages) {
            let m = &self.inbox.messages[i];
            if m.message.ack_required {
                for r in m.recipients.iter().filter(|r| r.ack_at.is_none()) {
                    *owed.entry(r.agent.as_str()).or_default() += 1;
                }
            }
        }
        c.pending = owed
            .iter()
            .filter(|(agent, _)| self.is_me(agent))
            .map(|(_, n)| n)
            .sum();
        c.owed = owed.into_iter().map(|(a, n)| (a.to_string(), n)).collect();
        self.counts.replace(Some(c.clone()));
        c
    }

    /// Rows a list pane shows (for half-page moves).
    pub(crate) fn page_rows(&self) -> usize {
        (self.size.1 as usize).saturating_sub(6).max(2)
    }

    // ---- thread questions -------------------------------------------------

    pub fn thread(&self, id: &str) -> Option<&Thread> {
        self.thread_position(id).map(|i| &self.inbox.threads[i])
    }

    /// Where the thread `id` is in `inbox.threads`: the one last looked
    /// up when it still is that thread (a patch follows it to where it
    /// went), else the first with that id (the inbox's thread table).
    fn thread_position(&self, id: &str) -> Option<usize> {
        let threads = &self.inbox.threads;
        let last = self.last_thread.get();
        if threads.get(last).is_some_and(|t| t.id == id) {
            return Some(last);
        }
        let i = self.inbox.thread_position(id)?;
        self.last_thread.set(i);
        Some(i)
    }

    /// Where the thread `id` is in the list the filter shows (as
    /// [`Model::list_keys`] orders it), found by its place in the inbox
    /// rather than by comparing every key shown.
    pub(crate) fn visible_position(&self, id: &str) -> Option<usize> {
        let v = self.visible_indices();
        let at = self.thread_position(id)?;
        let found = match self.filter {
            // Unanswered first: two runs, each in thread order.
            Filter::Help => v.iter().position(|&i| i == at),
            _ => v.binary_search(&at).ok(),
        };
        // Another project's thread of the same id may be the one shown.
        let threads = &self.inbox.threads;
        found.or_else(|| v.iter().position(|&i| threads[i].id == id))
    }

    pub(crate) fn last_message(&self, t: &Thread) -> Option<&InboxMessage> {
        self.inbox.last_message(t)
    }

    /// Pending (message, recipient) pairs in a thread, for `--as` if given.
    pub(crate) fn thread_pending(&self, t: &Thread) -> usize {
        // Without `--as` the inbox keeps the same sum with the thread
        // (`Thread::pending`): no walk of its messages, on every row drawn.
        if self.identity.is_none() {
            return t.pending;
        }
        t.messages
            .iter()
            .filter_map(|&i| self.inbox.messages.get(i))
            .map(|m| self.pending_count(m))
            .sum()
    }

    /// Whether `agent` (a recipient as the store spells it) is the person
    /// at the keyboard: with `--as`, that agent as the source matches
    /// names (`SourceKind::same_agent`: another ASCII case on an mcp store
    /// or a server, exactly in a plain mailbox), as `amail pending` and
    /// `amail ack` match it; without, anyone.
    pub(crate) fn is_me(&self, agent: &str) -> bool {
        self.identity
            .as_deref()
            .is_none_or(|me| self.inbox.source.same_agent(agent, me))
    }

    /// How many recipients still owe an ack on `m` (just `--as` when set).
    /// [`Model::pending_recipients`] without the names: the totals run it
    /// on every message, so it must not allocate.
    pub(crate) fn pending_count(&self, m: &InboxMessage) -> usize {
        if !m.message.ack_required {
            return 0;
        }
        m.recipients
            .iter()
            .filter(|r| r.ack_at.is_none())
            .filter(|r| self.is_me(&r.agent))
            .count()
    }

    /// Recipients still owing an ack on `m` (just `--as` when set).
    pub(crate) fn pending_recipients(&self, m: &InboxMessage) -> Vec<String> {
        if !m.message.ack_required {
            return Vec::new();
        }
        m.recipients
            .iter()
            .filter(|r| r.ack_at.is_none())
            .filter(|r| self.is_me(&r.agent))
            .map(|r| r.agent.to_string())
            .collect()
    }

    /// Whether thread `t` is listed under tab `f`.
    pub(crate) fn matches_filter(&self, t: &Thread, f: Filter) -> bool {
        f.lists(|| self.thread_pending(t) > 0, t.help, t.phase)
    }
    /// Whether `m` waits for an ack from the person at the keyboard: with
    /// `--as`, from that agent only (`None`: it was never theirs to ack);
    /// without, from anyone. `Some(false)`: owed and given.
    pub fn owes_ack(&self, m: &InboxMessage) -> Option<bool> {
        if !m.message.ack_required {
            return None;
        }
        let mut mine = m
            .recipients
            .iter()
            .filter(|r| self.is_me(&r.agent))
            .peekable();
        mine.peek()?;
        Some(mine.any(|r| r.ack_at.is_none()))
    }

    pub(crate) fn filter_count(&self, f: Filter) -> usize {
        let i = Filter::ALL.iter().position(|x| *x == f).unwrap_or(0);
        self.counts().filters[i]
    }

    /// Thread ids shown under the current filter, most recent first.
    pub fn visible_threads(&self) -> Vec<&Thread> {
        let threads = &self.inbox.threads;
        self.visible_indices()
            .iter()
            .filter_map(|&i| threads.get(i))
            .collect()
    }

    /// [`Model::visible_threads`] as indices into `inbox.threads`, cached
    /// until the data or the filter changes.
    pub(crate) fn visible_indices(&self) -> std::sync::Arc<[usize]> {
        if let Some((f, v)) = self.visible.borrow().as_ref() {
            if *f == self.filter {
                return v.clone();
            }
        }
        let threads = &self.inbox.threads;
        // Every thread: made without reading one (after each change).
        let mut v: Vec<usize> = if self.filter == Filter::All {
            (0..threads.len()).collect()
        } else {
            (0..threads.len())
                .filter(|&i| self.matches_filter(&threads[i], self.filter))
                .collect()
        };
        // Under "Help requests" the ones still waiting come first: that tab
        // is where people go to unblock someone. (Stable: recency within.)
        if self.filter == Filter::Help {
            v.sort_by_key(|&i| threads[i].help != HelpState::Unanswered);
        }
        let v: std::sync::Arc<[usize]> = v.into();
        self.visible.replace(Some((self.filter, v.clone())));
        v
    }

    pub(crate) fn selected_thread(&self) -> Option<&Thread> {
        self.sel.thread.as_deref().and_then(|id| self.thread(id))
    }

    /// The message shown for the selected thread: the selected one when it
    /// belongs to the thread, else the first still waiting for an ack, else
    /// the latest.
    pub(crate) fn current_message(&self) -> Option<&InboxMessage> {
        let t = self.selected_thread()?;
        let msgs: Vec<&InboxMessage> = t
            .messages
            .iter()
            .filter_map(|&i| self.inbox.messages.get(i))
            .collect();
        if let Some(k) = &self.sel.message {
            if let Some(m) = msgs.iter().find(|m| &m.key == k) {
                return Some(m);
            }
        }
        msgs.iter()
            .find(|m| self.pending_count(m) > 0)
            .or(msgs.last())
            .copied()
    }

    // ---- generic lists ----------------------------------------------------

    pub(crate) fn current_list(&self) -> Option<ListKind> {
        match self.screen {
            Screen::Tasks => Some(ListKind::Tasks),
            Screen::Agents => Some(ListKind::Agents),
            Screen::Inbox => match self.focus {
                Pane::Threads => Some(ListKind::Threads),
                Pane::Messages => Some(ListKind::Messages),
                Pane::Message => None,
            },
        }
    }

    /// The selected agent's queued tasks as its queues pane lists them
    /// (inbox, processing, outbox, each top to bottom); empty until the
    /// queues are read.
    pub fn queued_tasks(&self) -> Vec<&TaskSummary> {
        match (&self.queues, self.sel.agent.as_deref()) {
            (Some((agent, Ok(q))), Some(sel)) if agent == sel => q
                .inbox
                .iter()
                .chain(&q.processing)
                .chain(&q.outbox)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The task selected in the queues: the one chosen while it is still
    /// queued, else the first.
    pub fn queued_selected(&self) -> Option<&TaskSummary> {
        let tasks = self.queued_tasks();
        tasks
            .iter()
            .find(|t| self.sel.queued.as_deref() == Some(t.id.as_str()))
            .or(tasks.first())
            .copied()
    }

    /// Tasks in board order (status, then most recently updated).
    pub fn board(&self) -> Vec<&TaskSummary> {
        let mut v: Vec<&TaskSummary> = self.tasks.iter().collect();
        // `TaskStatus` orders as the board lists it (`TaskStatus::ALL`).
        v.sort_by(|a, b| {
            a.status
                .cmp(&b.status)
                .then(b.updated_at.cmp(&a.updated_at))
                .then(a.id.cmp(&b.id))
        });
        v
    }

    /// The agents the roster lists: every name the mailbox holds but a
    /// person ([`Model::is_person`]), who is in it once they have written
    /// and is not an agent (no state, bead or turn: the roster showed them
    /// as an idle one, and counted them).
    pub fn roster(&self) -> Roster<'_> {
        let agents = &self.inbox.agents;
        let mut held = self.roster.borrow_mut();
        // Made again when the inbox changed: told (`data_changed`,
        // `inbox_patched`), or agents that are not the ones it was made of.
        let at = match held.as_ref() {
            Some(r) if r.of == (agents.as_ptr() as usize, agents.len()) => r.at.clone(),
            _ => {
                let at: std::rc::Rc<[usize]> = (0..agents.len())
                    .filter(|&i| !self.is_person(&agents[i].name))
                    .collect();
                *held = Some(RosterAt {
                    of: (agents.as_ptr() as usize, agents.len()),
                    at: at.clone(),
                });
                at
            }
        };
        Roster { agents, at }
    }

    /// Whether `name` (as the store spells it) is a person, not an agent:
    /// the one at the keyboard writing as themselves ([`PERSON`]), or the
    /// server's web UI's ([`SERVER_PERSON`]). The one rule for the roster,
    /// its counts and "all agents"; people stay addressable by name.
    pub(crate) fn is_person(&self, name: &str) -> bool {
        is_person_in(&self.inbox.source, name)
    }

    /// Keys of the items in a list, in display order.
    pub fn list_keys(&self, kind: ListKind) -> Vec<String> {
        self.list_key_refs(kind)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// [`Model::list_keys`] borrowed: a reload looks keys up in the thread
    /// list of the whole inbox, and copying them all is most of that cost.
    pub(crate) fn list_key_refs(&self, kind: ListKind) -> Vec<&str> {
        match kind {
            ListKind::Threads => self
                .visible_threads()
                .iter()
                .map(|t| t.id.as_str())
                .collect(),
            ListKind::Messages => self
                .selected_thread()
                .map(|t| {
                    t.messages
                        .iter()
                        .filter_map(|&i| self.inbox.messages.get(i))
                        .map(|m| m.key.as_str())
                        .collect()
                })
                .unwrap_or_default(),
            ListKind::Tasks => self.board().iter().map(|t| t.id.as_str()).collect(),
            ListKind::Agents => self.roster().iter().map(|a| a.name.as_str()).collect(),
        }
    }

    /// Whether an item matches a `/` query (case-insensitive substring of
    /// any of its fields). Checks field by field without building one big
    /// string, since a thread search runs over every body on each keystroke.
    pub(crate) fn item_matches(&self, kind: ListKind, key: &str, query: &str) -> bool {
        let hit = |s: &str| contains_ci(s, query);
        match kind {
            ListKind::Threads => self
                .thread(key)
                .is_some_and(|t| thread_matches(&self.inbox, t, query)),
            ListKind::Messages => self
                .inbox
                .message_by_key(key)
                .is_some_and(|m| message_matches(m, query)),
            ListKind::Tasks => self.tasks.iter().find(|t| t.id == key).is_some_and(|t| {
                hit(&t.id)
                    || hit(&t.title)
                    || hit(t.status.as_str())
                    || t.bead.as_deref().is_some_and(hit)
                    || t.agent.as_deref().is_some_and(hit)
            }),
            ListKind::Agents => self
                .inbox
                .agents
                .iter()
                .find(|a| a.name == key)
                .is_some_and(|a| {
                    hit(&a.name)
                        || a.bead.as_deref().is_some_and(hit)
                        || hit(&format!("{:?}", a.state))
                }),
        }
    }

    /// The list `/` searches: the focused one; from the message view, the
    /// thread's messages.
    pub(crate) fn search_list(&self) -> Option<ListKind> {
        self.current_list().or(match self.screen {
            Screen::Inbox => Some(ListKind::Messages),
            _ => None,
        })
    }

    /// How many items of the searched list match the query, and which of
    /// them (1-based) is selected, for "3/7" and "no match"; `None` when
    /// there is no query or the focus moved to another list since. Each
    /// call takes the count a slice further (`search_count`): until
    /// [`Model::search_counting`] is false, the answer is the count so far.
    pub fn search_matches(&self) -> Option<(usize, Option<usize>)> {
        self.search_progress().map(|(n, at, _)| (n, at))
    }

    /// [`Model::search_matches`], and whether the count is still under way
    /// after this call's slice: what a frame shows ("3/120…"), asked once.
    pub fn search_progress(&self) -> Option<(usize, Option<usize>, bool)> {
        let key = self.count_key()?;
        let kind = key.list.kind;
        let threads = (kind == ListKind::Threads).then(|| self.visible_indices());
        let keys = match &threads {
            Some(_) => Vec::new(),
            None => self.list_key_refs(kind),
        };
        let mut cache = self.search_cache.borrow_mut();
        if cache.as_ref().is_none_or(|c| c.key != key) {
            let last = cache.take();
            *cache = Some(Count::new(key, last));
        }
        let count = cache.as_mut().expect("just set");
        let q = &self.search.query;
        match &threads {
            // The thread list: slice by slice, threads read directly; on
            // every core once the worker is idle (while a load runs, its
            // readers have the other cores, and a frame waiting for a part
            // there would hold keys up).
            Some(v) => {
                let inbox = &self.inbox;
                let cores = if self.working { 1 } else { parallel::cores() };
                count.step_on(SLICE, cores, |i| {
                    inbox
                        .threads
                        .get(v[i])
                        .is_some_and(|t| thread_matches(inbox, t, q))
                })
            }
            // The others are short (one thread's messages, the tasks, the
            // agents): whole at once.
            None => count.step(usize::MAX, |i| self.item_matches(kind, keys[i], q)),
        }
        let selected = match (&threads, self.selected_key(kind)) {
            (Some(_), Some(sel)) => self.visible_position(&sel),
            (None, Some(sel)) => keys.iter().position(|k| *k == sel),
            (_, None) => None,
        };
        let (n, at) = count.answer(selected);
        Some((n, at, !count.done()))
    }

    /// The search's count is still under way: the frame shows the count so
    /// far, and the event loop draws again (taking keys in between). Asks
    /// without counting (a frame asks after its [`Model::search_matches`]).
    pub fn search_counting(&self) -> bool {
        let Some(key) = self.count_key() else {
            return false;
        };
        match self.search_cache.borrow().as_ref() {
            Some(c) if c.key == key => !c.done(),
            // Not begun for this query and list yet.
            _ => true,
        }
    }

    /// The next match of the thread list after (or at) `from`, from a
    /// finished count of the query as it stands; `None` when there is none
    /// or it is not counted yet.
    pub(crate) fn counted_match(
        &self,
        from: usize,
        forward: bool,
        inclusive: bool,
    ) -> Option<usize> {
        let key = self.count_key()?;
        let cache = self.search_cache.borrow();
        let count = cache.as_ref().filter(|c| c.key == key)?;
        count.next_match(from, forward, inclusive)
    }

    /// Typing left the first match to the count, and the count is done:
    /// the event loop then hands `update` a `Msg::SearchCounted`.
    pub fn search_settle_due(&self) -> bool {
        self.search.pending && !self.search_counting()
    }

    /// Replies kept as drafts (Esc, then `k`, or a send that failed) and
    /// new messages kept (with `k`, or by a send that failed), that a quit
    /// would lose: they live only in the app.
    pub fn kept_drafts(&self) -> usize {
        self.drafts
            .keys()
            .filter(|k| self.reply_out(k).is_none())
            .count()
            + self.composed.len()
    }

    /// The text of the reply to `key` on its way to the store, if one is.
    pub(crate) fn reply_out(&self, key: &str) -> Option<&str> {
        self.writing.iter().find_map(|w| match w {
            Write::Reply { key: k, text } if k == key => Some(text.as_str()),
            _ => None,
        })
    }

    /// The reason of the rejection of `id` on its way to the store, if one is.
    pub(crate) fn reject_out(&self, id: &str) -> Option<&str> {
        self.writing.iter().find_map(|w| match w {
            Write::Reject { id: i, reason } if i == id => Some(reason.as_str()),
            _ => None,
        })
    }

    /// The text an editor for `key` opens with: the one kept from its last
    /// editor (Esc, or a write that failed), else the one on its way to
    /// the store, so a second editor never starts blank over text not yet
    /// written.
    pub(crate) fn resume(&self, what: Resume, key: &str) -> String {
        let (kept, out) = match what {
            Resume::Reply => (&self.drafts, self.reply_out(key)),
            Resume::Reason => (&self.reasons, self.reject_out(key)),
        };
        kept.get(key)
            .map(String::as_str)
            .or(out)
            .unwrap_or_default()
            .to_string()
    }

    /// Rejection reasons kept for a task's next `X` (after Esc, or a
    /// write that failed) that a quit would lose; one being written is
    /// waited for.
    pub fn kept_reasons(&self) -> usize {
        self.reasons
            .keys()
            .filter(|id| self.reject_out(id).is_none())
            .count()
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

    /// What each agent's mail says about its pace (the agents view), as of
    /// this minute.
    pub(crate) fn activity(&self) -> std::rc::Rc<Activity> {
        let minute = self.now.timestamp() / 60;
        let mut held = self.activity.borrow_mut();
        match held.as_ref().filter(|a| a.minute == minute) {
            Some(a) => a.clone(),
            None => held
                .insert(std::rc::Rc::new(Activity::of(&self.inbox, self.now)))
                .clone(),
        }
    }

    /// Whether the kept search shows in `kind`'s view: a search belongs
    /// to the list it was made in, and shows there while that list is the
    /// one `/` searches, so it always shows with its count. (`/Silver`
    /// made in the roster showed in the inbox's filter line and thread
    /// title, where it counts nothing.)
    pub(crate) fn search_shows_in(&self, kind: ListKind) -> bool {
        self.searched_list() == Some(kind)
    }

    /// The list a search with a query is of, while it is the one `/`
    /// would search now (`n`/`N` move in it); `None` otherwise.
    pub(crate) fn searched_list(&self) -> Option<ListKind> {
        let kind = self.search_list()?;
        (!self.search.query.is_empty() && self.search.list.is_none_or(|l| l == kind))
            .then_some(kind)
    }

    /// Esc in the thread list clears a kept search (after the marks, and
    /// unless it goes back to the screen Enter came from: `update::nav::back`).
    pub(crate) fn esc_clears_search(&self) -> bool {
        self.screen == Screen::Inbox
            && self.focus == Pane::Threads
            && self.marks.is_empty()
            && self.came_from.is_none()
            && !self.search.query.is_empty()
    }

    /// What the search's count is of now; `None` when there is no query or
    /// the focus moved to another list since.
    fn count_key(&self) -> Option<CountKey<Listed>> {
        let kind = self.searched_list()?;
        let len = match kind {
            ListKind::Threads => self.visible_indices().len(),
            _ => self.list_key_refs(kind).len(),
        };
        Some(CountKey {
            query: self.search.query.clone(),
            list: Listed {
                kind,
                thread: self
                    .sel
                    .thread
                    .clone()
                    .filter(|_| kind == ListKind::Messages),
                filter: self.filter,
            },
            len,
        })
    }

    pub(crate) fn selected_key(&self, kind: ListKind) -> Option<String> {
        match kind {
            ListKind::Threads => self.sel.thread.clone(),
            ListKind::Messages => self.current_message().map(|m| m.key.to_string()),
            ListKind::Tasks => self.sel.task.clone(),
            ListKind::Agents => self.sel.agent.clone(),
        }
    }

    pub(crate) fn set_selected(&mut self, kind: ListKind, key: Option<String>) {
        match kind {
            ListKind::Threads => {
                if self.sel.thread != key {
                    self.sel.message = None;
                    self.detail_scroll = 0;
                }
                self.sel.thread = key;
            }
            ListKind::Messages => {
                if self.sel.message != key {
                    self.detail_scroll = 0;
                }
                self.sel.message = key;
            }
            ListKind::Tasks => self.sel.task = key,
            ListKind::Agents => self.sel.agent = key,
        }
    }

    /// Index of the selection in its list.
    pub fn selected_index(&self, kind: ListKind) -> Option<usize> {
        let key = self.selected_key(kind)?;
        self.list_keys(kind).iter().position(|k| *k == key)
    }

    /// What [`Model::restore_selection`] needs, taken before a data change.
    pub(crate) fn lists_before(&self) -> ListsBefore {
        let sel = self.sel.clone();
        let at = LISTS.map(|kind| {
            let key = match kind {
                ListKind::Threads => sel.thread.as_deref(),
                ListKind::Messages => sel.message.as_deref(),
                ListKind::Tasks => sel.task.as_deref(),
                ListKind::Agents => sel.agent.as_deref(),
            }?;
            match kind {
                ListKind::Threads => self.visible_position(key),
                _ => self.list_key_refs(kind).iter().position(|k| *k == key),
            }
        });
        ListsBefore { sel, at }
    }

    /// [`Model::fix_selection`] from a [`ListsBefore`].
    pub(crate) fn restore_selection(&mut self, b: &ListsBefore) {
        self.fix_selection(&b.sel, &b.at);
    }

    /// After the data changed: keep every selection whose key still exists;
    /// otherwise take the item now at the old position `at` (see
    /// [`ListsBefore::at`]), or the first.
    pub(crate) fn fix_selection(&mut self, before: &Selection, at: &[Option<usize>; 4]) {
        // Threads before messages: the message list is the selected
        // thread's.
        for kind in [
            ListKind::Threads,
            ListKind::Tasks,
            ListKind::Agents,
            ListKind::Messages,
        ] {
            let slot = LISTS.iter().position(|k| *k == kind).unwrap_or(0);
            let prev = match kind {
                ListKind::Threads => &before.thread,
                ListKind::Messages => &before.message,
                ListKind::Tasks => &before.task,
                ListKind::Agents => &before.agent,
            };
            let chosen = if kind == ListKind::Threads {
                // Looked up, not listed: a million threads' keys per
                // reload was most of its cost.
                let v = self.visible_indices();
                match prev
                    .as_deref()
                    .filter(|k| self.visible_position(k).is_some())
                {
                    Some(k) => Some(k.to_string()),
                    None => {
                        let at = at[slot].unwrap_or(0);
                        v.get(at.min(v.len().saturating_sub(1)))
                            .map(|&i| self.inbox.threads[i].id.clone())
                    }
                }
            } else {
                let keys = self.list_key_refs(kind);
                match prev.as_deref().filter(|k| keys.contains(k)) {
                    Some(k) => Some(k.to_string()),
                    None if kind == ListKind::Messages => None,
                    None => {
                        let at = at[slot].unwrap_or(0);
                        keys.get(at.min(keys.len().saturating_sub(1)))
                            .map(|k| k.to_string())
                    }
                }
            };
            match kind {
                ListKind::Threads => self.sel.thread = chosen,
                ListKind::Messages => self.sel.message = chosen,
                ListKind::Tasks => self.sel.task = chosen,
                ListKind::Agents => self.sel.agent = chosen,
            }
        }
    }

    // ---- counts for the status bar ---------------------------------------

    /// Files read and files in all while a load runs on the worker (the
    /// inbox on screen may then be the newest part of the mailbox only);
    /// `None` when no load is running.
    pub fn loading(&self) -> Option<(usize, usize)> {
        self.progress
            .filter(|_| self.working)
            .map(|(done, total, _)| (done, total))
    }

    pub fn pending_total(&self) -> usize {
        self.counts().pending
    }

    pub(crate) fn unanswered_help(&self) -> usize {
        self.counts().unanswered_help
    }
}

/// Which list a search's count is of (`search_count::CountKey`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    kind: ListKind,
    /// The thread whose messages are the list (the message list).
    thread: Option<String>,
    filter: Filter,
}

/// Whether thread `t` of `inbox` matches a `/` query: its id, bead,
/// subject or any of its messages.
fn thread_matches(inbox: &Inbox, t: &Thread, query: &str) -> bool {
    let hit = |s: &str| contains_ci(s, query);
    hit(&t.id)
        || t.bead.as_deref().is_some_and(hit)
        || hit(&t.subject)
        || t.messages
            .iter()
            .filter_map(|&i| inbox.messages.get(i))
            .any(|m| message_matches(m, query))
}

fn message_matches(m: &InboxMessage, q: &str) -> bool {
    let msg = &m.message;
    [
        m.key.as_str(),
        &msg.subject,
        msg.from.as_deref().unwrap_or(""),
        msg.kind.as_str(),
        // From the kept text: a search does not parse every message again.
        msg.body_text(),
    ]
    .iter()
    .any(|s| contains_ci(s, q))
}

/// Case-insensitive substring test; no allocation for ASCII queries.
///
/// An ASCII query is found by its least common byte (both cases of a
/// letter) with `memchr`, each place it occurs then compared whole: `/`
/// searches every message's text on each keystroke, and comparing at
/// every byte (`windows`) took 0.7 s a keystroke over a million messages.
pub(crate) fn contains_ci(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if needle.is_ascii() {
        return contains_ascii_ci(hay.as_bytes(), needle.as_bytes());
    }
    hay.to_lowercase().contains(&needle.to_lowercase())
}

/// [`contains_ci`] for an ASCII `needle` (not empty).
fn contains_ascii_ci(hay: &[u8], needle: &[u8]) -> bool {
    if hay.len() < needle.len() {
        return false;
    }
    // The needle's rarest byte by a rough rank of how often bytes occur in
    // mail text, and where it sits in the needle.
    let (at, b) = needle
        .iter()
        .copied()
        .enumerate()
        .max_by_key(|&(i, b)| (rarity(b), std::cmp::Reverse(i)))
        .expect("not empty");
    let (lo, up) = (b.to_ascii_lowercase(), b.to_ascii_uppercase());
    // Places in `hay` where the needle would start, with that byte at `at`.
    let last = hay.len() - needle.len();
    let tail = &hay[at..=at + last];
    let fits = |p: usize| hay[p..p + needle.len()].eq_ignore_ascii_case(needle);
    if lo == up {
        memchr::memchr_iter(b, tail).any(fits)
    } else {
        memchr::memchr2_iter(lo, up, tail).any(fits)
    }
}

/// How rare a byte is in mail text, roughly: higher is rarer.
fn rarity(b: u8) -> u8 {
    match b.to_ascii_lowercase() {
        b' ' | b'e' | b't' | b'a' | b'o' | b'i' | b'n' | b's' => 0,
        b'r' | b'h' | b'l' | b'd' | b'c' | b'u' | b'\n' => 1,
        b'a'..=b'z' => 2,
        _ => 3,
    }
}

pub(crate) fn describe_source(s: &SourceKind) -> String {
    match s {
        SourceKind::Mailbox { root } => root.display().to_string(),
        SourceKind::McpStore { root, .. } => root.display().to_string(),
        SourceKind::Stdin => "stdin".into(),
        SourceKind::Server { url } => url.clone(),
    }
}

/// "now", "5m", "3h", "2d", "6w": the age column.
pub(crate) fn age(now: DateTime<Utc>, then: Option<DateTime<Utc>>) -> String {
    let Some(then) = then else { return "-".into() };
    let s = (now - then).num_seconds();
    // A few minutes ahead is clock skew between machines: call it now.
    if s < -300 {
        return "soon".into();
    }
    match s {
        ..60 => "now".into(),
        60..3600 => format!("{}m", s / 60),
        3600..86400 => format!("{}h", s / 3600),
        86400..1_209_600 => format!("{}d", s / 86400),
        _ => format!("{}w", s / 604_800),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The memchr search finds what comparing at every byte finds.
        #[test]
        fn ascii_search_agrees_with_every_window(
            hay in "([a-cA-C \\-0-9]|é){0,40}",
            needle in "[a-cA-C \\-0-9]{1,4}",
        ) {
            let (h, n) = (hay.as_bytes(), needle.as_bytes());
            let every = h.len() >= n.len() && h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n));
            proptest::prop_assert_eq!(contains_ci(&hay, &needle), every);
        }
    }

    #[test]
    fn contains_ci_handles_ascii_and_unicode() {
        assert!(contains_ci("Token REFRESH endpoint", "refresh"));
        assert!(!contains_ci("ab", "abc"));
        assert!(contains_ci("正在翻译错误信息", "翻译"));
        assert!(contains_ci("ÉCOLE", "école"));
    }

    #[test]
    fn ages_read_in_the_largest_unit() {
        let now = chrono::Utc::now();
        let ago = |s| Some(now - chrono::Duration::seconds(s));
        assert_eq!(age(now, ago(5)), "now");
        assert_eq!(age(now, ago(300)), "5m");
        assert_eq!(age(now, ago(7200)), "2h");
        assert_eq!(age(now, ago(3 * 86400)), "3d");
        assert_eq!(age(now, ago(30 * 86400)), "4w");
        assert_eq!(age(now, None), "-");
        assert_eq!(age(now, ago(-30)), "now", "clock skew");
        assert_eq!(age(now, ago(-3600)), "soon");
    }
}
