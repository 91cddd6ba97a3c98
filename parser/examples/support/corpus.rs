//! The examples' one reading of a corpus directory: its messages as
//! files, the LF ones (a `*.crlf.md` twin is the same message).

use std::path::{Path, PathBuf};

/// Every `*.md` in `dir` that is not a CRLF twin, in name order.
pub(crate) fn lf_messages(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("read the corpus directory")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n.ends_with(".md") && !n.ends_with(".crlf.md")
        })
        .collect();
    paths.sort();
    paths
}
