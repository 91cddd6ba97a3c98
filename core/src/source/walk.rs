//! Finding mail files under a directory: the one walker behind `amail
//! parse`, `amail route` and the inbox loader, so that all of them read
//! the same files from the same directory.
//!
//! Two layouts:
//! - An mcp_agent_mail storage root (as [`super::detect()`] recognises it:
//!   `projects/` in it, or `archive/projects/`) holds each message three
//!   times (canonical copy, sender's outbox, each recipient's inbox) plus
//!   thread digests; only the canonical copies
//!   `projects/<slug>/messages/YYYY/MM/*.md` are mail, nothing else in it.
//! - Any other directory is a plain mailbox: every mail file below it
//!   ([`MAIL_EXTENSIONS`], or no extension). A folder inside it that is
//!   an mcp_agent_mail project (`agents/` and `messages/` side by side, as
//!   when a project is copied into a mailbox) again contributes only its
//!   canonical copies.
//!
//! Everywhere: hidden entries (names starting with `.`: the ack journal,
//! temp files of atomic writes, `.git`, editor litter) are never mail;
//! symlinked directories are not followed (a link loop cannot hang the
//! walk, and nothing outside the tree is read twice), symlinked files are;
//! a directory that cannot be listed is a [`Problem`] and the rest is still
//! walked. Files come out in path order.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::{self, FileType};
use std::io;
use std::path::{Component, Path, PathBuf};

/// Extensions a mail file may have; files with no extension count too.
/// Anything else (images, archives, scripts, databases) is not mail.
pub(crate) const MAIL_EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "text", "json", "jsonl", "ndjson", "eml", "mail", "msg",
];

/// What a walk found: the mail files in path order, and what it could not
/// look into.
#[derive(Debug, Default)]
pub struct MailFiles {
    pub files: Vec<PathBuf>,
    pub problems: Vec<Problem>,
}

/// A directory that could not be listed, or an entry whose type could not
/// be read: the walk goes on without it.
#[derive(Debug)]
pub struct Problem {
    pub path: PathBuf,
    pub error: io::Error,
    listing: bool,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.listing {
            "cannot list directory"
        } else {
            "cannot stat"
        };
        write!(f, "{what}: {}", self.error)
    }
}

impl MailFiles {
    /// The files, and the problems as `Inbox::problems` words them.
    pub fn into_parts(self) -> (Vec<PathBuf>, Vec<(PathBuf, String)>) {
        let problems = self
            .problems
            .into_iter()
            .map(|p| {
                let text = p.to_string();
                (p.path, text)
            })
            .collect();
        (self.files, problems)
    }
}

/// Every mail file under `root`, in path order, in the layout `root` has
/// (see the module doc). Problems never stop the walk.
pub fn walk(root: &Path) -> MailFiles {
    match super::detect::archive_of(root) {
        Some(archive) => store_files(&archive),
        None => {
            let mut w = Walker::default();
            w.plain(root);
            w.done()
        }
    }
}

/// [`walk`] for callers that stop at the first problem (`amail parse`,
/// `amail route`): the files, or why a directory could not be listed.
pub fn mail_files(root: &Path) -> io::Result<Vec<PathBuf>> {
    let found = walk(root);
    match found.problems.into_iter().next() {
        Some(p) => Err(p.error),
        None => Ok(found.files),
    }
}

/// The canonical message copies of the mcp_agent_mail archive `archive`
/// (the folder holding `projects/`), in path order: project by project,
/// then by month.
pub(crate) fn store_files(archive: &Path) -> MailFiles {
    let mut w = Walker::default();
    let projects = archive.join("projects");
    for (name, ft) in w.list(&projects) {
        if ft.is_dir() {
            let messages = projects.join(name).join("messages");
            if is_real_dir(&messages) {
                w.messages(&messages);
            }
        }
    }
    w.done()
}

/// The project slug of a canonical copy [`store_files`] listed:
/// `projects/<slug>/messages/YYYY/MM/<file>`.
pub(crate) fn project_of(canonical: &Path) -> Option<&OsStr> {
    canonical.ancestors().nth(4)?.file_name()
}

/// Whether a walk of `root` lists `path` (existing or not), judged from
/// the names alone but for whether a folder on the way is an
/// mcp_agent_mail project: what an incremental reload asks of a path a
/// watcher reported.
pub fn lists(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let mut names = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) if !is_hidden(n) => names.push(n),
            _ => return false,
        }
    }
    let Some((file, folders)) = names.split_last() else {
        return false;
    };
    if let Some(archive) = super::detect::archive_of(root) {
        // `projects/<slug>/messages/YYYY/MM/<file>` under the archive.
        let Ok(rel) = path.strip_prefix(&archive) else {
            return false;
        };
        let names: Vec<&OsStr> = rel.iter().collect();
        return matches!(names.as_slice(), [p, _, m, _, _, _] if *p == "projects" && *m == "messages")
            && is_canonical(&names[3..]);
    }
    let mut dir = root.to_path_buf();
    for (i, name) in folders.iter().enumerate() {
        if is_project_dir(&dir) {
            return is_canonical_under_project(&names[i..]);
        }
        dir.push(name);
        // Not entered by the walk. (A folder that is gone may have held
        // the path: judged by its name.)
        if fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return false;
        }
    }
    // A file directly in a project folder is not a copy.
    !is_project_dir(&dir) && is_mail_name(file)
}

