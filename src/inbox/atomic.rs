//! Atomic file writes: a hidden temp file in the target directory, fsync,
//! rename over the target, fsync the directory. A reader sees the old file
//! or the new one, never half of one; a crash leaves at worst a hidden temp
//! file that the mail walker ignores.

use std::fs;
use std::io::Write;
use std::path::Path;

use super::Error;

/// Writes `bytes` to `path` atomically, creating parent directories.
/// With `replace == false` an existing file is an error and stays intact.
pub fn write_atomic(path: &Path, bytes: &[u8], replace: bool) -> Result<(), Error> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".amail-tmp-")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    let crash = crate::router::fsio::crash_point;
    let (a, b) = bytes.split_at(bytes.len() / 2);
    tmp.write_all(a).map_err(|e| Error::io(tmp.path(), e))?;
    crash();
    tmp.write_all(b).map_err(|e| Error::io(tmp.path(), e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::io(tmp.path(), e))?;
    crash();
    if replace {
        tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    } else {
        tmp.persist_noclobber(path)
            .map_err(|e| Error::io(path, e.error))?;
    }
    crash();
    sync_dir(dir);
    Ok(())
}

/// Makes a rename durable. Best effort: not every platform can open a directory.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}
