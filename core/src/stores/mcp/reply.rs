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

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::archive::{self as mcp_archive, ArchiveMessage, SoftLock, LOCK_TIMEOUT};
use super::db::{self as mcp_db, Tx};
use crate::stores::error::Error;
use crate::stores::names::check_components;
use crate::stores::reply_rule::{self, ReplyKind};
use crate::stores::store::ReplyOutcome;

/// The body the server stores for our reply: the HELP_RESPONSE type on the
/// first line (as the fixture's orchestrator writes it), because the
/// subject stays the original's `Re: [bead] HELP_REQUEST`.
fn help_response_body(body: &str) -> String {
    let b = body.trim();
    let first = b.lines().next().unwrap_or("").trim();
    if first.eq_ignore_ascii_case("HELP_RESPONSE") {
        b.to_string()
    } else {
        format!("HELP_RESPONSE\n\n{b}")
    }
}

struct Original {
    project_id: i64,
    slug: String,
    human_key: String,
    sender: String,
    thread_id: Option<String>,
    subject: String,
    importance: String,
    ack_required: bool,
    body_md: String,
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
    let not_found = || Error::NotFound {
        key: key.to_string(),
        where_: db.display().to_string(),
    };
    let orig_id: i64 = key.trim().parse().map_err(|_| not_found())?;
    let conn = mcp_db::open_read_write(db).map_err(dbe)?;
    // The project slug is needed for the lock before the write transaction.
    let slug: String = conn
        .query_row(
            "SELECT p.slug FROM messages m JOIN projects p ON p.id = m.project_id WHERE m.id = ?1",
            [orig_id],
            |r| r.get(0),
        )
        .optional()
        .map_err(dbe)?
        .ok_or_else(not_found)?;
    check_components(&[("project slug", &slug)])?;
    let _lock = SoftLock::acquire(
        &archive.join("projects").join(&slug).join(".archive.lock"),
        LOCK_TIMEOUT,
    )?;
    let dialect = mcp_db::dialect(&conn).map_err(dbe)?;
    let tx = Tx::begin(&conn).map_err(dbe)?;
    let orig = tx
        .query_row(
            "SELECT m.project_id, p.slug, p.human_key, m.sender_id, a.name, m.thread_id,
                    m.subject, m.importance, m.ack_required, m.body_md
             FROM messages m JOIN projects p ON p.id = m.project_id
             JOIN agents a ON a.id = m.sender_id WHERE m.id = ?1",
            [orig_id],
            |r| {
                Ok(Original {
                    project_id: r.get(0)?,
                    slug: r.get(1)?,
                    human_key: r.get(2)?,
                    sender: r.get(4)?,
                    thread_id: r.get::<_, Option<String>>(5)?.filter(|t| !t.is_empty()),
                    subject: r.get(6)?,
                    importance: r
                        .get::<_, Option<String>>(7)?
                        .unwrap_or_else(|| "normal".into()),
                    ack_required: mcp_db::truthy(r.get_ref(8)?),
                    body_md: r.get::<_, Option<String>>(9)?.unwrap_or_default(),
                })
            },
        )
        .optional()
        .map_err(dbe)?
        .ok_or_else(not_found)?;
    let mut recipients: (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    {
        let mut stmt = tx
            .prepare(
                "SELECT a.name, r.kind FROM message_recipients r JOIN agents a ON a.id = r.agent_id
                 WHERE r.message_id = ?1 ORDER BY a.id",
            )
            .map_err(dbe)?;
        let rows = stmt
            .query_map([orig_id], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
            })
            .map_err(dbe)?;
        for row in rows {
            let (name, kind) = row.map_err(dbe)?;
            match kind.as_deref().unwrap_or("to") {
                "to" => recipients.0.push(name),
                _ => recipients.1.push(name),
            }
        }
    }
    let sender: Option<(i64, String)> = tx
        .query_row(
            "SELECT id, name FROM agents WHERE project_id = ?1 AND lower(name) = lower(?2)
             ORDER BY name = ?2 DESC LIMIT 1",
            params![orig.project_id, as_agent],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map_err(dbe)?;
    let Some((sender_id, sender_name)) = sender else {
        let mut stmt = tx
            .prepare("SELECT name FROM agents WHERE project_id = ?1 ORDER BY name")
            .map_err(dbe)?;
        let names: Vec<String> = stmt
            .query_map([orig.project_id], |r| r.get(0))
            .map_err(dbe)?
            .collect::<Result<_, _>>()
            .map_err(dbe)?;
        return Err(Error::Invalid(format!(
            "{as_agent} is not an agent of project {} (agents: {}); reply --as one of them",
            orig.slug,
            names.join(", ")
        )));
    };
    let orig_kind = reply_rule::kind_of(&orig.subject, &orig.body_md);
    let plan = reply_rule::plan(
        &reply_rule::Original {
            key,
            sender: Some(&orig.sender),
            to: &recipients.0,
            cc: &recipients.1,
            subject: &orig.subject,
            kind: orig_kind,
        },
        &sender_name,
    )?;
    let mut to_ids: Vec<i64> = Vec::new();
    for name in &plan.to {
        let id: i64 = tx
            .query_row(
                "SELECT id FROM agents WHERE project_id = ?1 AND name = ?2",
                params![orig.project_id, name],
                |r| r.get(0),
            )
            .map_err(dbe)?;
        to_ids.push(id);
    }
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
        ReplyKind::HelpResponse => help_response_body(body),
        ReplyKind::Plain => body.trim().to_string(),
    };
    let ts = dialect.encode(now);

