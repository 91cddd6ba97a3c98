//! The inbox model: messages with their per-recipient state, grouped into
//! threads, plus the agent roster. Built by a store's load
//! (`stores::MailStore::load`), read by the CLI (`threads`, `pending`) and
//! the TUI. Pure data: no I/O here.

use std::collections::HashMap;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::compact::{CompactMessage, Name, Text};
use super::index::Index;
use super::mail_path::MailPath;

/// Where the inbox was read from; decides which store writes its acks and
/// replies (`stores::for_source`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SourceKind {
    /// A directory of mail files; acks go to a journal inside it.
    Mailbox { root: PathBuf },
    /// An mcp_agent_mail storage root: archive + `storage.sqlite3`.
    McpStore { root: PathBuf, db: PathBuf },
    /// JSON piped on stdin: read-only.
    Stdin,
    /// A running mcp_agent_mail server (`--server URL`): read and written
    /// only through its tools, by the store that loaded it.
    Server { url: String },
}

impl SourceKind {
    /// Whether `typed` (an `--as`, the TUI's identity) names the agent this
    /// source spells `stored`: the one rule for every command. An
    /// mcp_agent_mail database and a server match names without regard to
    /// ASCII case, as the server's own tools do (its names are unique so);
    /// a plain mailbox and piped JSON compare exactly.
    pub fn same_agent(&self, stored: &str, typed: &str) -> bool {
        if self.ignores_case() {
            stored.eq_ignore_ascii_case(typed)
        } else {
            stored == typed
        }
    }

    /// Whether this source matches agent names without regard to ASCII
    /// case ([`SourceKind::same_agent`]).
    pub fn ignores_case(&self) -> bool {
        matches!(
            self,
            SourceKind::McpStore { .. } | SourceKind::Server { .. }
        )
    }

    /// The one name of `names` that `typed` (matching none of them) is a
    /// slip from, case counted as this source counts it, for the warning
    /// or refusal that lists them.
    pub fn agent_near<'n>(
        &self,
        typed: &str,
        names: impl IntoIterator<Item = &'n str>,
    ) -> Option<&'n str> {
        amail_parser::near::nearest_name(typed, names, self.ignores_case())
    }
}

/// to / cc / bcc, as mcp_agent_mail's `message_recipients.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecipientKind {
    To,
    Cc,
    Bcc,
}

/// One recipient's view of one message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recipient {
    /// Interned ([`super::intern`]): one copy per agent, not per message.
    pub agent: Name,
    pub kind: RecipientKind,
    pub read_at: Option<DateTime<Utc>>,
    pub ack_at: Option<DateTime<Utc>>,
}

/// A message's recipients: one held inline, more in a vector. Most mail
/// has one recipient, and a vector of one was a heap block of 64 bytes and
/// an allocation per message (issue 16); this is the size of one
/// [`Recipient`] inline. Reads as a slice (`Deref`).
#[derive(Clone, PartialEq, Eq)]
pub struct Recipients(RecipientsRepr);

#[derive(Clone, PartialEq, Eq)]
enum RecipientsRepr {
    One(Recipient),
    Many(Vec<Recipient>),
}

impl Recipients {
    /// Adds `r` at the end.
    pub fn push(&mut self, r: Recipient) {
        match &mut self.0 {
            RecipientsRepr::Many(v) if v.is_empty() => self.0 = RecipientsRepr::One(r),
            RecipientsRepr::Many(v) => v.push(r),
            RecipientsRepr::One(first) => {
                let first = first.clone();
                self.0 = RecipientsRepr::Many(vec![first, r]);
            }
        }
    }

    /// Gives back the room a vector of several holds beyond them.
    pub(crate) fn shrink_to_fit(&mut self) {
        if let RecipientsRepr::Many(v) = &mut self.0 {
            v.shrink_to_fit();
        }
    }
}

impl Default for Recipients {
    fn default() -> Recipients {
        Recipients(RecipientsRepr::Many(Vec::new()))
    }
}

impl std::ops::Deref for Recipients {
    type Target = [Recipient];

    fn deref(&self) -> &[Recipient] {
        match &self.0 {
            RecipientsRepr::One(r) => std::slice::from_ref(r),
            RecipientsRepr::Many(v) => v,
        }
    }
}

