//! File I/O every layer shares: the one atomic writer and the one
//! size-limited reader, plus the durable-step hook the crash tests use.
//!
//! Writing. An atomic write puts the new bytes in a hidden temp file
//! (`.amail-tmp-*`, which the mail walker skips) in the target's own
//! directory, so the rename cannot cross filesystems, and renames it over
//! the target: a reader sees the old file or the new one, never a torn
//! one, and a crash leaves at worst a stray temp file. Three modes:
//! - `write_atomic` replaces the target and is durable: file and
//!   directory are fsynced, so the rename itself survives a power cut;
//! - [`write_new`] is the same but never replaces: an existing target is
//!   an `AlreadyExists` error and stays intact (replies, demo mail);
//! - `write_atomic_unsynced` replaces without any fsync, for the
//!   router's store, whose write-ahead log provides the durability and
//!   whose checkpoint syncs the whole filesystem at once.
//!
//! A new file gets the mode any program's new file gets (`0666` less the
//! umask), a replaced one keeps its own: other users' agents read what
//! amail writes.
//!
//! Reading. Every file or stream amail reads as mail goes through a reader
//! here with a byte limit (`--max-size`, the config file's
//! `max_message_size`, else [`DEFAULT_MAX_MESSAGE_BYTES`]). The binary
//! resolves the limit once and passes it down as a value: nothing in the
//! library reads it from a global. Every reader refuses over-limit input
//! with the same message, built by [`too_large`]. [`FileReader`] reads a
//! big file into a map of fresh huge pages, or maps the file itself when
//! the caller hands it a [`Mapper`] (`amail parse` does: mapping a file
//! is `unsafe`, which this crate forbids, so the binary holds that code
//! and its reasons).
//!
//! Saying why. [`reason`] words the system's error as every command
//! prints it; [`reason_at`] words it true of the path: a link that leads
//! nowhere is `broken link to TARGET`, not the target's "no such file or
//! directory" (the link is there), in every command and in the walk.
//!
//! Test hooks. `crash_point` aborts the process at a chosen durable step
//! when built with the `test-hooks` feature; without it (release builds)
//! it is an empty inline function and the environment variable is never
//! read.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The default message size limit: 10 MiB, as AOF's envelope limit.
pub const DEFAULT_MAX_MESSAGE_BYTES: u64 = 10 * 1024 * 1024;

