//! AgentTurn-style turn states for the roster, derived from the messages.
//!
//! The AgentTurn L0 protocol has one state per agent, `idle -> dispatched
//! -> running <-> suspended -> idle`, and forbids two active turns for one
//! agent. Mail does not carry turns, so each (agent, bead) pair is tracked
//! from what the agent's messages say, oldest first:
//!
//! | evidence | the agent's turn on that bead |
//! |---|---|
//! | handoff `offered`/re-offered to X; A2A TaskMessage for responder X; A2A PENDING progress from X | X dispatched |
//! | BEAD_ACCEPTED, PROGRESS; handoff `accepted` (by `to_agent`); A2A IN_PROGRESS | running |
//! | HELP_REQUEST (until answered in its thread); PROGRESS whose status says it is waiting/awaiting; A2A progress with `awaiting_tool_result` | suspended |
//! | OFFERING_READY, DONE, FAILED, CHECKPOINT; handoff completed/failed/rejected; A2A final status | ended (no turn) |
//!
//! The agent's turn is that of its most recently changed running or
//! suspended bead, else dispatched if any bead is, else idle. Two or more
//! beads running or suspended at once break the single-active-turn rule:
//! the agent is flagged (`multiple_active`) with the beads listed.

use std::collections::HashMap;

use amail_parser::MessageType;

use super::build::Latest;
use super::compact::Name;
use super::model::{Inbox, InboxMessage, Thread, TurnState};
use super::FastMap;

/// An agent's derived turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Turn {
    pub state: TurnState,
    /// Beads running or suspended, oldest change first.
    pub active_beads: Vec<String>,
}

impl Turn {
    /// The single-active-turn rule is broken.
    pub fn multiple_active(&self) -> bool {
        self.active_beads.len() > 1
    }
}

/// What one message says: (agent, bead, Some(state) or None = ended).
/// Borrowed: this runs for every message of a big inbox.
pub(crate) fn evidence(m: &InboxMessage) -> Option<(&str, &str, Option<TurnState>)> {
    let msg = &m.message;
    let bead = msg.bead()?.as_str().trim();
    if bead.is_empty() {
        return None;
    }
    let from = msg.from.map(Name::as_str);
    let to = msg.to.first().map(|t| t.as_ref());
    let status = msg.status().unwrap_or("");
    if msg.kind == MessageType::Unknown {
        let (who, state) = match msg.raw_type?.as_str() {
            "HANDOFF" => match status {
                "offered" | "re-offered" => (to, Some(TurnState::Dispatched)),
                "accepted" => (to, Some(TurnState::Running)),
                _ => (to, None),
            },
            "A2A_TASK" => (to, Some(TurnState::Dispatched)),
            "A2A_PROGRESS" | "A2A_RESULT" => match status {
                "PENDING" => (from, Some(TurnState::Dispatched)),
                "IN_PROGRESS" if msg.body.contains("awaiting_tool_result") => {
                    (from, Some(TurnState::Suspended))
                }
                "IN_PROGRESS" => (from, Some(TurnState::Running)),
                _ => (from, None),
            },
            _ => return None,
        };
        return Some((who?, bead, state));
    }
    if m.is_reply() {
        return None;
    }
    let state = match msg.kind {
        MessageType::BeadAccepted => Some(TurnState::Running),
        MessageType::Progress => {
            let starts = |p: &str| {
                status
                    .get(..p.len())
                    .is_some_and(|s| s.eq_ignore_ascii_case(p))
            };
            if starts("waiting") || starts("awaiting") {
                Some(TurnState::Suspended)
            } else {
                Some(TurnState::Running)
            }
        }
        MessageType::HelpRequest => Some(TurnState::Suspended),
        k if k.is_completion() => None,
        _ => return None,
    };
    Some((from?, bead, state))
}

/// Turns of every agent that has any evidence (others are idle).
pub fn derive(messages: &[InboxMessage], threads: &[Thread]) -> HashMap<String, Turn> {
    evidence_of(messages, 0..messages.len(), |_| true)
        .into_iter()
        .map(|(agent, open)| (agent.to_string(), open.turn(messages, threads)))
        .collect()
}

/// What an agent's messages so far say: its latest messages as sender,
/// and the turn each bead was last put in. The turns follow from it
/// ([`Open::turn`]), and a message added after all the others updates it
/// in place ([`Open::see`]): the index keeps one per agent, so one new
/// file does not read the agent's whole history again.
#[derive(Debug, Clone, Default)]
pub(crate) struct Open<K = String> {
    pub(crate) latest: Latest,
    /// bead -> (the state the message said, the message, whether it is a
    /// HELP_REQUEST). A HELP_REQUEST's suspension is decided when the turn
    /// is read: a later answer in its thread makes it running.
    beads: FastMap<K, (TurnState, usize, bool)>,
}