impl std::ops::DerefMut for Recipients {
    fn deref_mut(&mut self) -> &mut [Recipient] {
        match &mut self.0 {
            RecipientsRepr::One(r) => std::slice::from_mut(r),
            RecipientsRepr::Many(v) => v,
        }
    }
}

impl From<Vec<Recipient>> for Recipients {
    fn from(mut v: Vec<Recipient>) -> Recipients {
        match v.len() {
            1 => Recipients(RecipientsRepr::One(v.remove(0))),
            _ => Recipients(RecipientsRepr::Many(v)),
        }
    }
}

impl FromIterator<Recipient> for Recipients {
    fn from_iter<I: IntoIterator<Item = Recipient>>(iter: I) -> Recipients {
        let mut out = Recipients::default();
        for r in iter {
            out.push(r);
        }
        out.shrink_to_fit();
        out
    }
}

impl<'a> IntoIterator for &'a Recipients {
    type Item = &'a Recipient;
    type IntoIter = std::slice::Iter<'a, Recipient>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Recipients {
    type Item = &'a mut Recipient;
    type IntoIter = std::slice::IterMut<'a, Recipient>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl PartialEq<Vec<Recipient>> for Recipients {
    fn eq(&self, other: &Vec<Recipient>) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Recipients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// As the `Vec` it replaced: a JSON list.
impl Serialize for Recipients {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// A read and ack time recorded apart from the message (a plain mailbox's
/// ack journal): an ack also marks the message read; a read alone has no
/// ack time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckTimes {
    pub read_at: DateTime<Utc>,
    pub ack_at: Option<DateTime<Utc>>,
}

/// Recorded acks by (message key, agent).
pub type Acks = HashMap<(String, String), AckTimes>;

/// A message in the inbox. `key` is unique within the inbox and is what
/// `amail ack` / `amail reply` take (the mcp id, or the message's own id, or
/// a path-derived key for plain files without one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InboxMessage {
    /// A range of the message's id text when the key is its id (most
    /// mail: no copy per message), else its own (see [`Text`]).
    pub key: Text,
    /// The envelope, kept compact; the rest is parsed again on first use
    /// (see [`CompactMessage`]).
    pub message: CompactMessage,
    /// The file it came from, if any (reads as a `Path`; shared with the
    /// paths of the files read beside it, see [`MailPath`]).
    pub path: Option<MailPath>,
    /// mcp_agent_mail project slug (interned); messages of different
    /// projects never share a thread.
    pub project: Option<Name>,
    /// One inline (see [`Recipients`]); reads as a slice.
    pub recipients: Recipients,
    /// Which thread it is in, counted from the end of `Inbox::threads`
    /// (0: the last, the thread with the oldest activity); see
    /// [`Inbox::thread_for`]. Counted from that end because threads start
    /// at the top: a new thread, or one lifted there by new mail, leaves
    /// the count of every thread below it as it was, so the incremental
    /// patch re-points only the messages of threads that moved up past
    /// others, not every message of a big inbox. A `u32` (see
    /// `from_end`): 8 bytes less a record than a `usize` (issue 16).
    pub thread_from_end: u32,
}

impl InboxMessage {
    /// Ack required and this recipient has not acknowledged.
    pub fn is_pending_for(&self, agent: &str) -> bool {
        self.message.ack_required
            && self
                .recipients
                .iter()
                .any(|r| r.agent == agent && r.ack_at.is_none())
    }

    /// A `Re:` reply (whatever type its subject names).
    pub fn is_reply(&self) -> bool {
        self.message.is_reply || {
            let s = self.message.subject.trim_start().as_bytes();
            s.len() >= 3 && s[..3].eq_ignore_ascii_case(b"re:")
        }
    }

    /// Answers a help request in its thread: a HELP_RESPONSE or any reply.
    /// (Answering is not acknowledging.)
    pub(crate) fn is_answer(&self) -> bool {
        self.message.kind == amail_parser::MessageType::HelpResponse || self.is_reply()
    }

