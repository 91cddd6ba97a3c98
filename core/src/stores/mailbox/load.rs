//! Loading a plain mailbox: every mail file the walker finds under the
//! root, any framing, read and parsed in parallel, plus the ack journal and
//! the handoff and A2A items ([`super::protocol`]).
//!
//! Newest first (issue 16): the files are read in the order their names
//! put them in time, newest first ([`newest_first_by`]: the mcp_agent_mail
//! archive's and amail's own `2026-11-22T03-16-28Z__…` names, the demo's
//! and many agents' `000123-…` sequence numbers; no file is opened or
//! stat'ed for it), so a caller that wants to show mail before the whole
//! mailbox is read ([`load_mailbox_in_steps`], the TUI) gets a browsable
//! inbox of the newest messages after the first `FIRST_STEP`, then each
//! time the count has grown fourfold, and the whole inbox at the end (the
//! step policy is `stores::steps`, shared with the mcp store). The
//! top of a partial inbox's thread list is the top of the whole one: a
//! thread's newest message is read before any older one. Each step is
//! built from scratch (a copy of the messages read so far, then `build`;
//! the file texts are shared, not copied): see `stores::steps` for what
//! that costs. A mailbox whose names carry no order is read in path
//! order, as before. A mailbox filed by date (`<agent>/YYYY/MM/`, as the
//! server files its copies) gets its first step before the whole walk:
//! its newest months are listed first (`walk::newest_dated`), so a
//! million files need not be listed before the newest threads show.
//!
//! Keys are made unique in reading order (the first message read with an
//! id keeps it), which the names fix, so every load of the same files
//! gives the same keys; the incremental reload never decides such a
//! collision itself (it loads in full).
//!
//! Problems with single files never stop a load: they go to
//! `Inbox::problems` (in path order) and the rest loads.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::homes;
use super::journal;
use super::protocol;
use crate::fsio::FileReader;
use crate::inbox::index::KeyTable;
use crate::inbox::patch::room_for_new_mail;
use crate::inbox::TextChunk;
use crate::inbox::{
    apply_acks, build, build_to_patch, Acks, Inbox, InboxMessage, MailPath, SourceKind,
};
use crate::source::{files, parallel, walk};
use crate::stores::error::Error;
use crate::stores::read::{
    kept_text, key_text, parse_records, recipients_from, records_of_text, unique_key, FileRecords,
};
use crate::stores::steps::Steps;

/// Files read and parsed per chunk handed out to a worker. Small chunks
/// keep both cores busy to the end (file sizes vary 100-fold), while the
/// calling thread joins finished chunks into the inbox.
const PARSE_CHUNK: usize = 128;

/// One file read and parsed: its messages (or why not) and, for JSON
/// files, the protocol text.
type ParsedFile = Result<(FileRecords, Option<String>), String>;

/// A file of a chunk once read: its text's range in the chunk's buffer,
/// to be parsed from there, or (a text not kept) its records.
enum Kept {
    Range(std::ops::Range<usize>),
    Parsed(FileRecords),
}

/// A chunk's files, each path a range of one buffer the chunk's messages
/// share ([`MailPath::shared`]), with what reading each gave.
type ParsedChunk = Vec<(MailPath, ParsedFile)>;

/// A plain mailbox: every mail file [`walk::walk`] finds under `root`, any
/// framing, plus the ack journal. Files over `max_bytes` are problems, not
/// read.
pub fn load_mailbox(root: &Path, max_bytes: u64) -> Result<Inbox, Error> {
    load_mailbox_with(root, max_bytes, &|_, _| ())
}

/// [`load_mailbox`], telling `progress` (files done, files in all) after
/// each chunk joined.
pub fn load_mailbox_with(
    root: &Path,
    max_bytes: u64,
    progress: &dyn Fn(usize, usize),
) -> Result<Inbox, Error> {
    load(root, max_bytes, progress, None)
}

/// [`load_mailbox_with`], also handing `partial` a browsable inbox of the
/// newest messages read so far at growing steps (see the module doc),
/// each after the progress call that counted it. A mailbox of fewer than
/// [`FIRST_STEP`] messages gets none.
///
/// [`FIRST_STEP`]: crate::stores::FIRST_STEP
pub fn load_mailbox_in_steps(
    root: &Path,
    max_bytes: u64,
    progress: &dyn Fn(usize, usize),
    partial: &dyn Fn(Inbox),
) -> Result<Inbox, Error> {
    load(root, max_bytes, progress, Some(partial))
}