/// `messages/YYYY/MM/<file>.md`, relative to a project folder.
fn is_canonical_under_project(names: &[&OsStr]) -> bool {
    names.first().is_some_and(|m| *m == "messages") && is_canonical(&names[1..])
}

/// `YYYY/MM/<file>.md`.
fn is_canonical(names: &[&OsStr]) -> bool {
    matches!(names, [y, m, f] if is_digits(y, 4) && is_digits(m, 2) && is_message_copy(f))
}

/// Whether a file name may be mail: one of [`MAIL_EXTENSIONS`] (any case),
/// or no extension at all.
pub(crate) fn is_mail_name(name: &OsStr) -> bool {
    match extension(name).and_then(|e| e.to_str()) {
        Some(ext) => MAIL_EXTENSIONS.iter().any(|m| m.eq_ignore_ascii_case(ext)),
        None => true,
    }
}

/// A canonical message copy's name, as the server writes it.
fn is_message_copy(name: &OsStr) -> bool {
    extension(name).is_some_and(|e| e == "md")
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
    name.as_encoded_bytes().first() == Some(&b'.')
}

fn is_digits(name: &OsStr, n: usize) -> bool {
    let b = name.as_encoded_bytes();
    b.len() == n && b.iter().all(u8::is_ascii_digit)
}