    /// A new HELP_REQUEST (not a reply in a help thread).
    pub fn is_help_request(&self) -> bool {
        self.message.kind == amail_parser::MessageType::HelpRequest && !self.is_reply()
    }

    /// Where this message says its thread's work stands, if it says.
    /// An answer, a spawn note, a note with no protocol type or a type
    /// amail does not know changes no task's status (the AOF mapping),
    /// so it leaves the thread where earlier mail put it: a "thanks"
    /// after DONE must not put finished work back under Active. A
    /// protocol item (handoff, A2A) is a NOTE whose `parsed.status`
    /// holds the protocol's state word: a completed A2A task or a
    /// completed or rejected handoff is over, as DONE is; its failure is
    /// a failure.
    pub fn phase(&self) -> Option<Phase> {
        use amail_parser::MessageType as T;
        let msg = &self.message;
        match msg.kind {
            T::Done | T::OfferingReady => Some(Phase::Done),
            T::Failed => Some(Phase::Failed),
            T::BeadAccepted | T::Progress | T::HelpRequest | T::Checkpoint => Some(Phase::Active),
            T::HelpResponse | T::SpawnRequest | T::SpawnAck => None,
            T::Unknown
                if msg
                    .raw_type
                    .is_some_and(|r| r == "HANDOFF" || r.starts_with("A2A_")) =>
            {
                Some(match msg.status().unwrap_or("") {
                    "completed" | "rejected" | "COMPLETED" | "CANCELLED" => Phase::Done,
                    "failed" | "FAILED" => Phase::Failed,
                    _ => Phase::Active,
                })
            }
            T::Unknown => None,
        }
    }
}

/// Where a thread stands by its latest message that says
/// ([`InboxMessage::phase`]): what the Active, Failed and Done tabs list
/// by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Phase {
    #[default]
    Active,
    Failed,
    Done,
}

impl Phase {
    /// The phase of a thread whose messages come `newest_first`: the
    /// first that says where the work stands; Active when none does.
    pub fn of_thread<'a>(newest_first: impl IntoIterator<Item = &'a InboxMessage>) -> Phase {
        newest_first
            .into_iter()
            .find_map(InboxMessage::phase)
            .unwrap_or_default()
    }
}

/// The state of the help requests in a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HelpState {
    /// No HELP_REQUEST in the thread.
    None,
    /// A HELP_REQUEST with no HELP_RESPONSE or reply after it.
    Unanswered,
    /// Every HELP_REQUEST has a HELP_RESPONSE or reply after it.
    Answered,
}

/// Messages grouped by thread id, else bead, else the message's own key.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Thread {
    pub id: String,
    pub project: Option<Name>,
    pub bead: Option<Name>,
    /// Subject of the first message: the same text, not a copy.
    pub subject: Text,
    /// Indices into `Inbox::messages`, oldest first.
    pub messages: Vec<usize>,
    pub last_at: Option<DateTime<Utc>>,
    /// (message, recipient) pairs still waiting for an ack.
    pub pending: usize,
    pub help: HelpState,
    /// Its latest message's [`Phase`], kept with the thread so the tabs'
    /// counts read the threads alone: reading each thread's latest message
    /// at random from a million records was most of the frame after one
    /// new file (85 of 107 ms). Not part of the JSON a thread prints.
    #[serde(skip)]
    pub phase: Phase,
}

/// What an agent is doing, derived from its latest messages (AgentTurn spirit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentState {
    Idle,
    Working,
    WaitingForHelp,
    Offered,
    Failed,
    Checkpointed,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agent {
    pub name: String,
    pub state: AgentState,
    pub bead: Option<String>,
    pub last_at: Option<DateTime<Utc>>,
    /// Index into `Inbox::messages` of the message the state comes from.
    pub last_message: Option<usize>,
    /// The AgentTurn state (idle, dispatched, running, suspended), from
    /// Agent Mail, handoff and A2A messages alike (see `inbox::turn`).
    #[serde(default)]
    pub turn: TurnState,
    /// Beads this agent is running or suspended on, oldest first.
    #[serde(default)]
    pub active_beads: Vec<String>,
    /// Two or more active beads at once: the single-active-turn rule is broken.
    #[serde(default)]
    pub multiple_active: bool,
}

