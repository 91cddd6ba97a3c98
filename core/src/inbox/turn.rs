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

use super::model::{Inbox, InboxMessage, Thread, TurnState};

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
fn evidence(m: &InboxMessage) -> Option<(&str, &str, Option<TurnState>)> {
    let msg = &m.message;
    let bead = msg.bead()?.trim();
    if bead.is_empty() {
        return None;
    }
    let from = msg.from.as_deref();
    let to = msg.to.first().map(|t| t.as_ref());
    let status = msg.status().unwrap_or("");
    if msg.kind == MessageType::Unknown {
        let (who, state) = match msg.raw_type.as_deref()? {
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
            let s = status.to_ascii_lowercase();
            if s.starts_with("waiting") || s.starts_with("awaiting") {
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
    derive_where(messages, threads, 0..messages.len(), |_| true)
}

/// [`derive`] for just the agents in `only` (sorted; the incremental
/// patch): an agent's turn depends only on evidence naming it, so only
/// the messages at `at` (ascending: those whose sender or first `to` is
/// in `only`) are read.
pub(crate) fn derive_for(
    messages: &[InboxMessage],
    threads: &[Thread],
    at: &[usize],
    only: &[&str],
) -> HashMap<String, Turn> {
    derive_where(messages, threads, at.iter().copied(), |agent| {
        only.binary_search(&agent).is_ok()
    })
}

fn derive_where(
    messages: &[InboxMessage],
    threads: &[Thread],
    at: impl Iterator<Item = usize>,
    wanted: impl Fn(&str) -> bool,
) -> HashMap<String, Turn> {
    // agent -> bead -> (state, index of the message that set it). A map per
    // agent, not a list: an agent that leaves beads open collects thousands
    // in a big inbox, and each message would scan them all.
    let mut open: HashMap<&str, HashMap<&str, (TurnState, usize)>> = HashMap::new();
    for i in at {
        let m = &messages[i];
        // Evidence names the sender or the first `to`: skip the others
        // before reading the message further.
        let from = m.message.from.as_deref();
        let to = m.message.to.first().map(|t| t.as_ref());
        if !from.is_some_and(&wanted) && !to.is_some_and(&wanted) {
            continue;
        }
        let Some((agent, bead, state)) = evidence(m) else {
            continue;
        };
        if !wanted(agent) {
            continue;
        }
        let beads = open.entry(agent).or_default();
        match state {
            Some(mut s) => {
                if s == TurnState::Suspended
                    && m.message.kind == MessageType::HelpRequest
                    && answered_after(messages, threads, i)
                {
                    s = TurnState::Running;
                }
                beads.insert(bead, (s, i));
            }
            None => {
                beads.remove(bead);
            }
        }
    }
    open.into_iter()
        .map(|(agent, beads)| {
            // Oldest change first, as the beads were last set.
            let mut beads: Vec<(&str, TurnState, usize)> =
                beads.into_iter().map(|(b, (s, i))| (b, s, i)).collect();
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
            let turn = Turn {
                state,
                active_beads: active.iter().map(|(b, _, _)| b.to_string()).collect(),
            };
            (agent.to_string(), turn)
        })
        .collect()
}

fn answered_after(messages: &[InboxMessage], threads: &[Thread], i: usize) -> bool {
    let Some(t) = threads.get(messages[i].thread) else {
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

/// One line per agent breaking the single-active-turn rule.
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
                a.active_beads.join(", ")
            )
        })
        .collect()
}
