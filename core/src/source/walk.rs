//! Finding mail files under a directory: the one walker behind `amail
//! parse`, `amail route` and the inbox loader, so that all of them read
//! the same files from the same directory.
//!
//! Two layouts:
//! - An mcp_agent_mail storage root (as [`super::detect()`] recognises it:
//!   `projects/` in it, or `archive/projects/`) holds each message three
//!   times (canonical copy, sender's outbox, each recipient's inbox) plus
//!   thread digests; only the canonical copies
//!   `projects/<slug>/messages/YYYY/MM/*.md` are mail, nothing else in it.
//! - Any other directory is a plain mailbox: every mail file below it
//!   (`MAIL_EXTENSIONS`, or no extension). A folder inside it that is
//!   an mcp_agent_mail project (`agents/` and `messages/` side by side, as
//!   when a project is copied into a mailbox) again contributes only its
//!   canonical copies. A storage root with its database below the root is
//!   listed so too, and noted: its acks are in the database, so the inbox
//!   load refuses the folder above it (`Listing::mcp_roots`).
//!
//! - A folder that is an AOF task store (a `tasks/` folder holding one of
//!   AOF's status folders, as `amail demo` writes `store/` beside
//!   `mail/`) is not mail, nor anything in it: its task files, run
//!   records and event logs have mail's extensions, and read as messages
//!   they filled the inbox with "threads" and were routed.
//!
//! Everywhere: hidden entries (names starting with `.`: the ack journal,
//! temp files of atomic writes, `.git`, editor litter) are never mail;
//! symlinked directories are not followed (a link loop cannot hang the
//! walk, and nothing outside the tree is read twice), symlinked files are;
//! a directory that cannot be listed, and a link with a mail file's name
//! that leads nowhere (its target gone, a loop of links), is a [`Problem`]
//! and the rest is still walked. Files come out in path order.
//!
//! A walk keeps what it lists as a `Listing`: each folder's path once
//! and its mail files' names side by side in one buffer, sorted as bytes
//! (a 16-byte prefix compared as one number first, so most comparisons
//! never reach `memcmp`). A full path is made only when a caller asks
//! for it (`Listing::iter` hands out folder and name; [`walk`] joins
//! them all for the callers that want paths). Sub-folders are walked on
//! every core (rayon: a tree of any shape, its results joined in path
//! order). Measured on a million files in six folders (`amail demo
//! --messages 1000000`, 2 cores): the walk that kept a `PathBuf` per file
//! and two allocations per entry, sorted by `OsString`, spent 1.8 s of
//! CPU, of which the kernel's `getdents64` was 0.56 s; the rest was
//! `memcmp` from the sort, `malloc` and the extension check.
//!
//! A plain mailbox's handoff folder (`.handoffs/`, or `HANDOFF_DIR`) is
//! not mail either, even where its name is not hidden: its `*.json` files
//! are handoffs, handed out first by [`mailbox`], the one place `parse`,
//! `route` and the inbox load ask which files a named mailbox holds
//! (`walk/mailbox.rs`). The walk notes each folder below the root that
//! holds a `.handoffs` folder, from the listing it reads anyway, so the
//! mailboxes below a named folder keep their handoffs too.
//!
//! One walk lists in another order: `newest_dated` lists a mailbox filed
//! by date newest months first, by the same rules, so a load can hand out
//! its newest threads before the whole tree is listed (`walk/dated.rs`).

use std::cmp::Ordering;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::{self, FileType};
use std::io;
use std::path::{Component, Path, PathBuf};

use rayon::prelude::*;

mod dated;
mod mailbox;
pub(crate) use dated::newest_dated;
pub(crate) use mailbox::{in_handoff_folder, mailbox_listing};
pub use mailbox::{mailbox, Mailbox};

use super::detect::{is_real_dir, is_task_store_dir};
use crate::formats::handoff;

/// Extensions a mail file may have; files with no extension count too.
/// Anything else (images, archives, scripts, databases) is not mail.
pub(crate) const MAIL_EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "text", "json", "jsonl", "ndjson", "eml", "mail", "msg",
];

/// What a walk found: the mail files in path order, and what it could not
/// look into.
#[derive(Debug, Default)]
pub struct MailFiles {
    pub files: Vec<PathBuf>,
    pub problems: Vec<Problem>,
}

