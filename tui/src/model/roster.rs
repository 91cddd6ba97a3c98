//! Who is a person and who an agent, and the agents view's lists: the
//! roster and each agent's pace. Apart from the inbox's questions because
//! both keep a list of their own, made once per change of the inbox.

use super::Model;
use crate::activity::Activity;
use amail_core::inbox::{Agent, SourceKind};

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
pub(super) struct RosterAt {
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

impl Model {
    /// The agents the roster lists: every name the mailbox holds but a
    /// person (`Model::is_person`), who is in it once they have written
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
}
