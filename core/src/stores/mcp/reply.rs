//! Replying in an mcp_agent_mail store: what the server's `reply_message`
//! does, so the agents see the reply through their normal `fetch_inbox`:
//! under the server's archive lock, the `messages` row and
//! `message_recipients` rows in one transaction (the FTS triggers index it),
//! then the canonical, outbox and inbox copies, the thread digest entry and
//! a Git commit ([`super::archive`]). Like `reply_message`: thread =
//! original thread id or the original's id, subject `Re: ` + original
//! unless already prefixed, importance and ack_required inherited from the
//! original. Who may reply, to whom and whether it is a HELP_RESPONSE is
//! [`reply_rule`], the rule the plain mailbox applies too.
//!
//! The 0.3.x server's rules too: a reply goes into the project of its
//! recipient (a message from an agent of another project is answered in
//! that agent's project, with the upstream `from_project` keys), copies
//! the original's `topic` when the schema has one, and is committed under
//! the per-project commit lock of that schema.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::archive::{
    self as mcp_archive, ArchiveMessage, CommitLock, FromProject, SoftLock, LOCK_TIMEOUT,
};
use super::db::{self as mcp_db, Tx};
use super::insert;
use crate::stores::error::Error;
use crate::stores::names::check_components;
use crate::stores::reply_rule::{self, ReplyKind};
use crate::stores::store::ReplyOutcome;

struct Original {
    project_id: i64,
    slug: String,
    sender: String,
    thread_id: Option<String>,
    topic: Option<String>,
    subject: String,
    importance: String,
    ack_required: bool,
    body_md: String,
}

/// An agent of the original message (its sender or a recipient) with the
/// project it belongs to: a sender from another project answers there.
struct Participant {
    id: i64,
    name: String,
    project_id: i64,
}