/// A directory that could not be listed, an entry whose type could not
/// be read, or a link with a mail file's name that leads nowhere (its
/// target gone, or a loop of links): the walk goes on without it.
#[derive(Debug)]
pub struct Problem {
    pub path: PathBuf,
    pub error: io::Error,
    what: What,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum What {
    Listing,
    Stat,
    /// With what is wrong with the link (`fsio::broken_link`), found when
    /// the walk met it.
    Link(String),
}

impl Problem {
    /// Whether a folder could not be listed (else one entry of a folder
    /// could not be read: a file the walk had to leave out).
    pub fn is_folder(&self) -> bool {
        self.what == What::Listing
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match &self.what {
            What::Listing => "cannot list directory",
            What::Stat => "cannot stat",
            // `broken link to TARGET`, as every command names a link
            // that leads nowhere.
            What::Link(why) => return f.write_str(why),
        };
        write!(f, "{what}: {}", crate::fsio::reason(&self.error))
    }
}

impl MailFiles {
    /// The files, and the problems as `Inbox::problems` words them.
    pub fn into_parts(self) -> (Vec<PathBuf>, Vec<(PathBuf, String)>) {
        let problems = self.problems.into_iter().map(Problem::into_entry).collect();
        (self.files, problems)
    }
}

/// Every mail file under `root`, in path order, in the layout `root` has
/// (see the module doc). Problems never stop the walk.
pub fn walk(root: &Path) -> MailFiles {
    list(root).into_mail_files()
}

/// [`walk`] without making the paths: each file's folder and name, for a
/// caller that needs only some of the paths at once (the inbox load makes
/// each one as it reads the file).
pub(crate) fn list(root: &Path) -> Listing {
    match super::detect::archive_of(root) {
        Some(archive) => store_listing(&archive),
        None => {
            let mut listing = plain(root.to_path_buf());
            mailbox::drop_handoff_folder(root, &mut listing);
            listing
        }
    }
}

/// [`mailbox`]'s mail files for callers that stop at the first problem:
/// the files, or the directory that could not be listed (`root` itself,
/// or a folder anywhere under it: the one to look at) and why.
pub fn mail_files(root: &Path) -> Result<Vec<PathBuf>, (PathBuf, io::Error)> {
    let found = mailbox(root).map_err(|e| (root.to_path_buf(), e))?;
    match found.problems.into_iter().next() {
        Some(p) => Err((p.path, p.error)),
        None => Ok(found.files[found.handoffs..].to_vec()),
    }
}

/// The canonical message copies of the mcp_agent_mail archive `archive`
/// (the folder holding `projects/`), in path order: project by project,
/// then by month; listed, not joined into paths (the mcp load makes the
/// path of each file it uses).
pub(crate) fn store_listing(archive: &Path) -> Listing {
    let projects = archive.join("projects");
    let mut out = Listing::default();
    let Some(found) = list_dir(&projects, &mut out.problems, no_files) else {
        return out;
    };
    let messages: Vec<PathBuf> = found
        .entries
        .iter()
        .filter(|e| e.kind == Kind::Dir)
        .map(|e| projects.join(found.name(e.name)).join("messages"))
        .filter(|m| is_real_dir(m))
        .collect();
    for part in messages
        .into_par_iter()
        .map(messages_of)
        .collect::<Vec<_>>()
    {
        out.append(part);
    }
    out
}

/// `root` and every folder below it that a walk may enter (not hidden,
/// not a symlink), parents before their sub-folders: what a watcher of
/// the tree watches. Only folders are kept; a folder that cannot be
/// listed is left out with what is below it (the walk reports it).
///
/// A folder whose link count says it holds no folder is not listed (as
/// GNU find's leaf optimisation: a folder's count is 2 plus its
/// sub-folders on ext4, XFS, tmpfs; btrfs and others say 1, and those are
/// listed): a million-file mailbox's six flat folders cost their listing,
/// about half a second of a core, and the load was listing them then.
pub fn folders(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf()];
    let mut problems = Vec::new();
    let mut i = 0;
    while i < out.len() {
        if is_leaf(&out[i]) {
            i += 1;
            continue;
        }
        if let Some(listed) = list_dir(&out[i], &mut problems, no_files) {
            let below: Vec<PathBuf> = listed
                .entries
                .iter()
                .filter(|e| e.kind == Kind::Dir)
                .map(|e| out[i].join(listed.name(e.name)))
                .filter(|d| !is_task_store_dir(d))
                .collect();
            out.extend(below);
        }
        i += 1;
    }
    out
}

/// A folder that, by its link count, holds no folder.
#[cfg(unix)]
fn is_leaf(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(dir).is_ok_and(|m| m.nlink() == 2)
}

#[cfg(not(unix))]
fn is_leaf(_: &Path) -> bool {
    false
}

/// The project slug of a canonical copy [`store_listing`] listed:
/// `projects/<slug>/messages/YYYY/MM/<file>`.
pub(crate) fn project_of(canonical: &Path) -> Option<&OsStr> {
    canonical.ancestors().nth(4)?.file_name()
}

/// Whether a walk of `root` lists `path` (existing or not), judged from
/// the names alone but for whether a folder on the way is an
/// mcp_agent_mail project: what an incremental reload asks of a path a
/// watcher reported.
pub fn lists(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let mut names = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) if !is_hidden(n) => names.push(n),
            _ => return false,
        }
    }
    let Some((file, folders)) = names.split_last() else {
        return false;
    };
    if in_handoff_folder(root, path) {
        return false;
    }
    if let Some(archive) = super::detect::archive_of(root) {
        // `projects/<slug>/messages/YYYY/MM/<file>` under the archive.
        let Ok(rel) = path.strip_prefix(&archive) else {
            return false;
        };
        let names: Vec<&OsStr> = rel.iter().collect();
        return matches!(names.as_slice(), [p, _, m, _, _, _] if *p == "projects" && *m == "messages")
            && is_canonical(&names[3..]);
    }
    let mut dir = root.to_path_buf();
    for (i, name) in folders.iter().enumerate() {
        if is_task_store_dir(&dir) {
            return false;
        }
        if is_project_dir(&dir) {
            return is_canonical_under_project(&names[i..]);
        }
        dir.push(name);
        // Not entered by the walk. (A folder that is gone may have held
        // the path: judged by its name.)
        if fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return false;
        }
    }
    // A file directly in a project folder is not a copy, nor one in a
    // task store mail.
    !is_project_dir(&dir) && !is_task_store_dir(&dir) && is_mail_name(file)
}

/// `messages/YYYY/MM/<file>.md`, relative to a project folder.
fn is_canonical_under_project(names: &[&OsStr]) -> bool {
    names.first().is_some_and(|m| *m == "messages") && is_canonical(&names[1..])
}

/// `YYYY/MM/<file>.md`.
fn is_canonical(names: &[&OsStr]) -> bool {
    matches!(names, [y, m, f] if is_digits(y.as_encoded_bytes(), 4)
        && is_digits(m.as_encoded_bytes(), 2)
        && is_message_copy(f.as_encoded_bytes()))
}

/// Whether a file name may be mail: one of [`MAIL_EXTENSIONS`] (any case),
/// or no extension at all.
pub(crate) fn is_mail_name(name: &OsStr) -> bool {
    is_mail_bytes(name.as_encoded_bytes())
}

/// [`is_mail_name`] of a name's bytes: no UTF-8 check, the extensions are
/// ASCII.
fn is_mail_bytes(name: &[u8]) -> bool {
    match extension(name) {
        Some(ext) => is_mail_extension(ext),
        None => true,
    }
}

