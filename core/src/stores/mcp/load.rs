//! Loading an mcp_agent_mail storage root: the archive's canonical message
//! files, read and parsed in parallel, joined with the database's rows.
//!
//! The database decides which messages exist and who received them, with
//! their read and ack state; the canonical archive file gives the text the
//! parser sees.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ffi::OsStr;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use amail_parser::{Names, OwnedMessage, ParseOptions};
use chrono::{DateTime, Utc};
// The ids' maps hashed with hashbrown's default (foldhash), not std's
// SipHash: std's hashing of the ids was 1,200 instructions a row (callgrind,
// an mcp root of 10,000 loaded).
use hashbrown::HashMap;

use super::archive::{render_row_file, render_row_file_into, row_file_size_hint};
use super::db::{self as mcp_db, MessageRow};
use super::frontmatter::FrontMatter;
use super::render::Places;
use crate::inbox::{
    build, intern, CompactMessage, Inbox, InboxMessage, MailPath, Recipient, RecipientKind,
    SourceKind, Text, TextChunk,
};
use crate::source::detect::DB_FILE;
use crate::source::parallel::{self, join};
use crate::source::walk;
use crate::stores::error::Error;
use crate::stores::mailbox::newest_first_by;
use crate::stores::read::{
    fill_from_frontmatter, key_text, read_and_parse, recipients_from, unique_key_in, FileMessages,
};
use crate::stores::steps::Steps;

/// Files read per chunk handed to a worker, rows whose texts share one
/// buffer, and rows per count and step check: small enough for a count
/// that moves and steps that come on time, large enough to cost nothing.
const CHUNK: usize = 128;

/// Pages the database reader may read ahead of the parse: it never waits
/// for the parse, and memory stays a few pages.
const PAGES_AHEAD: usize = 2;

/// What the database reader hands the load, in this order.
enum FromDb {
    /// How many `messages` rows there are (before the first page).
    Count(usize),
    /// The next rows, newest first.
    Page(Vec<MessageRow>),
}

/// An mcp_agent_mail archive with (when found) its database.
///
/// The database decides which messages exist and who received them, with
/// their read and ack state, and holds each message's body: a row with a
/// body is parsed from the row (rendered as the archive file the server
/// writes for it, so the parser sees the same text; its body parsed under
/// its subject, [`row_record_over`]), and its archive file is never
/// opened; the archive is read only where the database lacks a
/// body, and for files the database does not know (they still load, with
/// recipients from their front matter). The archive's canonical folders are
/// still listed (names only, no opens) to find those. Without a database
/// the whole archive is read. Archive files over `max_bytes` are problems,
/// not read.
///
/// `progress` is told (messages done, messages in all) as rows are
/// parsed and files read: the rows' count is the database's before the
/// first page, the files join it once the rows are all read.
///
/// Newest first (issue 16): the rows come from the database in pages,
/// newest first (`created_ts`, then id, as the inbox orders them;
/// `db::read_pages`, read on a thread of its own while the archive is
/// listed on another), each page parsed on every core as it comes, so
/// `partial`, when given, gets a browsable inbox of the newest messages
/// at the steps of `stores::steps`: the first after one page, whether or
/// not the archive's listing is in (a row's file, its `path`, comes from
/// the listing: rows read before it have none in the steps, and get it
/// once it is in). Steps stop at the
/// first row without a body (its text is in a file, read with the others
/// after the rows). Without rows the archive files are read newest name
/// first (`mailbox::newest_first_by`, the names start with the message's
/// time) and the steps come from them. The files the database does not
/// know come with the whole inbox. What is returned does not depend on
/// the order: the same inbox as a load without steps.
pub(crate) fn load_mcp(
    archive: &Path,
    db: Option<&Path>,
    max_bytes: u64,
    progress: &dyn Fn(usize, usize),
    partial: Option<&dyn Fn(Inbox)>,
) -> Result<Inbox, Error> {
    load_listed(
        archive,
        db,
        max_bytes,
        progress,
        partial,
        &walk::store_listing,
    )
}