/// The AgentTurn state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnState {
    #[default]
    Idle,
    Dispatched,
    Running,
    Suspended,
}

impl TurnState {
    pub fn as_str(self) -> &'static str {
        match self {
            TurnState::Idle => "idle",
            TurnState::Dispatched => "dispatched",
            TurnState::Running => "running",
            TurnState::Suspended => "suspended",
        }
    }
    /// Running or suspended: the turns that count as active.
    pub(crate) fn active(self) -> bool {
        matches!(self, TurnState::Running | TurnState::Suspended)
    }
}

/// A message waiting for one recipient's ack.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingAck {
    pub message: usize,
    pub agent: String,
}

/// Everything the inbox shows.
#[derive(Debug, Clone, Serialize)]
pub struct Inbox {
    pub source: SourceKind,
    /// Oldest first.
    pub messages: Vec<InboxMessage>,
    /// Most recent activity first.
    pub threads: Vec<Thread>,
    pub agents: Vec<Agent>,
    /// Files that could not be read or parsed, with why (the rest still loads).
    pub problems: Vec<(PathBuf, String)>,
    /// Lookups kept so that a change costs in proportion to itself (see
    /// `inbox::index`); derived from the rest, so not part of equality.
    #[serde(skip)]
    pub(crate) index: Index,
}

/// Equal when what they show is: the index is derived from the rest.
impl PartialEq for Inbox {
    fn eq(&self, other: &Inbox) -> bool {
        self.source == other.source
            && self.messages == other.messages
            && self.threads == other.threads
            && self.agents == other.agents
            && self.problems == other.problems
    }
}

impl Inbox {
    /// An inbox with nothing in it yet, read from `source`.
    pub fn empty(source: SourceKind) -> Inbox {
        Inbox {
            source,
            messages: Vec::new(),
            threads: Vec::new(),
            agents: Vec::new(),
            problems: Vec::new(),
            index: Index::default(),
        }
    }

    /// Lets go of every full message parsed again since the load (see
    /// [`CompactMessage::let_go`]), and of the messages this thread keeps
    /// of files of many not yet handed over; the next reader parses it
    /// again. How many were held.
    pub fn let_go_of_parses(&mut self) -> usize {
        let mut held = super::reparse::let_go();
        for m in &mut self.messages {
            held += usize::from(m.message.let_go());
        }
        held
    }

    /// Pending acks, for one agent (as `--as` names it on this source,
    /// [`SourceKind::same_agent`]) or (None) for every recipient.
    pub fn pending(&self, agent: Option<&str>) -> Vec<PendingAck> {
        let mut out = Vec::new();
        for (i, m) in self.messages.iter().enumerate() {
            if !m.message.ack_required {
                continue;
            }
            for r in &m.recipients {
                if r.ack_at.is_none() && agent.is_none_or(|a| self.source.same_agent(&r.agent, a)) {
                    out.push(PendingAck {
                        message: i,
                        agent: r.agent.to_string(),
                    });
                }
            }
        }
        out
    }