/// `name` without its extension when that is one of [`MAIL_EXTENSIONS`]
/// (any case): the message's name, not its file's.
pub(crate) fn without_mail_extension(name: &str) -> &str {
    match extension(name.as_bytes()) {
        Some(ext) if is_mail_extension(ext) => &name[..name.len() - ext.len() - 1],
        _ => name,
    }
}

/// Whether `ext` is one of [`MAIL_EXTENSIONS`], in any case.
fn is_mail_extension(ext: &[u8]) -> bool {
    MAIL_EXTENSIONS
        .iter()
        .any(|m| m.as_bytes().eq_ignore_ascii_case(ext))
}

/// A canonical message copy's name, as the server writes it.
fn is_message_copy(name: &[u8]) -> bool {
    extension(name) == Some(b"md")
}

/// `Path::extension` of a bare file name's bytes, without parsing it into
/// path components first: what follows the last `.`, unless that dot
/// starts the name; `..` has none.
fn extension(name: &[u8]) -> Option<&[u8]> {
    if name == b".." {
        return None;
    }
    match memchr::memrchr(b'.', name) {
        None | Some(0) => None,
        Some(dot) => Some(&name[dot + 1..]),
    }
}

fn is_hidden(name: &OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

fn is_digits(name: &[u8], n: usize) -> bool {
    name.len() == n && name.iter().all(u8::is_ascii_digit)
}

/// [`Listed::is_project`] asked of the filesystem.
fn is_project_dir(dir: &Path) -> bool {
    is_real_dir(&dir.join("agents")) && is_real_dir(&dir.join("messages"))
}

/// Mail files as a walk found them, in path order, without their full
/// paths: each folder's path once, its files' names in one buffer.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    folders: Vec<Folder>,
    /// Path order: runs of one folder's files, in name order (a folder's
    /// files come in several runs when sub-folders sort between them).
    runs: Vec<Run>,
    /// Where each run starts in path order, so that [`Listing::get`] finds
    /// a file's run by a binary search, not a pass over the runs (an mcp
    /// load asks for each row's file: a store of many months).
    starts: Vec<usize>,
    /// The handoff folders (`.handoffs`) of the listed folders below the
    /// root, in path order: each is a mailbox below the named one, whose
    /// handoffs the walk passes over as hidden ([`mailbox`] reads them).
    handoff_folders: Vec<PathBuf>,
    /// The mcp_agent_mail storage roots with a database below the root:
    /// their copies are listed (`parse` reads them), but their acks are
    /// in the database, which a plain mailbox's load does not read.
    mcp_roots: Vec<PathBuf>,
    pub(crate) problems: Vec<Problem>,
}

#[derive(Debug)]
struct Run {
    folder: usize,
    names: Vec<Name>,
}

impl Listing {
    /// How many files.
    pub(crate) fn len(&self) -> usize {
        match (self.starts.last(), self.runs.last()) {
            (Some(start), Some(run)) => start + run.names.len(),
            _ => 0,
        }
    }

    /// The folders of the files, each once.
    pub(crate) fn folders(&self) -> impl Iterator<Item = &Path> + '_ {
        self.folders.iter().map(|f| f.dir.as_path())
    }

    /// Each file's folder and name, in path order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&Path, &OsStr)> + '_ {
        self.runs.iter().flat_map(move |run| {
            let folder = &self.folders[run.folder];
            run.names
                .iter()
                .map(move |&n| (folder.dir.as_path(), folder.name(n)))
        })
    }

    /// The `i`th file's folder and name in path order.
    pub(crate) fn get(&self, i: usize) -> Option<(&Path, &OsStr)> {
        // The last run starting at or before `i` (runs are never empty).
        let r = self.starts.partition_point(|&s| s <= i).checked_sub(1)?;
        let run = &self.runs[r];
        let &n = run.names.get(i - self.starts[r])?;
        let folder = &self.folders[run.folder];
        Some((folder.dir.as_path(), folder.name(n)))
    }

    /// The files' full paths, and the problems.
    pub(crate) fn into_mail_files(self) -> MailFiles {
        let files = self.iter().map(|(dir, name)| joined(dir, name)).collect();
        MailFiles {
            files,
            problems: self.problems,
        }
    }

    /// `other`'s files after this one's.
    fn append(&mut self, other: Listing) {
        let (base, files) = (self.folders.len(), self.len());
        self.starts.extend(other.starts.iter().map(|s| s + files));
        self.folders.extend(other.folders);
        self.runs.extend(other.runs.into_iter().map(|mut r| {
            r.folder += base;
            r
        }));
        self.handoff_folders.extend(other.handoff_folders);
        self.mcp_roots.extend(other.mcp_roots);
        self.problems.extend(other.problems);
    }

    /// The mcp_agent_mail storage roots with a database the walk met
    /// below the root.
    pub(crate) fn mcp_roots(&self) -> &[PathBuf] {
        &self.mcp_roots
    }

    /// The handoff folders of the folders listed below the root.
    pub(crate) fn handoff_folders(&self) -> &[PathBuf] {
        &self.handoff_folders
    }

    /// Leaves out the files of `dir` and of every folder below it, and
    /// the problems met there.
    fn drop_under(&mut self, dir: &Path) {
        self.problems.retain(|p| !p.path.starts_with(dir));
        self.handoff_folders.retain(|h| !h.starts_with(dir));
        self.mcp_roots.retain(|r| !r.starts_with(dir));
        if !self.folders.iter().any(|f| f.dir.starts_with(dir)) {
            return;
        }
        let runs = std::mem::take(&mut self.runs);
        self.starts.clear();
        for run in runs {
            if !self.folders[run.folder].dir.starts_with(dir) {
                self.starts.push(self.len());
                self.runs.push(run);
            }
        }
    }

    /// Keeps `folder`, for the runs of its files.
    fn push_folder(&mut self, folder: Folder) -> usize {
        self.folders.push(folder);
        self.folders.len() - 1
    }

    /// A run of the files of the folder kept at `folder` (none when empty).
    fn push_run(&mut self, folder: usize, names: Vec<Name>) {
        if !names.is_empty() {
            self.starts.push(self.len());
            self.runs.push(Run { folder, names });
        }
    }
}