/// [`load_mcp`] with the archive listed by `list` (a test holds the
/// listing back to show the newest rows do not wait for it).
fn load_listed(
    archive: &Path,
    db: Option<&Path>,
    max_bytes: u64,
    progress: &dyn Fn(usize, usize),
    partial: Option<&dyn Fn(Inbox)>,
    list: &(dyn Fn(&Path) -> walk::Listing + Sync),
) -> Result<Inbox, Error> {
    let db_file = db.map_or_else(|| archive.join(DB_FILE), Path::to_path_buf);
    let db_path = db_file.as_path();
    let source = SourceKind::McpStore {
        root: archive.to_path_buf(),
        db: db_file.clone(),
    };
    // The reader walks the recipients' table ahead (a burst of every
    // recipient) only once the first page is in: not beside it.
    let first_page_in = &AtomicBool::new(false);
    // The archive is listed while the database is read: the two wait on
    // different files.
    let (walked, rows, parsed) = std::thread::scope(|s| {
        let walking = s.spawn(|| list(archive));
        let (send, pages) = mpsc::sync_channel(PAGES_AHEAD);
        let reader = db.map(|db| s.spawn(move || read_rows(db, first_page_in, send)));
        let mut walking = Some(walking);
        let mut walked = None;
        let mut parsed = ParsedRows::default();
        let (mut count, mut steps) = (0, Steps::new());
        for from_db in pages {
            let page = match from_db {
                FromDb::Count(n) => {
                    count = n;
                    progress(0, count);
                    continue;
                }
                FromDb::Page(page) => page,
            };
            // Each row with a body parsed and made an entry on every core,
            // a chunk of rows at a time (their texts in one buffer), its
            // path (its file in the listing, waited for once) set here.
            let chunks: Vec<&[MessageRow]> = page.chunks(CHUNK).collect();
            let entries = parallel::map(&chunks, |rows| row_entries(rows))
                .into_iter()
                .flatten();
            // The rows' paths from the listing when it is done; a page
            // read before it is not held back (a million-file archive
            // lists for most of a second: issue 16's newest threads would
            // wait for it): its rows get theirs once the listing is in.
            if walking.as_ref().is_some_and(|w| w.is_finished()) {
                walked = Some(Listing::new(join(walking.take().expect("joined once"))));
            }
            let paths = match &walked {
                Some((files, _)) => files.files_of(page.iter().map(|r| r.id)),
                None => {
                    parsed.unplaced = true;
                    vec![None; page.len()]
                }
            };
            // Counted, and the step policy asked, every `CHUNK` rows as
            // a file load does: its steps come at the same sizes, not
            // rounded up to the (growing) pages.
            let n = page.len();
            for (k, ((row, entry), path)) in page.into_iter().zip(entries).zip(paths).enumerate() {
                parsed.push(db_path, row, entry, path);
                if (k + 1) % CHUNK != 0 && k + 1 != n {
                    continue;
                }
                let read = parsed.rows.len();
                progress(read, count.max(read));
                if let Some(partial) = partial.filter(|_| parsed.whole == read) {
                    if steps.due(parsed.whole, read, count) {
                        let mut problems =
                            walked.as_ref().map(|(_, p)| p.clone()).unwrap_or_default();
                        problems.extend(parsed.problems.iter().cloned());
                        partial(build(source.clone(), parsed.newest(), problems));
                    }
                }
            }
            first_page_in.store(true, Ordering::Relaxed);
        }
        let rows = reader.map(|r| join(r));
        let walked =
            walked.unwrap_or_else(|| Listing::new(join(walking.take().expect("joined once"))));
        parsed.place(&walked.0);
        (walked, rows, parsed)
    });
    if let Some(Err(e)) = rows {
        return Err(e);
    }
    let (
        Listing {
            canonical,
            ids,
            by_name,
        },
        mut problems,
    ) = walked;
    let ParsedRows {
        rows,
        problems: damaged_rows,
        ..
    } = parsed;
    problems.extend(damaged_rows);
    if db.is_none() {
        problems.push((
            archive.join(DB_FILE),
            "no storage.sqlite3 found beside the archive (give it with --db): \
             recipients come from the archive files, read and ack state is unknown"
                .into(),
        ));
    }

    // Which canonical files need reading: the server names each one
    // `..__<id>.md`, so a file of a row with a body is known by name.
    let with_body: hashbrown::HashSet<i64> = rows
        .iter()
        .filter_map(|r| match r {
            RowRead::Entry(id, _) => Some(*id),
            RowRead::Row(_) => None,
        })
        .collect();
    // (The rows' entries hold those paths already, from the listing: the
    // first file listed with the id, `by_name`.) Such a row's file is
    // `named`: another file claiming its id is a second copy.
    let named = |id: i64| with_body.contains(&id) && by_name.contains_key(&id);
    // A path made only for a file read or named in a problem: a row's own
    // file (nearly every one) needs none.
    let mut to_read = Vec::new();
    for (i, ((dir, name), id)) in canonical.iter().zip(ids).enumerate() {
        match id.filter(|id| with_body.contains(id)) {
            Some(id) if by_name.get(&id) != Some(&i) => problems.push((
                walk::joined(dir, name),
                format!("second canonical file for message {id}; ignored"),
            )),
            Some(_) => {}
            None => to_read.push(walk::joined(dir, name)),
        }
    }

    // Rows parsed, then files read: one count over both.
    let total = rows.len() + to_read.len();
    let done = std::cell::Cell::new(rows.len());
    let tick = |n: usize| {
        done.set(done.get() + n);
        progress(done.get(), total);
    };
    progress(done.get(), total);
    let mut steps = Steps::new();

    // The files, newest name first (their walk places in reading order);
    // each result put back in its walk place, so what is made of them does
    // not depend on the reading order.
    let order = newest_first_by(to_read.len(), |i| {
        to_read[i].file_name().unwrap_or_default()
    });
    let mut read: Vec<Option<ReadFile>> = (0..to_read.len()).map(|_| None).collect();
    let mut pending = &order[..];
    let _ = parallel::ordered(
        &order,
        CHUNK,
        parallel::cores(),
        || (),
        |_, _, part, out: &mut Vec<ReadFile>| {
            out.clear();
            out.extend(part.iter().map(|&i| read_and_parse(&to_read[i], max_bytes)));
        },
        |out| {
            let (part, rest) = pending.split_at(out.len());
            pending = rest;
            for (&i, result) in part.iter().zip(out.drain(..)) {
                read[i] = Some(result);
            }
            tick(part.len());
            if let Some(partial) = partial.filter(|_| rows.is_empty()) {
                let held = order.len() - pending.len();
                if steps.due(held, done.get(), total) {
                    // Sorted and keyed as the whole load sorts and keys
                    // them, over what is read so far: only two files with
                    // one id (or a stem that is another's id), the first
                    // in walk order not yet read, show otherwise in a step.
                    let so_far = to_read
                        .iter()
                        .zip(&read)
                        .filter_map(|(path, r)| r.as_ref().map(|r| (path.clone(), r.clone())));
                    let mut problems = problems.clone();
                    let files = ArchiveFiles::classify(so_far, &named, &mut problems);
                    let part = files.into_entries(HashSet::new());
                    partial(build(source.clone(), part, problems));
                }
            }
            ControlFlow::<()>::Continue(())
        },
    );
    let so_far = to_read
        .into_iter()
        .zip(read)
        .filter_map(|(path, r)| r.map(|r| (path, r)));
    let mut files = ArchiveFiles::classify(so_far, &named, &mut problems);

    // Each row as the inbox holds it, in the order read (`build` sorts):
    // a row with a body is its entry, made with its page (its file, named
    // by its id, is never read; a file read for another reason that claims
    // the id, one not named by it, gives the entry its path only: the
    // database has the body); a row without one takes its text from a
    // file that claims its id, else from its own fields.
    let mut loaded: Vec<InboxMessage> = rows
        .into_iter()
        .map(|read| match read {
            RowRead::Entry(id, mut entry) => {
                let file = files.by_id.remove(itoa::Buffer::new().format(id));
                if let (Some((_, path, ..)), None) = (file, &entry.path) {
                    entry.path = Some(path.into());
                }
                entry
            }
            RowRead::Row(row) => {
                let mut key = itoa::Buffer::new();
                let key = key.format(row.id);
                match files.by_id.remove(key) {
                    Some((_, path, message, _)) => {
                        row_entry(&row, key, Some(path.into()), file_record(&row, message))
                    }
                    None => row_entry(&row, key, None, row_record(&row)),
                }
            }
        })
        .collect();
    // Archive files the database does not know (or no database at all).
    if !files.is_empty() {
        let seen: HashSet<String> = loaded.iter().map(|l| l.key.to_string()).collect();
        loaded.extend(files.into_entries(seen));
    }
    Ok(build(source, loaded, problems))
}

