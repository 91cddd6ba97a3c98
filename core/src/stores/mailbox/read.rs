//! Marking read in a plain mailbox, and the journal batch acks share: the
//! keys are checked against the inbox in order, and what they record is
//! appended to the [`journal`] in one batch (one lock, one write, one
//! fsync). Stops at the first bad key; what came before it is recorded.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::homes;
use super::journal::{self, JournalEntry};
use crate::inbox::Inbox;
use crate::stores::error::Error;
use crate::stores::store::ReadOutcome;

/// What a batch asks the journal to record for each key.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Record {
    Ack,
    Read,
}

/// Records `what` for each of `keys` as `agent` at `now`; returns the
/// pair's state in effect and whether it changed, per key, in order.
pub(crate) fn record(
    inbox: &Inbox,
    root: &Path,
    keys: &[String],
    agent: &str,
    now: DateTime<Utc>,
    what: Record,
) -> Result<Vec<(JournalEntry, bool)>, Error> {
    // Per key: already in effect (`None`: nothing to write), or to append
    // to the journal of a batch: each message's acks go into its own
    // mailbox's journal ([`homes`]), one batch a journal, in the order
    // asked.
    let mut plan: Vec<(JournalEntry, Option<usize>)> = Vec::with_capacity(keys.len());
    let mut batches: Vec<(PathBuf, Vec<JournalEntry>)> = Vec::new();
    let mut failed = None;
    for key in keys {
        let Some(m) = inbox.message_by_key(key) else {
            let root = root.display().to_string();
            failed = Some(Error::not_found(key, root.clone(), root).near_miss(inbox.keys()));
            break;
        };
        let Some(r) = m.recipients.iter().find(|r| r.agent == agent) else {
            failed = Some(Error::not_recipient(
                key,
                agent,
                m.recipients.iter().map(|r| r.agent.as_str()),
                inbox.source.ignores_case(),
            ));
            break;
        };
        // Already acked (or read) as the inbox shows it: nothing to write.
        let done = match what {
            Record::Ack => r.ack_at.is_some(),
            Record::Read => r.read_at.is_some(),
        };
        let entry = JournalEntry {
            key: key.to_string(),
            id: m.message.id.as_deref().map(str::to_owned),
            agent: agent.to_string(),
            ack_at: match what {
                Record::Ack => Some(r.ack_at.unwrap_or(now)),
                Record::Read => r.ack_at,
            },
            read_at: r.read_at.unwrap_or(now),
        };
        if done {
            plan.push((entry, None));
            continue;
        }
        let home = homes::mailbox_of(root, m);
        let b = match batches.iter().position(|(h, _)| *h == home) {
            Some(b) => b,
            None => {
                batches.push((home, Vec::new()));
                batches.len() - 1
            }
        };
        // Recorded as the message's mailbox names it; reported as asked.
        let local = JournalEntry {
            key: homes::key_in(root, &batches[b].0, m, inbox).into_owned(),
            ..entry.clone()
        };
        batches[b].1.push(local);
        plan.push((entry, Some(b)));
    }
    let mut written: Vec<std::vec::IntoIter<(JournalEntry, bool)>> = Vec::new();
    for (home, batch) in batches {
        written.push(journal::append_many(&home, batch)?.into_iter());
    }
    let out = plan
        .into_iter()
        .map(|(e, batch)| match batch.and_then(|b| written[b].next()) {
            Some((w, changed)) => (JournalEntry { key: e.key, ..w }, changed),
            None => (e, false),
        })
        .collect();
    match failed {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Marks each of `keys` read by `agent` at `now` (see [`record`]).
pub(crate) fn mark_read(
    inbox: &Inbox,
    root: &Path,
    keys: &[String],
    agent: &str,
    now: DateTime<Utc>,
) -> Result<Vec<ReadOutcome>, Error> {
    Ok(record(inbox, root, keys, agent, now, Record::Read)?
        .into_iter()
        .map(|(e, changed)| ReadOutcome {
            key: e.key,
            agent: e.agent,
            read_at: e.read_at,
            changed,
        })
        .collect())
}