/// One listed folder: its path and its entries' names, one after another.
#[derive(Debug)]
struct Folder {
    dir: PathBuf,
    /// The UTF-8 names, back to back.
    text: String,
    /// The names that are not UTF-8 (rare: kept whole, not in `text`).
    odd: Vec<OsString>,
}

/// Where a name is in its [`Folder`]: `text[start..start + len]`, or
/// `odd[start]` when `len` is [`Name::ODD`].
#[derive(Debug, Clone, Copy)]
struct Name {
    start: u32,
    len: u32,
}

impl Name {
    const ODD: u32 = u32::MAX;
}

impl Folder {
    fn name(&self, n: Name) -> &OsStr {
        if n.len == Name::ODD {
            &self.odd[n.start as usize]
        } else {
            let start = n.start as usize;
            OsStr::new(&self.text[start..start + n.len as usize])
        }
    }

    fn bytes(&self, n: Name) -> &[u8] {
        self.name(n).as_encoded_bytes()
    }

    /// Keeps `name`, or None when the folder's names outgrow `u32`.
    fn add(&mut self, name: &OsStr) -> Option<Name> {
        match name.to_str() {
            Some(utf8) => {
                let start = u32::try_from(self.text.len()).ok()?;
                let len = u32::try_from(utf8.len()).ok().filter(|&l| l != Name::ODD)?;
                start.checked_add(len)?;
                self.text.push_str(utf8);
                Some(Name { start, len })
            }
            None => {
                let start = u32::try_from(self.odd.len()).ok()?;
                self.odd.push(name.to_os_string());
                Some(Name {
                    start,
                    len: Name::ODD,
                })
            }
        }
    }
}

/// What a listing says an entry is (symlinks not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dir,
    File,
    Symlink,
    Other,
}

impl From<FileType> for Kind {
    fn from(ft: FileType) -> Self {
        if ft.is_dir() {
            Kind::Dir
        } else if ft.is_file() {
            Kind::File
        } else if ft.is_symlink() {
            Kind::Symlink
        } else {
            Kind::Other
        }
    }
}

/// One visible entry of a listed folder, with the first 16 bytes of its
/// name as one big-endian number (zero-padded: names hold no NUL, so a
/// shorter name still sorts first), which orders most pairs without
/// comparing the names.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u128,
    name: Name,
    kind: Kind,
}

fn sort_key(name: &[u8]) -> u128 {
    let mut head = [0u8; 16];
    let n = name.len().min(16);
    head[..n].copy_from_slice(&name[..n]);
    u128::from_be_bytes(head)
}

/// A folder's visible entries, sorted by name. Sorting each directory's
/// entries and walking depth first is exactly path order (paths compare
/// component by component), so the files come out sorted without
/// comparing whole paths; the type comes from the listing, so only
/// symlinks cost a `stat`. Hidden names are left out before their type
/// is asked.
struct Listed {
    folder: Folder,
    entries: Vec<Entry>,
    /// Whether the folder holds a `.handoffs` folder (hidden, so not
    /// among the entries): it is a mailbox with handoffs.
    handoffs: bool,
}

impl Listed {
    fn name(&self, n: Name) -> &OsStr {
        self.folder.name(n)
    }

    fn cmp(&self, a: &Entry, b: &Entry) -> Ordering {
        a.key
            .cmp(&b.key)
            .then_with(|| self.folder.bytes(a.name).cmp(self.folder.bytes(b.name)))
    }

    /// The entry named `name`.
    fn find(&self, name: &str) -> Option<&Entry> {
        let key = sort_key(name.as_bytes());
        self.entries
            .binary_search_by(|e| {
                e.key
                    .cmp(&key)
                    .then_with(|| self.folder.bytes(e.name).cmp(name.as_bytes()))
            })
            .ok()
            .map(|i| &self.entries[i])
    }

    /// Whether this is an AOF task store ([`is_task_store_dir`]); the
    /// filesystem is asked only when the listing holds a `tasks` folder.
    fn is_task_store(&self) -> bool {
        self.find("tasks").is_some_and(|e| e.kind == Kind::Dir)
            && is_task_store_dir(&self.folder.dir)
    }

    /// Whether this is an mcp_agent_mail storage root with its database
    /// (as [`super::detect()`] finds one); the filesystem is asked only
    /// when the listing holds a `projects` or `archive` folder.
    fn is_mcp_root(&self) -> bool {
        let is_dir = |n| self.find(n).is_some_and(|e| e.kind == Kind::Dir);
        (is_dir("projects") || is_dir("archive"))
            && matches!(
                super::detect::detect(&self.folder.dir, None),
                Ok(super::detect::Detected::McpStore { db: Some(_), .. })
            )
    }

    /// Whether this is an mcp_agent_mail project folder.
    fn is_project(&self) -> bool {
        let is_dir = |n| self.find(n).is_some_and(|e| e.kind == Kind::Dir);
        is_dir("agents") && is_dir("messages")
    }

    /// Whether the entry `e` is a file, as `Path::is_file` answers it
    /// (through symlinks), without a `stat` when the listing already said.
    /// A link that leads nowhere (to nothing, or round a loop of links) is
    /// a problem: it has a mail file's name, and what it named is lost.
    fn is_file(&self, e: &Entry, problems: &mut Vec<Problem>) -> bool {
        if e.kind != Kind::Symlink {
            return e.kind == Kind::File;
        }
        let path = self.folder.dir.join(self.name(e.name));
        match fs::metadata(&path) {
            Ok(m) => m.is_file(),
            Err(error) => {
                let why = crate::fsio::broken_link(&path).unwrap_or_else(|| {
                    format!("cannot follow the link: {}", crate::fsio::reason(&error))
                });
                problems.push(Problem {
                    path,
                    error,
                    what: What::Link(why),
                });
                false
            }
        }
    }
}