fn load(
    root: &Path,
    max_bytes: u64,
    progress: &dyn Fn(usize, usize),
    partial: Option<&dyn Fn(Inbox)>,
) -> Result<Inbox, Error> {
    let (acks, journal_problems) = journal::read(root);
    let mut steps = Steps::new();
    if let Some(partial) = partial {
        if let Some(held) = newest_dated_step(root, max_bytes, (&acks, &journal_problems), partial)
        {
            steps = Steps::after(held);
        }
    }
    let (handoffs, mut listing) = walk::mailbox_listing(root);
    if let Some(store) = listing.mcp_roots().first() {
        return Err(mcp_root_below(root, store));
    }
    let mut below_problems = Vec::new();
    let below = homes::read_below(root, listing.folders(), &mut below_problems);
    let mut problems: Vec<_> = std::mem::take(&mut listing.problems)
        .into_iter()
        .map(walk::Problem::into_entry)
        .collect();
    // Each file's place in the listing, newest first; its path is made
    // by the worker that reads it.
    let to_read = newest_first_by(listing.len(), |i| {
        listing.get(i).map_or(OsStr::new(""), |(_, name)| name)
    });
    progress(0, to_read.len());
    problems.extend(journal_problems);
    let mut joined = Joined::new(root, to_read.len());
    joined.read(&listing, &to_read, max_bytes, &mut |joined, done| {
        progress(done, to_read.len());
        if let Some(partial) = partial {
            if steps.due(joined.loaded.len(), done, to_read.len()) {
                partial(joined.so_far((&acks, &below), &problems).browsable(root));
            }
        }
    });
    drop(to_read);
    drop(listing);
    let Joined {
        root: _,
        mut loaded,
        keys,
        protocol_files,
        mut unreadable,
    } = joined;
    unreadable.sort_by(|a, b| a.0.cmp(&b.0));
    problems.extend(unreadable);
    // Every key is in; the key index goes before the inbox is built.
    drop(keys);
    apply_acks(&mut loaded, &acks);
    below.apply(&mut loaded, root);
    problems.append(&mut below_problems);
    protocol::merge_read(
        protocol_files,
        &handoffs,
        &mut loaded,
        &mut problems,
        max_bytes,
    );
    let mut inbox = build_to_patch(
        SourceKind::Mailbox {
            root: root.to_path_buf(),
        },
        loaded,
        problems,
    );
    // Kept, so a reload applies only what the journal changed.
    inbox.index.acks = Some(acks);
    inbox.index.journals_below = !below.is_empty();
    Ok(inbox)
}

/// What a load of a folder above an mcp_agent_mail storage root says:
/// read as a plain mailbox, the root's messages would show without the
/// acks its database holds, and an ack made from above would go into a
/// journal the server never reads.
fn mcp_root_below(root: &Path, store: &Path) -> Error {
    Error::Source(format!(
        "{}: holds an mcp_agent_mail storage root, {}, whose acks are in its database, \
         which a folder above it is not read with: name the root itself (`amail threads {}`)",
        root.display(),
        store.display(),
        crate::safe_text::shell_arg(store)
    ))
}

/// A mailbox filed by date hands out its first step before the whole
/// walk (`walk::newest_dated`: the newest months listed first): the
/// newest [`FIRST_STEP`] files of those listed, read and handed to
/// `partial`. Returns the messages it held, or None when the tree's
/// folders do not date its files (the load's own steps then come as
/// before). Its files are read again by the whole load: a thousand
/// files, a few milliseconds, against the whole tree's listing saved.
///
/// [`FIRST_STEP`]: crate::stores::FIRST_STEP
fn newest_dated_step(
    root: &Path,
    max_bytes: u64,
    (acks, journal_problems): (&Acks, &[(PathBuf, String)]),
    partial: &dyn Fn(Inbox),
) -> Option<usize> {
    let first = crate::stores::FIRST_STEP;
    let mut listing = walk::newest_dated(root, first)?;
    let mut problems: Vec<_> = std::mem::take(&mut listing.problems)
        .into_iter()
        .map(walk::Problem::into_entry)
        .collect();
    problems.extend_from_slice(journal_problems);
    let mut newest = newest_first_by(listing.len(), |i| {
        listing.get(i).map_or(OsStr::new(""), |(_, name)| name)
    });
    newest.truncate(first);
    let mut joined = Joined::new(root, newest.len());
    joined.read(&listing, &newest, max_bytes, &mut |_, _| {});
    let below = homes::read_below(root, listing.folders(), &mut problems);
    partial(joined.so_far((acks, &below), &problems).browsable(root));
    Some(joined.loaded.len())
}