/// Reads the database's rows in pages into `send` (the count first);
/// stops when the load no longer listens. The recipients' table is walked
/// ahead once `first_page_in` (see `db::read_pages`).
fn read_rows(
    db: &Path,
    first_page_in: &AtomicBool,
    send: mpsc::SyncSender<FromDb>,
) -> Result<(), Error> {
    let conn = mcp_db::open_read_only(db).map_err(|e| Error::db(db, e))?;
    mcp_db::read_pages(
        &conn,
        mcp_db::PAGE_ROWS,
        mcp_db::PAGE_ROWS_MOST,
        || first_page_in.load(Ordering::Relaxed),
        |n| {
            let _ = send.send(FromDb::Count(n));
        },
        |page| match send.send(FromDb::Page(page)) {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        },
    )
    .map_err(|e| Error::db(db, e))
}

/// The archive's canonical files as listed, and which is each id's by
/// name (the first listed).
struct Listing {
    /// Folder and name of each, the path made only for a file used.
    canonical: walk::Listing,
    /// Each canonical file's id by its name ([`id_in_name`]), worked out
    /// once for `by_name` and the choice of files to read.
    ids: Vec<Option<i64>>,
    by_name: HashMap<i64, usize>,
}

impl Listing {
    /// The listing and the walk's problems.
    fn new(mut canonical: walk::Listing) -> (Self, Vec<(PathBuf, String)>) {
        let problems = std::mem::take(&mut canonical.problems)
            .into_iter()
            .map(walk::Problem::into_entry)
            .collect();
        let ids: Vec<Option<i64>> = canonical.iter().map(|(_, name)| id_in_name(name)).collect();
        let mut by_name = HashMap::with_capacity(canonical.len());
        for (i, id) in ids.iter().enumerate() {
            if let Some(id) = *id {
                by_name.entry(id).or_insert(i);
            }
        }
        (
            Listing {
                canonical,
                ids,
                by_name,
            },
            problems,
        )
    }