/// Slug and human key of project `id`.
fn project(tx: &rusqlite::Connection, id: i64) -> rusqlite::Result<(String, String)> {
    tx.query_row(
        "SELECT slug, human_key FROM projects WHERE id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Answers message `key` (the database id) as `as_agent` at `now` in the
/// store of `archive` and `db`.
pub(crate) fn reply(
    archive: &std::path::Path,
    db: &std::path::Path,
    key: &str,
    as_agent: &str,
    body: &str,
    now: DateTime<Utc>,
) -> Result<ReplyOutcome, Error> {
    let dbe = |e: rusqlite::Error| Error::db(db, e);
    // The store names the SOURCE that lists the ids (`McpStore`).
    let not_found = || Error::not_found(key, db.display().to_string(), "");
    let orig_id: i64 = key.trim().parse().map_err(|_| not_found())?;
    let conn = mcp_db::open_read_write(db).map_err(dbe)?;
    // The locks come before the write transaction (the server's order), so
    // every project the reply may be written into is read first: the
    // message's and those of its participants (a cross-project sender's).
    let mut slugs: Vec<String> = {
        let mut stmt = conn
            .prepare(
                "SELECT p.slug FROM messages m JOIN projects p ON p.id = m.project_id WHERE m.id = ?1
                 UNION SELECT p.slug FROM messages m JOIN agents a ON a.id = m.sender_id
                       JOIN projects p ON p.id = a.project_id WHERE m.id = ?1
                 UNION SELECT p.slug FROM message_recipients r JOIN agents a ON a.id = r.agent_id
                       JOIN projects p ON p.id = a.project_id WHERE r.message_id = ?1",
            )
            .map_err(dbe)?;
        let rows = stmt
            .query_map([orig_id], |r| {
                mcp_db::stored_name(r, 0, "the slug of a project it is in")
            })
            .map_err(dbe)?;
        rows.collect::<Result<_, _>>().map_err(dbe)?
    };
    if slugs.is_empty() {
        return Err(mcp_db::not_found_in(&conn, not_found()));
    }
    // One order for every writer that takes several: no lock cycle.
    slugs.sort();
    let components: Vec<(&str, &str)> =
        slugs.iter().map(|s| ("project slug", s.as_str())).collect();
    check_components(&components)?;
    let _locks = slugs
        .iter()
        .map(|slug| {
            SoftLock::acquire(
                &archive.join("projects").join(slug).join(".archive.lock"),
                LOCK_TIMEOUT,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let dialect = mcp_db::dialect(&conn).map_err(dbe)?;
    // The 0.3.x schema: messages.topic, copied into the reply, and the
    // commit lock per project.
    let has_topic = mcp_db::column_type(&conn, "messages", "topic")
        .map_err(dbe)?
        .is_some();
    let tx = Tx::begin(&conn).map_err(dbe)?;
    let topic_col = if has_topic { "m.topic" } else { "NULL" };
    let orig = tx
        .query_row(
            &format!(
                "SELECT m.project_id, p.slug, a.name, m.thread_id,
                        m.subject, m.importance, m.ack_required, m.body_md, {topic_col}
                 FROM messages m JOIN projects p ON p.id = m.project_id
                 JOIN agents a ON a.id = m.sender_id WHERE m.id = ?1"
            ),
            [orig_id],
            |r| {
                // Its texts as the load shows them: bytes that are not
                // UTF-8 read as U+FFFD (the load names the row), so a
                // message shown can be answered.
                let mut damaged = None;
                let mut text = |i, column| mcp_db::lossy_text(r, i, column, &mut damaged);
                Ok(Original {
                    project_id: r.get(0)?,
                    slug: mcp_db::stored_name(r, 1, "its project's slug")?,
                    sender: mcp_db::stored_name(r, 2, "its sender's name")?,
                    // Where the reply is filed: as stored, or refused.
                    thread_id: mcp_db::stored_place(r, 3, "its thread")?.filter(|t| !t.is_empty()),
                    subject: text(4, "subject")?.unwrap_or_default(),
                    importance: text(5, "importance")?.unwrap_or_else(|| "normal".into()),
                    ack_required: mcp_db::truthy(r.get_ref(6)?),
                    body_md: text(7, "body_md")?.unwrap_or_default(),
                    topic: mcp_db::stored_place(r, 8, "its topic")?,
                })
            },
        )
        .optional()
        .map_err(dbe)?
        .ok_or_else(not_found)?;
    let mut recipients: (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    // The sender first, then the recipients: who may answer, and where.
    let mut participants: Vec<Participant> = vec![tx
        .query_row(
            "SELECT a.id, a.name, a.project_id FROM messages m JOIN agents a ON a.id = m.sender_id
             WHERE m.id = ?1",
            [orig_id],
            |r| {
                Ok(Participant {
                    id: r.get(0)?,
                    name: mcp_db::stored_name(r, 1, "its sender's name")?,
                    project_id: r.get(2)?,
                })
            },
        )
        .map_err(dbe)?];
    {
        let mut stmt = tx
            .prepare(
                "SELECT a.name, r.kind, a.id, a.project_id FROM message_recipients r
                 JOIN agents a ON a.id = r.agent_id
                 WHERE r.message_id = ?1 ORDER BY a.id",
            )
            .map_err(dbe)?;
        let rows = stmt
            .query_map([orig_id], |r| {
                Ok((
                    mcp_db::stored_name(r, 0, "a recipient's name")?,
                    mcp_db::lossy_text(r, 1, "kind", &mut None)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            })
            .map_err(dbe)?;
        for row in rows {
            let (name, kind, id, project_id) = row.map_err(dbe)?;
            match kind.as_deref().unwrap_or("to") {
                "to" => recipients.0.push(name.clone()),
                _ => recipients.1.push(name.clone()),
            }
            participants.push(Participant {
                id,
                name,
                project_id,
            });
        }
    }
    let participant = |name: &str| {
        participants.iter().find(|p| p.name == name).or_else(|| {
            participants
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(name))
        })
    };
    // The replier: a participant (whatever project it is in), else an agent
    // of the message's project, whom the reply rule then refuses.
    let sender: Option<(i64, String, i64)> = match participant(as_agent) {
        Some(p) => Some((p.id, p.name.clone(), p.project_id)),
        None => tx
            .query_row(
                "SELECT id, name, project_id FROM agents WHERE project_id = ?1 AND lower(name) = lower(?2)
                 ORDER BY name = ?2 DESC LIMIT 1",
                params![orig.project_id, as_agent],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(dbe)?,
    };
    let Some((sender_id, sender_name, sender_project)) = sender else {
        let mut stmt = tx
            .prepare("SELECT name FROM agents WHERE project_id = ?1 ORDER BY name")
            .map_err(dbe)?;
        let names: Vec<String> = stmt
            .query_map([orig.project_id], |r| r.get(0))
            .map_err(dbe)?
            .collect::<Result<_, _>>()
            .map_err(dbe)?;
        // Matched by `lower(name)` above, as the server matches.
        let near =
            amail_parser::near::nearest_name(as_agent, names.iter().map(String::as_str), true);
        return Err(Error::Rejected(format!(
            "{as_agent}{} is not an agent of project {} (agents: {}); reply --as one of them",
            amail_parser::near::did_you_mean(near),
            orig.slug,
            names.join(", ")
        )));
    };
    let (orig_kind, orig_bead) = reply_rule::kind_and_bead(&orig.subject, &orig.body_md);
    let plan = reply_rule::plan(
        &reply_rule::Original {
            key,
            sender: Some(&orig.sender),
            to: &recipients.0,
            cc: &recipients.1,
            subject: &orig.subject,
            kind: orig_kind,
            thread: orig.thread_id.as_deref(),
            bead: orig_bead.as_deref(),
            source: &crate::inbox::SourceKind::McpStore {
                root: archive.to_path_buf(),
                db: db.to_path_buf(),
            },
        },
        &sender_name,
    )?;
    // The recipients are participants of the original (the reply rule
    // picks them from it), with the project each belongs to.
    let mut to_ids: Vec<i64> = Vec::new();
    let mut to_projects: Vec<i64> = Vec::new();
    for name in &plan.to {
        let (id, project_id) = match participant(name) {
            Some(p) => (p.id, p.project_id),
            None => tx
                .query_row(
                    "SELECT id, project_id FROM agents WHERE project_id = ?1 AND name = ?2",
                    params![orig.project_id, name],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .map_err(dbe)?,
        };
        to_ids.push(id);
        to_projects.push(project_id);
    }
    // The server writes a reply into its recipient's project, where the
    // recipient's fetch_inbox reads it: a message from another project is
    // answered there, not in the project it arrived in.
    let reply_project = match to_projects.first() {
        Some(&p) if to_projects.iter().all(|&q| q == p) => p,
        _ => orig.project_id,
    };
    let (reply_slug, reply_key) = project(&tx, reply_project).map_err(dbe)?;
    debug_assert!(reply_project != orig.project_id || reply_slug == orig.slug);
    let from_project = if sender_project != reply_project {
        let (slug, human_key) = project(&tx, sender_project).map_err(dbe)?;
        Some(FromProject { human_key, slug })
    } else {
        None
    };
    // Every name that becomes a directory of the archive copies, checked
    // before anything is written.
    let mut names = vec![("agent name", sender_name.as_str())];
    names.extend(plan.to.iter().map(|n| ("recipient", n.as_str())));
    check_components(&names)?;
    let thread = orig
        .thread_id
        .clone()
        .unwrap_or_else(|| orig_id.to_string());
    let subject = plan.re_subject.clone();
    let body_md = match plan.kind {
        ReplyKind::HelpResponse => reply_rule::help_response_body(body),
        ReplyKind::Plain => reply_rule::body_text(body).to_string(),
    };
    let ts = dialect.encode(now);

    let to: Vec<(i64, String)> = to_ids.iter().copied().zip(plan.to.clone()).collect();
    let new_id = insert::insert(
        &tx,
        &insert::NewRow {
            project_id: reply_project,
            sender_id,
            thread_id: Some(&thread),
            subject: &subject,
            body_md: &body_md,
            importance: &orig.importance,
            ack_required: orig.ack_required,
            ts: &ts,
            topic: orig.topic.as_deref(),
            to: &to,
        },
    )
    .map_err(dbe)?;
    crate::fsio::crash_point();
    tx.commit().map_err(dbe)?;
    crate::fsio::crash_point();

    let m = ArchiveMessage {
        id: new_id,
        thread_id: Some(thread.clone()),
        project: reply_key,
        project_slug: reply_slug,
        from: sender_name,
        to: plan.to.clone(),
        cc: vec![],
        bcc: vec![],
        subject: subject.clone(),
        importance: orig.importance.clone(),
        ack_required: orig.ack_required,
        created: now,
        body_md,
        from_project,
    };
    let rel = mcp_archive::write_bundle(archive, &m)?;
    let lock = if has_topic {
        CommitLock::PerProject
    } else {
        CommitLock::ArchiveRoot
    };
    let committed = mcp_archive::git_commit(archive, &m, &rel, "reply_message", lock)?;
    Ok(ReplyOutcome {
        key: new_id.to_string(),
        from: m.from.clone(),
        thread,
        subject,
        to: plan.to,
        paths: rel.iter().map(|r| archive.join(r)).collect(),
        committed,
    })
}
