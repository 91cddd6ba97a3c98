//! Sending a new message into an mcp_agent_mail store: what the server's
//! `send_message` does, the same writes a reply makes ([`super::reply`]):
//! under the project's archive lock, the `messages` row and its
//! `message_recipients` rows in one transaction, then the canonical,
//! outbox and inbox copies and a Git commit ([`super::archive`]).
//!
//! The project is the one the thread lives in (`Draft::thread`), else the
//! one whose agents include the sender and every recipient; names are
//! matched as the server matches them (case-insensitively, exact first).

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::archive::{self as mcp_archive, ArchiveMessage, SoftLock, LOCK_TIMEOUT};
use super::db::{self as mcp_db, Tx};
use super::insert;
use crate::stores::draft;
use crate::stores::error::Error;
use crate::stores::names::check_components;
use crate::stores::store::{Draft, ReplyOutcome};

/// The agent `name` of project `project`: (id, name as stored).
fn agent(
    conn: &rusqlite::Connection,
    project: i64,
    name: &str,
) -> rusqlite::Result<Option<(i64, String)>> {
    conn.query_row(
        "SELECT id, name FROM agents WHERE project_id = ?1 AND lower(name) = lower(?2)
         ORDER BY name = ?2 DESC LIMIT 1",
        params![project, name],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .optional()
}

/// The project the draft goes to (see the module doc).
fn project(
    conn: &rusqlite::Connection,
    d: &Draft,
    to: &[String],
) -> rusqlite::Result<Option<(i64, String, String)>> {
    let by_id = |id: i64| {
        conn.query_row(
            "SELECT id, slug, human_key FROM projects WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    r.get(0)?,
                    mcp_db::stored_name(r, 1, "its project's slug")?,
                    mcp_db::stored_name(r, 2, "its project's human key")?,
                ))
            },
        )
        .optional()
    };
    if let Some(thread) = d.thread.as_deref().filter(|t| !t.trim().is_empty()) {
        let id: Option<i64> = conn
            .query_row(
                "SELECT project_id FROM messages WHERE thread_id = ?1 OR CAST(id AS TEXT) = ?1
                 ORDER BY id LIMIT 1",
                [thread],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(id) = id {
            return by_id(id);
        }
    }
    let mut stmt = conn.prepare("SELECT id FROM projects ORDER BY id")?;
    let ids: Vec<i64> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for id in ids {
        let mut all = agent(conn, id, d.from.trim())?.is_some();
        for t in to {
            all = all && agent(conn, id, t)?.is_some();
        }
        if all {
            return by_id(id);
        }
    }
    Ok(None)
}

pub(crate) fn send(
    archive: &std::path::Path,
    db: &std::path::Path,
    d: &Draft,
    now: DateTime<Utc>,
) -> Result<ReplyOutcome, Error> {
    draft::check(d)?;
    let dbe = |e: rusqlite::Error| Error::db(db, e);
    let to = draft::recipients(d);
    let conn = mcp_db::open_read_write(db).map_err(dbe)?;
    let Some((project_id, slug, human_key)) = project(&conn, d, &to).map_err(dbe)? else {
        let mut names = vec![d.from.trim().to_string()];
        names.extend(to.iter().cloned());
        return Err(Error::Rejected(format!(
            "no project of {} has all of {} as agents; send within one project",
            db.display(),
            names.join(", ")
        )));
    };
    check_components(&[("project slug", &slug)])?;
    let _lock = SoftLock::acquire(
        &archive.join("projects").join(&slug).join(".archive.lock"),
        LOCK_TIMEOUT,
    )?;
    let dialect = mcp_db::dialect(&conn).map_err(dbe)?;
    let tx = Tx::begin(&conn).map_err(dbe)?;
    let unknown = |name: &str| {
        Error::Rejected(format!(
            "{name} is not an agent of project {slug}; send to and from its agents"
        ))
    };
    let (sender_id, sender) = agent(&tx, project_id, d.from.trim())
        .map_err(dbe)?
        .ok_or_else(|| unknown(d.from.trim()))?;
    let mut recipients: Vec<(i64, String)> = Vec::new();
    for t in &to {
        recipients.push(
            agent(&tx, project_id, t)
                .map_err(dbe)?
                .ok_or_else(|| unknown(t))?,
        );
    }
    let names: Vec<String> = recipients.iter().map(|(_, n)| n.clone()).collect();
    let mut parts = vec![("agent name", sender.as_str())];
    parts.extend(names.iter().map(|n| ("recipient", n.as_str())));
    check_components(&parts)?;
    let subject = draft::subject(d);
    let body_md = draft::body(d);
    let importance = d.importance.clone().unwrap_or_else(|| "normal".into());
    let thread = d.thread.clone().filter(|t| !t.trim().is_empty());
    let ts = dialect.encode(now);
    // The 0.3.x schema (it has `messages.topic`) commits under a lock per
    // project, as replies do.
    let per_project_lock = mcp_db::column_type(&tx, "messages", "topic")
        .map_err(dbe)?
        .is_some();
    let new_id = insert::insert(
        &tx,
        &insert::NewRow {
            project_id,
            sender_id,
            thread_id: thread.as_deref(),
            subject: &subject,
            body_md: &body_md,
            importance: &importance,
            ack_required: d.ack_required,
            ts: &ts,
            topic: None,
            to: &recipients,
        },
    )
    .map_err(dbe)?;
    crate::fsio::crash_point();
    tx.commit().map_err(dbe)?;
    crate::fsio::crash_point();

    let m = ArchiveMessage {
        id: new_id,
        thread_id: thread.clone(),
        project: human_key,
        project_slug: slug,
        from: sender,
        to: names.clone(),
        cc: vec![],
        bcc: vec![],
        subject: subject.clone(),
        importance,
        ack_required: d.ack_required,
        created: now,
        body_md,
        from_project: None,
    };
    let rel = mcp_archive::write_bundle(archive, &m)?;
    let lock = if per_project_lock {
        mcp_archive::CommitLock::PerProject
    } else {
        mcp_archive::CommitLock::ArchiveRoot
    };
    let committed = mcp_archive::git_commit(archive, &m, &rel, "send_message", lock)?;
    Ok(ReplyOutcome {
        key: new_id.to_string(),
        from: m.from.clone(),
        thread: thread.unwrap_or_else(|| new_id.to_string()),
        subject,
        to: names,
        paths: rel.iter().map(|r| archive.join(r)).collect(),
        committed,
    })
}