/// An I/O error with the file or directory it happened on: the target's
/// directory (creating it, making the temp file, syncing it), the temp
/// file (writing it) or the target (the rename).
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct PathError {
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

impl PathError {
    fn at(path: &Path) -> impl FnOnce(io::Error) -> PathError + '_ {
        move |source| PathError {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The bare error, for callers that name the path themselves.
impl From<PathError> for io::Error {
    fn from(e: PathError) -> Self {
        e.source
    }
}

/// Writes `bytes` to `path` atomically and durably, replacing any file
/// there and creating parent directories.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), PathError> {
    write(path, bytes, Replace::Yes, Sync::Yes)
}

/// `write_atomic` that never replaces: when `path` exists the error is
/// `AlreadyExists` and the file is left as it was.
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<(), PathError> {
    write(path, bytes, Replace::No, Sync::Yes)
}

/// [`write_new`] under the first free name in `dir`: `name`, else
/// `stem-2.ext`, `stem-3.ext`, ... (two messages written in the same
/// second get the same timestamped name). Returns the path written.
pub(crate) fn write_new_numbered(
    dir: &Path,
    name: &str,
    bytes: &[u8],
) -> Result<PathBuf, PathError> {
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    let mut path = dir.join(name);
    let mut n = 2;
    loop {
        match write_new(&path, bytes) {
            Ok(()) => return Ok(path),
            Err(e) if e.source.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => {
                path = dir.join(if ext.is_empty() {
                    format!("{stem}-{n}")
                } else {
                    format!("{stem}-{n}.{ext}")
                });
                n += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Replaces `path` atomically without fsync: readers see the old or the
/// new content, never a torn file, but a power cut may lose either. For
/// writers whose durability comes from elsewhere (the router's
/// write-ahead log, which calls [`crash_point`] before each step itself).
pub(crate) fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> Result<(), PathError> {
    write(path, bytes, Replace::Yes, Sync::No)
}

#[derive(Clone, Copy, PartialEq)]
enum Replace {
    Yes,
    No,
}

#[derive(Clone, Copy, PartialEq)]
enum Sync {
    Yes,
    No,
}

/// The one atomic writer behind the three modes.
fn write(path: &Path, bytes: &[u8], replace: Replace, sync: Sync) -> Result<(), PathError> {
    let durable = sync == Sync::Yes;
    let dir = parent_of(path);
    if durable {
        create_dirs(dir)
    } else {
        fs::create_dir_all(dir)
    }
    .map_err(PathError::at(dir))?;
    // A file replaced keeps the mode it had, as an editor's save does.
    #[cfg(unix)]
    let kept = match replace {
        Replace::Yes => fs::metadata(path)
            .ok()
            .filter(fs::Metadata::is_file)
            .map(|m| m.permissions()),
        Replace::No => None,
    };
    // The temp file is opened here, not by `tempfile_in`, for two reasons:
    // it is created as any program creates a file (`0666` less the umask),
    // not with `tempfile`'s private `0600`, which the rename would keep
    // while agents or a server running as another user must read the
    // replies, mail and task files amail writes; and a failure is the
    // system's error alone, where `tempfile_in` adds the name of a temp
    // file that never existed, and amail's message names `dir`.
    let mut tmp = tempfile::Builder::new()
        .prefix(".amail-tmp-")
        .make_in(dir, create_new)
        .map_err(PathError::at(dir))?;
    // A durable write is a durable step: the crash hook may stop it
    // half-written, written but not renamed, and renamed but the directory
    // not yet synced.
    let crash = || {
        if durable {
            crash_point();
        }
    };
    let (a, b) = bytes.split_at(bytes.len() / 2);
    tmp.write_all(a).map_err(PathError::at(tmp.path()))?;
    crash();
    tmp.write_all(b).map_err(PathError::at(tmp.path()))?;
    // The mode before the sync, so that a durable write's file is synced
    // with the mode it is renamed with.
    #[cfg(unix)]
    if let Some(mode) = kept {
        tmp.as_file()
            .set_permissions(mode)
            .map_err(PathError::at(tmp.path()))?;
    }
    if durable {
        tmp.as_file()
            .sync_all()
            .map_err(PathError::at(tmp.path()))?;
    }
    crash();
    match replace {
        Replace::Yes => tmp.persist(path).map(drop),
        Replace::No => tmp.persist_noclobber(path).map(drop),
    }
    .map_err(|e| PathError::at(path)(e.error))?;
    crash();
    if durable {
        sync_dir(dir).map_err(PathError::at(dir))?;
    }
    Ok(())
}

/// The system's reason for `e` as amail's messages say it: lower case,
/// without Rust's `(os error N)` (`no such file or directory`, as `amail
/// parse` always said it), so every command names a missing or
/// unreadable path the same way.
pub fn reason(e: &io::Error) -> String {
    let text = e.to_string();
    let text = match text.rfind(" (os error ") {
        Some(i) if text.ends_with(')') => &text[..i],
        _ => text.as_str(),
    };
    let mut chars = text.chars();
    match chars.next() {
        // "No such ..." -> "no such ...", but not an acronym ("EOF").
        Some(c) if c.is_uppercase() && chars.clone().next().is_some_and(char::is_lowercase) => {
            c.to_lowercase().chain(chars).collect()
        }
        _ => text.to_string(),
    }
}

/// Why `path` could not be opened or looked at, in words true of the path
/// itself: a link that leads nowhere is `broken link to TARGET` (the
/// target as the link holds it, what `ls -l` shows), `(a loop of links)`
/// after it when the links lead round; anything else is [`reason`]. The
/// system says `no such file or directory` of a link whose target is gone,
/// which is false of the link (it is there), and every command said it so.
/// Asked only once something failed: a `readlink` or a few.
pub fn reason_at(path: &Path, e: &io::Error) -> String {
    broken_link(path).unwrap_or_else(|| reason(e))
}

/// `broken link to TARGET`, and `(a loop of links)` for a loop, when
/// `path` is a link that leads nowhere; None when it is no link, or leads
/// to something there (a target that cannot be read is not a broken link:
/// [`reason`] says why).
pub fn broken_link(path: &Path) -> Option<String> {
    let target = fs::read_link(path).ok()?;
    // Followed as the system follows it, to a path that is no link; a
    // path met twice, or more hops than the system takes (40 on Linux),
    // is a loop.
    let mut seen = vec![path.to_path_buf()];
    let mut at = path.parent().unwrap_or(Path::new("")).join(&target);
    let looped = loop {
        match fs::read_link(&at) {
            Ok(next) => {
                if seen.contains(&at) || seen.len() > 40 {
                    break true;
                }
                let next = at.parent().unwrap_or(Path::new("")).join(next);
                seen.push(std::mem::replace(&mut at, next));
            }
            Err(_) => break false,
        }
    };
    let end = if looped {
        " (a loop of links)"
    } else if fs::symlink_metadata(&at).is_err_and(|e| e.kind() == io::ErrorKind::NotFound) {
        ""
    } else {
        return None;
    };
    Some(format!("broken link to {}{end}", target.display()))
}

/// A new file at `path`, failing if anything is there (the temp file's
/// random name then gets another try).
fn create_new(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o666);
    options.open(path)
}

/// Fsyncs a directory so entries created, renamed or removed in it are
/// durable. A no-op where directories cannot be opened (Windows).
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        File::open(dir)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Creates `dir` and its parents, fsyncing the parent of each new one.
pub(crate) fn create_dirs(dir: &Path) -> io::Result<()> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        create_dirs(parent)?;
    }
    match fs::create_dir(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(()),
        Err(e) => return Err(e),
    }
    if let Some(parent) = dir.parent() {
        sync_dir(parent)?;
    }
    Ok(())
}

/// Removes a file if it exists and fsyncs its directory.
pub fn remove_file(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Ok(()) => sync_dir(parent_of(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// The directory holding `path` (`.` for a bare file name).
pub(crate) fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Opens a file for appending, creating it.
pub(crate) fn open_append(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        create_dirs(dir)?;
    }
    OpenOptions::new().create(true).append(true).open(path)
}

/// Test hook: with `AMAIL_CRASH_AFTER=N` in the environment the process
/// aborts (no destructors, no flushing: like `kill -9`) at the N-th durable
/// step of this process. Every write, rename and unlink of the store calls
/// this first, so a test can stop a routing process between any two steps;
/// the ack and reply writers (`src/inbox`) call it between theirs, and
/// durable atomic writes in the middle of the write, so a torn write is
/// tested too.
#[cfg(feature = "test-hooks")]
pub(crate) fn crash_point() {
    use std::sync::atomic::{AtomicU64, Ordering};
    static STEPS: AtomicU64 = AtomicU64::new(0);
    let Some(limit) = std::env::var_os("AMAIL_CRASH_AFTER") else {
        return;
    };
    let Some(limit) = limit.to_str().and_then(|s| s.parse::<u64>().ok()) else {
        return;
    };
    if STEPS.fetch_add(1, Ordering::SeqCst) + 1 >= limit {
        std::process::abort();
    }
}

/// Without the `test-hooks` feature there is no crash hook.
#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub(crate) fn crash_point() {}

/// The error for input of `len` bytes over the limit `max`. Every reader
/// words it this way, and every command prints it after the path as it
/// is (`PATH: N bytes, over ...`), so it has no verb of its own; it names
/// the flag and the config key (see `crate::config`) that raise the limit.
pub fn too_large(len: u64, max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "{len} bytes, over the message size limit of {max} bytes \
             (raise it with --max-size or `max_message_size` in the config file)"
        ),
    )
}

/// Reads `r` whole unless it is over `max` bytes (`InvalidData`, see
/// [`too_large`]). At most `max + 1` bytes are kept; the rest of an
/// over-limit stream is counted for the message, not stored.
pub fn read_limited(r: impl Read, max: u64) -> io::Result<Vec<u8>> {
    read_limited_into(r, Vec::new(), max)
}

/// Standard input, at most `max` bytes ([`read_limited`]), a directory
/// there said as such ([`stdin_error`]) for a command that reads mail.
pub fn read_stdin(max: u64) -> io::Result<Vec<u8>> {
    read_limited(io::stdin().lock(), max)
        .map_err(|e| stdin_error(e, "name the folder as an argument instead (not after `<`)"))
}

/// `e`, from reading standard input. A shell opens a folder for `< DIR`
/// without complaint and the read fails with the system's bare "Is a
/// directory (os error 21)", which names neither stdin nor the way out:
/// said as such, with `what_to_do`.
pub fn stdin_error(e: io::Error, what_to_do: &str) -> io::Error {
    if e.kind() == io::ErrorKind::IsADirectory {
        io::Error::new(
            io::ErrorKind::IsADirectory,
            format!("standard input is a directory; {what_to_do}"),
        )
    } else {
        e
    }
}

fn read_limited_into(mut r: impl Read, mut buf: Vec<u8>, max: u64) -> io::Result<Vec<u8>> {
    r.by_ref()
        .take(max.saturating_add(1))
        .read_to_end(&mut buf)?;
    if buf.len() as u64 > max {
        let rest = io::copy(&mut r, &mut io::sink()).unwrap_or(0);
        return Err(too_large(buf.len() as u64 + rest, max));
    }
    Ok(buf)
}

/// The size of the open file `f` as its metadata gives it (0 where it
/// gives none), or the error naming `max` when it is over.
fn size_within(f: &File, max: u64) -> io::Result<u64> {
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if len > max {
        return Err(too_large(len, max));
    }
    Ok(len)
}

/// Reads the file at `path` unless it is over `max` bytes (checked before
/// reading, so a huge file costs nothing).
pub(crate) fn read_file_limited(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let f = File::open(path)?;
    let len = size_within(&f, max)?;
    // Sized from the metadata: one read of the whole file and one to see
    // the end, not a small probe read and regrowth (100,000 files a load).
    read_limited_into(f, Vec::with_capacity(len as usize + 1), max)
}

/// `read_file_limited` for many files one after another, into one reused
/// buffer: an open and reads straight into memory that is already there,
/// and no `stat` unless a file outgrows the buffer. Reading ten thousand
/// small mail files is then little more than the system calls a `cat`
/// makes.
///
/// Limits and errors are those of `read_file_limited`: a file over the
/// limit is refused with the same message, and at most the limit plus one
/// byte of it is read.
#[derive(Default)]
pub struct FileReader {
    /// Zero-filled once when it grows, so reads need no unsafe code; its
    /// length is the capacity in use.
    buf: Buffer,
    /// Maps a big file instead of reading it, where the caller gave one
    /// ([`FileReader::with_mapper`]).
    mapper: Option<Mapper>,
    /// The last file read, when it was mapped (shared with whoever asked
    /// for it through [`FileReader::read_shared`]).
    mapped: Option<Arc<memmap2::Mmap>>,
}

/// Maps the whole of `file`, `len` bytes long, read-only, or says no
/// (`None`: the file is then read as any other). Mapping a file is
/// `unsafe` (the bytes borrowed from the map change if the file does),
/// which this crate forbids: a binary that takes that on for its own use
/// gives [`FileReader::with_mapper`] the function that does it.
pub type Mapper = fn(file: &File, len: u64) -> Option<memmap2::Mmap>;

/// The first buffer: most mail files fit, and it costs 16 pages.
const FIRST_BUFFER: usize = 64 * 1024;

/// Buffers from this size on are anonymous maps with their pages made at
/// once rather than one page fault at a time as the read fills them.
/// Fresh memory is the cost of reading a big file: on the machines
/// measured, reading a 10.8 MB file into a zeroed allocation took 11.5 ms
/// of CPU, into a populated map 7.5 ms (perf stat, best of 20), where
/// `cat` takes 2 ms. Below this size the difference is noise.
const MAP_FROM: usize = 1 << 20;

/// A transparent huge page on x86_64 and aarch64 (4 KiB base pages).
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// [`FileReader`]'s buffer: on the heap, or a populated anonymous map for
/// a big file (zero-filled either way, so reads need no unsafe code).
enum Buffer {
    Heap(Vec<u8>),
    Map(memmap2::MmapMut),
}

impl Default for Buffer {
    fn default() -> Self {
        Buffer::Heap(Vec::new())
    }
}

impl Buffer {
    /// `len` zeroed bytes: mapped if that is worth it and works.
    ///
    /// On Linux the map asks for transparent huge pages (THP is often in
    /// `madvise` mode: only maps that ask get them) and is a whole number
    /// of them long, which is what makes the kernel align it to one. A
    /// 10.8 MB file is then six page faults and six zeroed 2 MiB pages
    /// instead of 2,640 4 KiB pages each charged, mapped and unmapped:
    /// `amail parse --format jsonl` on the 10.8 MB log shape 9.9 -> 6.3 ms
    /// of CPU, the summary shape 12.1 -> 8.9 ms (`perf stat -e task-clock
    /// -r 10`, in turn). What is left of reading is the copy `cat` makes
    /// too and zeroing the pages (about 1 ms on 12 MB).
    fn zeroed(len: usize) -> Buffer {
        if len < MAP_FROM {
            return Buffer::Heap(vec![0; len]);
        }
        #[cfg(target_os = "linux")]
        {
            use memmap2::Advice;
            let huge = len.div_ceil(HUGE_PAGE).saturating_mul(HUGE_PAGE);
            if let Ok(map) = memmap2::MmapOptions::new().len(huge).map_anon() {
                // Without THP the advice fails and the map is made of
                // small pages: populated all the same.
                map.advise(Advice::HugePage).ok();
                if map.advise(Advice::PopulateWrite).is_ok() {
                    return Buffer::Map(map);
                }
            }
        }
        match memmap2::MmapOptions::new().len(len).populate().map_anon() {
            Ok(map) => Buffer::Map(map),
            Err(_) => Buffer::Heap(vec![0; len]),
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Buffer::Heap(v) => v,
            Buffer::Map(m) => m,
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Buffer::Heap(v) => v,
            Buffer::Map(m) => m,
        }
    }
}

impl FileReader {
    pub fn new() -> Self {
        Self::default()
    }

    /// A reader that maps a file of `MAP_FROM` bytes or more with
    /// `mapper` instead of reading it (a file it says no to is read).
    pub fn with_mapper(mapper: Mapper) -> Self {
        FileReader {
            mapper: Some(mapper),
            ..Self::default()
        }
    }

    /// The whole file at `path` if it is at most `max` bytes, valid until
    /// the next read.
    pub fn read(&mut self, path: &Path, max: u64) -> io::Result<&[u8]> {
        self.read_shared(path, max).map(|(bytes, _)| bytes)
    }

    /// [`FileReader::read`], and the map the bytes are in when the file
    /// was mapped: a holder of it may use them past the next read (a
    /// thread that works on them while they are parsed).
    pub fn read_shared(
        &mut self,
        path: &Path,
        max: u64,
    ) -> io::Result<(&[u8], Option<Arc<memmap2::Mmap>>)> {
        self.mapped = None;
        let mut f = File::open(path)?;
        // Reading one byte past the limit tells an over-limit file apart.
        let limit = usize::try_from(max.saturating_add(1)).unwrap_or(usize::MAX);
        if self.buf.bytes().is_empty() {
            self.buf = Buffer::zeroed(FIRST_BUFFER.min(limit));
        }
        let mut filled = 0;
        loop {
            let cap = self.buf.bytes().len().min(limit);
            if filled == cap {
                if cap == limit {
                    break;
                }
                // One `stat` for both: the map and the growth are sized by it.
                let len = size_within(&f, max)?;
                if self.map(&f, len) {
                    break;
                }
                self.grow(len, filled, limit);
                continue;
            }
            match f.read(&mut self.buf.bytes_mut()[filled..cap]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if filled as u64 > max {
            // As `read_file_limited` words it: the file's size, else
            // (a file that grew, or one that does not know its size)
            // what was read plus the rest, counted without keeping it.
            size_within(&f, max)?;
            let rest = io::copy(&mut f, &mut io::sink()).unwrap_or(0);
            return Err(too_large(filled as u64 + rest, max));
        }
        if let Some(map) = &self.mapped {
            return Ok((map, Some(Arc::clone(map))));
        }
        Ok((&self.buf.bytes()[..filled], None))
    }

    /// The buffer is full and the file (`len` bytes, within the limit)
    /// goes on: maps it instead when there is a mapper, the file is big
    /// enough, and the mapper does it. `true` if mapped.
    fn map(&mut self, f: &File, len: u64) -> bool {
        let Some(mapper) = self.mapper else {
            return false;
        };
        if len < MAP_FROM as u64 {
            return false;
        }
        // A mapper that maps less or more than it was asked is not
        // trusted with the file.
        self.mapped = mapper(f, len)
            .filter(|m| m.len() as u64 == len)
            .map(Arc::new);
        self.mapped.is_some()
    }

    /// The buffer is full and the file (`len` bytes by its metadata) goes
    /// on: grow straight to its size (one byte more, to see the end), at
    /// least doubling for a file that keeps growing.
    fn grow(&mut self, len: u64, filled: usize, limit: usize) {
        let want = usize::try_from(len)
            .unwrap_or(usize::MAX)
            .saturating_add(1)
            .max(filled.saturating_mul(2))
            .min(limit);
        // Fresh zeroed memory (calloc, or a map) costs no writes here: the
        // kernel hands out zero pages.
        let mut bigger = Buffer::zeroed(want);
        bigger.bytes_mut()[..filled].copy_from_slice(&self.buf.bytes()[..filled]);
        self.buf = bigger;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_new_numbered_never_replaces_and_numbers_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let a = write_new_numbered(dir.path(), "m.md", b"first").unwrap();
        let b = write_new_numbered(dir.path(), "m.md", b"second").unwrap();
        let c = write_new_numbered(dir.path(), "m.md", b"third").unwrap();
        assert_eq!(a, dir.path().join("m.md"));
        assert_eq!(b, dir.path().join("m-2.md"));
        assert_eq!(c, dir.path().join("m-3.md"));
        assert_eq!(std::fs::read(&a).unwrap(), b"first");
        assert_eq!(std::fs::read(&b).unwrap(), b"second");
    }

    #[test]
    fn reader_reads_small_big_and_empty_files_with_one_buffer() {
        let dir = tempfile::tempdir().unwrap();
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.path().join("small"), b"hello").unwrap();
        std::fs::write(dir.path().join("big"), &big).unwrap();
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        let max = DEFAULT_MAX_MESSAGE_BYTES;
        let mut r = FileReader::new();
        assert_eq!(r.read(&dir.path().join("small"), max).unwrap(), b"hello");
        assert_eq!(r.read(&dir.path().join("big"), max).unwrap(), &big[..]);
        assert_eq!(r.read(&dir.path().join("empty"), max).unwrap(), b"");
        assert_eq!(r.read(&dir.path().join("small"), max).unwrap(), b"hello");
        let e = r.read(&dir.path().join("missing"), max).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn a_mapper_is_asked_for_big_files_only_and_a_refusal_or_a_wrong_map_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let big: Vec<u8> = (0..MAP_FROM as u32 + 5).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.path().join("big"), &big).unwrap();
        std::fs::write(dir.path().join("small"), b"hello").unwrap();
        let max = 64 << 20;
        // A mapper that says no: the file is read.
        let mut r = FileReader::with_mapper(|_, _| None);
        assert_eq!(r.read(&dir.path().join("big"), max).unwrap(), &big[..]);
        assert!(r.mapped.is_none());
        // One that maps: what it mapped is what the read gives (an
        // anonymous map of zeros here, as mapping the file itself is
        // `unsafe`: the binary's mapper is tested there), and only for
        // the big file.
        let anon = |_: &File, len: u64| {
            memmap2::MmapOptions::new()
                .len(len as usize)
                .map_anon()
                .ok()?
                .make_read_only()
                .ok()
        };
        let mut r = FileReader::with_mapper(anon);
        assert_eq!(r.read(&dir.path().join("small"), max).unwrap(), b"hello");
        let (got, map) = r.read_shared(&dir.path().join("big"), max).unwrap();
        assert!(got.len() == big.len() && got.iter().all(|&b| b == 0));
        let map = map.expect("the map is handed over");
        assert!(std::ptr::eq(got, &map[..]));
        // It outlives the next read, which reads.
        let (small, none) = r.read_shared(&dir.path().join("small"), max).unwrap();
        assert!(small == b"hello" && none.is_none());
        assert!(r.mapped.is_none() && map.iter().all(|&b| b == 0));
        // A map of another length is not trusted: the file is read.
        let short = |_: &File, len: u64| {
            memmap2::MmapOptions::new()
                .len(len as usize - 1)
                .map_anon()
                .ok()?
                .make_read_only()
                .ok()
        };
        let mut r = FileReader::with_mapper(short);
        assert_eq!(r.read(&dir.path().join("big"), max).unwrap(), &big[..]);
        // Over the limit: refused, not mapped.
        let mut r = FileReader::with_mapper(anon);
        let e = r
            .read(&dir.path().join("big"), big.len() as u64 - 1)
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn files_past_the_mapped_buffer_size_read_like_small_ones() {
        let dir = tempfile::tempdir().unwrap();
        let big: Vec<u8> = (0..MAP_FROM as u32 * 3 + 7)
            .map(|i| (i % 251) as u8)
            .collect();
        let bigger: Vec<u8> = big.iter().chain(&big).map(|b| b ^ 0x55).collect();
        std::fs::write(dir.path().join("big"), &big).unwrap();
        std::fs::write(dir.path().join("bigger"), &bigger).unwrap();
        std::fs::write(dir.path().join("small"), b"hello").unwrap();
        let max = 64 << 20;
        let mut r = FileReader::new();
        assert_eq!(r.read(&dir.path().join("big"), max).unwrap(), &big[..]);
        assert!(matches!(r.buf, Buffer::Map(_)));
        assert_eq!(r.read(&dir.path().join("small"), max).unwrap(), b"hello");
        assert_eq!(
            r.read(&dir.path().join("bigger"), max).unwrap(),
            &bigger[..]
        );
        assert_eq!(r.read(&dir.path().join("big"), max).unwrap(), &big[..]);
        let e = r
            .read(&dir.path().join("bigger"), big.len() as u64)
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(r.read(&dir.path().join("small"), max).unwrap(), b"hello");
    }

    #[test]
    fn files_around_a_huge_page_read_whole() {
        // The map is a whole number of 2 MiB pages: a file that fills one
        // exactly, or ends a byte either side, is read to its last byte
        // and no further, in a fresh reader and in one that holds a
        // bigger map.
        let dir = tempfile::tempdir().unwrap();
        let huge = 2 << 20;
        let max = 64 << 20;
        let mut kept = FileReader::new();
        std::fs::write(dir.path().join("first"), vec![7u8; huge * 3]).unwrap();
        kept.read(&dir.path().join("first"), max).unwrap();
        for len in [huge - 1, huge, huge + 1, huge * 2 - 1] {
            let bytes: Vec<u8> = (0..len).map(|i| (i % 253) as u8 + 1).collect();
            let path = dir.path().join(format!("f{len}"));
            std::fs::write(&path, &bytes).unwrap();
            assert!(
                FileReader::new().read(&path, max).unwrap() == &bytes[..],
                "{len}"
            );
            assert!(kept.read(&path, max).unwrap() == &bytes[..], "{len}");
        }
    }

    #[test]
    fn every_reader_refuses_an_over_limit_file_with_the_same_message() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        std::fs::write(&path, vec![b'x'; 5000]).unwrap();
        let want = "5000 bytes, over the message size limit of 4096 bytes \
                    (raise it with --max-size or `max_message_size` in the config file)";
        let e = read_file_limited(&path, 4096).unwrap_err();
        assert_eq!(
            (e.kind(), e.to_string().as_str()),
            (io::ErrorKind::InvalidData, want)
        );
        let e = read_limited(&b"x".repeat(5000)[..], 4096).unwrap_err();
        assert_eq!(e.to_string(), want);
        let e = FileReader::new().read(&path, 4096).unwrap_err();
        assert_eq!(e.to_string(), want);
        // The limit is the caller's: the same file under a higher one reads.
        assert_eq!(read_file_limited(&path, 5000).unwrap().len(), 5000);
        assert_eq!(FileReader::new().read(&path, 5000).unwrap().len(), 5000);
    }

    #[test]
    fn write_new_never_replaces_and_write_atomic_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/file.md");
        write_new(&path, b"first").unwrap();
        let e = write_new(&path, b"second").unwrap_err();
        assert_eq!(e.source.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(e.path, path);
        assert_eq!(fs::read(&path).unwrap(), b"first");
        write_atomic(&path, b"third").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"third");
        write_atomic_unsynced(&path, b"fourth").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"fourth");
        // No temp file is left behind.
        let names: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["file.md"]);
    }
}
