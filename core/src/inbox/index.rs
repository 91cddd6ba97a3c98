//! What the inbox keeps beside its messages so that a change costs in
//! proportion to itself (issue 16: one new file in a million-message
//! inbox): messages by key and by file, the folders that hold mail,
//! whether any key was renamed against another, the acks in effect, and
//! each agent's roster evidence.
//!
//! The tables (by key, by file, the folders) are made on first use, or
//! by the load of an inbox a reload will patch (a plain mailbox's final
//! inbox); the acks and each agent's evidence are kept only by such a
//! load. Kept up to date by the patch, and never part of what an inbox
//! *is*: two inboxes with the same messages,
//! threads and agents are equal whatever their indexes hold. An inbox
//! made or changed by hand (its fields are public) is noticed by its
//! message count, and the index is made again before it is used; a key or
//! path changed in place without a count change is not noticed (nothing in
//! the project does that to an inbox it then patches).
//!
//! The tables hold positions (`u32`) into `Inbox::messages`, hashed by the
//! message's key or path bytes: about 5 bytes a message each, no copy of
//! any string. They count from a movable origin, so undated mail (it goes
//! before every message) moves the origin instead of every entry.

use std::collections::HashMap;
use std::ffi::OsString;
use std::hash::BuildHasher;
use std::path::Path;
use std::sync::OnceLock;

use hashbrown::{DefaultHashBuilder, HashTable};

use super::build::trimmed;
use super::compact::Name;
use super::model::{Acks, InboxMessage, Patched, Thread};
use super::turn::Open;

/// See the module documentation.
#[derive(Clone, Default)]
pub(crate) struct Index {
    /// Messages by key and by file, the folders, `renamed`: made on first
    /// use ([`Index::lookups`], a patch) unless the load made them (a
    /// plain mailbox's final inbox, the one a reload patches): the
    /// partial inboxes a load hands over while it reads, an mcp root's,
    /// piped JSON's and a server's never need them.
    lookups: OnceLock<Box<Lookups>>,
    /// Threads by id, made on first use like `lookups` (or by the load of
    /// an inbox a reload patches).
    threads: OnceLock<Box<ThreadTable>>,
    /// The acks applied to the recipients, as the store recorded them
    /// (`None`: not known, e.g. an inbox from a database).
    pub(crate) acks: Option<Acks>,
    /// Acks were also read from journals of mailboxes below the root
    /// (`stores::mailbox::homes`): a reload loads whole, as the patch
    /// reads one journal.
    pub(crate) journals_below: bool,
    /// Each agent's roster evidence, by name (see `turn::Open`); kept by
    /// the load of an inbox a reload patches, else `None` until made (the
    /// first patch that needs it makes it).
    pub(crate) roster: Option<HashMap<String, Open>>,
    /// What the last patch did, until a view takes it
    /// ([`Inbox::take_patched`](super::Inbox::take_patched)).
    pub(crate) patched: Record,
}

/// The record of the last patch ([`Patched`]) as a view may take it.
#[derive(Clone, Debug, Default)]
pub(crate) enum Record {
    /// Nothing to take: no patch since the last take (or ever).
    #[default]
    Empty,
    Kept(Box<Patched>),
    /// A patch whose record cannot be told, or a second one before the
    /// first was taken: a view counts again.
    Lost,
}

/// The tables of an [`Index`].
#[derive(Clone, Default)]
pub(crate) struct Lookups {
    /// `Inbox::messages.len()` when the tables were made (or patched):
    /// another count means the inbox changed by hand.
    len: usize,
    /// Made at all (an inbox past `u32::MAX` messages is not).
    made: bool,
    hasher: DefaultHashBuilder,
    /// Message positions by key (keys are unique).
    keys: KeyTable,
    /// Message positions by path bytes (several for a file of several
    /// messages).
    paths: HashTable<u32>,
    /// The folders that directly hold a message's file, with how many.
    folders: hashbrown::HashMap<OsString, u32>,
    /// Some message's key was made unique against another's (see
    /// [`key_was_renamed`]): which one wins depends on the order of a full
    /// load, so such an inbox is never patched.
    renamed: bool,
    /// The origin the positions in `keys` and `paths` count from: a
    /// message at position `p` is held as `p + base` (wrapping), so mail
    /// inserted before every message (undated) moves the origin, not
    /// every entry ([`Lookups::shift`]).
    base: u32,
}

