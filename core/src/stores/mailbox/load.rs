//! `load`: read a source into an [`Inbox`].
//!
//! Each source becomes a list of [`Loaded`] messages (message + recipients
//! with their state); `build` then sorts, threads and derives the roster.
//! Problems with single files never stop a load: they go to
//! `Inbox::problems` and the rest loads.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use amail_parser::{OwnedMessage, ParseOptions};

use super::build::build;
use super::journal;
use super::{Error, Inbox, InboxMessage, Recipient, RecipientKind, SourceKind};
use crate::source::frontmatter::{self, FrontMatter};
use crate::source::mcp_db::{self, MessageRow};
use crate::source::{detect, files, parallel, walk, Detected};

/// How to load.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// The mcp_agent_mail database, when it is not beside the archive (`--db`).
    pub db: Option<PathBuf>,
    /// Files larger than this are named in `Inbox::problems`, not read.
    pub max_bytes: u64,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            db: None,
            max_bytes: crate::fsio::DEFAULT_MAX_MESSAGE_BYTES,
        }
    }
}

/// Where a writer (ack, reply) finds a plain mailbox's messages.
pub(crate) enum Messages<'a> {
    /// The caller's inbox, already loaded (the TUI's).
    Loaded(&'a Inbox),
    /// Read now, with this size limit.
    Read { max_bytes: u64 },
}

/// A message before threading: `thread` is set by `build`. (The final
/// type from the start, so a big inbox is never held twice.)
pub(crate) type Loaded = InboxMessage;

/// Loads a mailbox directory or an mcp_agent_mail storage root, detected
/// from what `path` holds (see [`crate::source::detect`]).
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Inbox, Error> {
    match detect(path, opts.db.as_deref()).map_err(Error::Source)? {
        Detected::Mailbox { root } => load_mailbox(&root, opts.max_bytes),
        Detected::McpStore { archive, db } => load_mcp(&archive, db.as_deref(), opts.max_bytes),
    }
}

/// Loads JSON read from stdin: `fetch_inbox` output (a bare list or
/// `{"result": [...]}`), a message object, or JSON Lines, of at most
/// `max_bytes`. Read-only.
pub fn load_stdin(max_bytes: u64) -> Result<Inbox, Error> {
    load_stdin_as(None, max_bytes)
}

/// [`load_stdin`] for a viewer: `fetch_inbox` output is one agent's inbox
/// and names no recipients, so messages without any are taken as addressed
/// to `viewer` (with unknown read/ack state: the Python server's
/// `fetch_inbox` does not report it).
pub fn load_stdin_as(viewer: Option<&str>, max_bytes: u64) -> Result<Inbox, Error> {
    let buf = crate::fsio::read_limited(std::io::stdin().lock(), max_bytes)
        .map_err(|e| Error::io("<stdin>", e))?;
    load_json_as(&buf, viewer)
}

/// Loads a JSON document held in memory, as [`load_stdin`] does.
pub fn load_json(bytes: &[u8]) -> Result<Inbox, Error> {
    load_json_as(bytes, None)
}

/// Loads a JSON document held in memory, as [`load_stdin_as`] does.
pub fn load_json_as(bytes: &[u8], viewer: Option<&str>) -> Result<Inbox, Error> {
    let mut problems = Vec::new();
    let mut loaded = Vec::new();
    match amail_parser::parse_bytes(bytes, &ParseOptions::default()) {
        Ok(messages) => {
            let mut seen = HashSet::new();
            for (n, m) in messages.into_iter().enumerate() {
                let key = unique_key(m.id.as_deref(), || format!("stdin#{}", n + 1), &mut seen);
                let mut recipients = recipients_from(&m.to, &m.cc, &[]);
                if let (true, Some(v)) = (recipients.is_empty(), viewer) {
                    recipients = recipients_from(&[Cow::Owned(v.to_string())], &[], &[]);
                }
                loaded.push(Loaded {
                    key,
                    project: m.project.as_deref().map(str::to_owned),
                    message: m,
                    path: None,
                    recipients,
                    thread: 0,
                });
            }
        }
        Err(e) => problems.push((PathBuf::from("<stdin>"), e.to_string())),
    }
    Ok(build(SourceKind::Stdin, loaded, problems))
}