/// The messages a load has joined so far, in reading order, each key
/// made unique against those before it, and what could not be read.
struct Joined<'r> {
    root: &'r Path,
    loaded: Vec<InboxMessage>,
    /// The keys given so far, by position (the index's table: no key
    /// copied).
    keys: KeyTable,
    protocol_files: HashMap<PathBuf, String>,
    /// Files that could not be read, put back in path order at the end.
    unreadable: Vec<(PathBuf, String)>,
}

impl<'r> Joined<'r> {
    /// Room for `files` files' messages: about one a file, sized up front
    /// so a big mailbox is not copied while the vector grows, with room
    /// for the new mail of the session (see `room_for_new_mail`).
    fn new(root: &'r Path, files: usize) -> Self {
        Joined {
            root,
            loaded: Vec::with_capacity(files + room_for_new_mail(files)),
            keys: KeyTable::with_capacity(files),
            protocol_files: HashMap::new(),
            unreadable: Vec::new(),
        }
    }

    /// Reads and parses the files at `places` of `listing` on every core
    /// and joins them in that order, calling `after` with the files done
    /// after each chunk is joined.
    ///
    /// Workers take chunks in turn and the parsed messages are moved into
    /// `loaded` here as soon as each chunk (and all before it) is done:
    /// the joining overlaps the parsing instead of idling the workers
    /// between batches, and only a few chunks are ever held twice.
    fn read(
        &mut self,
        listing: &walk::Listing,
        places: &[usize],
        max_bytes: u64,
        after: &mut dyn FnMut(&Joined, usize),
    ) {
        let mut done = 0;
        let _ = parallel::ordered(
            places,
            PARSE_CHUNK,
            parallel::cores(),
            || (FileReader::new(), TextChunk::default()),
            |(reader, texts), _, part, out: &mut ParsedChunk| {
                read_chunk(listing, part, max_bytes, reader, texts, out);
            },
            |out| {
                // Chunks arrive in input order.
                done += out.len();
                for (path, result) in out.drain(..) {
                    self.join(path, result);
                }
                after(self, done);
                std::ops::ControlFlow::<()>::Continue(())
            },
        );
    }

    /// One file's messages, or why it could not be read.
    fn join(&mut self, path: MailPath, result: ParsedFile) {
        match result {
            Ok((r, protocol)) => {
                let start = self.loaded.len();
                let (loaded, keys) = (&self.loaded, &self.keys);
                let entries = entries_of(self.root, &path, r, &|k| keys.find(loaded, k).is_some());
                self.loaded.extend(entries);
                self.keys.extend(&self.loaded, start);
                if let Some(text) = protocol {
                    self.protocol_files.insert(path.to_path_buf(), text);
                }
            }
            Err(why) => self.unreadable.push((path.to_path_buf(), why)),
        }
    }

    /// What is read so far, with the load's acks and problems.
    fn so_far<'a>(
        &'a self,
        (acks, below): (&'a Acks, &'a homes::Below),
        problems: &'a [(PathBuf, String)],
    ) -> Read<'a> {
        Read {
            loaded: &self.loaded,
            acks,
            below,
            protocol_files: &self.protocol_files,
            problems,
            unreadable: &self.unreadable,
        }
    }
}

