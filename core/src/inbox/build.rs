//! From loaded messages to the [`Inbox`]: time order, threads, help state,
//! pending counts and the agent roster, and recorded acks applied to the
//! recipients. Pure: no I/O. Every store's loader ends here, so a mailbox,
//! an mcp_agent_mail root and piped JSON derive the same way.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::PathBuf;

use amail_parser::MessageType;

use super::compact::Name;
use super::index::Index;
use super::model::{
    from_end, thread_position, AckTimes, Acks, Agent, AgentState, HelpState, Inbox, InboxMessage,
    Phase, SourceKind, Thread,
};
use super::turn::{self, Open};
use super::FastMap;
use crate::source::parallel::join;

/// Derives an [`Inbox`] from messages however they were obtained (tests,
/// other sources): sorts them, threads them (their `thread` field is
/// recomputed), counts pending acks, decides help state and the roster,
/// exactly as a store's load does. Made to be patched
/// ([`Inbox::patch`]): its index and roster evidence are made now.
pub fn assemble(
    source: SourceKind,
    messages: Vec<InboxMessage>,
    problems: Vec<(PathBuf, String)>,
) -> Inbox {
    build_to_patch(source, messages, problems)
}

/// The derivation itself; `loaded` is moved in, so a big inbox is never
/// held twice. The index's tables are made on first use and no roster
/// evidence is kept: see [`build_to_patch`] for an inbox a reload patches.
pub(crate) fn build(
    source: SourceKind,
    loaded: Vec<InboxMessage>,
    problems: Vec<(PathBuf, String)>,
) -> Inbox {
    build_keeping(source, loaded, problems, false)
}

/// [`build`], for the inbox a reload will patch (a plain mailbox's final
/// load): its index's tables are made now and each agent's roster
/// evidence is kept, so the first new file costs what the next ones do.
/// Not for the partial inboxes a load hands over (thrown away), nor
/// inboxes no patch reaches: the tables are 5 bytes a message each and
/// made in a pass over them.
pub(crate) fn build_to_patch(
    source: SourceKind,
    loaded: Vec<InboxMessage>,
    problems: Vec<(PathBuf, String)>,
) -> Inbox {
    build_keeping(source, loaded, problems, true)
}

fn build_keeping(
    source: SourceKind,
    loaded: Vec<InboxMessage>,
    problems: Vec<(PathBuf, String)>,
    to_patch: bool,
) -> Inbox {
    let mut messages = loaded;
    // Keys are unique, so an unstable sort gives the same order without the
    // stable sort's scratch copy of every message.
    messages.sort_unstable_by(message_order);

    // The index's tables (keys, files, folders) depend only on the sorted
    // messages, so they are made on a thread of their own while the
    // threads are: the load's readers are done by now and a core is idle
    // (the build a fifth shorter at 100,000 messages, a third at
    // 1,000,000; docs/inbox.md).
    let (threads, index) = std::thread::scope(|s| {
        let index = to_patch.then(|| s.spawn(|| Index::of(&messages)));
        let threads = threads_of(&messages);
        let index = index.map(join);
        (threads, index)
    });
    let last = threads.len().saturating_sub(1);
    for (at, thread) in threads.iter().enumerate() {
        for &i in &thread.messages {
            messages[i].thread_from_end = from_end(last - at);
        }
    }

    let (agents, evidence) = roster(&messages, &threads, to_patch);
    let problems = with_encoding_problems(problems, &messages);
    let mut index = match index {
        Some(mut index) => {
            index.make_threads(&threads);
            index
        }
        None => Index::default(),
    };
    index.roster = evidence;
    Inbox {
        source,
        messages,
        threads,
        agents,
        problems,
        index,
    }
}

