//! The mcp_agent_mail `storage.sqlite3`, without disturbing the live
//! server: a read-only connection, a busy timeout so a writer's lock makes us
//! wait instead of fail, and one read transaction so the snapshot is
//! consistent (in WAL mode readers never block the writer); writes (ack,
//! reply) in one short `BEGIN IMMEDIATE` transaction (`Tx`).
//!
//! Works on the Python schema (TEXT timestamps; with or without `topic`) and
//! on the Rust port's (INTEGER microseconds). Only columns present in every
//! dialect are read.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OpenFlags};

use super::timestamps::{self, Dialect};

/// How long a reader or writer waits for a busy database before giving up.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// One `message_recipients` row with the agent's name.
#[derive(Debug, Clone, PartialEq)]
pub struct RecipientRow {
    pub agent: String,
    pub kind: String,
    pub read_ts: Option<DateTime<Utc>>,
    pub ack_ts: Option<DateTime<Utc>>,
}

/// One `messages` row, joined with its project, sender and recipients.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageRow {
    pub id: i64,
    pub project_slug: String,
    pub project_key: String,
    pub sender: String,
    pub thread_id: Option<String>,
    pub subject: String,
    pub body_md: String,
    pub importance: String,
    pub ack_required: bool,
    pub created: Option<DateTime<Utc>>,
    pub recipients: Vec<RecipientRow>,
}

/// [`BUSY_TIMEOUT`], or `AMAIL_SQLITE_BUSY_MS` milliseconds (a test hook,
/// so a test of a held lock does not wait five seconds).
pub(crate) fn busy_timeout() -> Duration {
    std::env::var("AMAIL_SQLITE_BUSY_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(BUSY_TIMEOUT, Duration::from_millis)
}

/// Opens the database read-only with a busy timeout.
pub(crate) fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(busy_timeout())?;
    Ok(conn)
}

/// Opens the database for a short write (ack, reply) with a busy timeout.
/// The journal mode is left as the server set it (WAL).
pub(crate) fn open_read_write(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(busy_timeout())?;
    Ok(conn)
}

/// Which timestamp dialect the database uses: what the stored values are,
/// else what the `created_ts` column is declared as.
pub fn dialect(conn: &Connection) -> rusqlite::Result<Dialect> {
    let stored: Option<String> = conn
        .query_row(
            "SELECT typeof(created_ts) FROM messages ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .ok();
    if let Some(t) = stored {
        return Ok(if t == "integer" {
            Dialect::IntegerMicros
        } else {
            Dialect::Text
        });
    }
    let declared = column_type(conn, "messages", "created_ts")?.unwrap_or_default();
    Ok(if declared.to_ascii_uppercase().contains("INT") {
        Dialect::IntegerMicros
    } else {
        Dialect::Text
    })
}

/// The declared type of a column, `None` when the column does not exist.
pub(crate) fn column_type(
    conn: &Connection,
    table: &str,
    column: &str,
) -> rusqlite::Result<Option<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info({table})"))?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?;
    for row in rows {
        let (name, ty) = row?;
        if name == column {
            return Ok(Some(ty));
        }
    }
    Ok(None)
}

/// Every message with its recipients, oldest id first, in one consistent
/// read snapshot.
pub fn read_messages(conn: &Connection) -> rusqlite::Result<Vec<MessageRow>> {
    let tx = conn.unchecked_transaction()?;
    let mut recipients: HashMap<i64, Vec<RecipientRow>> = HashMap::new();
    {
        let mut stmt = tx.prepare(
            "SELECT r.message_id, a.name, r.kind, r.read_ts, r.ack_ts
             FROM message_recipients r JOIN agents a ON a.id = r.agent_id
             ORDER BY r.message_id, CASE r.kind WHEN 'to' THEN 0 WHEN 'cc' THEN 1 ELSE 2 END, a.name",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            recipients.entry(r.get(0)?).or_default().push(RecipientRow {
                agent: r.get(1)?,
                kind: r
                    .get::<_, Option<String>>(2)?
                    .unwrap_or_else(|| "to".into()),
                read_ts: timestamps::decode(r.get_ref(3)?),
                ack_ts: timestamps::decode(r.get_ref(4)?),
            });
        }
    }
    let mut out = Vec::new();
    {
        let mut stmt = tx.prepare(
            "SELECT m.id, p.slug, p.human_key, a.name, m.thread_id, m.subject, m.body_md,
                    m.importance, m.ack_required, m.created_ts
             FROM messages m
             JOIN projects p ON p.id = m.project_id
             LEFT JOIN agents a ON a.id = m.sender_id
             ORDER BY m.id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            out.push(MessageRow {
                id,
                project_slug: r.get(1)?,
                project_key: r.get(2)?,
                sender: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
                thread_id: r.get::<_, Option<String>>(4)?.filter(|t| !t.is_empty()),
                subject: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                body_md: r.get::<_, Option<String>>(6)?.unwrap_or_default(),
                importance: r
                    .get::<_, Option<String>>(7)?
                    .unwrap_or_else(|| "normal".into()),
                ack_required: truthy(r.get_ref(8)?),
                created: timestamps::decode(r.get_ref(9)?),
                recipients: recipients.remove(&id).unwrap_or_default(),
            });
        }
    }
    tx.finish()?;
    Ok(out)
}

/// SQLite booleans: 0/1 integers, but tolerate text and reals.
pub fn truthy(v: rusqlite::types::ValueRef<'_>) -> bool {
    use rusqlite::types::ValueRef;
    match v {
        ValueRef::Integer(i) => i != 0,
        ValueRef::Real(f) => f != 0.0,
        ValueRef::Text(t) => matches!(t, b"1" | b"true" | b"TRUE" | b"True"),
        _ => false,
    }
}

/// A `BEGIN IMMEDIATE` transaction rolled back on drop unless committed.
/// (`rusqlite::Transaction` wants `&mut Connection`; one connection serves
/// every key of an `amail ack`, so it is driven by hand.)
pub(crate) struct Tx<'c> {
    conn: &'c Connection,
    done: bool,
}

impl<'c> Tx<'c> {
    pub(crate) fn begin(conn: &'c Connection) -> rusqlite::Result<Tx<'c>> {
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
    type Target = Connection;
    fn deref(&self) -> &Connection {
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