/// Threads by id: positions in `Inbox::threads` counted from its end
/// (as `InboxMessage::thread_from_end`), hashed by the id alone (a view
/// asks by id; the patch compares the project too). Counted from the end
/// because new mail lifts threads to the top: a thread that stays below
/// keeps its count, so only the threads that moved past others are
/// written again, as their messages are. The patch found a new message's
/// thread, and each seed's, by comparing every thread's id (318,000 at a
/// million messages). Like the other tables it notices a hand-made
/// change by the count only: threads reordered in place are not (nothing
/// in the project does that to an inbox it then patches).
#[derive(Clone, Default)]
pub(crate) struct ThreadTable {
    /// `Inbox::threads.len()` it describes (another count: changed by
    /// hand, made again).
    len: usize,
    /// Made at all (not past `u32::MAX` threads).
    made: bool,
    hasher: DefaultHashBuilder,
    /// (count from the end, the id's hash): the hash is kept so that the
    /// table can grow without the threads at hand (8 bytes a thread).
    table: HashTable<(u32, u32)>,
}

impl ThreadTable {
    fn of(threads: &[Thread]) -> ThreadTable {
        let mut t = ThreadTable {
            len: threads.len(),
            table: HashTable::with_capacity(threads.len()),
            ..ThreadTable::default()
        };
        let Ok(len) = u32::try_from(threads.len()) else {
            return t;
        };
        t.made = true;
        for (q, thread) in (0..len).zip(threads) {
            t.add(&thread.id, (len - 1 - q) as usize);
        }
        t
    }

    /// The id's hash, 32 bits of it (kept with the entry) spread over
    /// the 64 the table reads (its low bits pick the bucket, its top
    /// seven the tag).
    fn hash(&self, id: &str) -> (u64, u32) {
        let h = self.hasher.hash_one(id) as u32;
        (spread(h), h)
    }

    /// Takes in the thread `id` counted `from_end`.
    pub(crate) fn add(&mut self, id: &str, from_end: usize) {
        let (h, short) = self.hash(id);
        let Ok(fe) = u32::try_from(from_end) else {
            self.made = false;
            return;
        };
        self.table
            .insert_unique(h, (fe, short), |&(_, s)| spread(s));
    }

    /// Lets go of the thread `id` counted `from_end` (it moved or went).
    /// Run before any [`add`](ThreadTable::add) of the same change: the
    /// counts from the end are then each one thread's, so the count alone
    /// finds the entry.
    pub(crate) fn remove(&mut self, id: &str, from_end: usize) {
        let (h, _) = self.hash(id);
        if let Ok(e) = self.table.find_entry(h, |&(fe, _)| fe as usize == from_end) {
            e.remove();
        }
    }

    /// The count of threads it describes now.
    pub(crate) fn set_len(&mut self, len: usize) {
        self.len = len;
    }

    /// Where the threads with `id` are (positions from the start).
    fn positions<'a>(
        &'a self,
        threads: &'a [Thread],
        id: &'a str,
    ) -> impl Iterator<Item = usize> + 'a {
        let last = threads.len().wrapping_sub(1);
        self.table
            .iter_hash(self.hash(id).0)
            .filter_map(move |&(fe, _)| last.checked_sub(fe as usize))
            .filter(move |&q| threads.get(q).is_some_and(|t| t.id == id))
    }
}

/// A 32-bit hash as the 64 bits the table reads.
fn spread(h: u32) -> u64 {
    u64::from(h) | u64::from(h) << 32
}

/// Message positions by key, each found by hashing the key and comparing
/// the message's own: no key is copied (a set of copies was 5.7 MB and
/// 100,000 allocations at the peak of a 100,000-message load). The
/// index's table, and the mailbox load's while it makes keys unique in
/// reading order.
#[derive(Clone, Default)]
pub(crate) struct KeyTable {
    hasher: DefaultHashBuilder,
    at: HashTable<u32>,
}

impl KeyTable {
    pub(crate) fn with_capacity(n: usize) -> KeyTable {
        KeyTable {
            at: HashTable::with_capacity(n),
            ..KeyTable::default()
        }
    }

    /// Where the message of `messages` with `key` is.
    pub(crate) fn find(&self, messages: &[InboxMessage], key: &str) -> Option<usize> {
        self.find_from(messages, key, 0)
    }

    /// [`find`](KeyTable::find) in a table whose entries hold positions
    /// plus `base` (wrapping: the index's movable origin, `Lookups::base`).
    fn find_from(&self, messages: &[InboxMessage], key: &str, base: u32) -> Option<usize> {
        self.at
            .find(self.hasher.hash_one(key), |&j| {
                messages[j.wrapping_sub(base) as usize].key == key
            })
            .map(|&j| j.wrapping_sub(base) as usize)
    }

