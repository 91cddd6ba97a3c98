//! Marking read in an mcp_agent_mail store: the server's
//! `mark_message_read`, i.e. that recipient's `read_ts` set when it is
//! NULL, every key of one call in one transaction (the ack's batch,
//! [`super::ack::set_many`]). Database only, as the server does it.

use chrono::{DateTime, Utc};

use super::ack::{set_many, Set};
use crate::stores::error::Error;
use crate::stores::store::ReadOutcome;

pub(crate) fn mark_read(
    conn: &rusqlite::Connection,
    db: &std::path::Path,
    keys: &[String],
    agent: &str,
    now: DateTime<Utc>,
) -> Result<Vec<ReadOutcome>, Error> {
    Ok(set_many(conn, db, keys, agent, now, Set::Read)?
        .into_iter()
        .map(|r| ReadOutcome {
            key: r.key,
            agent: r.agent,
            read_at: r.read_was.unwrap_or(now),
            changed: r.read_was.is_none(),
        })
        .collect())
}
