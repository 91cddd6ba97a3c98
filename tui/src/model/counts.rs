//! The totals the tabs, the header and the status bar show: counted once
//! per data change, and moved by what a patch did rather than counted
//! again.

use super::screen::Filter;
use super::Model;
use amail_core::inbox::{HelpState, Patched};

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

impl Model {
    /// Moves the totals `c` (counted before the patch `p`) by what `p`
    /// did to the threads it touched: each such thread's share taken out
    /// as it was and put in as it is.
    pub(super) fn count_patch(&self, c: &mut Counts, p: &Patched) {
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