    /// Records the key of `messages[i]`, unique among those recorded. A
    /// position past `u32::MAX` is not recorded (the index is not made
    /// for such an inbox: `Lookups::made`).
    pub(crate) fn insert(&mut self, messages: &[InboxMessage], i: usize) {
        self.insert_from(messages, i, 0);
    }

    /// [`insert`](KeyTable::insert) with the position held plus `base`
    /// (see [`find_from`](KeyTable::find_from)).
    fn insert_from(&mut self, messages: &[InboxMessage], i: usize, base: u32) {
        let Ok(at) = u32::try_from(i) else { return };
        let h = &self.hasher;
        let of = |j: u32| &messages[j.wrapping_sub(base) as usize];
        self.at.insert_unique(
            h.hash_one(messages[i].key.as_str()),
            at.wrapping_add(base),
            |&j| h.hash_one(of(j).key.as_str()),
        );
    }

    /// Records the keys of `messages[from..]` (see [`KeyTable::insert`]).
    pub(crate) fn extend(&mut self, messages: &[InboxMessage], from: usize) {
        for i in from..messages.len() {
            self.insert(messages, i);
        }
    }

    fn len(&self) -> usize {
        self.at.len()
    }
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let l = self.lookups.get();
        f.debug_struct("Index")
            .field("made", &l.is_some())
            .field("len", &l.map(|l| l.len))
            .field("keys", &l.map(|l| l.keys.len()))
            .field("folders", &l.map(|l| l.folders.len()))
            .finish_non_exhaustive()
    }
}

impl Index {
    /// The index of `messages`, its tables made now (an inbox a reload
    /// will patch: the first new file should not wait for them).
    pub(crate) fn of(messages: &[InboxMessage]) -> Index {
        Index {
            lookups: OnceLock::from(Box::new(Lookups::of(messages))),
            ..Index::default()
        }
    }

    /// The tables, made now if they were not; `None` when they do not
    /// describe `messages` (see the module doc).
    pub(crate) fn lookups(&self, messages: &[InboxMessage]) -> Option<&Lookups> {
        let l = self.lookups.get_or_init(|| Box::new(Lookups::of(messages)));
        (l.made && l.len == messages.len()).then_some(l)
    }

    /// Makes the tables describe `messages` for a patch: made now if they
    /// were not; when they no longer describe them (the inbox was changed
    /// by hand), the whole index is made again, since the acks and
    /// evidence kept are not known to hold either. False for an inbox too
    /// big to index.
    pub(crate) fn fit(&mut self, messages: &[InboxMessage]) -> bool {
        if self.lookups(messages).is_none() {
            // Where the acks come from is the store's, not the tables'.
            let below = self.journals_below;
            *self = Index::of(messages);
            self.journals_below = below;
        }
        self.lookups.get().is_some_and(|l| l.made)
    }

    /// Makes the thread table now (the load of an inbox a reload will
    /// patch, as [`Index::of`]).
    pub(crate) fn make_threads(&mut self, threads: &[Thread]) {
        self.threads = OnceLock::from(Box::new(ThreadTable::of(threads)));
    }

    /// The thread table, made now if it was not; `None` when it does not
    /// describe `threads` (changed by hand) or cannot (past `u32::MAX`).
    fn thread_table(&self, threads: &[Thread]) -> Option<&ThreadTable> {
        let t = self
            .threads
            .get_or_init(|| Box::new(ThreadTable::of(threads)));
        (t.made && t.len == threads.len()).then_some(t)
    }

    /// Makes the thread table describe `threads` for a patch (made again
    /// when the inbox was changed by hand).
    pub(crate) fn fit_threads(&mut self, threads: &[Thread]) {
        if self.thread_table(threads).is_none() {
            self.make_threads(threads);
        }
    }

    /// Where the thread `id` of `project` is in `threads`: looked up in
    /// the thread table (made now if need be), not found by comparing
    /// every thread's id.
    pub(crate) fn thread_position(
        &self,
        threads: &[Thread],
        project: Option<Name>,
        id: &str,
    ) -> Option<usize> {
        match self.thread_table(threads) {
            Some(t) => t
                .positions(threads, id)
                .find(|&q| threads[q].project == project),
            None => threads
                .iter()
                .position(|t| t.id == id && t.project == project),
        }
    }

    /// Where the first thread `id` (of any project) is in `threads`.
    pub(crate) fn first_thread(&self, threads: &[Thread], id: &str) -> Option<usize> {
        match self.thread_table(threads) {
            Some(t) => t.positions(threads, id).min(),
            None => threads.iter().position(|t| t.id == id),
        }
    }

