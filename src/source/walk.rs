//! Finding mail files under a directory.
//!
//! A plain mailbox is every mail-looking file below it. An mcp_agent_mail
//! storage root holds each message three times (canonical copy, sender's
//! outbox, each recipient's inbox) plus thread digests; only the canonical
//! copies under `projects/<slug>/messages/YYYY/MM/` are mail.

use std::ffi::{OsStr, OsString};
use std::fs::FileType;
use std::io;
use std::path::{Path, PathBuf};

const MAIL_EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "text", "json", "jsonl", "ndjson", "eml", "mail", "msg",
];

fn is_mail_file(name: &OsStr) -> bool {
    match extension(name).and_then(|e| e.to_str()) {
        Some(ext) => MAIL_EXTENSIONS.iter().any(|m| m.eq_ignore_ascii_case(ext)),
        None => true,
    }
}

/// `Path::extension` of a bare file name, without parsing it into path
/// components first: what follows the last `.`, unless that dot starts
/// the name; `..` has none.
fn extension(name: &OsStr) -> Option<&OsStr> {
    let bytes = name.as_encoded_bytes();
    if bytes == b".." {
        return None;
    }
    match bytes.iter().rposition(|&b| b == b'.') {
        None | Some(0) => None,
        Some(dot) => name
            .to_str()
            .map(|n| OsStr::new(&n[dot + 1..]))
            .or_else(|| {
                // Not UTF-8: no mail extension matches anyway, but answer as
                // `Path::extension` would.
                Path::new(name).extension()
            }),
    }
}

fn is_hidden(name: &OsStr) -> bool {
    name.to_str().is_some_and(|n| n.starts_with('.'))
}

/// An mcp_agent_mail project directory: `agents/` and `messages/` side by side.
fn is_mcp_project(dir: &Path) -> bool {
    dir.join("messages").is_dir() && dir.join("agents").is_dir()
}

/// Every mail file under `root`, sorted by path.
///
/// Each directory's entries are sorted by name and walked depth first, which
/// is exactly path order (paths compare component by component), so the
/// list comes out sorted without comparing whole paths. The file type comes
/// from the directory listing: only symlinks cost a `stat`.
pub fn mail_files(root: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    // A storage root whose archive sits in `archive/` beside the database.
    let start = if root.join("archive/projects").is_dir() {
        root.join("archive")
    } else {
        root.to_path_buf()
    };
    walk(&start, &mut out, 0)?;
    Ok(out)
}

/// The entries of `dir`, names and types (symlinks not followed), sorted
/// by name; `skip` entries are left out before their type is asked.
fn sorted_entries(
    dir: &Path,
    skip: impl Fn(&OsStr) -> bool,
) -> io::Result<Vec<(OsString, FileType)>> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if skip(&name) {
            continue;
        }
        entries.push((name, entry.file_type()?));
    }
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(entries)
}

/// `is_file()` as `Path::is_file` answers it (through symlinks), without
/// a `stat` when the listing already said.
fn is_file(path: &Path, ft: FileType) -> bool {
    ft.is_file() || (ft.is_symlink() && path.is_file())
}

fn is_dir(path: &Path, ft: FileType) -> bool {
    ft.is_dir() || (ft.is_symlink() && path.is_dir())
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: u32) -> io::Result<()> {
    // Symlink loops and absurd trees stop here rather than recursing forever.
    if depth > 32 {
        return Ok(());
    }
    if is_mcp_project(dir) {
        return walk_messages(&dir.join("messages"), out);
    }
    for (name, ft) in sorted_entries(dir, is_hidden)? {
        if ft.is_dir() {
            walk(&dir.join(name), out, depth + 1)?;
        } else if is_mail_file(&name) {
            let path = dir.join(name);
            if is_file(&path, ft) {
                out.push(path);
            }
        }
    }
    Ok(())
}

/// `messages/YYYY/MM/*.md`, skipping the `threads/` digests.
fn walk_messages(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for (name, ft) in sorted_entries(dir, |_| false)? {
        let year = dir.join(&name);
        if !is_dir(&year, ft) || name == "threads" {
            continue;
        }
        for (name, ft) in sorted_entries(&year, |_| false)? {
            let month = year.join(name);
            if !is_dir(&month, ft) {
                continue;
            }
            for (name, ft) in sorted_entries(&month, |_| false)? {
                if extension(&name).is_some_and(|e| e == "md") {
                    let f = month.join(name);
                    if is_file(&f, ft) {
                        out.push(f);
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_come_out_in_path_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // Names whose byte order and path order differ (`a` < `a b` <
        // `a.txt` as components, but `a/` sorts after both as bytes).
        for p in [
            "a/b.md",
            "a/z/y.md",
            "a b/c.md",
            "a.txt/d.md",
            "A/e.md",
            "b.md",
            "a0.md",
            "aa/f",
        ] {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "Subject: x\n").unwrap();
        }
        std::fs::write(root.join("a/.hidden.md"), "x").unwrap();
        std::fs::write(root.join("a/pic.png"), "x").unwrap();
        let files = mail_files(root).unwrap();
        let mut sorted = files.clone();
        sorted.sort();
        assert_eq!(files, sorted);
        assert_eq!(files.len(), 8);
    }

    #[test]
    fn extension_is_path_extension() {
        for name in [
            "a.md", "a", ".md", "..", ".", "a.", "a.b.c", "..md", ".a.b", "a..", "é.MD", "",
        ] {
            assert_eq!(
                extension(OsStr::new(name)),
                Path::new(name).extension(),
                "{name:?}"
            );
        }
    }
}