/// A worker's chunk: the files at `part` of `listing` read, then parsed.
///
/// Every file of the chunk is read first, the texts the records keep
/// gathered into one buffer (`TextChunk`), then each parsed from its
/// range of it. JSON files are classified (handoff or A2A items?) from
/// the bytes read here, so the protocol merge does not read them again.
fn read_chunk(
    listing: &walk::Listing,
    part: &[usize],
    max_bytes: u64,
    reader: &mut FileReader,
    texts: &mut TextChunk,
    out: &mut ParsedChunk,
) {
    out.clear();
    let files: Vec<_> = part.iter().filter_map(|&i| listing.get(i)).collect();
    let paths = MailPath::shared(&files);
    texts.clear();
    let read: Vec<_> = paths
        .iter()
        .map(|path| {
            files::read_mail_file_into(reader, path, max_bytes).and_then(|bytes| {
                let protocol = protocol::protocol_text(path, bytes);
                let kept = match kept_text(bytes).and_then(|t| texts.push(t)) {
                    Some(range) => Kept::Range(range),
                    None => Kept::Parsed(parse_records(bytes)?),
                };
                Ok((kept, protocol))
            })
        })
        .collect();
    let texts = texts.to_text();
    out.extend(paths.into_iter().zip(read).map(|(path, read)| {
        let parsed = read.and_then(|(kept, protocol)| {
            let records = match kept {
                Kept::Range(range) => records_of_text(&texts.sub(range).unwrap_or_default())?,
                Kept::Parsed(records) => records,
            };
            Ok((records, protocol))
        });
        (path, parsed)
    }));
}

/// What a load has read so far.
struct Read<'a> {
    loaded: &'a [InboxMessage],
    acks: &'a Acks,
    /// The journals of the mailboxes below the root.
    below: &'a homes::Below,
    protocol_files: &'a HashMap<PathBuf, String>,
    problems: &'a [(PathBuf, String)],
    unreadable: &'a [(PathBuf, String)],
}

impl Read<'_> {
    /// An inbox of the messages read so far, acks applied. The handoff
    /// and A2A items come with the whole inbox; the JSON files that hold
    /// them are left out until then (the whole inbox shows their items,
    /// not the files).
    fn browsable(&self, root: &Path) -> Inbox {
        let mut part = self.loaded.to_vec();
        if !self.protocol_files.is_empty() {
            part.retain(|m| {
                m.path
                    .as_deref()
                    .is_none_or(|p| !self.protocol_files.contains_key(p))
            });
        }
        apply_acks(&mut part, self.acks);
        self.below.apply(&mut part, root);
        let mut problems = self.problems.to_vec();
        problems.extend_from_slice(self.unreadable);
        let mut inbox = build(
            SourceKind::Mailbox {
                root: root.to_path_buf(),
            },
            part,
            problems,
        );
        // What is written from a step is placed as from the whole inbox
        // (`mailbox::send_context`, `write_context`).
        inbox.index.journals_below = !self.below.is_empty();
        inbox
    }
}

/// Where a file's name puts it in time, as far as the name says: ordered
/// so that the newest sorts last (a time beats a sequence number, which
/// beats nothing: names with a time are amail's and the server's, usually
/// newer than a numbered batch beside them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum NameAge {
    Unknown,
    /// A leading number that is not a date (`000123-…`).
    Sequence(u64),
    /// A leading date and time (`2026-11-22T03-16-28Z__…`, `20261122…`),
    /// its digits padded to a fixed width so a date alone compares with
    /// a date and time.
    Time(u64),
}

impl NameAge {
    /// The age as one number, in the same order: the kind in the top two
    /// bits, the value (under 10^18 < 2^60) below.
    fn packed(self) -> u64 {
        match self {
            NameAge::Unknown => 0,
            NameAge::Sequence(n) => 1 << 62 | n,
            NameAge::Time(t) => 2 << 62 | t,
        }
    }
}

/// Digits of a time kept: `YYYYMMDDHHMMSS` and four of the fraction.
const TIME_DIGITS: u32 = 18;

