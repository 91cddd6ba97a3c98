//! Finding and reading mail files on disk.
//!
//! Hidden entries (names starting with `.`) are never mail: that is where
//! the ack journal, temp files of atomic writes, `.git` and editor litter live.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The default size limit of a mail file. Files larger than the limit in
/// force ([`crate::config::max_message_bytes`]: this default, the config
/// file's `max_message_size` or `--max-size`) are reported as problems
/// rather than read: one huge file must not exhaust memory.
pub const MAX_FILE_BYTES: u64 = crate::config::DEFAULT_MAX_MESSAGE_BYTES;

/// Extensions a mail file may have (as `amail parse` walks); files with
/// no extension count too. Anything else (images, archives) is not mail.
pub const MAIL_EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "text", "json", "jsonl", "ndjson", "eml", "mail", "msg",
];

pub(crate) fn is_mail_name(p: &Path) -> bool {
    match p.extension().and_then(|e| e.to_str()) {
        Some(ext) => MAIL_EXTENSIONS.iter().any(|m| m.eq_ignore_ascii_case(ext)),
        None => true,
    }
}

/// Files (or directories) that could not be read, with why.
pub type Problems = Vec<(PathBuf, String)>;

/// Every non-hidden mail file (see [`MAIL_EXTENSIONS`]) under `root`, recursively, in a stable
/// (sorted) order. Directories that cannot be listed become problems.
/// Symlinked directories are not followed, so a link loop cannot hang us.
pub fn walk_mail_files(root: &Path) -> (Vec<PathBuf>, Problems) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                problems.push((dir, format!("cannot list directory: {e}")));
                continue;
            }
        };
        let mut subdirs = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => subdirs.push(path),
                Ok(t) if t.is_file() && is_mail_name(&path) => files.push(path),
                Ok(t) if t.is_symlink() => {
                    if path.is_file() && is_mail_name(&path) {
                        files.push(path);
                    }
                }
                Ok(_) => {}
                Err(e) => problems.push((path, format!("cannot stat: {e}"))),
            }
        }
        subdirs.sort();
        // Reverse so the stack pops them in sorted order.
        stack.extend(subdirs.into_iter().rev());
    }
    files.sort();
    (files, problems)
}

/// The canonical message files of an mcp_agent_mail archive:
/// `projects/<slug>/messages/YYYY/MM/*.md`, with their project slug.
/// The `agents/*/inbox|outbox` copies and `messages/threads/` digests are
/// deliberately not listed: they duplicate or summarise the canonical copy.
pub fn canonical_message_files(archive: &Path) -> (Vec<(String, PathBuf)>, Problems) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let projects = archive.join("projects");
    for project in sorted_dirs(&projects, &mut problems) {
        let slug = project
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let messages = project.join("messages");
        if !messages.is_dir() {
            continue;
        }
        for year in sorted_dirs(&messages, &mut problems) {
            if !is_digits(&year, 4) {
                continue;
            }
            for month in sorted_dirs(&year, &mut problems) {
                if !is_digits(&month, 2) {
                    continue;
                }
                let Ok(entries) = fs::read_dir(&month) else {
                    problems.push((month.clone(), "cannot list directory".into()));
                    continue;
                };
                let mut files: Vec<PathBuf> = entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| {
                        p.extension().is_some_and(|x| x == "md")
                            && !p
                                .file_name()
                                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                            && p.is_file()
                    })
                    .collect();
                files.sort();
                out.extend(files.into_iter().map(|f| (slug.clone(), f)));
            }
        }
    }
    (out, problems)
}

fn sorted_dirs(dir: &Path, problems: &mut Vec<(PathBuf, String)>) -> Vec<PathBuf> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            problems.push((dir.to_path_buf(), format!("cannot list directory: {e}")));
            return Vec::new();
        }
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
}