    /// The thread table to keep up to date with a re-sort, when made.
    pub(crate) fn thread_table_mut(&mut self) -> Option<&mut ThreadTable> {
        self.threads.get_mut().map(|t| &mut **t).filter(|t| t.made)
    }

    /// Some message's key was made unique against another's (see
    /// [`Lookups::renamed`]); false when the tables are not made.
    pub(crate) fn renamed(&self) -> bool {
        self.lookups.get().is_some_and(|l| l.renamed)
    }

    // The patch's steps, on tables it has [`fit`](Index::fit) first (else
    // nothing to keep up to date).

    /// See [`Lookups::take`].
    pub(crate) fn take(&mut self, messages: &[InboxMessage], i: usize) {
        if let Some(l) = self.lookups.get_mut() {
            l.take(messages, i);
        }
    }

    /// See [`Lookups::forget`].
    pub(crate) fn forget(&mut self, m: &InboxMessage) {
        if let Some(l) = self.lookups.get_mut() {
            l.forget(m);
        }
    }

    /// See [`Lookups::renumber`].
    pub(crate) fn renumber(&mut self, old_to_new: &[usize], len: usize) {
        if let Some(l) = self.lookups.get_mut() {
            l.renumber(old_to_new, len);
        }
    }

    /// See [`Lookups::shift`].
    pub(crate) fn shift(&mut self, by: usize, len: usize) {
        if let Some(l) = self.lookups.get_mut() {
            l.shift(by, len);
        }
    }

    /// Where the message with `key` is, when the tables are made (the
    /// patch's lookups, after [`fit`](Index::fit)).
    pub(crate) fn by_key(&self, messages: &[InboxMessage], key: &str) -> Option<usize> {
        self.lookups.get()?.by_key(messages, key)
    }

    /// Where the messages read from the file spelled `path` are.
    pub(crate) fn by_path<'a>(
        &'a self,
        messages: &'a [InboxMessage],
        path: &'a Path,
    ) -> impl Iterator<Item = usize> + 'a {
        self.lookups
            .get()
            .into_iter()
            .flat_map(move |l| l.by_path(messages, path))
    }

    /// Some message's file is under `dir` (or is `dir`).
    pub(crate) fn holds_under(&self, messages: &[InboxMessage], dir: &Path) -> bool {
        self.lookups
            .get()
            .is_some_and(|l| l.holds_under(messages, dir))
    }
}

impl Lookups {
    fn of(messages: &[InboxMessage]) -> Lookups {
        let mut l = Lookups {
            keys: KeyTable::with_capacity(messages.len()),
            paths: HashTable::with_capacity(messages.len()),
            made: u32::try_from(messages.len()).is_ok(),
            ..Lookups::default()
        };
        if l.made {
            for i in 0..messages.len() {
                l.take(messages, i);
            }
        }
        l
    }

    /// Takes in the message at `i` (pushed, or inserted after
    /// [`renumber`](Lookups::renumber) made room).
    fn take(&mut self, messages: &[InboxMessage], i: usize) {
        let Ok(at) = u32::try_from(i) else {
            self.made = false;
            return;
        };
        let m = &messages[i];
        let (h, base) = (&self.hasher, self.base);
        let held = at.wrapping_add(base);
        let of = |j: u32| &messages[j.wrapping_sub(base) as usize];
        self.keys.insert_from(messages, i, base);
        if let Some(path) = &m.path {
            self.paths
                .insert_unique(h.hash_one(bytes(path)), held, |&j| {
                    h.hash_one(of(j).path.as_deref().map_or(&[][..], bytes))
                });
            if let Some(folder) = parent(path) {
                match self.folders.get_mut(folder.as_os_str()) {
                    Some(n) => *n += 1,
                    None => {
                        self.folders.insert(folder.as_os_str().to_owned(), 1);
                    }
                }
            }
        }
        self.renamed |= key_was_renamed(m);
        self.len = messages.len();
    }

    /// `m` is about to leave the inbox: its folder counts one less.
    fn forget(&mut self, m: &InboxMessage) {
        let Some(folder) = m.path.as_deref().and_then(parent) else {
            return;
        };
        if let Some(n) = self.folders.get_mut(folder.as_os_str()) {
            *n -= 1;
            if *n == 0 {
                self.folders.remove(folder.as_os_str());
            }
        }
    }