    /// The path of the file named for each message of `ids`, the paths
    /// in one buffer ([`MailPath::shared`]).
    fn files_of(&self, ids: impl Iterator<Item = i64>) -> Vec<Option<MailPath>> {
        let paths: Vec<Option<(&Path, &OsStr)>> = ids
            .map(|id| self.canonical.get(*self.by_name.get(&id)?))
            .collect();
        let found: Vec<(&Path, &OsStr)> = paths.iter().flatten().copied().collect();
        let mut shared = MailPath::shared(&found).into_iter();
        paths
            .iter()
            .map(|p| p.as_ref().and_then(|_| shared.next()))
            .collect()
    }
}

/// The database's rows as read so far, newest first, and what is made of
/// them.
#[derive(Default)]
struct ParsedRows {
    /// Each row as read, in order.
    rows: Vec<RowRead>,
    /// How many rows come before the first without a body: the steps are
    /// made of these.
    whole: usize,
    /// Whether rows were read before the archive's listing was in: their
    /// entries wait for their paths ([`ParsedRows::place`]).
    unplaced: bool,
    /// The rows whose texts were not UTF-8 (`MessageRow::not_utf8`),
    /// named as the database's problems.
    problems: Vec<(PathBuf, String)>,
}

/// A database row as the load keeps it until the archive is read.
// The large variant is nearly every row (the server writes every body):
// boxing it would be an allocation a row; the boxed one is the rare row.
#[allow(clippy::large_enum_variant)]
enum RowRead {
    /// A row with a body: its id and its entry, parsed from the body. The
    /// row itself is not kept: the record holds what the inbox needs, and
    /// the row's file (the server's, named by the id) is never read
    /// (issue 16: the rows' strings, about 500 bytes a row, all held until
    /// the archive was read, were most of an mcp load's peak).
    Entry(i64, InboxMessage),
    /// A row without a body, whole: its text comes from its file, or from
    /// its fields when it has none.
    Row(Box<MessageRow>),
}

impl ParsedRows {
    /// Takes the next row (read from `db`) and its entry, given the path
    /// of its file.
    fn push(
        &mut self,
        db: &Path,
        row: MessageRow,
        entry: Option<InboxMessage>,
        path: Option<MailPath>,
    ) {
        if let Some(column) = row.not_utf8 {
            self.problems.push((
                db.to_path_buf(),
                format!(
                    "message {}: its {column} is not UTF-8; read with U+FFFD in place of the bad bytes",
                    row.id
                ),
            ));
        }
        self.rows.push(match entry {
            Some(mut entry) => {
                entry.path = path;
                if self.whole == self.rows.len() {
                    self.whole += 1;
                }
                RowRead::Entry(row.id, entry)
            }
            None => RowRead::Row(Box::new(row)),
        });
    }

    /// Gives the entries read before the listing was in their files'
    /// paths, as a page read after it gets them.
    fn place(&mut self, files: &Listing) {
        if !std::mem::take(&mut self.unplaced) {
            return;
        }
        let waiting: Vec<(i64, &mut InboxMessage)> = self
            .rows
            .iter_mut()
            .filter_map(|r| match r {
                RowRead::Entry(id, entry) if entry.path.is_none() => Some((*id, entry)),
                _ => None,
            })
            .collect();
        let paths = files.files_of(waiting.iter().map(|(id, _)| *id));
        for ((_, entry), path) in waiting.into_iter().zip(paths) {
            entry.path = path;
        }
    }

    /// The entries of the newest rows, up to the first without a body.
    fn newest(&self) -> Vec<InboxMessage> {
        self.rows[..self.whole]
            .iter()
            .filter_map(|r| match r {
                RowRead::Entry(_, entry) => Some(entry.clone()),
                RowRead::Row(_) => None,
            })
            .collect()
    }
}