/// Files read and parsed per chunk handed out to a worker. Small chunks
/// keep both cores busy to the end (file sizes vary 100-fold), while the
/// calling thread joins finished chunks into the inbox.
const PARSE_CHUNK: usize = 128;

/// One file read and parsed: its messages (or why not) and, for JSON
/// files, the protocol text.
type ParsedFile = Result<(FileMessages, Option<String>), String>;

/// A plain mailbox: every mail file [`walk::walk`] finds under `root`, any
/// framing, plus the ack journal. Files over `max_bytes` are problems, not
/// read.
pub fn load_mailbox(root: &Path, max_bytes: u64) -> Result<Inbox, Error> {
    let (paths, mut problems) = walk::walk(root).into_parts();
    let (acks, journal_problems) = journal::read(root);
    problems.extend(journal_problems);
    // About one message per file; sized up front so a big mailbox is not
    // copied while the vector grows.
    let mut loaded = Vec::with_capacity(paths.len());
    let mut seen = HashSet::with_capacity(paths.len());
    let mut protocol_files = HashMap::new();
    let mut pending = &paths[..];
    // Workers take chunks in turn and the parsed messages are moved into
    // `loaded` here as soon as each chunk (and all before it) is done: the
    // joining overlaps the parsing instead of idling the workers between
    // batches, and only a few chunks are ever held twice.
    let _ = parallel::ordered(
        &paths,
        PARSE_CHUNK,
        parallel::cores(),
        || (),
        |_, _, part, out: &mut Vec<ParsedFile>| {
            out.clear();
            // JSON files are classified (handoff or A2A items?) from the
            // bytes read here, so the protocol merge does not read them
            // again.
            out.extend(part.iter().map(|path| {
                let bytes = files::read_mail_file(path, max_bytes)?;
                let protocol = super::protocol_items::protocol_text(path, &bytes);
                parse_read(&bytes).map(|r| (r, protocol))
            }));
        },
        |out| {
            // Chunks arrive in input order, so the paths are the next ones.
            let (part, rest) = pending.split_at(out.len());
            pending = rest;
            for (path, result) in part.iter().zip(out.drain(..)) {
                match result {
                    Ok((r, protocol)) => {
                        loaded.extend(file_entries(root, path, r, &mut seen));
                        if let Some(text) = protocol {
                            protocol_files.insert(path.clone(), text);
                        }
                    }
                    Err(why) => problems.push((path.clone(), why)),
                }
            }
            std::ops::ControlFlow::<()>::Continue(())
        },
    );
    apply_acks(&mut loaded, &acks);
    super::protocol_items::merge_read(root, protocol_files, &mut loaded, &mut problems, max_bytes);
    Ok(build(
        SourceKind::Mailbox {
            root: root.to_path_buf(),
        },
        loaded,
        problems,
    ))
}