/// [`Listed`] of `dir`: its folders, and the files whose name `keep`
/// takes (checked while the name is at hand, before the sort); None (and
/// a problem) when it cannot be listed.
fn list_dir(dir: &Path, problems: &mut Vec<Problem>, keep: fn(&[u8]) -> bool) -> Option<Listed> {
    let mut folder = Folder {
        dir: dir.to_path_buf(),
        text: String::new(),
        odd: Vec::new(),
    };
    let mut entries = Vec::new();
    let mut full = false;
    let mut handoffs = false;
    let listed = each_entry(dir, |name, kind| {
        if is_hidden(name) {
            // Noticed here, from the listing, where the walk passes over
            // it: a mailbox's handoff folder costs no `stat` to find.
            handoffs |= name == handoff::DIR_NAME && kind.is_none_or(|k| k != Kind::File);
            return true;
        }
        let kind = match kind {
            Some(kind) => kind,
            // The filesystem did not say: asked of the entry itself.
            None => match fs::symlink_metadata(dir.join(name)) {
                Ok(m) => Kind::from(m.file_type()),
                Err(error) => {
                    problems.push(Problem {
                        path: dir.join(name),
                        error,
                        what: What::Stat,
                    });
                    return true;
                }
            },
        };
        if kind != Kind::Dir && !keep(name.as_encoded_bytes()) {
            return true;
        }
        let key = sort_key(name.as_encoded_bytes());
        match folder.add(name) {
            Some(name) => {
                entries.push(Entry { key, name, kind });
                true
            }
            None => {
                full = true;
                false
            }
        }
    });
    match listed {
        Ok(None) => {}
        Ok(Some(error)) => problems.push(Problem::listing(dir.to_path_buf(), error)),
        Err(error) => {
            problems.push(Problem::listing(dir.to_path_buf(), error));
            return None;
        }
    }
    if full {
        problems.push(Problem::listing(
            dir.to_path_buf(),
            io::Error::other("more than 4 GiB of names in one directory"),
        ));
    }
    let mut listed = Listed {
        folder,
        entries,
        handoffs,
    };
    let mut entries = std::mem::take(&mut listed.entries);
    entries.sort_unstable_by(|a, b| listed.cmp(a, b));
    // The names copied again in sorted order: every later pass (the walk
    // joining paths, the load reading each name's date) then reads them
    // one after another instead of at random in a buffer of megabytes
    // (a million names: each such pass was a cache miss per name).
    let old = std::mem::take(&mut listed.folder.text);
    listed.folder.text.reserve_exact(old.len());
    for e in &mut entries {
        if e.name.len != Name::ODD {
            let start = e.name.start as usize;
            e.name.start = listed.folder.text.len() as u32;
            listed
                .folder
                .text
                .push_str(&old[start..start + e.name.len as usize]);
        }
    }
    listed.entries = entries;
    Some(listed)
}

/// Calls `each` with the name and type (symlinks not followed; None when
/// the filesystem does not say) of every entry of `dir` but `.` and `..`
/// (hidden ones too: the caller passes over them) until it says stop.
/// Err when `dir` cannot be opened; an error part way is handed back
/// after the entries before it.
///
/// On Linux straight from `getdents64` into one 256 KiB buffer: no
/// allocation per entry (`std::fs::read_dir` makes a `CString` per entry,
/// and `file_name()` an `OsString` copy of it), and fewer calls than
/// glibc's 32 KiB buffer makes (each call walks ext4's hash tree to where
/// the last one stopped). Measured with `examples/first_step` (two walks
/// of a million files and the load to its first step), four interleaved
/// runs each at load 7.5-8: 1.63-1.73 s of CPU against 1.76-1.83 s
/// through `read_dir`.
#[cfg(target_os = "linux")]
fn each_entry(
    dir: &Path,
    mut each: impl FnMut(&OsStr, Option<Kind>) -> bool,
) -> io::Result<Option<io::Error>> {
    use rustix::fs::{FileType as Raw, Mode, OFlags, RawDir};
    use std::os::unix::ffi::OsStrExt;
    let fd = rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let mut buf = Vec::with_capacity(256 * 1024);
    let mut raw = RawDir::new(fd, buf.spare_capacity_mut());
    while let Some(entry) = raw.next() {
        let entry = match entry {
            Ok(e) => e,
            Err(errno) => return Ok(Some(errno.into())),
        };
        let name = OsStr::from_bytes(entry.file_name().to_bytes());
        if name == "." || name == ".." {
            continue;
        }
        let kind = match entry.file_type() {
            Raw::Directory => Some(Kind::Dir),
            Raw::RegularFile => Some(Kind::File),
            Raw::Symlink => Some(Kind::Symlink),
            Raw::Unknown => None,
            _ => Some(Kind::Other),
        };
        if !each(name, kind) {
            break;
        }
    }
    Ok(None)
}

/// [`each_entry`] through `std::fs::read_dir`.
#[cfg(not(target_os = "linux"))]
fn each_entry(
    dir: &Path,
    mut each: impl FnMut(&OsStr, Option<Kind>) -> bool,
) -> io::Result<Option<io::Error>> {
    for entry in fs::read_dir(dir)? {
        let entry = match entry {
            Ok(e) => e,
            Err(error) => return Ok(Some(error)),
        };
        let name = entry.file_name();
        if !each(&name, entry.file_type().ok().map(Kind::from)) {
            break;
        }
    }
    Ok(None)
}

/// For [`list_dir`]: keep no files, only folders.
fn no_files(_: &[u8]) -> bool {
    false
}

impl Problem {
    /// The path and the problem as `Inbox::problems` words it.
    pub(crate) fn into_entry(self) -> (PathBuf, String) {
        let text = self.to_string();
        (self.path, text)
    }

    fn listing(path: PathBuf, error: io::Error) -> Self {
        Problem {
            path,
            error,
            what: What::Listing,
        }
    }

