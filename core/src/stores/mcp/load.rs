//! Loading an mcp_agent_mail storage root: the archive's canonical message
//! files, read and parsed in parallel, joined with the database's rows.
//!
//! The database decides which messages exist and who received them, with
//! their read and ack state; the canonical archive file gives the text the
//! parser sees.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use amail_parser::{OwnedMessage, ParseOptions};

use super::archive::render_row_file;
use super::db::{self as mcp_db, MessageRow};
use super::frontmatter::FrontMatter;
use crate::inbox::{build, Inbox, InboxMessage, Recipient, RecipientKind, SourceKind};
use crate::source::detect::DB_FILE;
use crate::source::{parallel, walk};
use crate::stores::error::Error;
use crate::stores::read::{fill_from_frontmatter, read_and_parse, recipients_from, unique_key};

/// An mcp_agent_mail archive with (when found) its database.
///
/// The database decides which messages exist and who received them, with
/// their read and ack state, and holds each message's body: a row with a
/// body is parsed from the row (rendered as the archive file the server
/// writes for it, so the parser sees the same text), and its archive file
/// is never opened; the archive is read only where the database lacks a
/// body, and for files the database does not know (they still load, with
/// recipients from their front matter). The archive's canonical folders are
/// still listed (names only, no opens) to find those. Without a database
/// the whole archive is read. Archive files over `max_bytes` are problems,
/// not read.
///
/// `progress` is told (messages done, messages in all) as files are read
/// and rows parsed; the one database query before them has no count.
pub(crate) fn load_mcp(
    archive: &Path,
    db: Option<&Path>,
    max_bytes: u64,
    progress: &dyn Fn(usize, usize),
) -> Result<Inbox, Error> {
    let (canonical, mut problems) = walk::store_files(archive).into_parts();
    let db_path = db.map(Path::to_path_buf);
    let rows = match db {
        Some(db) => {
            let conn = mcp_db::open_read_only(db).map_err(|e| Error::db(db, e))?;
            mcp_db::read_messages(&conn).map_err(|e| Error::db(db, e))?
        }
        None => {
            problems.push((
                archive.join(DB_FILE),
                "no storage.sqlite3 found beside the archive (give it with --db): \
                 recipients come from the archive files, read and ack state is unknown"
                    .into(),
            ));
            Vec::new()
        }
    };

    // Which canonical files need reading: the server names each one
    // `..__<id>.md`, so a file of a row with a body is known by name.
    let with_body: HashSet<i64> = rows.iter().filter(|r| has_body(r)).map(|r| r.id).collect();
    let mut file_of: HashMap<i64, PathBuf> = HashMap::with_capacity(with_body.len());
    let mut to_read = Vec::new();
    for path in canonical {
        match id_in_name(&path).filter(|id| with_body.contains(id)) {
            Some(id) if file_of.contains_key(&id) => problems.push((
                path,
                format!("second canonical file for message {id}; ignored"),
            )),
            Some(id) => {
                file_of.insert(id, path);
            }
            None => to_read.push(path),
        }
    }

    // id -> (slug, path, parsed message, front matter)
    let mut by_id: HashMap<String, (String, PathBuf, OwnedMessage, Box<FrontMatter>)> =
        HashMap::new();
    let mut without_id = Vec::new();
    // Files read, then rows parsed: one count over both.
    let total = to_read.len() + rows.len();
    let done = std::cell::Cell::new(0);
    let tick = |n: usize| {
        done.set(done.get() + n);
        progress(done.get(), total);
    };
    progress(0, total);
    let parsed = parallel::map_counted(&to_read, |path| read_and_parse(path, max_bytes), tick);
    for (path, result) in to_read.into_iter().zip(parsed) {
        let slug = walk::project_of(&path)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (messages, fm) = match result {
            Ok(r) => r,
            Err(why) => {
                problems.push((path, why));
                continue;
            }
        };
        let Some(fm) = fm else {
            problems.push((
                path,
                "not an mcp_agent_mail message file (no ---json front matter)".into(),
            ));
            continue;
        };
        let Some(message) = messages.into_iter().next() else {
            problems.push((path, "no message in file".into()));
            continue;
        };
        match fm.id_text() {
            Some(id) => {
                let dup = by_id.contains_key(&id)
                    || id.parse().is_ok_and(|id: i64| file_of.contains_key(&id));
                if dup {
                    problems.push((
                        path,
                        format!("second canonical file for message {id}; ignored"),
                    ));
                    continue;
                }
                by_id.insert(id, (slug, path, message, fm));
            }
            None => without_id.push((slug, path, message, fm)),
        }
    }

    // Rows whose text is not in a file read above are parsed from the row,
    // on every core (the parse is the cost once the opens are gone).
    let keys: Vec<String> = rows.iter().map(|r| r.id.to_string()).collect();
    let from_rows = parallel::map_counted(
        &rows,
        |row| (!by_id.contains_key(&row.id.to_string())).then(|| parse_row(row)),
        tick,
    );

    let mut loaded = Vec::with_capacity(rows.len() + by_id.len());
    for ((row, key), from_row) in rows.iter().zip(keys).zip(from_rows) {
        let (path, mut message) = match (by_id.remove(&key), from_row) {
            (Some((_, path, message, _)), _) => (Some(path), message),
            (None, Some(message)) => (file_of.remove(&row.id), message),
            (None, None) => (None, parse_row(row)),
        };
        override_from_row(&mut message, row);
        let recipients = row
            .recipients
            .iter()
            .map(|r| Recipient {
                agent: r.agent.clone(),
                kind: match r.kind.as_str() {
                    "cc" => RecipientKind::Cc,
                    "bcc" => RecipientKind::Bcc,
                    _ => RecipientKind::To,
                },
                read_at: r.read_ts,
                ack_at: r.ack_ts,
            })
            .collect();
        loaded.push(InboxMessage {
            key,
            message: message.into(),
            path,
            project: Some(row.project_slug.clone()),
            recipients,
            thread_from_end: 0,
        });
    }
    // Archive files the database does not know (or no database at all).
    let mut rest: Vec<_> = by_id.into_iter().map(|(id, v)| (Some(id), v)).collect();
    rest.extend(without_id.into_iter().map(|v| (None, v)));
    rest.sort_by(|a, b| a.1 .1.cmp(&b.1 .1));
    let mut seen: HashSet<String> = loaded.iter().map(|l| l.key.clone()).collect();
    for (id, (slug, path, mut message, fm)) in rest {
        fill_from_frontmatter(&mut message, &fm);
        let key = unique_key(
            id.as_deref(),
            || {
                path.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            },
            &mut seen,
        );
        let recipients = recipients_from(&message.to, &message.cc, &fm.bcc);
        loaded.push(InboxMessage {
            key,
            message: message.into(),
            path: Some(path),
            project: Some(fm.project_slug.clone().unwrap_or(slug)),
            recipients,
            thread_from_end: 0,
        });
    }
    let root = archive.to_path_buf();
    let db = db_path.unwrap_or_else(|| archive.join(DB_FILE));
    Ok(build(SourceKind::McpStore { root, db }, loaded, problems))
}

