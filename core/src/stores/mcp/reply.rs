//! `amail reply`: answer a message (usually a HELP_REQUEST) with a
//! HELP_RESPONSE in the same thread, addressed to the original sender.
//!
//! - plain mailbox: a new mail file in spec-text framing (headers,
//!   `Subject:`, `Body:`), written atomically; nothing existing is touched.
//! - mcp_agent_mail store: what the server's `reply_message` does, so the
//!   agents see the reply through their normal `fetch_inbox`: under the
//!   server's archive lock, the `messages` row and `message_recipients` rows
//!   in one transaction (the FTS triggers index it), then the canonical,
//!   outbox and inbox copies, the thread digest entry and a Git commit.
//!   Like `reply_message`: thread = original thread id or the original's id,
//!   subject `Re: ` + original unless already prefixed, importance and
//!   ack_required inherited from the original.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::ack::{micros, Tx};
use super::load::{load_mailbox, Messages};
use super::mcp_archive::{self, ArchiveMessage, SoftLock, LOCK_TIMEOUT};
use super::{Error, Inbox, SourceKind};
use crate::source::mcp_db;

/// Why `s` may not be one path component of a file amail writes, or
/// `None` when it may: empty, `.`/`..` or a leading dot, a separator (`/`,
/// `\\`), NUL or another control character, a drive colon, more than 200
/// bytes, or a Windows reserved device name (`CON`, `NUL`, `COM1`, ...,
/// with any extension). Agent names, project slugs and thread ids from a
/// database pass through here before they become directories.
pub fn unsafe_component(s: &str) -> Option<&'static str> {
    if s.is_empty() {
        return Some("is empty");
    }
    if s.starts_with('.') {
        return Some("starts with a dot");
    }
    if s.contains(['/', '\\', ':']) {
        return Some("contains a path separator");
    }
    if s.chars().any(char::is_control) {
        return Some("contains a control character");
    }
    if s.len() > 200 {
        return Some("is longer than 200 bytes");
    }
    let stem = s
        .split('.')
        .next()
        .unwrap_or(s)
        .trim_end()
        .to_ascii_uppercase();
    let reserved = matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.len() == 4
            && stem.as_bytes()[3].is_ascii_digit());
    if reserved {
        return Some("is a reserved device name on Windows");
    }
    None
}

/// `Ok` when every `(what, value)` may be a path component, else a clear
/// error naming the first that may not.
pub(crate) fn check_components(parts: &[(&str, &str)]) -> Result<(), Error> {
    for (what, value) in parts {
        if let Some(why) = unsafe_component(value) {
            return Err(Error::Invalid(format!(
                "refusing to write: {what} {value:?} {why} and would become a path component"
            )));
        }
    }
    Ok(())
}

/// What a reply wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReplyOutcome {
    /// The new message's key (mcp id, or the mail file's `Id:`).
    pub key: String,
    pub thread: String,
    pub subject: String,
    pub to: Vec<String>,
    /// Files written (absolute).
    pub paths: Vec<PathBuf>,
    /// A Git commit was made in the archive.
    pub committed: bool,
}

/// Replies to `key` as `as_agent` with `body`, now. A plain mailbox is
/// read with the size limit `max_bytes`.
pub fn reply(
    source: &SourceKind,
    key: &str,
    as_agent: &str,
    body: &str,
    max_bytes: u64,
) -> Result<ReplyOutcome, Error> {
    reply_at(source, key, as_agent, body, Utc::now(), max_bytes)
}

/// [`reply`] using an inbox already loaded (the TUI's): a plain mailbox is
/// not read again.
pub fn reply_loaded(
    inbox: &Inbox,
    key: &str,
    as_agent: &str,
    body: &str,
) -> Result<ReplyOutcome, Error> {
    reply_with(
        &inbox.source,
        Messages::Loaded(inbox),
        key,
        as_agent,
        body,
        Utc::now(),
    )
}

/// [`reply`] with a given clock.
pub fn reply_at(
    source: &SourceKind,
    key: &str,
    as_agent: &str,
    body: &str,
    now: DateTime<Utc>,
    max_bytes: u64,
) -> Result<ReplyOutcome, Error> {
    reply_with(
        source,
        Messages::Read { max_bytes },
        key,
        as_agent,
        body,
        now,
    )
}

fn reply_with(
    source: &SourceKind,
    messages: Messages<'_>,
    key: &str,
    as_agent: &str,
    body: &str,
    now: DateTime<Utc>,
) -> Result<ReplyOutcome, Error> {
    if body.trim().is_empty() {
        return Err(Error::Invalid(
            "the reply body is empty: give --body TEXT or pipe it on stdin".into(),
        ));
    }
    if as_agent.trim().is_empty() {
        return Err(Error::Invalid("--as AGENT is empty".into()));
    }
    let now = micros(now);
    match source {
        SourceKind::Mailbox { root } => reply_mailbox(root, messages, key, as_agent, body, now),
        SourceKind::McpStore { root, db } => reply_mcp(root, db, key, as_agent, body, now),
        SourceKind::Stdin => Err(Error::Unsupported(
            "JSON read from stdin is read-only: reply in the mailbox or store it came from".into(),
        )),
    }
}

