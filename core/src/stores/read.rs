//! Reading one mail file into inbox entries, the same way for every
//! loader: the size-limited read, one parse (an archive file's `---json`
//! front matter comes back from the parser), envelope fields the parser
//! left empty filled from the front matter, recipients, and keys made
//! unique. A plain mailbox may hold archive-framed files too, so both
//! stores' loaders (and piped JSON) share these.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::Path;

use amail_parser::{OwnedMessage, ParseOptions};

use super::mcp::frontmatter::{self, FrontMatter};
use crate::inbox::{intern, CompactMessage, Recipient, RecipientKind, Recipients, Text};
use crate::source::files;

/// One file's messages and, for `---json` files, its front matter.
pub(crate) type FileMessages = (Vec<OwnedMessage>, Option<Box<FrontMatter>>);

/// Reads and parses one mail file; the error is a reason fit for
/// `Inbox::problems`.
pub(crate) fn read_and_parse(path: &Path, max_bytes: u64) -> Result<FileMessages, String> {
    parse_read(&files::read_mail_file(path, max_bytes)?)
}

/// Parses a file's bytes. An archive file's front matter comes back from
/// the parser as the object it holds (`parse_with_front_matter`: read as a
/// `Value` for this, beside the envelope's own reading of the keys it
/// needs), so the keys no envelope reads (`bcc`) are not looked for again.
pub(crate) fn parse_read(bytes: &[u8]) -> Result<FileMessages, String> {
    let opts = ParseOptions::default();
    let Some(text) = amail_parser::as_text(bytes) else {
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

/// One file's messages as inbox records, with the front matter's bcc (the
/// envelope fields it fills are filled already).
pub(crate) type FileRecords = (Vec<CompactMessage>, Vec<String>);

/// Parses a file's bytes into inbox records. Plain UTF-8 text (the usual
/// mail file, [`kept_text`]) is kept, once per file, and the records hold
/// only the envelope, parsed again from it when a view needs the rest;
/// damaged text and archive files (their front matter fills the envelope)
/// keep the whole message, as [`parse_read`] gives it.
pub(crate) fn parse_records(bytes: &[u8]) -> Result<FileRecords, String> {
    match kept_text(bytes) {
        Some(text) => records_of_text(&Text::new(text)),
        None => records_of_messages(bytes),
    }
}

/// A file's text when its records keep it ([`records_of_text`]): plain
/// UTF-8 that is not an archive file. A loader may gather such texts into
/// one buffer ([`crate::inbox::TextChunk`]) before parsing them.
pub(crate) fn kept_text(bytes: &[u8]) -> Option<&str> {
    amail_parser::as_text(bytes).filter(|text| !frontmatter::is_archive_text(text))
}

/// The records of a file's kept text ([`kept_text`]).
pub(crate) fn records_of_text(text: &Text) -> Result<FileRecords, String> {
    let messages =
        amail_parser::parse(text, &ParseOptions::default()).map_err(|e| e.to_string())?;
    let records = messages
        .iter()
        .enumerate()
        .map(|(i, m)| CompactMessage::from_text(m, text, i))
        .collect();
    Ok((records, Vec::new()))
}

/// The records of a file whose text is not kept: each holds its whole
/// message.
fn records_of_messages(bytes: &[u8]) -> Result<FileRecords, String> {
    let (mut messages, fm) = parse_read(bytes)?;
    let mut bcc = Vec::new();
    // A file of several messages has no one front matter.
    if let Some(fm) = fm.filter(|_| messages.len() == 1) {
        fill_from_frontmatter(&mut messages[0], &fm);
        bcc = fm.bcc;
    }
    Ok((
        messages.into_iter().map(CompactMessage::from).collect(),
        bcc,
    ))
}

/// Fills envelope fields the parser left empty from the front matter.
pub(crate) fn fill_from_frontmatter(m: &mut OwnedMessage, fm: &FrontMatter) {
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
pub(crate) fn recipients_from(
    to: &[impl AsRef<str>],
    cc: &[impl AsRef<str>],
    bcc: &[String],
) -> Recipients {
    // One inline (no allocation for the usual message); several in a
    // vector, its spare room given back below.
    let mut out = Recipients::default();
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
            agent: intern(name),
            kind,
            read_at: None,
            ack_at: None,
        });
    }
    out.shrink_to_fit();
    out
}

/// The message's own id when it has one not used yet, else the fallback
/// (made unique with a `~N` suffix if needed), `taken` saying which keys
/// are in use; the caller records the key it gets. A set of copies
/// ([`unique_key_in`]) or an index of the messages keyed so far (the
/// mailbox load: no copy of each key) can answer `taken`.
pub(crate) fn unique_key<'a>(
    id: Option<&'a str>,
    fallback: impl FnOnce() -> String,
    taken: &dyn Fn(&str) -> bool,
) -> Cow<'a, str> {
    if let Some(id) = id.map(str::trim).filter(|s| !s.is_empty()) {
        if !taken(id) {
            return Cow::Borrowed(id);
        }
    }
    let base = fallback();
    let mut key = base.clone();
    let mut n = 2;
    while taken(&key) {
        key = format!("{base}~{n}");
        n += 1;
    }
    Cow::Owned(key)
}

/// `key` as `message`'s record holds it: a range of its id's text when
/// the key is that id (trimmed), so no copy is made; else its own copy.
pub(crate) fn key_text(key: &str, message: &CompactMessage) -> Text {
    match &message.id {
        Some(id) if id.trim() == key => id.part(id.trim()),
        _ => Text::new(key),
    }
}

/// [`unique_key`] against `seen`, the key recorded there.
pub(crate) fn unique_key_in(
    id: Option<&str>,
    fallback: impl FnOnce() -> String,
    seen: &mut HashSet<String>,
) -> String {
    let key = unique_key(id, fallback, &|k| seen.contains(k)).into_owned();
    seen.insert(key.clone());
    key
}