impl<K: std::borrow::Borrow<str> + std::hash::Hash + Eq> Open<K> {
    /// Takes what message `i` (after every message seen so far) says about
    /// this agent's beads (`evidence(m)` named it).
    fn take(&mut self, i: usize, m: &InboxMessage, bead: K, state: Option<TurnState>) {
        match state {
            Some(s) => {
                let help = m.message.kind == MessageType::HelpRequest;
                self.beads.insert(bead, (s, i, help));
            }
            None => {
                self.beads.remove(bead.borrow());
            }
        }
    }

    /// The agent's turn, as `derive` gives it.
    pub(crate) fn turn(&self, messages: &[InboxMessage], threads: &[Thread]) -> Turn {
        // Oldest change first, as the beads were last set.
        let mut beads: Vec<(&str, TurnState, usize)> = self
            .beads
            .iter()
            .map(|(b, &(s, i, help))| (b.borrow(), resolved(s, i, help, messages, threads), i))
            .collect();
        beads.sort_unstable_by_key(|&(_, _, i)| i);
        let active: Vec<&(&str, TurnState, usize)> =
            beads.iter().filter(|(_, s, _)| s.active()).collect();
        let state = match active.iter().max_by_key(|(_, _, i)| *i) {
            Some((_, s, _)) => *s,
            None if beads.iter().any(|(_, s, _)| *s == TurnState::Dispatched) => {
                TurnState::Dispatched
            }
            None => TurnState::Idle,
        };
        Turn {
            state,
            active_beads: active.iter().map(|(b, _, _)| b.to_string()).collect(),
        }
    }
}

/// A bead's state as its turn counts it: a suspension by a HELP_REQUEST
/// answered later in its thread is running again.
fn resolved(
    s: TurnState,
    i: usize,
    help: bool,
    messages: &[InboxMessage],
    threads: &[Thread],
) -> TurnState {
    if s == TurnState::Suspended && help && answered_after(messages, threads, i) {
        TurnState::Running
    } else {
        s
    }
}

impl Open<&str> {
    /// The same evidence with owned names, to keep.
    pub(crate) fn owned(self) -> Open {
        Open {
            latest: self.latest,
            beads: self
                .beads
                .into_iter()
                .map(|(b, v)| (b.to_string(), v))
                .collect(),
        }
    }
}

impl Open {
    /// Message `i`, newer than every message seen so far, as the evidence
    /// of every agent it names, in `all` (agent -> evidence).
    pub(crate) fn see(all: &mut HashMap<String, Open>, i: usize, m: &InboxMessage) {
        if let Some(from) = m.message.from {
            entry(all, &from).latest.see(i, m);
        }
        if let Some((agent, bead, state)) = evidence(m) {
            entry(all, agent).take(i, m, bead.to_string(), state);
        }
    }

    /// Message `i`, older than every message seen so far (an undated file
    /// sorts before all mail), as the evidence of every agent it names:
    /// it counts only where nothing newer does (the agent's latest
    /// messages, a bead's turn). False, with `all` unchanged for the
    /// bead, when it would set a bead the evidence lacks: a later message
    /// may have ended it (an ended bead leaves no entry), which only a
    /// read of the agent's mail tells. With several such messages, take
    /// them newest first.
    pub(crate) fn see_before(all: &mut HashMap<String, Open>, i: usize, m: &InboxMessage) -> bool {
        let decided = match evidence(m) {
            Some((agent, bead, Some(s))) => match all.get(agent) {
                // Set by a later message: that one stands. Absent: never
                // set, or ended since.
                Some(open) => open.beads.contains_key(bead),
                // No evidence of this agent at all: nothing later set or
                // ended the bead.
                None => {
                    let help = m.message.kind == MessageType::HelpRequest;
                    entry(all, agent)
                        .beads
                        .insert(bead.to_string(), (s, i, help));
                    true
                }
            },
            // Ends a bead: a later message decides, or nothing was set.
            _ => true,
        };
        if let Some(from) = m.message.from {
            let latest = &mut entry(all, &from).latest;
            latest.any.get_or_insert(i);
            if latest.state.is_none() && super::build::state_of(m).is_some() {
                latest.state = Some(i);
            }
        }
        decided
    }