    /// Every message's key (its id where it has one), in load order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.messages.iter().map(|m| &*m.key)
    }

    pub fn message_by_key(&self, key: &str) -> Option<&InboxMessage> {
        self.position_of_key(key).map(|i| &self.messages[i])
    }

    /// Where the message with `key` is in `messages`: looked up in the
    /// index (made by the first lookup) when it fits the messages, else
    /// found by a scan (an inbox changed by hand).
    pub(crate) fn position_of_key(&self, key: &str) -> Option<usize> {
        match self.index.lookups(&self.messages) {
            Some(l) => l.by_key(&self.messages, key),
            None => self.messages.iter().position(|m| m.key == key),
        }
    }

    /// The thread a message (index into `messages`) belongs to.
    pub fn thread_of(&self, message: usize) -> Option<&Thread> {
        self.messages
            .get(message)
            .and_then(|m| self.threads.get(self.thread_index(m)))
    }

    /// The thread `m` (a message of this inbox) belongs to.
    ///
    /// # Panics
    /// When `m` names no thread here (a message of another inbox).
    pub fn thread_for(&self, m: &InboxMessage) -> &Thread {
        &self.threads[self.thread_index(m)]
    }

    /// Where `m`'s thread is in `threads` (`usize::MAX` when it names none).
    pub fn thread_index(&self, m: &InboxMessage) -> usize {
        thread_position(self.threads.len(), m.thread_from_end)
    }

    /// Where the first thread with this id (of any project) is in
    /// `threads`: looked up in the thread table the inbox keeps (made on
    /// first use), not found by comparing every thread's id.
    pub fn thread_position(&self, id: &str) -> Option<usize> {
        self.index.first_thread(&self.threads, id)
    }

    pub fn agent(&self, name: &str) -> Option<&Agent> {
        self.agent_index(name).map(|i| &self.agents[i])
    }

    /// The agent `typed` (an `--as`) names on this source, as
    /// [`SourceKind::same_agent`] matches it: the exact spelling first,
    /// else another case where the store ignores case.
    pub fn agent_named(&self, typed: &str) -> Option<&Agent> {
        self.agent(typed).or_else(|| {
            self.agents
                .iter()
                .find(|a| self.source.same_agent(&a.name, typed))
        })
    }

    /// The one agent whose name `typed` (an `--as` no agent has) is a
    /// slip from, case counted as the source counts it
    /// ([`SourceKind::agent_near`]), for the warning that says so.
    pub fn agent_near(&self, typed: &str) -> Option<&str> {
        self.source
            .agent_near(typed, self.agents.iter().map(|a| a.name.as_str()))
    }

    /// Where `name` is in `agents` (sorted by name, as `load` makes it).
    pub(crate) fn agent_index(&self, name: &str) -> Option<usize> {
        match self.agents.binary_search_by(|a| a.name.as_str().cmp(name)) {
            Ok(i) => Some(i),
            // Inboxes made by hand may not be sorted.
            Err(_) => self.agents.iter().position(|a| a.name == name),
        }
    }
}

impl Inbox {
    /// The messages with these keys and their threads, for work done away
    /// from the inbox on screen (an ack or reply on the TUI's worker
    /// thread): a store that answers from a loaded inbox finds the same
    /// messages and thread ids there, without a copy of the whole inbox.
    /// Agents and problems are left out; keys not found are skipped.
    pub fn subset(&self, keys: &[&str]) -> Inbox {
        let mut messages: Vec<InboxMessage> = Vec::new();
        let mut threads: Vec<Thread> = Vec::new();
        for key in keys {
            let Some(m) = self.message_by_key(key) else {
                continue;
            };
            if messages.iter().any(|x| x.key == m.key) {
                continue;
            }
            let mut m = m.clone();
            let thread = self.thread_for(&m);
            let at = match threads.iter().position(|t| t.id == thread.id) {
                Some(i) => i,
                None => {
                    threads.push(Thread {
                        messages: Vec::new(),
                        ..thread.clone()
                    });
                    threads.len() - 1
                }
            };
            threads[at].messages.push(messages.len());
            // Counted from the end once every thread is in.
            m.thread_from_end = from_end(at);
            messages.push(m);
        }
        for m in &mut messages {
            m.thread_from_end = from_end(threads.len() - 1 - m.thread_from_end as usize);
        }
        for t in &mut threads {
            t.phase = Phase::of_thread(t.messages.iter().rev().map(|&i| &messages[i]));
        }
        Inbox {
            messages,
            threads,
            ..Inbox::empty(self.source.clone())
        }
    }
}

/// The position in a list of `len` threads of the one `from_end` from its
/// end (`usize::MAX` when there is none).
pub(crate) fn thread_position(len: usize, from_end: u32) -> usize {
    len.checked_sub(1)
        .and_then(|last| last.checked_sub(from_end as usize))
        .unwrap_or(usize::MAX)
}

/// A count of threads from the end as a message holds it
/// ([`InboxMessage::thread_from_end`]); past `u32::MAX` threads it names
/// none.
pub(crate) fn from_end(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// What a patch did to the threads, for a view that keeps totals over
/// them or remembers where a thread was (the TUI's tab counts, pending
/// acks and selection): in proportion to the change, where counting again
/// is a pass over every thread and the messages still owed an ack.
/// Taken with [`Inbox::take_patched`] after the patch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Patched {
    /// How many threads there were before.
    pub threads_before: usize,
    /// See the patch's `Moves`: the first `end` positions were
    /// reordered into `order`; the rest stayed.
    pub(crate) end: usize,
    pub(crate) order: Vec<usize>,
    /// Each thread the patch touched.
    pub touched: Vec<TouchedThread>,
}