    // Only the columns this database has (the Rust port adds recipients_json).
    let has_recipients_json = mcp_db::column_type(&tx, "messages", "recipients_json")
        .map_err(dbe)?
        .is_some();
    let mut cols = vec![
        "project_id",
        "sender_id",
        "thread_id",
        "subject",
        "body_md",
        "importance",
        "ack_required",
        "created_ts",
        "attachments",
    ];
    let mut values: Vec<rusqlite::types::Value> = vec![
        orig.project_id.into(),
        sender_id.into(),
        thread.clone().into(),
        subject.clone().into(),
        body_md.clone().into(),
        orig.importance.clone().into(),
        i64::from(orig.ack_required).into(),
        ts.clone(),
        "[]".to_string().into(),
    ];
    if has_recipients_json {
        cols.push("recipients_json");
        values.push(
            serde_json::json!({"to": plan.to.clone(), "cc": [], "bcc": []})
                .to_string()
                .into(),
        );
    }
    let placeholders: Vec<String> = (1..=cols.len()).map(|i| format!("?{i}")).collect();
    tx.execute(
        &format!(
            "INSERT INTO messages ({}) VALUES ({})",
            cols.join(", "),
            placeholders.join(", ")
        ),
        rusqlite::params_from_iter(values.iter()),
    )
    .map_err(dbe)?;
    let new_id = tx.last_insert_rowid();
    for id in &to_ids {
        tx.execute(
            "INSERT INTO message_recipients (message_id, agent_id, kind, read_ts, ack_ts)
             VALUES (?1, ?2, 'to', NULL, NULL)",
            params![new_id, id],
        )
        .map_err(dbe)?;
    }
    // The server marks the sender active when it sends.
    tx.execute(
        "UPDATE agents SET last_active_ts = ?1 WHERE id = ?2",
        params![ts, sender_id],
    )
    .map_err(dbe)?;
    crate::fsio::crash_point();
    tx.commit().map_err(dbe)?;
    crate::fsio::crash_point();

    let m = ArchiveMessage {
        id: new_id,
        thread_id: Some(thread.clone()),
        project: orig.human_key.clone(),
        project_slug: orig.slug.clone(),
        from: sender_name,
        to: plan.to.clone(),
        cc: vec![],
        bcc: vec![],
        subject: subject.clone(),
        importance: orig.importance.clone(),
        ack_required: orig.ack_required,
        created: now,
        body_md,
    };
    let rel = mcp_archive::write_bundle(archive, &m)?;
    let committed = mcp_archive::git_commit(archive, &m, &rel, "reply_message")?;
    Ok(ReplyOutcome {
        key: new_id.to_string(),
        thread,
        subject,
        to: plan.to,
        paths: rel.iter().map(|r| archive.join(r)).collect(),
        committed,
    })
}