    /// `path` is a link that leads nowhere: `why` says where
    /// (`fsio::broken_link`).
    fn link(path: PathBuf, error: io::Error, why: String) -> Self {
        Problem {
            path,
            error,
            what: What::Link(why),
        }
    }
}

/// A plain mailbox folder, recursively, its sub-folders on every core.
/// Depth needs no limit: only real directories are entered, and paths are
/// bounded in length.
fn plain(dir: PathBuf) -> Listing {
    let mut out = Listing::default();
    let Some(listed) = list_dir(&dir, &mut out.problems, is_mail_bytes) else {
        return out;
    };
    if listed.is_task_store() {
        return out;
    }
    if listed.is_mcp_root() {
        out.mcp_roots.push(dir.clone());
    }
    if listed.is_project() {
        drop(listed);
        out.append(messages_of(dir.join("messages")));
        return out;
    }
    // The folder's files in runs, each sub-folder between two runs.
    let mut runs = vec![Vec::new()];
    let mut subdirs = Vec::new();
    for e in &listed.entries {
        let name = listed.name(e.name);
        if e.kind == Kind::Dir {
            subdirs.push(dir.join(name));
            runs.push(Vec::new());
        } else if listed.is_file(e, &mut out.problems) {
            runs.last_mut().expect("one run at least").push(e.name);
        }
    }
    let subs: Vec<Listing> = if subdirs.len() > 1 {
        subdirs.into_par_iter().map(plain).collect()
    } else {
        subdirs.into_iter().map(plain).collect()
    };
    if listed.handoffs {
        out.handoff_folders
            .push(listed.folder.dir.join(handoff::DIR_NAME));
    }
    let folder = out.push_folder(listed.folder);
    let mut runs = runs.into_iter();
    out.push_run(folder, runs.next().unwrap_or_default());
    for (sub, run) in subs.into_iter().zip(runs) {
        out.append(sub);
        out.push_run(folder, run);
    }
    out
}

/// A project's `messages/`: `YYYY/MM/*.md`, so not the `threads/`
/// digests; the months listed on every core.
fn messages_of(dir: PathBuf) -> Listing {
    let mut out = Listing::default();
    let Some(years) = list_dir(&dir, &mut out.problems, no_files) else {
        return out;
    };
    for e in &years.entries {
        if e.kind != Kind::Dir || !is_digits(years.folder.bytes(e.name), 4) {
            continue;
        }
        let year = dir.join(years.name(e.name));
        let Some(listed) = list_dir(&year, &mut out.problems, no_files) else {
            continue;
        };
        let months: Vec<PathBuf> = listed
            .entries
            .iter()
            .filter(|e| e.kind == Kind::Dir && is_digits(listed.folder.bytes(e.name), 2))
            .map(|e| year.join(listed.name(e.name)))
            .collect();
        for part in months.into_par_iter().map(month_of).collect::<Vec<_>>() {
            out.append(part);
        }
    }
    out
}

/// A month folder of a project's `messages/`: its `*.md` files.
fn month_of(month: PathBuf) -> Listing {
    let mut out = Listing::default();
    if let Some(listed) = list_dir(&month, &mut out.problems, is_message_copy) {
        let names = listed
            .entries
            .iter()
            .filter(|e| listed.is_file(e, &mut out.problems))
            .map(|e| e.name)
            .collect();
        let folder = out.push_folder(listed.folder);
        out.push_run(folder, names);
    }
    out
}

/// The `.json` files of a handoff directory (`.handoffs/` or `HANDOFF_DIR`),
/// sorted; none when it is missing. Everything there is a handoff, so the
/// mail walk does not list it (hidden, or left out: [`mailbox`]). What it
/// cannot give is a problem, worded as the mail walk words its own: a
/// folder that cannot be listed or is a broken link, a `.json` entry that
/// is a broken link or cannot be looked at (each had been left out
/// without a word, and with it the handoffs it held).
pub(crate) fn handoff_files(dir: &Path) -> (Vec<PathBuf>, Vec<Problem>) {
    let mut problems = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            match crate::fsio::broken_link(dir) {
                Some(why) => problems.push(Problem::link(dir.to_path_buf(), error, why)),
                // No handoff folder: nothing handed off.
                None if error.kind() == io::ErrorKind::NotFound => {}
                None => problems.push(Problem::listing(dir.to_path_buf(), error)),
            }
            return (Vec::new(), problems);
        }
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = match entry {
            Ok(entry) => entry.path(),
            Err(error) => {
                problems.push(Problem::listing(dir.to_path_buf(), error));
                break;
            }
        };
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        match fs::metadata(&path) {
            Ok(m) if m.is_file() => out.push(path),
            Ok(_) => {}
            Err(error) => match crate::fsio::broken_link(&path) {
                Some(why) => problems.push(Problem::link(path, error, why)),
                None => problems.push(Problem {
                    path,
                    error,
                    what: What::Stat,
                }),
            },
        }
    }
    out.sort();
    (out, problems)
}

