//! Where the user is: the screen, the inbox's pane, the list a selection
//! lives in, and the tab that filters the threads. Plain values that
//! `update`, the views and the tests all match on, apart so that any of
//! them names one without reading the model's state.

use amail_core::inbox::{HelpState, Phase};

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
