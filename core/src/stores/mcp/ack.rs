//! Acking in an mcp_agent_mail store: exactly the server's
//! `acknowledge_message`, i.e. on that recipient's `message_recipients` row
//! set `read_ts` and `ack_ts` when they are NULL, in the database's own
//! timestamp dialect, in one short `BEGIN IMMEDIATE` transaction with a busy
//! timeout (safe while the server runs: SQLite serialises writers, WAL
//! readers are not blocked). Like the server, no archive file and no commit.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::db::{self as mcp_db, Tx};
use super::timestamps;
use crate::stores::error::Error;
use crate::stores::store::AckOutcome;

/// Acks message `key` (the database id) as `agent` at `now`, on `conn`
/// (opened read-write on `db`).
pub(crate) fn ack(
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
        return Err(Error::not_recipient(
            key,
            agent,
            names.iter().map(String::as_str),
        ));
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