/// One archive file read and parsed, or why not.
type ReadFile = Result<FileMessages, String>;

/// A canonical archive file read: its project slug, path, message and
/// front matter.
type ArchiveFile = (String, PathBuf, OwnedMessage, Box<FrontMatter>);

/// The archive files read, by what they are to the database.
struct ArchiveFiles {
    /// Those with an id in their front matter, by that id: a row's text
    /// when the row has that id, else a message the database does not know.
    by_id: HashMap<String, ArchiveFile>,
    /// Those without one.
    without_id: Vec<ArchiveFile>,
}

impl ArchiveFiles {
    /// Sorts `files` (in walk order: of two files with one id, the first
    /// keeps it) into [`ArchiveFiles`]; what is not a message goes to
    /// `problems`, as does a second file for an id, or for a row whose
    /// file is among the `named`.
    fn classify(
        files: impl Iterator<Item = (PathBuf, ReadFile)>,
        named: &dyn Fn(i64) -> bool,
        problems: &mut Vec<(PathBuf, String)>,
    ) -> Self {
        let mut by_id: HashMap<String, ArchiveFile> = HashMap::new();
        let mut without_id = Vec::new();
        for (path, result) in files {
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
                    let dup = by_id.contains_key(&id) || id.parse().is_ok_and(named);
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
        ArchiveFiles { by_id, without_id }
    }

    fn is_empty(&self) -> bool {
        self.by_id.is_empty() && self.without_id.is_empty()
    }

    /// The files no row took, as inbox entries in path order, keys made
    /// unique against `seen` (the rows' keys).
    fn into_entries(self, mut seen: HashSet<String>) -> Vec<InboxMessage> {
        let mut rest: Vec<_> = self
            .by_id
            .into_iter()
            .map(|(id, v)| (Some(id), v))
            .collect();
        rest.extend(self.without_id.into_iter().map(|v| (None, v)));
        rest.sort_by(|a, b| a.1 .1.cmp(&b.1 .1));
        let mut out = Vec::with_capacity(rest.len());
        for (id, (slug, path, mut message, fm)) in rest {
            fill_from_frontmatter(&mut message, &fm);
            let key = unique_key_in(
                id.as_deref(),
                || {
                    path.file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default()
                },
                &mut seen,
            );
            let recipients = recipients_from(&message.to, &message.cc, &fm.bcc);
            let message = CompactMessage::from(message);
            out.push(InboxMessage {
                key: key_text(&key, &message),
                message,
                path: Some(path.into()),
                project: Some(intern(fm.project_slug.as_deref().unwrap_or(&slug))),
                recipients,
                thread_from_end: 0,
            });
        }
        out
    }
}

/// A row as an inbox entry: its record ([`row_record`], or
/// [`file_record`] for its archive file at `path`), the read and ack state
/// the row's.
fn row_entry(
    row: &MessageRow,
    key: &str,
    path: Option<MailPath>,
    message: CompactMessage,
) -> InboxMessage {
    let recipients = row
        .recipients
        .iter()
        .map(|r| Recipient {
            agent: intern(&r.agent),
            kind: match &*r.kind {
                "cc" => RecipientKind::Cc,
                "bcc" => RecipientKind::Bcc,
                _ => RecipientKind::To,
            },
            read_at: r.read_ts,
            ack_at: r.ack_ts,
        })
        .collect();
    InboxMessage {
        key: key_text(key, &message),
        message,
        path,
        project: Some(intern(&row.project_slug)),
        recipients,
        thread_from_end: 0,
    }
}

/// Whether the database holds the message's text (the server always
/// writes one; a row without it is read from its archive file).
fn has_body(row: &MessageRow) -> bool {
    !row.body_md.trim().is_empty()
}

/// The id in a canonical file's name, `<ISO>__<subject-slug>__<id>.md`
/// (`archive::file_name`).
fn id_in_name(name: &OsStr) -> Option<i64> {
    let stem = name.to_str()?.strip_suffix(".md")?;
    // After the last `__`: found by a walk back over the bytes, where
    // `rsplit_once("__")` built a searcher for each name (most of this
    // function's ~590 instructions a file, callgrind).
    let at = stem.as_bytes().windows(2).rposition(|w| w == b"__")?;
    let id = stem.get(at + 2..)?;
    id.parse().ok().filter(|&id: &i64| id > 0)
}

/// A database row's record: the row parsed through the same archive
/// framing the server writes for it, so it reads as its archive file
/// would, with the row's envelope over it. The rendered text is kept
/// and the record made over it ([`CompactMessage::from_text_under`]), as a
/// mailbox file's is, not the whole parsed message.
fn row_record(row: &MessageRow) -> CompactMessage {
    let (text, places) = render_row_file(row);
    row_record_over(row, &Text::from(text), &places)
}

/// The entries of a chunk of rows, those with a body (the others
/// `None`): their rendered texts kept in one buffer ([`TextChunk`]), each
/// record over its range of it, as a mailbox load keeps a chunk of files.
fn row_entries(rows: &[MessageRow]) -> Vec<Option<InboxMessage>> {
    // Room for the chunk's files made once, kept as their buffer: grown
    // as written and then copied, the buffer was reallocated about twice
    // a row and every row's file copied once more (callgrind, an mcp root
    // of 10,000 loaded: 1,700 instructions a row).
    let room = rows
        .iter()
        .filter(|r| has_body(r))
        .map(row_file_size_hint)
        .sum();
    let mut texts = TextChunk::with_capacity(room);
    let ranges: Vec<_> = rows
        .iter()
        .map(|r| {
            has_body(r).then(|| {
                let mut places = Places::default();
                let range = texts.push_with(|buf| places = render_row_file_into(r, buf));
                range.map(|range| (range, places))
            })
        })
        .collect();
    let texts = texts.into_text();
    rows.iter()
        .zip(ranges)
        .map(|(row, range)| {
            let message = match range? {
                Some((range, places)) => {
                    row_record_over(row, &texts.sub(range).unwrap_or_default(), &places)
                }
                // Past what one buffer's ranges reach: a buffer of its own.
                None => row_record(row),
            };
            Some(row_entry(
                row,
                itoa::Buffer::new().format(row.id),
                None,
                message,
            ))
        })
        .collect()
}

/// [`row_record`] over `text`, the row's rendered file: its body parsed
/// under the row's subject, the front matter passed over
/// ([`amail_parser::parse_archive_under`]), since the row's envelope goes
/// over whatever it says. The record is the one parsing the whole file
/// gives (`tests::a_row_reads_as_its_whole_file_does`), and the full
/// message is parsed again from the whole file.
fn row_record_over(row: &MessageRow, text: &Text, places: &Places) -> CompactMessage {
    // The id and subject as the file holds them (where the renderer put
    // them): the record keeps ranges of the file, not copies.
    let written = |range: &std::ops::Range<usize>| text.get(range.clone());
    let subject = places
        .subject
        .as_ref()
        .and_then(written)
        .unwrap_or(&row.subject);
    let first = amail_parser::parse_archive_under(text, subject, &ParseOptions::default())
        .ok()
        .and_then(|v| v.into_iter().next());
    match first {
        Some(mut message) => {
            override_from_row(&mut message, row);
            // What the file's `created` reads as: the row's time, or the
            // epoch the file is written with when the row has none.
            message.timestamp = Some(row.created.unwrap_or(DateTime::<Utc>::UNIX_EPOCH));
            if row.sender.is_empty() {
                message.from = Some(Cow::Borrowed(""));
            }
            if let Some(id) = written(&places.id) {
                message.id = Some(Cow::Borrowed(id));
            }
            CompactMessage::from_text_under(&message, text, 0)
        }
        None => file_record(row, empty_message(&row.body_md)),
    }
}

/// A row's record from its archive file's message: the row's envelope
/// over it, the message held whole.
fn file_record(row: &MessageRow, message: OwnedMessage) -> CompactMessage {
    let mut message: amail_parser::Message<'_> = message;
    override_from_row(&mut message, row);
    CompactMessage::from(message.into_owned())
}

/// A message with only a body, for when the parser returned nothing.
fn empty_message(body: &str) -> OwnedMessage {
    amail_parser::Message {
        importance: Cow::Borrowed("normal"),
        body: Cow::Owned(body.to_string()),
        line: 1,
        ..amail_parser::Message::empty()
    }
}

/// The database is the truth for an mcp store's envelope. Its texts are
/// borrowed from the row: a record takes names and spans from them, and
/// copies made here were dropped with the parsed message (about 1,100
/// instructions a row, and as many again to drop them).
fn override_from_row<'a>(m: &mut amail_parser::Message<'a>, row: &'a MessageRow) {
    m.id = Some(Cow::Owned(row.id.to_string()));
    if !row.sender.is_empty() {
        m.from = Some(Cow::Borrowed(&row.sender));
    }
    m.to = names(row, "to");
    m.cc = names(row, "cc");
    m.thread_id = row.thread_id.as_deref().map(Cow::Borrowed);
    if row.created.is_some() {
        m.timestamp = row.created;
    }
    m.ack_required = row.ack_required;
    m.importance = Cow::Borrowed(&row.importance);
    if m.subject.is_empty() {
        m.subject = Cow::Borrowed(&row.subject);
    }
    m.project = Some(Cow::Borrowed(&row.project_slug));
}

