//! Finding mail files under a directory.
//!
//! A plain mailbox is every mail-looking file below it. An mcp_agent_mail
//! storage root holds each message three times (canonical copy, sender's
//! outbox, each recipient's inbox) plus thread digests; only the canonical
//! copies under `projects/<slug>/messages/YYYY/MM/` are mail.

use std::io;
use std::path::{Path, PathBuf};

const MAIL_EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "text", "json", "jsonl", "ndjson", "eml", "mail", "msg",
];

fn is_mail_file(p: &Path) -> bool {
    match p.extension().and_then(|e| e.to_str()) {
        Some(ext) => MAIL_EXTENSIONS.iter().any(|m| m.eq_ignore_ascii_case(ext)),
        None => true,
    }
}

fn is_hidden(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.'))
}

/// An mcp_agent_mail project directory: `agents/` and `messages/` side by side.
fn is_mcp_project(dir: &Path) -> bool {
    dir.join("messages").is_dir() && dir.join("agents").is_dir()
}

/// Every mail file under `root`, sorted by path.
pub fn mail_files(root: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    // A storage root whose archive sits in `archive/` beside the database.
    let start = if root.join("archive/projects").is_dir() {
        root.join("archive")
    } else {
        root.to_path_buf()
    };
    walk(&start, &mut out, 0)?;
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: u32) -> io::Result<()> {
    // Symlink loops and absurd trees stop here rather than recursing forever.
    if depth > 32 {
        return Ok(());
    }
    if is_mcp_project(dir) {
        return walk_messages(&dir.join("messages"), out);
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if is_hidden(&path) {
            continue;
        }
        let ft = entry.file_type()?;
        if ft.is_dir() {
            walk(&path, out, depth + 1)?;
        } else if (ft.is_file() || ft.is_symlink()) && path.is_file() && is_mail_file(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// `messages/YYYY/MM/*.md`, skipping the `threads/` digests.
fn walk_messages(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for year in std::fs::read_dir(dir)? {
        let year = year?.path();
        if !year.is_dir() || year.file_name().is_some_and(|n| n == "threads") {
            continue;
        }
        for month in std::fs::read_dir(&year)? {
            let month = month?.path();
            if !month.is_dir() {
                continue;
            }
            for f in std::fs::read_dir(&month)? {
                let f = f?.path();
                if f.is_file() && f.extension().is_some_and(|e| e == "md") {
                    out.push(f);
                }
            }
        }
    }
    Ok(())
}