/// `dir.join(name)`, the buffer made at its final size: `join` copies
/// `dir` into a buffer of its own length and then grows it for the name,
/// a reallocation and a second copy per file (10,000 files: 5.4 M of the
/// walk's 10.9 M instructions, callgrind, `amail parse`).
pub(crate) fn joined(dir: &Path, name: &OsStr) -> PathBuf {
    let mut path = PathBuf::with_capacity(dir.as_os_str().len() + 1 + name.len());
    path.push(dir);
    path.push(name);
    path
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn files_come_out_in_path_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // Names whose byte order and path order differ (`a` < `a b` <
        // `a.txt` as components, but `a/` sorts after both as bytes).
        for p in [
            "a/b.md",
            "a/z/y.md",
            "a b/c.md",
            "a.txt/d.md",
            "A/e.md",
            "b.md",
            "a0.md",
            "aa/f",
        ] {
            touch(root, p);
        }
        std::fs::write(root.join("a/.hidden.md"), "x").unwrap();
        std::fs::write(root.join("a/pic.png"), "x").unwrap();
        let files = mail_files(root).unwrap();
        let mut sorted = files.clone();
        sorted.sort();
        assert_eq!(files, sorted);
        assert_eq!(files.len(), 8);
        // Runs of several folders (`a`'s files on both sides of `a/z`):
        // each file found by its place as the walk lists it.
        let listing = list(root);
        assert_eq!(listing.len(), 8);
        for (i, file) in listing.iter().enumerate() {
            assert_eq!(listing.get(i), Some(file), "{i}");
        }
        assert_eq!(listing.get(8), None);
    }

    /// The folders a watcher watches: every real, visible folder, parents
    /// first; not hidden ones, not symlinks, not files.
    #[cfg(unix)]
    #[test]
    fn folders_are_the_visible_real_ones_parents_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["a/b/c", "a/.git/objects", ".hidden/x", "d"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("a/m.md"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("d/link")).unwrap();
        let found = folders(root);
        let rel: HashSet<&Path> = found
            .iter()
            .map(|p| p.strip_prefix(root).unwrap())
            .collect();
        let want: HashSet<&Path> = ["", "a", "a/b", "a/b/c", "d"]
            .into_iter()
            .map(Path::new)
            .collect();
        assert_eq!(rel, want);
        for (i, f) in found.iter().enumerate() {
            assert!(
                found[..i].iter().all(|earlier| !earlier.starts_with(f)),
                "{f:?} after a child"
            );
        }
        assert_eq!(found[0], root);
    }

    /// The path the walk makes for a file is the one `join` made, byte
    /// for byte, whatever the folder's form.
    #[test]
    fn joined_is_join() {
        for dir in ["", "/", "/m", "/m/", "m", "m/a", "./m", "m//"] {
            for name in ["x.md", "a b.md", ".x", "é.md"] {
                let (dir, name) = (Path::new(dir), OsStr::new(name));
                assert_eq!(joined(dir, name), dir.join(name), "{dir:?} {name:?}");
                assert_eq!(
                    joined(dir, name).as_os_str().as_encoded_bytes(),
                    dir.join(name).as_os_str().as_encoded_bytes()
                );
            }
        }
    }

    /// Names that tie on the sort key's 16 bytes and part after it, names
    /// that are another's prefix, sub-folders between files, a folder of
    /// many sub-folders (walked on several threads): the walk lists them
    /// all, in the order of the sorted full paths.
    #[test]
    fn names_sorted_by_key_and_bytes_give_path_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut expected = Vec::new();
        for rel in [
            "2026-11-22T03-16-28Z__b.md",
            "2026-11-22T03-16-28Z__a.md",
            "2026-11-22T03-16-28Z__a.md.md",
            "2026-11-22T03-16-2.md",
            "2026-11-22T03-16",
            "2026-11-22T03-16-28Z__a/x.md",
            "0123456789abcdef",
            "0123456789abcdeF",
            "0123456789abcde",
            "é-ü.md",
            "z",
        ] {
            expected.push(touch(root, rel));
        }
        for n in 0..40 {
            expected.push(touch(root, &format!("sub{}/m{n}.md", n % 13)));
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = root.join(OsStr::from_bytes(b"odd-\xff.md"));
            std::fs::write(&odd, "Subject: x\n").unwrap();
            expected.push(odd);
        }
        expected.sort();
        assert_eq!(mail_files(root).unwrap(), expected);
        let listing = list(root);
        assert_eq!(listing.len(), expected.len());
        let joined: Vec<PathBuf> = listing.iter().map(|(d, n)| d.join(n)).collect();
        assert_eq!(joined, expected);
    }

    #[test]
    fn extension_is_path_extension() {
        for name in [
            "a.md", "a", ".md", "..", ".", "a.", "a.b.c", "..md", ".a.b", "a..", "é.MD", "",
        ] {
            assert_eq!(
                extension(name.as_bytes()),
                Path::new(name).extension().map(OsStr::as_encoded_bytes),
                "{name:?}"
            );
        }
    }

    fn touch(root: &Path, rel: &str) -> PathBuf {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "Subject: x\n").unwrap();
        p
    }

    /// A plain tree with a project folder in it, walked and asked path by
    /// path: `lists` must answer as the walk does.
    #[test]
    fn lists_answers_as_the_walk_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let all: Vec<PathBuf> = [
            "a.md",
            "notes",
            "x/pic.png",
            "x/.draft.md",
            ".git/HEAD",
            "p/agents/A/inbox/2026/11/m.md",
            "p/agents/A/profile.json",
            "p/messages/2026/11/m.md",
            "p/messages/2026/11/m.txt",
            "p/messages/2026/x/m.md",
            "p/messages/threads/t.md",
            "p/messages/loose.md",
            "p/README.md",
            "q/messages/2026/11/m.md",
        ]
        .iter()
        .map(|r| touch(root, r))
        .collect();
        let listed = mail_files(root).unwrap();
        let rel = |p: &Path| p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        assert_eq!(
            listed.iter().map(|p| rel(p)).collect::<Vec<_>>(),
            [
                "a.md",
                "notes",
                "p/messages/2026/11/m.md",
                "q/messages/2026/11/m.md"
            ]
        );
        for p in &all {
            assert_eq!(lists(root, p), listed.contains(p), "{}", rel(p));
        }
        assert!(!lists(root, root));
        assert!(!lists(root, Path::new("/elsewhere/a.md")));
    }

    /// An AOF task store kept beside the mail (as `amail demo` writes
    /// one, `mail/` and `store/`) holds task files, run records and event
    /// logs with mail's extensions: none of it is mail, and a walk of the
    /// folder holding both read every one as a message (`amail threads`
    /// of the demo's root listed 133 "threads" of task files; `amail
    /// route` of it routed them). A folder named `tasks` with no status
    /// folder in it is any folder.
    #[test]
    fn a_task_store_in_a_mailbox_is_not_mail() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let all: Vec<PathBuf> = [
            "mail/A/000001-ol-1-progress.md",
            "notes.md",
            "tasks/todo.md",
            "store/tasks/ready/TASK-1.md",
            "store/tasks/ready/TASK-1/outputs/summary.md",
            "store/state/runs/TASK-1/run.json",
            "store/events/events.jsonl",
            "nested/aof/tasks/in-progress/TASK-2.md",
            "nested/aof/README.md",
            "nested/mail.md",
        ]
        .iter()
        .map(|r| touch(root, r))
        .collect();
        std::fs::create_dir_all(root.join("store/tasks/backlog")).unwrap();
        let listed = mail_files(root).unwrap();
        let rel = |p: &Path| p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        assert_eq!(
            listed.iter().map(|p| rel(p)).collect::<Vec<_>>(),
            [
                "mail/A/000001-ol-1-progress.md",
                "nested/mail.md",
                "notes.md",
                "tasks/todo.md"
            ]
        );
        for p in &all {
            assert_eq!(lists(root, p), listed.contains(p), "{}", rel(p));
        }
        // A watcher does not watch what the walk does not enter.
        let watched = folders(root);
        assert!(
            watched
                .iter()
                .all(|f| !f.starts_with(root.join("store"))
                    && !f.starts_with(root.join("nested/aof"))),
            "{watched:?}"
        );
        assert!(watched.contains(&root.join("mail/A")));
        // Named by itself, a store is not mail: the walk says so, and a
        // load (which lists it) finds nothing in it.
        let (at, err) = mail_files(&root.join("store")).unwrap_err();
        assert_eq!(at, root.join("store"));
        assert!(err.to_string().contains("task store"), "{err}");
        assert_eq!(list(&root.join("store")).len(), 0);
    }

    #[test]
    fn a_storage_root_lists_only_canonical_copies() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let all: Vec<PathBuf> = [
            "NOTES.md",
            "archive/NOTES.md",
            "archive/projects/p/agents/A/inbox/2026/11/m.md",
            "archive/projects/p/messages/2026/11/m.md",
            "archive/projects/p/messages/2026/11/.m.md",
            "archive/projects/p/messages/threads/t.md",
            "archive/projects/q/messages/2027/01/n.md",
            "archive/projects/q/README.md",
        ]
        .iter()
        .map(|r| touch(root, r))
        .collect();
        let listed = mail_files(root).unwrap();
        assert_eq!(
            listed,
            [
                root.join("archive/projects/p/messages/2026/11/m.md"),
                root.join("archive/projects/q/messages/2027/01/n.md"),
            ]
        );
        let store = store_listing(&root.join("archive"));
        let at: Vec<PathBuf> = (0..store.len())
            .map(|i| store.get(i).map(|(dir, name)| dir.join(name)).unwrap())
            .collect();
        assert_eq!(store.get(store.len()), None);
        assert_eq!(listed, at);
        assert_eq!(listed, store.into_mail_files().files);
        assert_eq!(mail_files(&root.join("archive")).unwrap(), listed);
        assert_eq!(project_of(&listed[1]), Some(OsStr::new("q")));
        for p in &all {
            assert_eq!(lists(root, p), listed.contains(p), "{}", p.display());
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_folders_are_not_entered_and_unlistable_ones_are_problems() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("mail");
        touch(&root, "a/m.md");
        let outside = touch(dir.path(), "outside/o.md");
        std::os::unix::fs::symlink(outside.parent().unwrap(), root.join("link")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("file-link.md")).unwrap();
        std::os::unix::fs::symlink(&root, root.join("a/loop")).unwrap();
        let locked = touch(&root, "locked/l.md");
        let locked_dir = locked.parent().unwrap();
        std::fs::set_permissions(locked_dir, std::fs::Permissions::from_mode(0o000)).unwrap();
        let found = walk(&root);
        std::fs::set_permissions(locked_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut expected = vec![root.join("a/m.md"), root.join("file-link.md")];
        assert!(!lists(&root, &root.join("link/o.md")));
        assert!(lists(&root, &root.join("file-link.md")));
        // Root lists any directory: then there is no problem to report.
        if found.problems.is_empty() {
            expected.push(locked);
            assert_eq!(found.files, expected);
        } else {
            assert_eq!(found.files, expected);
            let (_, problems) = found.into_parts();
            assert_eq!(problems.len(), 1);
            assert_eq!(problems[0].0, locked_dir);
            assert!(problems[0].1.starts_with("cannot list directory: "));
        }
        // A root that is not there is a problem too, and an error to
        // `mail_files`.
        let gone = dir.path().join("gone");
        let (files, problems) = walk(&gone).into_parts();
        assert!(files.is_empty());
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].0, gone);
        assert!(problems[0].1.starts_with("cannot list directory: "));
        let (at, err) = mail_files(&gone).unwrap_err();
        assert_eq!((at, err.kind()), (gone, io::ErrorKind::NotFound));
    }

    /// The `.handoffs` folders of the mailboxes below the root, seen in
    /// the listings: a file of that name is none, nor is a task store's
    /// or one under a hidden folder (never walked). [`mailbox`] hands
    /// their files out first, with the root's, in path order.
    #[test]
    fn the_handoff_folders_below_the_root_are_its_mailboxes_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for p in [
            ".handoffs/r.json",
            "a/m.md",
            "a/.handoffs/a.json",
            "a/b/.handoffs/b.json",
            "c/m.md",
            "c/.handoffs",
            ".hidden/.handoffs/h.json",
            "store/.handoffs/s.json",
        ] {
            touch(root, p);
        }
        std::fs::create_dir_all(root.join("store/tasks/ready")).unwrap();
        let found = mailbox(root).unwrap();
        let handoffs: Vec<_> = found.files[..found.handoffs]
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().to_path_buf())
            .collect();
        let want: Vec<PathBuf> = [
            ".handoffs/r.json",
            "a/.handoffs/a.json",
            "a/b/.handoffs/b.json",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(handoffs, want);
        assert_eq!(found.files.len(), 5, "{:?}", found.files);
        assert!(found.problems.is_empty(), "{:?}", found.problems);
    }
}