fn names<'a>(row: &'a MessageRow, kind: &str) -> Names<'a> {
    row.recipients
        .iter()
        .filter(|r| r.kind == kind)
        .map(|r| Cow::Borrowed(&*r.agent))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::sync::Mutex;
    use std::time::Duration;

    use super::*;
    use crate::stores::steps::FIRST_STEP;

    use proptest::prelude::*;

    use crate::stores::mcp::db::RecipientRow;

    /// The record a row gets from parsing its whole rendered file, front
    /// matter and all (the way before `parse_archive_under`): the oracle.
    fn by_whole_file(row: &MessageRow, text: &Text) -> CompactMessage {
        let first = amail_parser::parse(text, &ParseOptions::default())
            .ok()
            .and_then(|v| v.into_iter().next());
        match first {
            Some(mut message) => {
                override_from_row(&mut message, row);
                CompactMessage::from_text_under(&message, text, 0)
            }
            None => file_record(row, empty_message(&row.body_md)),
        }
    }

    /// Every field of a record, and the full message parsed again.
    fn seen(m: &CompactMessage) -> String {
        format!(
            "{:?} {:?} {} [{}] {:?} {:?} {:?} {:?} {:?} {} {:?} {:?} {:?} {:?} {:?} {:?}\n{}\n{:?}",
            m.kind,
            m.raw_type,
            m.is_reply,
            m.subject,
            m.from,
            m.to,
            m.cc,
            m.thread_id,
            m.timestamp,
            m.ack_required,
            m.context_usage(),
            m.importance,
            m.project,
            m.bead(),
            m.status(),
            m.id.as_ref().map(ToString::to_string),
            m.body_text(),
            m.full(),
        )
    }

    /// The agents corpus's messages (decorated every way agents write),
    /// as bodies, and their subjects.
    fn corpus() -> Vec<(String, String)> {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../parser/fixtures/agents");
        let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| !p.to_string_lossy().ends_with(".crlf.md"))
            .map(|p| {
                let text = std::fs::read_to_string(p).unwrap();
                let subject = text
                    .lines()
                    .find_map(|l| l.split_once("Subject:").map(|(_, s)| s.trim().to_string()))
                    .unwrap_or_default();
                (subject, text)
            })
            .collect();
        out.sort();
        out
    }

    fn row_strategy() -> impl Strategy<Value = MessageRow> {
        let corpus = corpus();
        let n = corpus.len();
        let subjects = prop_oneof![
            (0..n).prop_map({
                let c = corpus.clone();
                move |i| c[i].0.clone()
            }),
            prop::sample::select(vec![
                "[ol-1] PROGRESS",
                "**[ol-1] PROGRESS**",
                "🚧 [ol-2] HELP_REQUEST - update",
                "Re: [ol-3] HELP_RESPONSE",
                "",
                "  spaced  ",
                "quote \" and \\ back",
                "[ol-9] MYSTERY_TYPE",
                "PROGRESS",
            ])
            .prop_map(String::from),
            ".{0,24}",
        ];
        let bodies = prop_oneof![
            (0..n).prop_map(move |i| corpus[i].1.clone()),
            ".{0,80}",
            Just(String::new()),
        ];
        let names =
            prop::sample::select(vec!["", "BlueLake", "Ünï", "a\"b"]).prop_map(String::from);
        let recipients = prop::collection::vec(
            (
                names.clone(),
                prop::sample::select(vec!["to", "cc", "bcc"]),
                proptest::option::of(0i64..4_000_000_000),
            ),
            0..4,
        );
        (
            (
                subjects,
                bodies,
                names,
                proptest::option::of(-62_135_596_800i64..253_402_300_799),
            ),
            (
                proptest::option::of(prop::sample::select(vec!["ol-1", "", "t \u{e9}"])),
                prop::sample::select(vec!["normal", "high", "", "urgent"]),
                any::<bool>(),
                recipients,
                1i64..1_000_000,
            ),
        )
            .prop_map(
                |(
                    (subject, body_md, sender, created),
                    (thread, importance, ack, recipients, id),
                )| {
                    MessageRow {
                        id,
                        project_slug: "home-dev-demo".into(),
                        project_key: "/home/dev/demo".into(),
                        sender: sender.as_str().into(),
                        thread_id: thread.filter(|t| !t.is_empty()).map(String::from),
                        subject,
                        body_md,
                        importance: importance.into(),
                        ack_required: ack,
                        created: created.and_then(|s| DateTime::from_timestamp(s, 123_456_000)),
                        recipients: recipients
                            .into_iter()
                            .map(|(agent, kind, read)| RecipientRow {
                                agent: agent.as_str().into(),
                                kind: kind.into(),
                                read_ts: read.and_then(|s| DateTime::from_timestamp(s, 0)),
                                ack_ts: None,
                            })
                            .collect(),
                        not_utf8: None,
                    }
                },
            )
    }

    proptest! {
        /// A canonical file's id is what follows its name's last `__`, as
        /// `rsplit_once` splits it, whatever the name.
        #[test]
        fn a_files_id_is_after_its_last_double_underscore(
            name in "[_a-z0-9+-]{0,12}(__)?[_0-9+-]{0,6}(\\.md)?",
        ) {
            let oracle = name
                .strip_suffix(".md")
                .and_then(|stem| stem.rsplit_once("__"))
                .and_then(|(_, id)| id.parse().ok())
                .filter(|&id: &i64| id > 0);
            prop_assert_eq!(id_in_name(OsStr::new(&name)), oracle, "{:?}", name);
        }

        /// A row's record, its body parsed under its subject with the front
        /// matter passed over, is the one parsing its whole rendered file
        /// gives: every field, the body, and the full message.
        #[test]
        fn a_row_reads_as_its_whole_file_does(row in row_strategy()) {
            let (text, places) = render_row_file(&row);
            let text = Text::from(text);
            let record = row_record_over(&row, &text, &places);
            prop_assert_eq!(seen(&record), seen(&by_whole_file(&row, &text)));
            // The id, and a subject written without escapes, are ranges of
            // the file, not copies.
            prop_assert!(record.id.as_ref().is_some_and(|id| id.shares(&text)));
            let plain = |c: char| c.is_ascii() && c >= ' ' && c != '"' && c != '\\';
            if !record.subject.is_empty() && row.subject.chars().all(plain) {
                prop_assert!(record.subject.shares(&text), "{:?}", row.subject);
            }
        }
    }

    /// The newest rows come out while the archive is still being listed
    /// (issue 16: a million-file archive lists for most of a second, and
    /// the first step waited for it); their paths come with the whole
    /// inbox, which is the one a load without steps returns.
    #[test]
    fn the_newest_rows_do_not_wait_for_the_archive_listing() {
        let dir = tempfile::tempdir().unwrap();
        let n = 5 * FIRST_STEP as i64;
        let db = dir.path().join("storage.sqlite3");
        let conn = rusqlite::Connection::open(&db).unwrap();
        crate::stores::mcp::db::tests::fill(&conn, n, 60);
        drop(conn);
        // Each row's canonical file, named as the server names it (never
        // opened: the rows have bodies).
        let month = dir.path().join("projects/p/messages/2026/01");
        std::fs::create_dir_all(&month).unwrap();
        for id in 1..=n {
            std::fs::write(month.join(format!("2026-01-01T00-00-00Z__s__{id}.md")), "").unwrap();
        }

        // The listing waits for the first step (at most long enough to
        // fail, not hang, when the step waits for the listing).
        let (stepped, step_seen) = mpsc::channel();
        let step_seen = Mutex::new(step_seen);
        let listed_after_step = std::sync::atomic::AtomicBool::new(false);
        let list = |archive: &Path| {
            let seen = step_seen
                .lock()
                .unwrap()
                .recv_timeout(Duration::from_secs(20));
            listed_after_step.store(seen.is_ok(), std::sync::atomic::Ordering::SeqCst);
            walk::store_listing(archive)
        };
        let steps = std::cell::RefCell::new(Vec::new());
        let partial = |inbox: Inbox| {
            let _ = stepped.send(());
            steps.borrow_mut().push(inbox);
        };
        let whole = load_listed(
            dir.path(),
            Some(&db),
            u64::MAX,
            &|_, _| (),
            Some(&partial),
            &list,
        )
        .unwrap();
        assert!(
            listed_after_step.load(std::sync::atomic::Ordering::SeqCst),
            "the first step waited for the archive's listing"
        );
        let steps = steps.into_inner();
        assert!(!steps.is_empty());
        assert!(steps[0].messages.iter().all(|m| m.path.is_none()));

        assert_eq!(whole.messages.len(), n as usize);
        for m in &whole.messages {
            let path = m
                .path
                .as_deref()
                .unwrap_or_else(|| panic!("{} has no file", m.key));
            assert_eq!(
                path.file_name(),
                Some(OsStr::new(&format!(
                    "2026-01-01T00-00-00Z__s__{}.md",
                    m.key
                )))
            );
        }
        let plain = load_mcp(dir.path(), Some(&db), u64::MAX, &|_, _| (), None).unwrap();
        assert_eq!(whole, plain);
    }
}
