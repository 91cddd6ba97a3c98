//! `amail ack`: record that a recipient acknowledged a message.
//!
//! - mcp_agent_mail store: exactly the server's `acknowledge_message`, i.e.
//!   on that recipient's `message_recipients` row set `read_ts` and `ack_ts`
//!   when they are NULL, in the database's own timestamp dialect, in one
//!   short `BEGIN IMMEDIATE` transaction with a busy timeout (safe while the
//!   server runs: SQLite serialises writers, WAL readers are not blocked).
//!   Like the server, no archive file and no commit.
//! - plain mailbox: one line appended to the ack journal.
//!
//! Acking twice changes nothing and reports the first ack's time.

use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use rusqlite::{params, OptionalExtension};

use super::journal::{self, JournalEntry};
use super::load::{load_mailbox, Messages};
use super::{Error, Inbox, SourceKind};
use crate::source::mcp_db;
use crate::source::timestamps;

/// What one ack did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AckOutcome {
    pub key: String,
    pub agent: String,
    pub ack_at: DateTime<Utc>,
    pub read_at: Option<DateTime<Utc>>,
    /// False when the recipient had already acknowledged (nothing written).
    pub changed: bool,
}

/// Acks each of `keys` as `as_agent`, in order, now. Stops at the first
/// error; acks already recorded stay recorded. A plain mailbox is read
/// with the size limit `max_bytes`.
pub fn ack(
    source: &SourceKind,
    keys: &[String],
    as_agent: &str,
    max_bytes: u64,
) -> Result<Vec<AckOutcome>, Error> {
    ack_at(source, keys, as_agent, Utc::now(), max_bytes)
}

/// [`ack`] using an inbox already loaded (the TUI's): a plain mailbox is
/// not read again. The journal and the database are still the truth for
/// "already acked", so a stale inbox cannot cause a double ack.
pub fn ack_loaded(
    inbox: &Inbox,
    keys: &[String],
    as_agent: &str,
) -> Result<Vec<AckOutcome>, Error> {
    ack_with(
        &inbox.source,
        Messages::Loaded(inbox),
        keys,
        as_agent,
        Utc::now(),
    )
}

/// [`ack`] with a given clock (tests, deterministic demos).
pub fn ack_at(
    source: &SourceKind,
    keys: &[String],
    as_agent: &str,
    now: DateTime<Utc>,
    max_bytes: u64,
) -> Result<Vec<AckOutcome>, Error> {
    ack_with(source, Messages::Read { max_bytes }, keys, as_agent, now)
}

fn ack_with(
    source: &SourceKind,
    messages: Messages<'_>,
    keys: &[String],
    as_agent: &str,
    now: DateTime<Utc>,
) -> Result<Vec<AckOutcome>, Error> {
    let now = micros(now);
    match source {
        SourceKind::McpStore { db, .. } => {
            let conn = mcp_db::open_read_write(db).map_err(|e| Error::db(db, e))?;
            keys.iter()
                .map(|k| ack_mcp(&conn, db, k, as_agent, now))
                .collect()
        }
        SourceKind::Mailbox { root } => {
            let fresh;
            let inbox = match messages {
                Messages::Loaded(i) => i,
                Messages::Read { max_bytes } => {
                    fresh = load_mailbox(root, max_bytes)?;
                    &fresh
                }
            };
            keys.iter()
                .map(|k| ack_mailbox(inbox, root, k, as_agent, now))
                .collect()
        }
        SourceKind::Stdin => Err(Error::Unsupported(
            "JSON read from stdin is read-only: ack in the mailbox or store it came from".into(),
        )),
    }
}

/// Microsecond precision: what both SQLite dialects and the journal keep.
pub(crate) fn micros(t: DateTime<Utc>) -> DateTime<Utc> {
    t.duration_trunc(TimeDelta::microseconds(1)).unwrap_or(t)
}