/// [`NameAge`] from a file name's leading run of digits and date and time
/// separators (`-`, `_`, `:`, `.`, `T`, `Z`).
fn name_age(name: &OsStr) -> NameAge {
    let mut digits = 0u32;
    let mut value = 0u64;
    for &b in name.as_encoded_bytes() {
        match b {
            b'0'..=b'9' => {
                if digits < TIME_DIGITS {
                    value = value * 10 + u64::from(b - b'0');
                    digits += 1;
                }
            }
            b'-' | b'_' | b':' | b'.' | b'T' | b'Z' => {}
            _ => break,
        }
    }
    if digits == 0 {
        return NameAge::Unknown;
    }
    // YYYYMMDD at least, a plausible year and month.
    let head = |n: u32| value / 10u64.pow(digits - n);
    let dated = digits >= 8 && (19..=20).contains(&head(2)) && (1..=12).contains(&(head(6) % 100));
    if dated {
        NameAge::Time(value * 10u64.pow(TIME_DIGITS - digits))
    } else {
        NameAge::Sequence(value)
    }
}

/// The walk places `0..len` of files reordered newest first by their
/// names ([`name_age`]), walk order among equals; walk order when no
/// name carries one. `name` gives the file name at a place, borrowed from
/// wherever the caller keeps them (a listing), so the order is a list of
/// places, 8 bytes a file, not of copies of what each file is. The ages
/// are worked out and sorted on every core (a million names: about 0.1 s
/// of CPU).
pub(crate) fn newest_first_by<'n>(
    len: usize,
    name: impl Fn(usize) -> &'n OsStr + Sync,
) -> Vec<usize> {
    // Age and walk place in one number, so the sort compares integers.
    let mut order: Vec<u128> = (0..len)
        .into_par_iter()
        .map(|i| (u128::from(!name_age(name(i)).packed()) << 64) | i as u128)
        .collect();
    if order
        .iter()
        .all(|k| (k >> 64) as u64 == !NameAge::Unknown.packed())
    {
        return (0..len).collect();
    }
    order.par_sort_unstable();
    order.into_iter().map(|k| k as u64 as usize).collect()
}

/// One file's messages as inbox entries (threads not yet assigned, acks
/// not yet applied: see `inbox::apply_acks`): keys made unique against `seen`,
/// and recorded there. Shared by the full load (through [`entries_of`])
/// and the incremental reload, so both make the same entries.
pub(crate) fn file_entries(
    root: &Path,
    path: &Path,
    records: FileRecords,
    seen: &mut HashSet<String>,
) -> Vec<InboxMessage> {
    let out = entries_of(root, &MailPath::new(path), records, &|k| seen.contains(k));
    seen.extend(out.iter().map(|m| m.key.to_string()));
    out
}