/// The threads of `loaded` (sorted by [`message_order`]), most recent
/// activity first, each with its messages' positions, bead, latest time
/// and derived state. The messages are only read: where each one's
/// thread went is written by the caller.
fn threads_of(loaded: &[InboxMessage]) -> Vec<Thread> {
    // A message without a thread id seeds a thread the server names by the
    // message's id (`reply_message` uses `str(original.id)`): replies that
    // carry that id as their thread id join the seed's thread, even when the
    // seed itself was grouped by its bead.
    // Thread identity: (project, thread id | bead | key). Projects never
    // share a thread. Keys borrow from the messages: one allocation per
    // thread, not several per message.
    let mut seeds: FastMap<(Option<Name>, &str), &str> = FastMap::new();
    for m in loaded {
        if explicit_thread(m).is_none() {
            seeds.insert((m.project, m.key.as_str()), thread_key_str(m));
        }
    }
    let mut thread_index: FastMap<(Option<Name>, &str), usize> = FastMap::new();
    let mut firsts: Vec<(usize, &str)> = Vec::new();
    let mut thread_of = Vec::with_capacity(loaded.len());
    for (i, m) in loaded.iter().enumerate() {
        let project = m.project;
        let tid = match explicit_thread(m) {
            Some(t) => seeds.get(&(project, t)).copied().unwrap_or(t),
            None => thread_key_str(m),
        };
        let t = *thread_index.entry((project, tid)).or_insert_with(|| {
            firsts.push((i, tid));
            firsts.len() - 1
        });
        thread_of.push(t);
    }
    // The tables go before the threads are made: this is the load's peak
    // (issue 16: the table of thread keys is 2 MB at 100,000 messages).
    drop((seeds, thread_index));
    let mut threads: Vec<Thread> = firsts
        .iter()
        .map(|&(i, tid)| Thread {
            id: tid.to_string(),
            project: loaded[i].project,
            bead: None,
            subject: loaded[i].message.subject.clone(),
            messages: Vec::new(),
            last_at: None,
            pending: 0,
            help: HelpState::None,
            phase: Phase::Active,
        })
        .collect();
    drop(firsts);
    // Each thread's list sized exactly: grown by doubling it kept a third
    // spare on average.
    let mut sizes = vec![0usize; threads.len()];
    for &t in &thread_of {
        sizes[t] += 1;
    }
    for (thread, n) in threads.iter_mut().zip(sizes) {
        thread.messages = Vec::with_capacity(n);
    }
    for ((i, m), t) in loaded.iter().enumerate().zip(thread_of) {
        let thread = &mut threads[t];
        thread.messages.push(i);
        if thread.bead.is_none() {
            thread.bead = m.message.bead();
        }
        if m.message.timestamp > thread.last_at {
            thread.last_at = m.message.timestamp;
        }
    }
    for thread in &mut threads {
        derive_state(thread, loaded);
    }

    // Most recent activity first, sorted in place: the threads' own lists
    // say where each message's thread went, so no second list of threads
    // is made (issue 16: a copy of every thread was part of the load's
    // peak, 4 MB at 100,000 messages). No two threads share a latest
    // message, so the order is total and the unstable sort is exact.
    threads.sort_unstable_by(thread_order);
    threads
}

/// A file that is not valid UTF-8 still loads (its bad bytes become U+FFFD
/// and the message carries an `invalid-utf8` diagnostic), and is listed with
/// the unreadable and binary files, so every damaged file is named by path.
fn with_encoding_problems(
    mut problems: Vec<(PathBuf, String)>,
    messages: &[InboxMessage],
) -> Vec<(PathBuf, String)> {
    for m in messages {
        let Some(path) = &m.path else { continue };
        // A record parsed again from kept text was valid UTF-8: only a
        // message held whole can carry the diagnostic.
        let Some(d) = m
            .message
            .full_if_held()
            .and_then(|full| full.diagnostics.iter().find(|d| d.code == "invalid-utf8"))
        else {
            continue;
        };
        if !problems.iter().any(|(p, _)| p == path.as_path()) {
            problems.push((
                path.to_path_buf(),
                format!(
                    "invalid UTF-8 at {}:{}; loaded with U+FFFD in place of the bad bytes",
                    d.line, d.column
                ),
            ));
        }
    }
    problems
}

/// Oldest first; messages without a time first (they cannot be placed),
/// then by numeric id (mcp ids grow with time), then by key.
pub(crate) fn message_order(a: &InboxMessage, b: &InboxMessage) -> Ordering {
    a.message
        .timestamp
        .cmp(&b.message.timestamp)
        .then_with(|| numeric(&a.key).cmp(&numeric(&b.key)))
        .then_with(|| a.key.cmp(&b.key))
}

fn numeric(key: &str) -> Option<u64> {
    key.parse().ok()
}