fn is_digits(p: &Path, n: usize) -> bool {
    p.file_name()
        .map(|s| s.to_string_lossy())
        .is_some_and(|s| s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
}

/// Reads a mail file. Refuses binary files (a NUL byte in the first 8 KiB)
/// and files over the message size limit ([`crate::config::max_message_bytes`]),
/// with a reason fit for `Inbox::problems`.
pub fn read_mail_file(path: &Path) -> Result<Vec<u8>, String> {
    let buf = crate::config::read_file_limited(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => format!("file is {e}; skipped"),
        _ => format!("cannot read: {e}"),
    })?;
    if buf[..buf.len().min(8192)].contains(&0) {
        return Err("binary file (NUL bytes), not mail; skipped".into());
    }
    Ok(buf)
}

/// Reads many files one after another into one reused buffer: an open and
/// reads straight into memory that is already there, and no `stat` unless
/// a file outgrows the buffer. Reading ten thousand small mail files is
/// then little more than the system calls a `cat` makes.
///
/// Limits and errors are those of [`crate::config::read_file_limited`]:
/// a file over [`crate::config::max_message_bytes`] is refused with the
/// same message, and at most the limit plus one byte of it is read.
#[derive(Default)]
pub struct FileReader {
    /// Zero-filled once when it grows, so reads need no unsafe code; its
    /// length is the capacity in use.
    buf: Vec<u8>,
}

/// The first buffer: most mail files fit, and it costs 16 pages.
const FIRST_BUFFER: usize = 64 * 1024;

impl FileReader {
    pub fn new() -> Self {
        Self::default()
    }

    /// The whole file at `path`, valid until the next read.
    pub fn read(&mut self, path: &Path) -> io::Result<&[u8]> {
        let mut f = fs::File::open(path)?;
        let max = crate::config::max_message_bytes();
        // Reading one byte past the limit tells an over-limit file apart.
        let limit = usize::try_from(max.saturating_add(1)).unwrap_or(usize::MAX);
        if self.buf.is_empty() {
            self.buf = vec![0; FIRST_BUFFER.min(limit)];
        }
        let mut filled = 0;
        loop {
            let cap = self.buf.len().min(limit);
            if filled == cap {
                if cap == limit {
                    break;
                }
                self.grow(&f, filled, max, limit)?;
                continue;
            }
            match f.read(&mut self.buf[filled..cap]) {
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
            let len = f.metadata().map(|m| m.len()).unwrap_or(0);
            if len > max {
                return Err(crate::config::too_large(len));
            }
            let rest = io::copy(&mut f, &mut io::sink()).unwrap_or(0);
            return Err(crate::config::too_large(filled as u64 + rest));
        }
        Ok(&self.buf[..filled])
    }

    /// The buffer is full and the file goes on: ask its size once and
    /// grow straight to it (one byte more, to see the end), at least
    /// doubling for a file that keeps growing.
    fn grow(&mut self, f: &fs::File, filled: usize, max: u64, limit: usize) -> io::Result<()> {
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        if len > max {
            return Err(crate::config::too_large(len));
        }
        let want = usize::try_from(len)
            .unwrap_or(usize::MAX)
            .saturating_add(1)
            .max(filled.saturating_mul(2))
            .min(limit);
        // A fresh zeroed allocation (calloc) of a big buffer costs no
        // writes: the kernel hands out zero pages as the read fills them.
        let mut bigger = vec![0; want];
        bigger[..filled].copy_from_slice(&self.buf[..filled]);
        self.buf = bigger;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_reads_small_big_and_empty_files_with_one_buffer() {
        let dir = tempfile::tempdir().unwrap();
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.path().join("small"), b"hello").unwrap();
        std::fs::write(dir.path().join("big"), &big).unwrap();
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        let mut r = FileReader::new();
        assert_eq!(r.read(&dir.path().join("small")).unwrap(), b"hello");
        assert_eq!(r.read(&dir.path().join("big")).unwrap(), &big[..]);
        assert_eq!(r.read(&dir.path().join("empty")).unwrap(), b"");
        assert_eq!(r.read(&dir.path().join("small")).unwrap(), b"hello");
        let e = r.read(&dir.path().join("missing")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }
}
