//! The fixture store in the Rust port's SQLite dialect (integer
//! microsecond timestamps), built from the Python server's database so the
//! inbox tests read the same rows in both dialects.

use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

/// Rewrites the copy's database into the Rust port's dialect: the same rows,
/// every timestamp as INTEGER microseconds since the epoch, with the Rust
/// port's extra `recipients_json` column and the FTS table and triggers.
pub fn convert_to_integer_dialect(db: &Path) {
    let old = Connection::open(db).unwrap();
    let new_path = db.with_extension("int.sqlite3");
    let _ = fs::remove_file(&new_path);
    let new = Connection::open(&new_path).unwrap();
    new.execute_batch(
        "PRAGMA journal_mode=WAL;
         CREATE TABLE projects (id INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE,
             human_key TEXT NOT NULL, created_at INTEGER NOT NULL);
         CREATE TABLE agents (id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL, name TEXT NOT NULL,
             program TEXT NOT NULL, model TEXT NOT NULL, task_description TEXT NOT NULL DEFAULT '',
             inception_ts INTEGER NOT NULL, last_active_ts INTEGER NOT NULL,
             attachments_policy TEXT NOT NULL DEFAULT 'auto', contact_policy TEXT NOT NULL DEFAULT 'auto',
             reaper_exempt INTEGER NOT NULL DEFAULT 0, registration_token TEXT,
             UNIQUE(project_id, name));
         CREATE TABLE messages (id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL,
             sender_id INTEGER NOT NULL, thread_id TEXT, subject TEXT NOT NULL, body_md TEXT NOT NULL,
             importance TEXT NOT NULL DEFAULT 'normal', ack_required INTEGER NOT NULL DEFAULT 0,
             created_ts INTEGER NOT NULL, attachments TEXT NOT NULL DEFAULT '[]',
             recipients_json TEXT NOT NULL DEFAULT '{}');
         CREATE TABLE message_recipients (message_id INTEGER NOT NULL, agent_id INTEGER NOT NULL,
             kind TEXT NOT NULL DEFAULT 'to', read_ts INTEGER, ack_ts INTEGER,
             PRIMARY KEY(message_id, agent_id));
         CREATE INDEX idx_mr_agent_ack ON message_recipients(agent_id, ack_ts);
         CREATE VIRTUAL TABLE fts_messages USING fts5(message_id UNINDEXED, subject, body);
         CREATE TRIGGER fts_messages_ai AFTER INSERT ON messages BEGIN
             INSERT INTO fts_messages(rowid, message_id, subject, body)
             VALUES (new.id, new.id, new.subject, new.body_md);
         END;",
    )
    .unwrap();
    {
        let micros = |s: Option<String>| -> Option<i64> {
            s.map(|s| {
                chrono::NaiveDateTime::parse_from_str(&s, "%Y-%m-%d %H:%M:%S%.f")
                    .unwrap()
                    .and_utc()
                    .timestamp_micros()
            })
        };
        let mut st = old
            .prepare("SELECT id, slug, human_key, created_at FROM projects")
            .unwrap();
        for r in st
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .unwrap()
        {
            let (id, slug, key, at) = r.unwrap();
            new.execute(
                "INSERT INTO projects VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![id, slug, key, micros(Some(at))],
            )
            .unwrap();
        }
        let mut st = old
        .prepare("SELECT id, project_id, name, program, model, task_description, inception_ts, last_active_ts FROM agents")
        .unwrap();
        for r in st
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, String>(7)?,
                ))
            })
            .unwrap()
        {
            let (id, p, name, prog, model, task, inc, last) = r.unwrap();
            new.execute(
            "INSERT INTO agents (id, project_id, name, program, model, task_description, inception_ts, last_active_ts)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            rusqlite::params![id, p, name, prog, model, task, micros(Some(inc)), micros(Some(last))],
        )
        .unwrap();
        }
        let mut st = old
        .prepare("SELECT id, project_id, sender_id, thread_id, subject, body_md, importance, ack_required, created_ts FROM messages")
        .unwrap();
        for r in st
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, i64>(7)?,
                    r.get::<_, String>(8)?,
                ))
            })
            .unwrap()
        {
            let (id, p, s, t, subj, body, imp, ack, created) = r.unwrap();
            new.execute(
            "INSERT INTO messages (id, project_id, sender_id, thread_id, subject, body_md, importance, ack_required, created_ts)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            rusqlite::params![id, p, s, t, subj, body, imp, ack, micros(Some(created))],
        )
        .unwrap();
        }
        let mut st = old
            .prepare("SELECT message_id, agent_id, kind, read_ts, ack_ts FROM message_recipients")
            .unwrap();
        for r in st
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<String>>(4)?,
                ))
            })
            .unwrap()
        {
            let (m, a, k, read, ack) = r.unwrap();
            new.execute(
                "INSERT INTO message_recipients VALUES (?1, ?2, ?3, ?4, ?5)",
                rusqlite::params![m, a, k, micros(read), micros(ack)],
            )
            .unwrap();
        }
    }
    drop(old);
    drop(new);
    fs::remove_file(db).unwrap();
    for ext in ["-wal", "-shm"] {
        let side = PathBuf::from(format!("{}{ext}", new_path.display()));
        if side.exists() {
            fs::rename(&side, format!("{}{ext}", db.display())).unwrap();
        }
    }
    fs::rename(&new_path, db).unwrap();
}