pub(crate) fn explicit_thread(l: &InboxMessage) -> Option<&str> {
    l.message
        .thread_id
        .as_deref()
        .map(trimmed)
        .filter(|t| !t.is_empty())
}

/// `s.trim()`, without walking the characters when `s` starts and ends
/// with a printable ASCII byte (nearly every id): the incremental reload
/// checks each message's id and thread id, and `trim` per message was a
/// fifth of its time at 100,000 messages.
pub(crate) fn trimmed(s: &str) -> &str {
    let plain = |b: Option<&u8>| b.is_some_and(u8::is_ascii_graphic);
    let bytes = s.as_bytes();
    if plain(bytes.first()) && plain(bytes.last()) {
        s
    } else {
        s.trim()
    }
}

pub(crate) fn thread_key(l: &InboxMessage) -> String {
    thread_key_str(l).to_string()
}

fn thread_key_str(l: &InboxMessage) -> &str {
    explicit_thread(l)
        .or_else(|| l.message.bead().map(Name::as_str))
        .unwrap_or(&l.key)
}

/// Unanswered when a HELP_REQUEST has no answer after it in the thread.
/// An ack is not an answer and an answer is not an ack.
pub(crate) fn help_state<'a>(thread: impl Iterator<Item = &'a InboxMessage>) -> HelpState {
    let mut state = HelpState::None;
    for m in thread {
        if m.is_help_request() {
            state = HelpState::Unanswered;
        } else if state == HelpState::Unanswered && m.is_answer() {
            state = HelpState::Answered;
        }
    }
    state
}

/// Every agent seen as a sender or recipient, by name, with a state from
/// its latest state-bearing message:
/// BEAD_ACCEPTED/PROGRESS -> working, HELP_REQUEST -> waiting for help
/// (working again once answered), OFFERING_READY/DONE -> offered,
/// FAILED -> failed, CHECKPOINT -> checkpointed; nothing -> idle.
/// Replies, HELP_RESPONSE, spawn traffic and unknown messages do not change
/// what an agent is doing on its bead.
/// Each agent's evidence comes back too when `keep` says so (see
/// [`build_to_patch`]).
fn roster(
    messages: &[InboxMessage],
    threads: &[Thread],
    keep: bool,
) -> (Vec<Agent>, Option<HashMap<String, Open>>) {
    // Most names repeat on every message, and they are interned, so a
    // repeat is the same number, told apart without reading the name.
    let mut seen: FastMap<u32, &'static str> = FastMap::new();
    let mut see = |name: Name| {
        seen.entry(name.number()).or_insert_with(|| name.as_str());
    };
    for m in messages {
        if let Some(f) = m.message.from.filter(|f| !f.is_empty()) {
            see(f);
        }
        for r in &m.recipients {
            see(r.agent);
        }
    }
    let mut names: Vec<&str> = seen.into_values().collect();
    names.sort_unstable();
    names.dedup();
    let evidence = turn::evidence_of(messages, 0..messages.len(), |_| true);
    let agents = names
        .into_iter()
        .map(|name| match evidence.get(name) {
            Some(open) => agent(
                name.to_string(),
                open.latest,
                open.turn(messages, threads),
                messages,
                threads,
            ),
            None => agent(
                name.to_string(),
                Latest::default(),
                turn::Turn::default(),
                messages,
                threads,
            ),
        })
        .collect();
    // Kept with the inbox, so a new message updates it in place.
    let kept = keep.then(|| {
        evidence
            .into_iter()
            .map(|(name, open)| (name.to_string(), open.owned()))
            .collect()
    });
    (agents, kept)
}

/// An agent's latest message, and latest state-bearing message, as sender
/// (indices into `messages`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Latest {
    pub state: Option<usize>,
    pub any: Option<usize>,
}

impl Latest {
    /// Takes message `i` (later than any seen so far) sent by the agent.
    pub(crate) fn see(&mut self, i: usize, m: &InboxMessage) {
        self.any = Some(i);
        if state_of(m).is_some() {
            self.state = Some(i);
        }
    }
}

