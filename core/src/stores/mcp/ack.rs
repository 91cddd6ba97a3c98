//! Acking in an mcp_agent_mail store: exactly the server's
//! `acknowledge_message`, i.e. on that recipient's `message_recipients` row
//! set `read_ts` and `ack_ts` when they are NULL, in the database's own
//! timestamp dialect, in one short `BEGIN IMMEDIATE` transaction with a busy
//! timeout (safe while the server runs: SQLite serialises writers, WAL
//! readers are not blocked). Every key of one call goes in that one
//! transaction; a bad key stops the batch and what came before it is
//! committed (the [`MailStore::ack`](crate::stores::MailStore::ack)
//! contract). Like the server, no archive file and no commit.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::db::{self as mcp_db, Tx};
use super::timestamps;
use crate::stores::error::Error;
use crate::stores::store::AckOutcome;

/// What one batch sets on each recipient row.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Set {
    /// `read_ts` and `ack_ts` (acknowledge_message).
    Ack,
    /// `read_ts` only (mark_message_read).
    Read,
}

/// One row's state before and after.
pub(crate) struct Row {
    pub key: String,
    /// The agent as the database spells it (`--as` matches without regard
    /// to case, as the server does).
    pub agent: String,
    pub read_was: Option<DateTime<Utc>>,
    pub ack_was: Option<DateTime<Utc>>,
}

/// Sets `what` on each of `keys` (database ids) for `agent` at `now`, on
/// `conn` (opened read-write on `db`), in one transaction.
pub(crate) fn set_many(
    conn: &rusqlite::Connection,
    db: &std::path::Path,
    keys: &[String],
    agent: &str,
    now: DateTime<Utc>,
    what: Set,
) -> Result<Vec<Row>, Error> {
    let dbe = |e: rusqlite::Error| Error::db(db, e);
    let dialect = mcp_db::dialect(conn).map_err(dbe)?;
    // IMMEDIATE takes the write lock up front, so the read-then-update
    // below cannot interleave with the server's own ack of the same row.
    let tx = Tx::begin(conn).map_err(dbe)?;
    let mut rows = Vec::with_capacity(keys.len());
    let mut failed = None;
    for key in keys {
        match set_one(&tx, &dialect, db, key, agent, now, what) {
            Ok(r) => rows.push(r),
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    crate::fsio::crash_point();
    tx.commit().map_err(dbe)?;
    crate::fsio::crash_point();
    match failed {
        Some(e) => Err(e),
        None => Ok(rows),
    }
}

/// Acks each of `keys` as `agent` at `now` in one transaction.
pub(crate) fn ack(
    conn: &rusqlite::Connection,
    db: &std::path::Path,
    keys: &[String],
    agent: &str,
    now: DateTime<Utc>,
) -> Result<Vec<AckOutcome>, Error> {
    Ok(set_many(conn, db, keys, agent, now, Set::Ack)?
        .into_iter()
        .map(|r| AckOutcome {
            key: r.key,
            agent: r.agent,
            ack_at: r.ack_was.unwrap_or(now),
            read_at: Some(r.read_was.unwrap_or(now)),
            changed: r.ack_was.is_none(),
        })
        .collect())
}

fn set_one(
    tx: &Tx<'_>,
    dialect: &super::timestamps::Dialect,
    db: &std::path::Path,
    key: &str,
    agent: &str,
    now: DateTime<Utc>,
    what: Set,
) -> Result<Row, Error> {
    // The store names the SOURCE that lists the ids (`McpStore`).
    let not_found = || Error::not_found(key, db.display().to_string(), "");
    let id: i64 = key.trim().parse().map_err(|_| not_found())?;
    let dbe = |e: rusqlite::Error| Error::db(db, e);
    let project: i64 = tx
        .query_row("SELECT project_id FROM messages WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .optional()
        .map_err(dbe)?
        .ok_or_else(|| mcp_db::not_found_in(tx, not_found()))?;
    // The recipient row of an agent of that project with that name (exact
    // name first; the server's names are case-insensitively unique).
    let row: Option<(i64, rusqlite::types::Value, rusqlite::types::Value, String)> = tx
        .query_row(
            "SELECT r.agent_id, r.read_ts, r.ack_ts, a.name
             FROM message_recipients r JOIN agents a ON a.id = r.agent_id
             WHERE r.message_id = ?1 AND a.project_id = ?2 AND lower(a.name) = lower(?3)
             ORDER BY a.name = ?3 DESC LIMIT 1",
            params![id, project, agent],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()
        .map_err(dbe)?;
    let Some((agent_id, read_ts, ack_ts, name)) = row else {
        let mut stmt = tx
            .prepare(
                "SELECT a.name FROM message_recipients r JOIN agents a ON a.id = r.agent_id
                 WHERE r.message_id = ?1 ORDER BY a.name",
            )
            .map_err(dbe)?;
        // As the load shows them: a name that is not UTF-8 with U+FFFD.
        let names: Vec<(String, bool)> = stmt
            .query_map([id], |r| {
                let mut damaged = None;
                let name = mcp_db::lossy_text(r, 0, "name", &mut damaged)?;
                Ok((name.unwrap_or_default(), damaged.is_some()))
            })
            .map_err(dbe)?
            .collect::<Result<_, _>>()
            .map_err(dbe)?;
        // The name as shown was asked for (the inbox acks as the
        // recipient it shows): it is not the stored one, and says so.
        if let Some((shown, _)) = names.iter().find(|(n, damaged)| *damaged && n == agent) {
            let name = crate::stores::error::NameNotUtf8::in_database(
                "the recipient's name",
                shown.clone(),
            );
            return Err(name.refused_in(db));
        }
        let names: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
        // The row was looked for by `lower(name)`, as the server matches.
        return Err(Error::not_recipient(
            key,
            agent,
            names.iter().copied(),
            true,
        ));
    };
    let read_was = decode(&read_ts);
    let ack_was = decode(&ack_ts);
    let sql = match what {
        Set::Ack if ack_was.is_none() || read_was.is_none() => Some(
            "UPDATE message_recipients
             SET read_ts = COALESCE(read_ts, ?1), ack_ts = COALESCE(ack_ts, ?1)
             WHERE message_id = ?2 AND agent_id = ?3",
        ),
        Set::Read if read_was.is_none() => Some(
            "UPDATE message_recipients SET read_ts = COALESCE(read_ts, ?1)
             WHERE message_id = ?2 AND agent_id = ?3",
        ),
        _ => None,
    };
    if let Some(sql) = sql {
        let v = dialect.encode(now);
        tx.execute(sql, params![v, id, agent_id]).map_err(dbe)?;
    }
    Ok(Row {
        key: key.to_string(),
        agent: name,
        read_was,
        ack_was,
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
