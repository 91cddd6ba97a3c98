//! Reading mail files from disk (finding them is [`super::walk`]'s job).

use std::fs;
use std::io::{self, Read};
use std::path::Path;

/// The default size limit of a mail file. Files larger than the limit in
/// force ([`crate::config::max_message_bytes`]: this default, the config
/// file's `max_message_size` or `--max-size`) are reported as problems
/// rather than read: one huge file must not exhaust memory.
pub const MAX_FILE_BYTES: u64 = crate::config::DEFAULT_MAX_MESSAGE_BYTES;

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