fn ack_mailbox(
    inbox: &Inbox,
    root: &std::path::Path,
    key: &str,
    agent: &str,
    now: DateTime<Utc>,
) -> Result<AckOutcome, Error> {
    let m = inbox.message_by_key(key).ok_or_else(|| Error::NotFound {
        key: key.to_string(),
        where_: root.display().to_string(),
    })?;
    let Some(r) = m.recipients.iter().find(|r| r.agent == agent) else {
        return Err(not_recipient(
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

fn not_recipient<'a>(key: &str, agent: &str, names: impl Iterator<Item = &'a str>) -> Error {
    let names: Vec<&str> = names.collect();
    Error::NotRecipient {
        key: key.to_string(),
        agent: agent.to_string(),
        recipients: if names.is_empty() {
            "none recorded".into()
        } else {
            names.join(", ")
        },
    }
}

fn ack_mcp(
    conn: &rusqlite::Connection,
    db: &std::path::Path,
    key: &str,
    agent: &str,
    now: DateTime<Utc>,
) -> Result<AckOutcome, Error> {
    let not_found = || Error::NotFound {
        key: key.to_string(),
        where_: db.display().to_string(),
    };
    let id: i64 = key.trim().parse().map_err(|_| not_found())?;
    let dbe = |e: rusqlite::Error| Error::db(db, e);
    let dialect = mcp_db::dialect(conn).map_err(dbe)?;
    // IMMEDIATE takes the write lock up front, so the read-then-update
    // below cannot interleave with the server's own ack of the same row.
    let tx = Tx::begin(conn).map_err(dbe)?;
    let project: i64 = tx
        .query_row("SELECT project_id FROM messages WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .optional()
        .map_err(dbe)?
        .ok_or_else(not_found)?;
    // The recipient row of an agent of that project with that name (exact
    // name first; the server's names are case-insensitively unique).
    let row: Option<(i64, rusqlite::types::Value, rusqlite::types::Value)> = tx
        .query_row(
            "SELECT r.agent_id, r.read_ts, r.ack_ts
             FROM message_recipients r JOIN agents a ON a.id = r.agent_id
             WHERE r.message_id = ?1 AND a.project_id = ?2 AND lower(a.name) = lower(?3)
             ORDER BY a.name = ?3 DESC LIMIT 1",
            params![id, project, agent],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()
        .map_err(dbe)?;
    let Some((agent_id, read_ts, ack_ts)) = row else {
        let mut stmt = tx
            .prepare(
                "SELECT a.name FROM message_recipients r JOIN agents a ON a.id = r.agent_id
                 WHERE r.message_id = ?1 ORDER BY a.name",
            )
            .map_err(dbe)?;
        let names: Vec<String> = stmt
            .query_map([id], |r| r.get(0))
            .map_err(dbe)?
            .collect::<Result<_, _>>()
            .map_err(dbe)?;
        return Err(not_recipient(key, agent, names.iter().map(String::as_str)));
    };
    let read_was = decode(&read_ts);
    let ack_was = decode(&ack_ts);
    let changed = ack_was.is_none() || read_was.is_none();
    if changed {
        let v = dialect.encode(now);
        tx.execute(
            "UPDATE message_recipients
             SET read_ts = COALESCE(read_ts, ?1), ack_ts = COALESCE(ack_ts, ?1)
             WHERE message_id = ?2 AND agent_id = ?3",
            params![v, id, agent_id],
        )
        .map_err(dbe)?;
    }
    crate::fsio::crash_point();
    tx.commit().map_err(dbe)?;
    crate::fsio::crash_point();
    Ok(AckOutcome {
        key: key.to_string(),
        agent: agent.to_string(),
        ack_at: ack_was.unwrap_or(now),
        read_at: Some(read_was.unwrap_or(now)),
        changed: ack_was.is_none(),
    })
}

fn decode(v: &rusqlite::types::Value) -> Option<DateTime<Utc>> {
    use rusqlite::types::{Value, ValueRef};
    match v {
        Value::Null => None,
        Value::Integer(i) => timestamps::decode(ValueRef::Integer(*i)),
        Value::Real(f) => timestamps::decode(ValueRef::Real(*f)),
        Value::Text(t) => timestamps::parse_text(t),
        Value::Blob(_) => None,
    }
}

/// A `BEGIN IMMEDIATE` transaction rolled back on drop unless committed.
/// (`rusqlite::Transaction` wants `&mut Connection`; one connection serves
/// every key of an `amail ack`, so it is driven by hand.)
pub(crate) struct Tx<'c> {
    conn: &'c rusqlite::Connection,
    done: bool,
}

impl<'c> Tx<'c> {
    pub(crate) fn begin(conn: &'c rusqlite::Connection) -> rusqlite::Result<Tx<'c>> {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        Ok(Tx { conn, done: false })
    }

    pub(crate) fn commit(mut self) -> rusqlite::Result<()> {
        self.conn.execute_batch("COMMIT")?;
        self.done = true;
        Ok(())
    }
}

impl std::ops::Deref for Tx<'_> {
    type Target = rusqlite::Connection;
    fn deref(&self) -> &rusqlite::Connection {
        self.conn
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}