/// One file's messages as inbox entries (threads not yet assigned, acks
/// not yet applied: see [`apply_acks`]): keys made unique against `seen`.
/// Shared by the full load and the incremental reload, so both make the
/// same entries.
pub(crate) fn file_entries(
    root: &Path,
    path: &Path,
    (messages, fm): FileMessages,
    seen: &mut HashSet<String>,
) -> Vec<Loaded> {
    let rel = || {
        path.strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let several = messages.len() > 1;
    let mut out = Vec::with_capacity(messages.len());
    for (n, mut m) in messages.into_iter().enumerate() {
        let mut bcc = Vec::new();
        if let Some(fm) = fm.as_ref().filter(|_| !several) {
            fill_from_frontmatter(&mut m, fm);
            bcc = fm.bcc.clone();
        }
        let key = unique_key(
            m.id.as_deref(),
            || {
                if several {
                    format!("{}#{}", rel(), n + 1)
                } else {
                    rel()
                }
            },
            seen,
        );
        let recipients = recipients_from(&m.to, &m.cc, &bcc);
        out.push(Loaded {
            key,
            project: m.project.as_deref().map(str::to_owned),
            message: m,
            path: Some(path.to_path_buf()),
            recipients,
            thread: 0,
        });
    }
    out
}

/// Sets recipients' read and ack times from the journal. One pass with an
/// index by key, so a big mailbox costs one lookup per message (no
/// allocation) however long the journal is. Returns the indices of the
/// messages whose state changed.
pub(crate) fn apply_acks(messages: &mut [Loaded], acks: &journal::Acks) -> Vec<usize> {
    let mut changed = Vec::new();
    if acks.is_empty() {
        return changed;
    }
    let mut by_key: HashMap<&str, Vec<(&str, &journal::JournalEntry)>> = HashMap::new();
    for ((key, agent), e) in acks {
        by_key.entry(key).or_default().push((agent, e));
    }
    for (i, m) in messages.iter_mut().enumerate() {
        let Some(entries) = by_key.get(m.key.as_str()) else {
            continue;
        };
        for r in &mut m.recipients {
            if let Some((_, e)) = entries.iter().find(|(a, _)| *a == r.agent) {
                let (ack, read) = (Some(e.ack_at), Some(e.read_at));
                if r.ack_at != ack || r.read_at != read {
                    r.ack_at = ack;
                    r.read_at = read;
                    changed.push(i);
                }
            }
        }
    }
    changed
}

/// One file's messages and, for `---json` files, its front matter.
pub(crate) type FileMessages = (Vec<OwnedMessage>, Option<Box<FrontMatter>>);

pub(crate) fn read_and_parse(path: &Path, max_bytes: u64) -> Result<FileMessages, String> {
    parse_read(&files::read_mail_file(path, max_bytes)?)
}

/// Parses a file's bytes. An archive file's front matter comes back from
/// the parser, which read it to frame the message: the JSON is parsed once.
fn parse_read(bytes: &[u8]) -> Result<FileMessages, String> {
    let opts = ParseOptions::default();
    let Ok(text) = std::str::from_utf8(bytes) else {
        // Read as the parser reads damaged text, and (as before) with no
        // front matter.
        let messages = amail_parser::parse_bytes(bytes, &opts).map_err(|e| e.to_string())?;
        return Ok((messages, None));
    };
    let (messages, object) = if frontmatter::is_archive_text(text) {
        amail_parser::parse_with_front_matter(text, &opts)
    } else {
        amail_parser::parse(text, &opts).map(|m| (m, None))
    }
    .map_err(|e| e.to_string())?;
    let messages = messages
        .into_iter()
        .map(amail_parser::Message::into_owned)
        .collect();
    let fm = object.and_then(FrontMatter::from_object).map(Box::new);
    Ok((messages, fm))
}

/// An mcp_agent_mail archive with (when found) its database.
///
/// The database decides which messages exist and who received them, with
/// their read and ack state; the canonical archive file gives the text the
/// parser sees. A message in the database without an archive file is parsed
/// from its database row; an archive file unknown to the database still
/// loads, with recipients from its front matter. Archive files over
/// `max_bytes` are problems, not read.
pub fn load_mcp(archive: &Path, db: Option<&Path>, max_bytes: u64) -> Result<Inbox, Error> {
    let (canonical, mut problems) = walk::store_files(archive).into_parts();
    // id -> (slug, path, parsed message, front matter)
    let mut by_id: HashMap<String, (String, PathBuf, OwnedMessage, Box<FrontMatter>)> =
        HashMap::new();
    let mut without_id = Vec::new();
    let parsed = parallel::map(&canonical, |path| read_and_parse(path, max_bytes));
    for (path, result) in canonical.into_iter().zip(parsed) {
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
                if by_id.contains_key(&id) {
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

    let db_path = db.map(Path::to_path_buf);
    let rows = match db {
        Some(db) => {
            let conn = mcp_db::open_read_only(db).map_err(|e| Error::db(db, e))?;
            mcp_db::read_messages(&conn).map_err(|e| Error::db(db, e))?
        }
        None => {
            problems.push((
                archive.join(crate::source::detect::DB_FILE),
                "no storage.sqlite3 found beside the archive (give it with --db): \
                 recipients come from the archive files, read and ack state is unknown"
                    .into(),
            ));
            Vec::new()
        }
    };

    let mut loaded = Vec::with_capacity(rows.len() + by_id.len());
    for row in rows {
        let key = row.id.to_string();
        let (path, mut message) = match by_id.remove(&key) {
            Some((_, path, message, _)) => (Some(path), message),
            None => (None, parse_row(&row)),
        };
        override_from_row(&mut message, &row);
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
        loaded.push(Loaded {
            key,
            message,
            path,
            project: Some(row.project_slug.clone()),
            recipients,
            thread: 0,
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
        loaded.push(Loaded {
            key,
            message,
            path: Some(path),
            project: Some(fm.project_slug.clone().unwrap_or(slug)),
            recipients,
            thread: 0,
        });
    }
    let root = archive.to_path_buf();
    let db = db_path.unwrap_or_else(|| archive.join(crate::source::detect::DB_FILE));
    Ok(build(SourceKind::McpStore { root, db }, loaded, problems))
}

/// Parses a database row that has no archive file, through the same
/// archive framing the server would have written.
fn parse_row(row: &MessageRow) -> OwnedMessage {
    let text = super::mcp_archive::render_row_file(row);
    amail_parser::parse_bytes(text.as_bytes(), &ParseOptions::default())
        .ok()
        .and_then(|mut v| (!v.is_empty()).then(|| v.swap_remove(0)))
        .unwrap_or_else(|| empty_message(&row.body_md))
}

/// A message with only a body, for when the parser returned nothing.
pub(crate) fn empty_message(body: &str) -> OwnedMessage {
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

/// Fills envelope fields the parser left empty from the front matter.
fn fill_from_frontmatter(m: &mut OwnedMessage, fm: &FrontMatter) {
    if m.id.is_none() {
        m.id = fm.id_text().map(Cow::Owned);
    }
    if m.from.is_none() {
        m.from = fm.from.clone().map(Cow::Owned);
    }
    if m.to.is_empty() {
        m.to = fm.to.iter().cloned().map(Cow::Owned).collect();
    }
    if m.cc.is_empty() {
        m.cc = fm.cc.iter().cloned().map(Cow::Owned).collect();
    }
    if m.thread_id.is_none() {
        m.thread_id = fm
            .thread_id
            .clone()
            .filter(|t| !t.is_empty())
            .map(Cow::Owned);
    }
    if m.timestamp.is_none() {
        m.timestamp = fm.created_at();
    }
    if let Some(true) = fm.ack_required() {
        m.ack_required = true;
    }
    if let Some(i) = &fm.importance {
        m.importance = Cow::Owned(i.clone());
    }
    if m.subject.is_empty() {
        if let Some(s) = &fm.subject {
            m.subject = Cow::Owned(s.clone());
        }
    }
    if m.project.is_none() {
        m.project = fm.project_slug.clone().map(Cow::Owned);
    }
}

/// to, then cc, then bcc; an agent listed twice keeps its first kind.
fn recipients_from(
    to: &[Cow<'static, str>],
    cc: &[Cow<'static, str>],
    bcc: &[String],
) -> Vec<Recipient> {
    let mut out: Vec<Recipient> = Vec::new();
    let all = to
        .iter()
        .map(|n| (n.as_ref(), RecipientKind::To))
        .chain(cc.iter().map(|n| (n.as_ref(), RecipientKind::Cc)))
        .chain(bcc.iter().map(|n| (n.as_str(), RecipientKind::Bcc)));
    for (name, kind) in all {
        let name = name.trim();
        if name.is_empty() || out.iter().any(|r| r.agent == name) {
            continue;
        }
        out.push(Recipient {
            agent: name.to_string(),
            kind,
            read_at: None,
            ack_at: None,
        });
    }
    out
}

/// The message's own id when it has one not used yet, else the fallback
/// (made unique with a `~N` suffix if needed).
fn unique_key(
    id: Option<&str>,
    fallback: impl FnOnce() -> String,
    seen: &mut HashSet<String>,
) -> String {
    if let Some(id) = id.map(str::trim).filter(|s| !s.is_empty()) {
        if seen.insert(id.to_string()) {
            return id.to_string();
        }
    }
    let base = fallback();
    let mut key = base.clone();
    let mut n = 2;
    while !seen.insert(key.clone()) {
        key = format!("{base}~{n}");
        n += 1;
    }
    key
}
