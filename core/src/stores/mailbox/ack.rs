//! Acking in a plain mailbox: one line appended to the ack journal
//! ([`super::journal`]); the mail files are never edited.

use std::path::Path;

use chrono::{DateTime, Utc};

use super::journal::{self, JournalEntry};
use crate::inbox::Inbox;
use crate::stores::error::Error;
use crate::stores::store::AckOutcome;

/// Acks `key` as `agent` at `now`, from the messages of `inbox` (loaded
/// from `root`). The journal, re-read under its lock, is the truth for
/// "already acked".
pub(crate) fn ack(
    inbox: &Inbox,
    root: &Path,
    key: &str,
    agent: &str,
    now: DateTime<Utc>,
) -> Result<AckOutcome, Error> {
    let m = inbox.message_by_key(key).ok_or_else(|| Error::NotFound {
        key: key.to_string(),
        where_: root.display().to_string(),
    })?;
    let Some(r) = m.recipients.iter().find(|r| r.agent == agent) else {
        return Err(Error::not_recipient(
            key,
            agent,
            m.recipients.iter().map(|r| r.agent.as_str()),
        ));
    };
    if let Some(ack_at) = r.ack_at {
        return Ok(AckOutcome {
            key: key.to_string(),
            agent: agent.to_string(),
            ack_at,
            read_at: r.read_at,
            changed: false,
        });
    }
    let (entry, changed) = journal::append(
        root,
        JournalEntry {
            key: key.to_string(),
            id: m.message.id.as_deref().map(str::to_owned),
            agent: agent.to_string(),
            ack_at: now,
            read_at: r.read_at.unwrap_or(now),
        },
    )?;
    Ok(AckOutcome {
        key: key.to_string(),
        agent: agent.to_string(),
        ack_at: entry.ack_at,
        read_at: Some(entry.read_at),
        changed,
    })
}