/// Whether the database holds the message's text (the server always
/// writes one; a row without it is read from its archive file).
fn has_body(row: &MessageRow) -> bool {
    !row.body_md.trim().is_empty()
}

/// The id in a canonical file's name, `<ISO>__<subject-slug>__<id>.md`
/// (`archive::file_name`).
fn id_in_name(path: &Path) -> Option<i64> {
    let stem = path.file_name()?.to_str()?.strip_suffix(".md")?;
    let (_, id) = stem.rsplit_once("__")?;
    id.parse().ok().filter(|&id: &i64| id > 0)
}

/// Parses a database row through the same archive framing the server
/// writes for it, so it reads as its archive file would.
fn parse_row(row: &MessageRow) -> OwnedMessage {
    let text = render_row_file(row);
    amail_parser::parse_bytes(text.as_bytes(), &ParseOptions::default())
        .ok()
        .and_then(|mut v| (!v.is_empty()).then(|| v.swap_remove(0)))
        .unwrap_or_else(|| empty_message(&row.body_md))
}

/// A message with only a body, for when the parser returned nothing.
fn empty_message(body: &str) -> OwnedMessage {
    amail_parser::Message {
        id: None,
        kind: amail_parser::MessageType::Unknown,
        raw_type: None,
        is_reply: false,
        subject: Cow::Borrowed(""),
        from: None,
        to: Vec::new(),
        cc: Vec::new(),
        thread_id: None,
        timestamp: None,
        ack_required: false,
        importance: Cow::Borrowed("normal"),
        body: Cow::Owned(body.to_string()),
        parsed: amail_parser::Parsed::default(),
        diagnostics: Vec::new(),
        project: None,
        line: 1,
    }
}

/// The database is the truth for an mcp store's envelope.
fn override_from_row(m: &mut OwnedMessage, row: &MessageRow) {
    m.id = Some(Cow::Owned(row.id.to_string()));
    if !row.sender.is_empty() {
        m.from = Some(Cow::Owned(row.sender.clone()));
    }
    m.to = names(row, "to");
    m.cc = names(row, "cc");
    m.thread_id = row.thread_id.clone().map(Cow::Owned);
    if row.created.is_some() {
        m.timestamp = row.created;
    }
    m.ack_required = row.ack_required;
    m.importance = Cow::Owned(row.importance.clone());
    if m.subject.is_empty() {
        m.subject = Cow::Owned(row.subject.clone());
    }
    m.project = Some(Cow::Owned(row.project_slug.clone()));
}

fn names(row: &MessageRow, kind: &str) -> Vec<Cow<'static, str>> {
    row.recipients
        .iter()
        .filter(|r| r.kind == kind)
        .map(|r| Cow::Owned(r.agent.clone()))
        .collect()
}