/// One roster entry: shared by the full build and the incremental patch,
/// so both derive the same agent.
pub(crate) fn agent(
    name: String,
    latest: Latest,
    turn: turn::Turn,
    messages: &[InboxMessage],
    threads: &[Thread],
) -> Agent {
    let (state, bead, last_message) = match latest.state {
        Some(i) => {
            let m = &messages[i];
            let mut state = state_of(m).unwrap_or(AgentState::Idle);
            if state == AgentState::WaitingForHelp && answered_after(messages, threads, i) {
                state = AgentState::Working;
            }
            (state, m.message.bead().map(|b| b.to_string()), Some(i))
        }
        None => (AgentState::Idle, None, latest.any),
    };
    let last_at = latest.any.and_then(|i| messages[i].message.timestamp);
    Agent {
        multiple_active: turn.multiple_active(),
        turn: turn.state,
        active_beads: turn.active_beads,
        name,
        state,
        bead,
        last_at,
        last_message,
    }
}

pub(crate) fn state_of(m: &InboxMessage) -> Option<AgentState> {
    if m.is_reply() {
        return None;
    }
    Some(match m.message.kind {
        MessageType::BeadAccepted | MessageType::Progress => AgentState::Working,
        MessageType::HelpRequest => AgentState::WaitingForHelp,
        MessageType::OfferingReady | MessageType::Done => AgentState::Offered,
        MessageType::Failed => AgentState::Failed,
        MessageType::Checkpoint => AgentState::Checkpointed,
        _ => return None,
    })
}

fn answered_after(messages: &[InboxMessage], threads: &[Thread], i: usize) -> bool {
    let t = &threads[thread_position(threads.len(), messages[i].thread_from_end)];
    t.messages
        .iter()
        .skip_while(|&&j| j != i)
        .skip(1)
        .any(|&j| messages[j].is_answer())
}

/// Sets recipients' read and ack times from acks a store records apart
/// from the messages (a plain mailbox's journal). One pass with an index by
/// key, so a big mailbox costs one lookup per message (no allocation)
/// however many acks there are. Returns the indices of the messages whose
/// state changed.
pub(crate) fn apply_acks(messages: &mut [InboxMessage], acks: &Acks) -> Vec<usize> {
    let mut changed = Vec::new();
    if acks.is_empty() {
        return changed;
    }
    let mut by_key: FastMap<&str, Vec<(&str, &AckTimes)>> = FastMap::new();
    for ((key, agent), e) in acks {
        by_key.entry(key).or_default().push((agent, e));
    }
    for (i, m) in messages.iter_mut().enumerate() {
        let Some(entries) = by_key.get(m.key.as_str()) else {
            continue;
        };
        for r in &mut m.recipients {
            if let Some((_, e)) = entries.iter().find(|(a, _)| *a == r.agent) {
                let (ack, read) = (e.ack_at, Some(e.read_at));
                if r.ack_at != ack || r.read_at != read {
                    r.ack_at = ack;
                    r.read_at = read;
                    changed.push(i);
                }
            }
        }
    }
    changed
}

/// What a thread's messages say of it: the acks still owed (`pending`),
/// its help requests' state and its latest message's phase. The build and
/// the patch (for the threads it touched) both derive them here.
pub(super) fn derive_state(thread: &mut Thread, messages: &[InboxMessage]) {
    thread.pending = thread
        .messages
        .iter()
        .map(|&i| {
            let m = &messages[i];
            if m.message.ack_required {
                m.recipients.iter().filter(|r| r.ack_at.is_none()).count()
            } else {
                0
            }
        })
        .sum();
    thread.help = help_state(thread.messages.iter().map(|&i| &messages[i]));
    thread.phase = Phase::of_thread(thread.messages.iter().rev().map(|&i| &messages[i]));
}

/// Thread order: most recent activity first, then the latest message.
pub(super) fn thread_order(a: &Thread, b: &Thread) -> std::cmp::Ordering {
    b.last_at
        .cmp(&a.last_at)
        .then_with(|| b.messages.last().cmp(&a.messages.last()))
}

#[cfg(test)]
mod tests {
    use super::trimmed;

    #[test]
    fn trimmed_is_trim() {
        for s in [
            "",
            "x",
            "ol-1.2",
            " x",
            "x ",
            "\tx\n",
            "\x0Bx\x0B",
            "\u{a0}x",
            "x\u{3000}",
            "é",
            " ",
            "\u{85}",
        ] {
            assert_eq!(trimmed(s), s.trim(), "{s:?}");
        }
    }
}