/// [`file_entries`] with `taken` saying which keys are in use before this
/// file (the caller records the new ones).
fn entries_of(
    root: &Path,
    path: &MailPath,
    (messages, bcc): FileRecords,
    taken: &dyn Fn(&str) -> bool,
) -> Vec<InboxMessage> {
    let rel = || {
        path.strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let several = messages.len() > 1;
    // The keys given in this file so far (a file of several messages).
    let mut own: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(messages.len());
    for (n, m) in messages.into_iter().enumerate() {
        let key = unique_key(
            m.id.as_deref(),
            || {
                if several {
                    format!("{}#{}", rel(), n + 1)
                } else {
                    rel()
                }
            },
            &|k| taken(k) || own.contains(k),
        );
        if several {
            own.insert(key.to_string());
        }
        let key = key_text(&key, &m);
        let recipients = recipients_from(&m.to, &m.cc, &bcc);
        out.push(InboxMessage {
            key,
            project: m.project,
            message: m,
            path: Some(path.clone()),
            recipients,
            thread_from_end: 0,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn newest_first(paths: Vec<PathBuf>) -> Vec<PathBuf> {
        newest_first_by(paths.len(), |i| paths[i].file_name().unwrap_or_default())
            .into_iter()
            .map(|i| paths[i].clone())
            .collect()
    }

    fn names(paths: &[PathBuf]) -> Vec<&str> {
        paths
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap())
            .collect()
    }

    #[test]
    fn the_loads_key_index_gives_the_keys_a_set_of_copies_gives() {
        let root = Path::new("/m");
        let files = [
            ("a.md", "Subject: x\nId: 7\nFrom: A\n\nBody:\nhi\n"),
            // The same id again: the path; an id that is another file's
            // path, which that file's key then avoids (`~2`).
            ("b.md", "Subject: y\nId: 7\nFrom: A\n\nBody:\nhi\n"),
            ("c.md", "Subject: z\nId: e.md\nFrom: A\n\nBody:\nhi\n"),
            ("e.md", "Subject: w\nId: 7\nFrom: A\n\nBody:\nhi\n"),
            (
                "d.jsonl",
                concat!(
                    r#"{"id":"8","subject":"p","from":"A","body_md":"1"}"#,
                    "\n",
                    r#"{"id":"8","subject":"q","from":"A","body_md":"2"}"#,
                    "\n",
                    r#"{"id":"d.jsonl#4","subject":"r","from":"A","body_md":"3"}"#,
                    "\n",
                    r#"{"subject":"s","from":"A","body_md":"4"}"#,
                    "\n"
                ),
            ),
        ];
        let (mut by_set, mut seen) = (Vec::new(), HashSet::new());
        let (mut by_index, mut keys) = (Vec::new(), KeyTable::with_capacity(1));
        for (name, text) in files {
            let path = root.join(name);
            let records = || parse_records(text.as_bytes()).unwrap();
            by_set.extend(file_entries(root, &path, records(), &mut seen));
            let start = by_index.len();
            let entries = entries_of(root, &MailPath::new(&path), records(), &|k| {
                keys.find(&by_index, k).is_some()
            });
            by_index.extend(entries);
            keys.extend(&by_index, start);
        }
        let keys_of = |v: &[InboxMessage]| v.iter().map(|m| m.key.clone()).collect::<Vec<_>>();
        assert_eq!(
            keys_of(&by_set),
            [
                "7",
                "b.md",
                "e.md",
                "e.md~2",
                "8",
                "d.jsonl#2",
                "d.jsonl#4",
                "d.jsonl#4~2"
            ]
        );
        assert_eq!(keys_of(&by_index), keys_of(&by_set));
    }

    #[test]
    fn names_with_a_time_or_a_number_say_where_they_stand() {
        let age = |s: &str| name_age(Path::new(s).file_name().unwrap());
        // The server's and amail's own names: a time.
        let a = age("messages/2026/11/2026-11-22T03-16-28Z__ol-527.2-help__5.md");
        let b = age("replies/2026-11-22T03-16-29Z__re-x__re-5.md");
        assert!(matches!(a, NameAge::Time(_)) && a < b, "{a:?} {b:?}");
        // A date alone compares with a date and time.
        let day = age("2026-11-22.md");
        assert!(matches!(day, NameAge::Time(_)) && day < a, "{day:?}");
        assert!(day > age("2026-11-21T23-59-59Z__x.md"));
        // The demo's numbers: a sequence, below any time.
        let (n2, n10) = (age("000002-ol-5.2-progress.md"), age("000010-x.md"));
        assert_eq!(n2, NameAge::Sequence(2));
        assert!(n2 < n10 && n10 < day);
        // Nothing to go by.
        assert_eq!(age("notes.md"), NameAge::Unknown);
        assert_eq!(age("ol-5072.2.md"), NameAge::Unknown);
        assert!(NameAge::Unknown < n2);
        // The packed ages sort as the ages do.
        let all = [NameAge::Unknown, n2, n10, day, a, b];
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert!(all.windows(2).all(|w| w[0].packed() < w[1].packed()));
    }

    #[test]
    fn files_are_read_newest_name_first_and_in_path_order_without_one() {
        let paths: Vec<PathBuf> = [
            "a/000001-x.md",
            "a/notes.md",
            "a/replies/2026-01-02T00-00-00Z__re.md",
            "b/000003-y.md",
            "b/2026-01-01T00-00-00Z__z.md",
            "b/zz.md",
            "c/000002-w.md",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(
            names(&newest_first(paths)),
            [
                "2026-01-02T00-00-00Z__re.md",
                "2026-01-01T00-00-00Z__z.md",
                "000003-y.md",
                "000002-w.md",
                "000001-x.md",
                "notes.md",
                "zz.md",
            ]
        );
        let plain: Vec<PathBuf> = ["b.md", "a/c.md", "a.md"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(names(&newest_first(plain)), ["b.md", "c.md", "a.md"]);
    }
}