    /// Messages moved: the one at `i` is now at `old_to_new[i]`
    /// (`usize::MAX`: removed, after [`forget`](Lookups::forget)). Keys and
    /// paths did not change, so nothing is hashed again. `len` is the
    /// count of messages now, before any is taken in.
    fn renumber(&mut self, old_to_new: &[usize], len: usize) {
        self.len = len;
        let base = self.base;
        let mut moved = |j: &mut u32| match old_to_new.get(j.wrapping_sub(base) as usize).copied() {
            Some(new) if new != usize::MAX => {
                *j = (new as u32).wrapping_add(base);
                true
            }
            _ => false,
        };
        self.keys.at.retain(&mut moved);
        self.paths.retain(&mut moved);
    }

    /// Every message moved up by `by` (that many inserted before them
    /// all): the origin moves, no entry is touched. `len` as for
    /// [`renumber`](Lookups::renumber).
    fn shift(&mut self, by: usize, len: usize) {
        self.len = len;
        match u32::try_from(by) {
            Ok(by) => self.base = self.base.wrapping_sub(by),
            Err(_) => self.made = false,
        }
    }

    /// Where the message with `key` is.
    pub(crate) fn by_key(&self, messages: &[InboxMessage], key: &str) -> Option<usize> {
        self.keys.find_from(messages, key, self.base)
    }

    /// Where the messages read from the file spelled `path` are.
    fn by_path<'a>(
        &'a self,
        messages: &'a [InboxMessage],
        path: &'a Path,
    ) -> impl Iterator<Item = usize> + 'a {
        let (b, base) = (bytes(path), self.base);
        self.paths
            .iter_hash(self.hasher.hash_one(b))
            .map(move |&j| j.wrapping_sub(base) as usize)
            .filter(move |&j| messages[j].path.as_deref().map(bytes) == Some(b))
    }

    /// Some message's file is under `dir` (or is `dir`), compared by
    /// components (as `Path::starts_with`).
    fn holds_under(&self, messages: &[InboxMessage], dir: &Path) -> bool {
        self.by_path(messages, dir).next().is_some()
            || self.folders.keys().any(|f| Path::new(f).starts_with(dir))
    }
}

/// `p.parent()`, without parsing the path's components when its spelling
/// makes the answer plain (the walker's paths: `dir/name`, `dir` not
/// ending in a separator or a dot): `Path::parent` was a tenth of the
/// index's time at 100,000 messages.
#[cfg(unix)]
fn parent(p: &Path) -> Option<&Path> {
    use std::os::unix::ffi::OsStrExt;
    let b = bytes(p);
    if let Some(cut) = memchr::memrchr(b'/', b) {
        let (dir, name) = (&b[..cut], &b[cut + 1..]);
        let plain_name = !name.is_empty() && name != b"." && name != b"..";
        if plain_name && dir.last().is_some_and(|&c| c != b'/' && c != b'.') {
            return Some(Path::new(std::ffi::OsStr::from_bytes(dir)));
        }
    }
    p.parent()
}

#[cfg(not(unix))]
fn parent(p: &Path) -> Option<&Path> {
    p.parent()
}

/// A path as the bytes it is spelled with.
pub(crate) fn bytes(p: &Path) -> &[u8] {
    p.as_os_str().as_encoded_bytes()
}

/// The key was made unique against another message's (see
/// `stores::read::unique_key`): the message's id was taken, or its
/// path-derived key got a `~N` suffix. Which message wins depends on path
/// order in a full load.
pub(crate) fn key_was_renamed(m: &InboxMessage) -> bool {
    let id = m.message.id.as_deref().map(trimmed).unwrap_or("");
    if !id.is_empty() && m.key != id {
        return true;
    }
    // memchr's search: the standard one was a twentieth of a build.
    let key = m.key.as_bytes();
    match memchr::memrchr(b'~', key) {
        Some(at) => {
            let n = &key[at + 1..];
            !n.is_empty() && n.iter().all(u8::is_ascii_digit)
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parent_is_path_parent() {
        for p in [
            "/work/mail/BlueLake/000001-x.md",
            "mail/a.md",
            "a.md",
            "/a.md",
            "./a.md",
            "a/./b.md",
            "a/.",
            "a/..",
            "a/../b.md",
            "a//b.md",
            "a/b/",
            "a/.b.md",
            "a./b.md",
            "a/b./c.md",
            "/",
            "",
            ".",
            "..",
            "a/é/ü.md",
            "/tmp/x\u{1F600}/b.md",
        ] {
            let p = Path::new(p);
            assert_eq!(parent(p), p.parent(), "{p:?}");
        }
    }
}