/// A directory, not a symlink to one.
fn is_real_dir(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// `is_file()` as `Path::is_file` answers it (through symlinks), without
/// a `stat` when the listing already said.
fn is_file(path: &Path, ft: FileType) -> bool {
    ft.is_file() || (ft.is_symlink() && path.is_file())
}

/// [`is_project`] asked of the filesystem.
fn is_project_dir(dir: &Path) -> bool {
    is_real_dir(&dir.join("agents")) && is_real_dir(&dir.join("messages"))
}

/// Whether a sorted listing is an mcp_agent_mail project folder.
fn is_project(entries: &[(OsString, FileType)]) -> bool {
    let has_dir = |name: &str| {
        entries
            .binary_search_by(|(n, _)| n.as_os_str().cmp(OsStr::new(name)))
            .is_ok_and(|i| entries[i].1.is_dir())
    };
    has_dir("agents") && has_dir("messages")
}

#[derive(Default)]
struct Walker {
    files: Vec<PathBuf>,
    problems: Vec<Problem>,
}

impl Walker {
    fn done(self) -> MailFiles {
        MailFiles {
            files: self.files,
            problems: self.problems,
        }
    }

    /// The visible entries of `dir`, names and types (symlinks not
    /// followed), sorted by name. Sorting each directory's entries and
    /// walking depth first is exactly path order (paths compare component
    /// by component), so the list comes out sorted without comparing whole
    /// paths; the type comes from the listing, so only symlinks cost a
    /// `stat`. Hidden names are left out before their type is asked.
    fn list(&mut self, dir: &Path) -> Vec<(OsString, FileType)> {
        let read = match fs::read_dir(dir) {
            Ok(r) => r,
            Err(error) => {
                self.problem(dir.to_path_buf(), error, true);
                return Vec::new();
            }
        };
        let mut entries = Vec::new();
        for entry in read {
            let entry = match entry {
                Ok(e) => e,
                Err(error) => {
                    self.problem(dir.to_path_buf(), error, true);
                    break;
                }
            };
            let name = entry.file_name();
            if is_hidden(&name) {
                continue;
            }
            match entry.file_type() {
                Ok(ft) => entries.push((name, ft)),
                Err(error) => self.problem(entry.path(), error, false),
            }
        }
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        entries
    }

    fn problem(&mut self, path: PathBuf, error: io::Error, listing: bool) {
        self.problems.push(Problem {
            path,
            error,
            listing,
        });
    }

    /// A plain mailbox folder, recursively. Depth needs no limit: only real
    /// directories are entered, and paths are bounded in length.
    fn plain(&mut self, dir: &Path) {
        let entries = self.list(dir);
        if is_project(&entries) {
            return self.messages(&dir.join("messages"));
        }
        for (name, ft) in entries {
            if ft.is_dir() {
                self.plain(&dir.join(name));
            } else if is_mail_name(&name) {
                let path = dir.join(name);
                if is_file(&path, ft) {
                    self.files.push(path);
                }
            }
        }
    }

    /// A project's `messages/`: `YYYY/MM/*.md`, so not the `threads/`
    /// digests.
    fn messages(&mut self, dir: &Path) {
        for (year, ft) in self.list(dir) {
            if !ft.is_dir() || !is_digits(&year, 4) {
                continue;
            }
            let year = dir.join(year);
            for (month, ft) in self.list(&year) {
                if !ft.is_dir() || !is_digits(&month, 2) {
                    continue;
                }
                let month = year.join(month);
                for (name, ft) in self.list(&month) {
                    if is_message_copy(&name) {
                        let f = month.join(name);
                        if is_file(&f, ft) {
                            self.files.push(f);
                        }
                    }
                }
            }
        }
    }
}

/// The `.json` files of a handoff directory (`.handoffs/` or `HANDOFF_DIR`),
/// sorted; none when it is missing. Everything there is a handoff, so the
/// mail walk (which skips hidden entries) does not list it.
pub fn handoff_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .collect();
    out.sort();
    out
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

    fn touch(root: &Path, rel: &str) -> PathBuf {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "Subject: x\n").unwrap();
        p
    }

    /// A plain tree with a project folder in it, walked and asked path by
    /// path: `lists` must answer as the walk does.
    #[test]
    fn lists_answers_as_the_walk_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let all: Vec<PathBuf> = [
            "a.md",
            "notes",
            "x/pic.png",
            "x/.draft.md",
            ".git/HEAD",
            "p/agents/A/inbox/2026/11/m.md",
            "p/agents/A/profile.json",
            "p/messages/2026/11/m.md",
            "p/messages/2026/11/m.txt",
            "p/messages/2026/x/m.md",
            "p/messages/threads/t.md",
            "p/messages/loose.md",
            "p/README.md",
            "q/messages/2026/11/m.md",
        ]
        .iter()
        .map(|r| touch(root, r))
        .collect();
        let listed = mail_files(root).unwrap();
        let rel = |p: &Path| p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        assert_eq!(
            listed.iter().map(|p| rel(p)).collect::<Vec<_>>(),
            [
                "a.md",
                "notes",
                "p/messages/2026/11/m.md",
                "q/messages/2026/11/m.md"
            ]
        );
        for p in &all {
            assert_eq!(lists(root, p), listed.contains(p), "{}", rel(p));
        }
        assert!(!lists(root, root));
        assert!(!lists(root, Path::new("/elsewhere/a.md")));
    }

    #[test]
    fn a_storage_root_lists_only_canonical_copies() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let all: Vec<PathBuf> = [
            "NOTES.md",
            "archive/NOTES.md",
            "archive/projects/p/agents/A/inbox/2026/11/m.md",
            "archive/projects/p/messages/2026/11/m.md",
            "archive/projects/p/messages/2026/11/.m.md",
            "archive/projects/p/messages/threads/t.md",
            "archive/projects/q/messages/2027/01/n.md",
            "archive/projects/q/README.md",
        ]
        .iter()
        .map(|r| touch(root, r))
        .collect();
        let listed = mail_files(root).unwrap();
        assert_eq!(
            listed,
            [
                root.join("archive/projects/p/messages/2026/11/m.md"),
                root.join("archive/projects/q/messages/2027/01/n.md"),
            ]
        );
        assert_eq!(listed, store_files(&root.join("archive")).files);
        assert_eq!(mail_files(&root.join("archive")).unwrap(), listed);
        assert_eq!(project_of(&listed[1]), Some(OsStr::new("q")));
        for p in &all {
            assert_eq!(lists(root, p), listed.contains(p), "{}", p.display());
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_folders_are_not_entered_and_unlistable_ones_are_problems() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("mail");
        touch(&root, "a/m.md");
        let outside = touch(dir.path(), "outside/o.md");
        std::os::unix::fs::symlink(outside.parent().unwrap(), root.join("link")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("file-link.md")).unwrap();
        std::os::unix::fs::symlink(&root, root.join("a/loop")).unwrap();
        let locked = touch(&root, "locked/l.md");
        let locked_dir = locked.parent().unwrap();
        std::fs::set_permissions(locked_dir, std::fs::Permissions::from_mode(0o000)).unwrap();
        let found = walk(&root);
        std::fs::set_permissions(locked_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut expected = vec![root.join("a/m.md"), root.join("file-link.md")];
        assert!(!lists(&root, &root.join("link/o.md")));
        assert!(lists(&root, &root.join("file-link.md")));
        // Root lists any directory: then there is no problem to report.
        if found.problems.is_empty() {
            expected.push(locked);
            assert_eq!(found.files, expected);
        } else {
            assert_eq!(found.files, expected);
            let (_, problems) = found.into_parts();
            assert_eq!(problems.len(), 1);
            assert_eq!(problems[0].0, locked_dir);
            assert!(problems[0].1.starts_with("cannot list directory: "));
        }
        // A root that is not there is a problem too, and an error to
        // `mail_files`.
        let gone = dir.path().join("gone");
        let (files, problems) = walk(&gone).into_parts();
        assert!(files.is_empty());
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].0, gone);
        assert!(problems[0].1.starts_with("cannot list directory: "));
        assert_eq!(
            mail_files(&gone).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