fn reply_mailbox(
    root: &std::path::Path,
    messages: Messages<'_>,
    key: &str,
    as_agent: &str,
    body: &str,
    now: DateTime<Utc>,
) -> Result<ReplyOutcome, Error> {
    let fresh;
    let inbox = match messages {
        Messages::Loaded(i) => i,
        Messages::Read { max_bytes } => {
            fresh = load_mailbox(root, max_bytes)?;
            &fresh
        }
    };
    let orig = inbox.message_by_key(key).ok_or_else(|| Error::NotFound {
        key: key.to_string(),
        where_: root.display().to_string(),
    })?;
    let to = orig
        .message
        .from
        .as_deref()
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .ok_or_else(|| Error::Invalid(format!("message {key} has no sender (From:) to reply to")))?
        .to_string();
    let thread = inbox.threads[orig.thread].id.clone();
    let bead = orig.message.bead().map(str::to_owned);
    let subject = match &bead {
        Some(b) => format!("[{b}] HELP_RESPONSE"),
        None => "HELP_RESPONSE".to_string(),
    };
    let stamp = now
        .format("%Y%m%dT%H%M%S%.6fZ")
        .to_string()
        .replace('.', "");
    let id = format!("amail-{stamp}-{}", mcp_archive::subject_slug(as_agent));
    let text = render_spec_text(&SpecMail {
        id: &id,
        from: as_agent,
        to: std::slice::from_ref(&to),
        thread: &thread,
        date: now,
        subject: &subject,
        body,
        ack_required: false,
        importance: "normal",
    });
    let name = format!(
        "{}__{}__re-{}.md",
        now.format("%Y-%m-%dT%H-%M-%SZ"),
        mcp_archive::subject_slug(&subject),
        mcp_archive::subject_slug(key)
    );
    let dir = root.join("replies");
    let mut path = dir.join(&name);
    let mut n = 2;
    // Never overwrite: a second reply in the same second gets a suffix.
    loop {
        match crate::fsio::write_new(&path, text.as_bytes()) {
            Ok(()) => break,
            Err(e) if e.source.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => {
                path = dir.join(name.replace(".md", &format!("-{n}.md")));
                n += 1;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(ReplyOutcome {
        key: id,
        thread,
        subject,
        to: vec![to],
        paths: vec![path],
        committed: false,
    })
}

/// A message in the protocol's spec-text framing with envelope headers.
pub struct SpecMail<'a> {
    pub id: &'a str,
    pub from: &'a str,
    pub to: &'a [String],
    pub thread: &'a str,
    pub date: DateTime<Utc>,
    pub subject: &'a str,
    pub body: &'a str,
    pub ack_required: bool,
    pub importance: &'a str,
}

/// `Subject:` first (every reader of the seed's form expects it), then the
/// envelope headers, a blank line, `Body:` and the body.
pub fn render_spec_text(m: &SpecMail<'_>) -> String {
    let one_line = |s: &str| s.replace(['\r', '\n'], " ");
    let mut out = String::new();
    out.push_str(&format!("Subject: {}\n", one_line(m.subject)));
    out.push_str(&format!("Id: {}\n", one_line(m.id)));
    out.push_str(&format!("From: {}\n", one_line(m.from)));
    out.push_str(&format!("To: {}\n", one_line(&m.to.join(", "))));
    if !m.thread.trim().is_empty() {
        out.push_str(&format!("Thread: {}\n", one_line(m.thread)));
    }
    out.push_str(&format!(
        "Date: {}\n",
        m.date.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
    ));
    out.push_str(&format!("Importance: {}\n", one_line(m.importance)));
    out.push_str(&format!("Ack-Required: {}\n", m.ack_required));
    out.push_str("\nBody:\n");
    out.push_str(m.body.trim_end());
    out.push('\n');
    out
}

/// The body the server stores for our reply: the HELP_RESPONSE type on the
/// first line (as the fixture's orchestrator writes it), because the
/// subject stays the original's `Re: [bead] HELP_REQUEST`.
pub fn help_response_body(body: &str) -> String {
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
    sender_id: i64,
    sender: String,
    thread_id: Option<String>,
    subject: String,
    importance: String,
    ack_required: bool,
}

fn reply_mcp(
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
                    m.subject, m.importance, m.ack_required
             FROM messages m JOIN projects p ON p.id = m.project_id
             JOIN agents a ON a.id = m.sender_id WHERE m.id = ?1",
            [orig_id],
            |r| {
                Ok(Original {
                    project_id: r.get(0)?,
                    slug: r.get(1)?,
                    human_key: r.get(2)?,
                    sender_id: r.get(3)?,
                    sender: r.get(4)?,
                    thread_id: r.get::<_, Option<String>>(5)?.filter(|t| !t.is_empty()),
                    subject: r.get(6)?,
                    importance: r
                        .get::<_, Option<String>>(7)?
                        .unwrap_or_else(|| "normal".into()),
                    ack_required: mcp_db::truthy(r.get_ref(8)?),
                })
            },
        )
        .optional()
        .map_err(dbe)?
        .ok_or_else(not_found)?;
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
    // Every name that becomes a directory of the archive copies, checked
    // before anything is written.
    check_components(&[
        ("agent name", &sender_name),
        ("original sender", &orig.sender),
    ])?;
    let thread = orig
        .thread_id
        .clone()
        .unwrap_or_else(|| orig_id.to_string());
    let subject = if orig.subject.to_lowercase().starts_with("re:") {
        orig.subject.clone()
    } else {
        format!("Re: {}", orig.subject).trim().to_string()
    };
    let body_md = help_response_body(body);
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
            serde_json::json!({"to": [orig.sender.clone()], "cc": [], "bcc": []})
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
    tx.execute(
        "INSERT INTO message_recipients (message_id, agent_id, kind, read_ts, ack_ts)
         VALUES (?1, ?2, 'to', NULL, NULL)",
        params![new_id, orig.sender_id],
    )
    .map_err(dbe)?;
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
        to: vec![orig.sender.clone()],
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
        to: vec![orig.sender],
        paths: rel.iter().map(|r| archive.join(r)).collect(),
        committed,
    })
}
