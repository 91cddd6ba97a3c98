//! Finding and reading mail files on disk.
//!
//! Hidden entries (names starting with `.`) are never mail: that is where
//! the ack journal, temp files of atomic writes, `.git` and editor litter live.

use std::fs;
use std::path::{Path, PathBuf};

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
/// and files over `max_bytes` (one huge file must not exhaust memory),
/// with a reason fit for `Inbox::problems`.
pub fn read_mail_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, String> {
    let buf = crate::fsio::read_file_limited(path, max_bytes).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => format!("file is {e}; skipped"),
        _ => format!("cannot read: {e}"),
    })?;
    if buf[..buf.len().min(8192)].contains(&0) {
        return Err("binary file (NUL bytes), not mail; skipped".into());
    }
    Ok(buf)
}
