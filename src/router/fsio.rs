//! Durable file primitives: atomic replace, directory fsync, and the crash
//! hook the crash-safety test uses.
//!
//! An atomic write puts the new bytes in a temp file in the target's own
//! directory (so the rename cannot cross filesystems), fsyncs it, renames it
//! over the target and fsyncs the directory so the rename itself survives a
//! power cut. A reader therefore sees the old file or the new one, never a
//! torn one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` atomically, creating parent directories.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    create_dirs(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".amail-tmp-")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

/// Replaces a file atomically without fsync (temp file in the same
/// directory, then rename): readers see the old or the new content, never
/// a torn file. Durability comes from the write-ahead log.
pub fn write_replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_of(path);
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".amail-tmp-")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Fsyncs a directory so entries created, renamed or removed in it are
/// durable. A no-op where directories cannot be opened (Windows).
pub fn sync_dir(dir: &Path) -> io::Result<()> {
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
pub fn create_dirs(dir: &Path) -> io::Result<()> {
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
pub fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Opens a file for appending, creating it.
pub fn open_append(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        create_dirs(dir)?;
    }
    OpenOptions::new().create(true).append(true).open(path)
}

static STEPS: AtomicU64 = AtomicU64::new(0);

/// Test hook: with `AMAIL_CRASH_AFTER=N` in the environment the process
/// aborts (no destructors, no flushing: like `kill -9`) at the N-th durable
/// step of this process. Every write, rename and unlink of the store calls
/// this first, so a test can stop a routing process between any two steps;
/// the ack and reply writers (`src/inbox`) call it between theirs, and in
/// the middle of appends, so a torn write is tested too.
pub fn crash_point() {
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
