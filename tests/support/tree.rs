//! A tree's bytes, for tests that show a command wrote nothing into a
//! mail store (the storage root a server owns).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::walk::files_under;

/// Every file under `dir` with its bytes; but SQLite's `-shm` index,
/// which every reader of a WAL database updates.
pub fn store_bytes(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files_under(dir)
        .into_iter()
        .filter(|p| !p.to_string_lossy().ends_with("-shm"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}
