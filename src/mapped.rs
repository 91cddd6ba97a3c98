//! `amail parse`'s big files mapped rather than read: one of the binary's
//! three audited `unsafe` blocks (the library crates forbid it; the
//! others are `allocator`'s `mallopt` and the JSON escaper's call of its
//! AVX2 loop after the CPU check).
//!
//! Why: reading a 10.8 MB file costs fresh memory (the kernel zeroes it,
//! 2 MiB pages or not) and a copy out of the page cache, about 1.35 ms of
//! the log shape's CPU; a map of the page cache is neither, only page
//! table entries, sixteen pages a fault. `amail parse --format jsonl` on
//! `bench/run.sh`'s 10.8 MB log shape, task-clock (`perf stat -r 10`,
//! best of 15 rounds taken in turn, load 4.6-4.9): read into huge pages
//! 3.60-4.00 ms, mapped 3.12-3.80 ms (with `MAP_POPULATE` 3.35 ms: the
//! kernel's populate walks the same pages and costs more than the faults
//! it saves).
//!
//! What mapping gives up, and why it is taken on here:
//! - A file truncated while it is mapped makes the read of a page past
//!   its new end raise `SIGBUS`: the process dies of the signal (output
//!   cut short, nothing else written) instead of reading a short file.
//! - A file written in place while it is mapped changes under the
//!   borrowed `&[u8]` (and under the `&str` checked as UTF-8 from it):
//!   the parse may then see bytes that are not valid UTF-8, which Rust
//!   counts as undefined behaviour. In practice the output is garbled or
//!   the process panics; it cannot be ruled out in general.
//!
//! Both need another process to change the file in the few milliseconds
//! `amail parse` reads it. Mail is not written that way: amail's own
//! writers (`amail_core::fsio`'s `write_atomic`, `write_new`) write a
//! temporary file and rename it over the target, which leaves a mapped
//! file as it was, and agents deliver a message as a new file. So only
//! `amail parse`, on a file of at least 1 MiB (a handful of them at
//! most: the inline path of up to 32 inputs), maps; the inbox, the
//! router and every other reader read, as they reread files while
//! agents write them.

use std::fs::File;

/// Maps `len` bytes of `file` read-only; `None` if the map fails (the
/// file is then read as any other). The reader asks only for a regular
/// file of at least 1 MiB whose size it has just seen.
pub fn map(file: &File, len: u64) -> Option<memmap2::Mmap> {
    let len = usize::try_from(len).ok()?;
    // SAFETY: a read-only map of `len` bytes of an open file, which the
    // reader hands out as `&[u8]` until its next read. Sound as long as
    // no other process truncates or rewrites the file meanwhile; the
    // module documentation says why `amail parse` takes that on, and the
    // figure that pays for it.
    unsafe { memmap2::MmapOptions::new().len(len).map(file) }.ok()
}

#[cfg(test)]
mod tests {
    use amail_core::fsio::FileReader;

    #[test]
    fn a_mapped_file_reads_as_a_read_one_and_the_reader_goes_on_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let big: Vec<u8> = (0..3 * 1024 * 1024 + 7u32)
            .map(|i| (i % 251) as u8)
            .collect();
        let path = |n: &str| dir.path().join(n);
        std::fs::write(path("big"), &big).unwrap();
        std::fs::write(path("small"), b"hello").unwrap();
        std::fs::write(path("empty"), b"").unwrap();
        let max = 64 << 20;
        let mut mapped = FileReader::with_mapper(super::map);
        let mut read = FileReader::new();
        assert!(mapped.read(&path("big"), max).unwrap() == read.read(&path("big"), max).unwrap());
        assert_eq!(mapped.read(&path("small"), max).unwrap(), b"hello");
        assert_eq!(mapped.read(&path("empty"), max).unwrap(), b"");
        assert!(mapped.read(&path("big"), max).unwrap() == &big[..]);
        // Over the limit: refused before anything is mapped.
        let e = mapped.read(&path("big"), big.len() as u64 - 1).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(mapped.read(&path("big"), big.len() as u64).unwrap() == &big[..]);
    }
}
