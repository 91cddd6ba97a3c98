//! Counting routing outcomes for `amail route`'s one-line summary, shared
//! by mail, AOF/1 envelope files and the neighbouring protocols.

use amail_core::router::RouteOutcome;
use amail_core::safe_text::clean_line;

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub messages: usize,
    pub routed: usize,
    pub created: usize,
    pub transitions: usize,
    pub duplicates: usize,
    pub rejected: usize,
    pub unknown: usize,
    pub inbox_only: usize,
}

impl Tally {
    /// Counts one routed input; a rejection is reported on stderr at `loc`
    /// (`file:line:col`), with `why` when detection said (see
    /// `Rejection::why`), since it makes the command exit with an error.
    pub fn record(&mut self, out: RouteOutcome, loc: &str, why: Option<String>) {
        self.messages += 1;
        match out {
            RouteOutcome::Routed {
                transitions,
                created,
                ..
            } => {
                self.routed += 1;
                self.transitions += transitions;
                self.created += usize::from(created);
            }
            RouteOutcome::Duplicate => self.duplicates += 1,
            RouteOutcome::Rejected(reason) => {
                self.rejected += 1;
                let why = why
                    .map(|w| format!(": {}", clean_line(&w)))
                    .unwrap_or_default();
                crate::errln!(
                    "{}: rejected: {}{why}",
                    clean_line(loc),
                    clean_line(&reason)
                );
            }
            RouteOutcome::Unknown => self.unknown += 1,
            RouteOutcome::Ignored => self.inbox_only += 1,
        }
    }
}