/// One thread a patch touched (see [`Patched`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TouchedThread {
    /// What it was before; `None` for a thread the patch made.
    pub before: Option<ThreadTally>,
    /// Where it is now in `Inbox::threads`; `None` when it emptied and
    /// went.
    pub now: Option<usize>,
    /// How many more (message, recipient) pairs owe an ack in it now, by
    /// agent (negative: fewer).
    pub owed: Vec<(Name, isize)>,
}

/// What a view counts of a thread without reading its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadTally {
    pub pending: usize,
    pub help: HelpState,
    pub phase: Phase,
}

impl ThreadTally {
    pub(crate) fn of(t: &Thread) -> ThreadTally {
        ThreadTally {
            pending: t.pending,
            help: t.help,
            phase: t.phase,
        }
    }
}

impl Patched {
    /// Where the thread that was at `before` is now; `None` when it went
    /// (or there was none). Costs the threads the patch reordered: the
    /// few at the top new mail lifts, or all of them after a change
    /// deeper down.
    pub fn thread_now(&self, before: usize) -> Option<usize> {
        if before >= self.threads_before {
            return None;
        }
        if before >= self.end {
            return Some(before);
        }
        self.order.iter().position(|&p| p == before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to(agent: &str) -> Recipient {
        Recipient {
            agent: super::super::intern(agent),
            kind: RecipientKind::To,
            read_at: None,
            ack_at: None,
        }
    }

    /// A guard against regrowth (issue 16: every byte of the record is
    /// paid once per message, a million times in a big inbox). Printed
    /// with `--nocapture`.
    #[test]
    fn the_records_stay_small() {
        let sizes = [
            ("InboxMessage", size_of::<InboxMessage>()),
            ("CompactMessage", size_of::<CompactMessage>()),
            ("Recipients", size_of::<Recipients>()),
            ("Recipient", size_of::<Recipient>()),
            ("Text", size_of::<Text>()),
            ("MailPath", size_of::<Option<MailPath>>()),
        ];
        println!("{sizes:?}");
        // One recipient inline, in the room of one; a path and a key
        // behind thin pointers, in two thirds of the room of the
        // `PathBuf` and `String` they replaced.
        assert!(size_of::<Recipients>() <= size_of::<Recipient>());
        assert!(size_of::<Option<MailPath>>() <= 16);
        assert!(size_of::<Text>() <= 16);
        assert_eq!(size_of::<Option<Text>>(), size_of::<Text>());
        // Names are 4-byte numbers, and a list of them 16 bytes with
        // two inline.
        assert_eq!(size_of::<Option<Name>>(), 4);
        assert_eq!(size_of::<super::super::Names>(), 16);
        assert!(size_of::<InboxMessage>() <= 232, "{sizes:?}");
    }

    #[test]
    fn one_recipient_is_held_inline_and_more_read_as_a_list() {
        let mut r = Recipients::default();
        assert!(r.is_empty());
        r.push(to("A"));
        assert!(matches!(r.0, RecipientsRepr::One(_)));
        assert_eq!(r, vec![to("A")]);
        r.push(to("B"));
        r[1].ack_at = Some(DateTime::<Utc>::MIN_UTC);
        assert_eq!(r.len(), 2);
        assert_eq!(r.iter().map(|r| r.agent).collect::<Vec<_>>(), ["A", "B"]);
        assert!(r[1].ack_at.is_some());
        assert_eq!(
            Recipients::from(vec![to("A")]),
            [to("A")].into_iter().collect::<Recipients>()
        );
        assert!(matches!(
            Recipients::from(vec![to("A")]).0,
            RecipientsRepr::One(_)
        ));
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            serde_json::to_string(&r.to_vec()).unwrap()
        );
        assert_eq!(format!("{r:?}"), format!("{:?}", r.to_vec()));
    }
}
