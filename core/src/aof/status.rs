//! The AOF task statuses and the valid-transition table (AOF's
//! `VALID_TRANSITIONS`, reference section 1.4).

use serde::{Deserialize, Serialize};
use std::fmt;

/// A task status; the kebab-case name is also the directory under `tasks/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskStatus {
    Backlog,
    Ready,
    InProgress,
    Blocked,
    Review,
    Done,
    Cancelled,
    Deadletter,
}

impl TaskStatus {
    /// Every status, in AOF's status-directory order, which is also the
    /// lifecycle order boards list them in (used for probing, for
    /// deterministic tie-breaks when healing duplicates, and by `amail
    /// tasks` and the TUI board). The derived `Ord` follows it.
    pub const ALL: [TaskStatus; 8] = [
        TaskStatus::Backlog,
        TaskStatus::Ready,
        TaskStatus::InProgress,
        TaskStatus::Blocked,
        TaskStatus::Review,
        TaskStatus::Done,
        TaskStatus::Cancelled,
        TaskStatus::Deadletter,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Backlog => "backlog",
            TaskStatus::Ready => "ready",
            TaskStatus::InProgress => "in-progress",
            TaskStatus::Blocked => "blocked",
            TaskStatus::Review => "review",
            TaskStatus::Done => "done",
            TaskStatus::Cancelled => "cancelled",
            TaskStatus::Deadletter => "deadletter",
        }
    }

    pub fn parse(s: &str) -> Option<TaskStatus> {
        TaskStatus::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// The targets AOF allows from this status. `in-progress -> done` is
    /// deliberately absent: done always goes through review.
    pub(crate) fn allowed_targets(self) -> &'static [TaskStatus] {
        use TaskStatus::*;
        match self {
            Backlog => &[Ready, Blocked, Cancelled],
            Ready => &[InProgress, Blocked, Deadletter, Cancelled],
            InProgress => &[Review, Ready, Blocked, Deadletter, Cancelled],
            Blocked => &[Ready, Deadletter, Cancelled],
            Review => &[Done, InProgress, Blocked, Cancelled],
            Done | Cancelled => &[],
            Deadletter => &[Ready],
        }
    }

    /// `isValidTransition`: same-status is not a transition (callers treat
    /// it as a no-op), so it is `false` here.
    pub(crate) fn can_transition_to(self, to: TaskStatus) -> bool {
        self.allowed_targets().contains(&to)
    }
}

/// Compares with AOF's spelling (`"in-progress"`), as task files and other
/// tools write it.
impl PartialEq<str> for TaskStatus {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for TaskStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_aof() {
        use TaskStatus::*;
        assert!(!InProgress.can_transition_to(Done));
        assert!(InProgress.can_transition_to(Review));
        assert!(Review.can_transition_to(Done));
        assert!(!Done.can_transition_to(Ready));
        assert!(Deadletter.can_transition_to(Ready));
        assert!(!Ready.can_transition_to(Ready));
        for s in TaskStatus::ALL {
            assert_eq!(TaskStatus::parse(s.as_str()), Some(s));
            assert_eq!(s, s.as_str());
        }
        assert!(TaskStatus::ALL.windows(2).all(|w| w[0] < w[1]));
        assert_ne!(InProgress, "in_progress");
    }
}