    /// The turn, from the one `before` the messages that set or ended the
    /// beads `new` (all after every message seen before them): the changed
    /// beads leave or join the active list at its newest end. In proportion
    /// to the change, not to the agent's open beads (an agent that leaves
    /// beads open has thousands). An answer to a help request elsewhere
    /// changes nothing here: suspended and running are both active, and
    /// the state is read from the newest active bead as it is now.
    pub(crate) fn turn_after(
        &self,
        before: Turn,
        new: &[&str],
        messages: &[InboxMessage],
        threads: &[Thread],
    ) -> Turn {
        let mut changed: Vec<(&str, Option<usize>)> = new
            .iter()
            .map(|&b| (b, self.beads.get(b).map(|&(_, i, _)| i)))
            .collect();
        changed.sort_unstable();
        changed.dedup();
        // Ended beads first (they only leave), then by the message that
        // set them, so pushing keeps the list oldest change first.
        changed.sort_by_key(|&(_, i)| i);
        let mut active = before.active_beads;
        for (b, at) in changed {
            if let Some(p) = active.iter().position(|x| x == b) {
                active.remove(p);
            }
            let Some(&(s, i, help)) = at.and_then(|_| self.beads.get(b)) else {
                continue;
            };
            if resolved(s, i, help, messages, threads).active() {
                active.push(b.to_string());
            }
        }
        let state = match active.last().and_then(|b| self.beads.get(b.as_str())) {
            Some(&(s, i, help)) => resolved(s, i, help, messages, threads),
            None if self
                .beads
                .values()
                .any(|&(s, _, _)| s == TurnState::Dispatched) =>
            {
                TurnState::Dispatched
            }
            None => TurnState::Idle,
        };
        Turn {
            state,
            active_beads: active,
        }
    }

    /// Positions moved (messages inserted or removed before others):
    /// `at` gives each old position's new one (`usize::MAX`: gone).
    pub(crate) fn renumber(&mut self, at: impl Fn(usize) -> usize) {
        self.latest.any = self.latest.any.map(&at);
        self.latest.state = self.latest.state.map(&at);
        for (_, i, _) in self.beads.values_mut() {
            *i = at(*i);
        }
    }
}

fn entry<'m>(all: &'m mut HashMap<String, Open>, name: &str) -> &'m mut Open {
    if !all.contains_key(name) {
        all.insert(name.to_string(), Open::default());
    }
    all.get_mut(name).expect("just inserted")
}

/// The evidence of the agents `wanted` says yes to, from the messages at
/// `at` (ascending): everything a roster entry and its turn are made of.
/// Borrowed: this runs over every message of a big inbox.
pub(crate) fn evidence_of(
    messages: &[InboxMessage],
    at: impl Iterator<Item = usize>,
    wanted: impl Fn(&str) -> bool,
) -> FastMap<&str, Open<&str>> {
    // A map per agent, not a list: an agent that leaves beads open
    // collects thousands in a big inbox, and each message would scan them
    // all.
    let mut all: FastMap<&str, Open<&str>> = FastMap::new();
    for i in at {
        let m = &messages[i];
        // Evidence names the sender or the first `to`: skip the others
        // before reading the message further.
        let from = m.message.from.map(Name::as_str).filter(|f| wanted(f));
        let to = m.message.to.first().map(|t| t.as_ref());
        if let Some(from) = from {
            all.entry(from).or_default().latest.see(i, m);
        } else if !to.is_some_and(&wanted) {
            continue;
        }
        let Some((agent, bead, state)) = evidence(m) else {
            continue;
        };
        if wanted(agent) {
            all.entry(agent).or_default().take(i, m, bead, state);
        }
    }
    all
}

fn answered_after(messages: &[InboxMessage], threads: &[Thread], i: usize) -> bool {
    let at = super::model::thread_position(threads.len(), messages[i].thread_from_end);
    let Some(t) = threads.get(at) else {
        return false;
    };
    t.messages
        .iter()
        .skip_while(|&&j| j != i)
        .skip(1)
        .any(|&j| messages[j].is_answer())
}

/// Sets the turn fields of every agent already in `inbox.agents` (for
/// inboxes built by hand, e.g. the TUI test sample).
pub fn apply(inbox: &mut Inbox) {
    let mut turns = derive(&inbox.messages, &inbox.threads);
    for a in &mut inbox.agents {
        let t = turns.remove(a.name.as_str()).unwrap_or_default();
        a.multiple_active = t.multiple_active();
        a.turn = t.state;
        a.active_beads = t.active_beads;
    }
}

/// One line per agent breaking the single-active-turn rule, naming its
/// first few beads and counting the rest: an agent of a big mailbox holds
/// thousands, and the whole list was megabytes of warning on the terminal.
pub fn warnings(inbox: &Inbox) -> Vec<String> {
    inbox
        .agents
        .iter()
        .filter(|a| a.multiple_active)
        .map(|a| {
            format!(
                "{} has {} beads in progress at once ({}): AgentTurn allows one active turn per agent",
                a.name,
                a.active_beads.len(),
                super::summary::first_few(&a.active_beads, 5),
            )
        })
        .collect()
}
