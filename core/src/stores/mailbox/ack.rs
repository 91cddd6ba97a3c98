//! Acking in a plain mailbox: lines appended to the ack journal
//! ([`super::journal`]), every key of one call in one batch; the mail files
//! are never edited.

use std::path::Path;

use chrono::{DateTime, Utc};

use super::read::{record, Record};
use crate::inbox::Inbox;
use crate::stores::error::Error;
use crate::stores::store::AckOutcome;

/// Acks each of `keys` as `agent` at `now`, from the messages of `inbox`
/// (loaded from `root`), in one journal batch. The journal, re-read under
/// its lock, is the truth for "already acked".
pub(crate) fn ack(
    inbox: &Inbox,
    root: &Path,
    keys: &[String],
    agent: &str,
    now: DateTime<Utc>,
) -> Result<Vec<AckOutcome>, Error> {
    Ok(record(inbox, root, keys, agent, now, Record::Ack)?
        .into_iter()
        .map(|(e, changed)| AckOutcome {
            ack_at: e.ack_at.unwrap_or(now),
            read_at: Some(e.read_at),
            key: e.key,
            agent: e.agent,
            changed,
        })
        .collect())
}
