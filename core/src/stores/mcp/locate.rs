//! Finding a storage root's SQLite database the way the server does.
//!
//! The Python server reads `DATABASE_URL` (default
//! `sqlite+aiosqlite:///./storage.sqlite3`) from its environment, else from
//! a `.env` file in its working directory (python-decouple), and opens a
//! relative path against that working directory. With the server's default
//! layout the archive is under the home directory and the database is
//! wherever the server was started, so looking only beside the archive
//! finds nothing.
//!
//! amail cannot see the server's working directory, so it decides:
//! 1. `--db FILE` wins (handled by `source::detect`);
//! 2. `DATABASE_URL` in amail's own environment, a relative path taken
//!    against amail's current directory (run amail where the server runs,
//!    or give an absolute URL);
//! 3. `DATABASE_URL` in a `.env` file in the storage root as named, its
//!    parent (a clone directory holding both), or amail's current
//!    directory, in that order; a relative path is taken against the
//!    folder of that `.env` (the server's working directory when it reads
//!    that file);
//! 4. `storage.sqlite3` beside the archive (`source::detect`'s candidates).
//!
//! A URL that is not SQLite (postgres, ...) or names no existing file is
//! skipped, so a `DATABASE_URL` meant for another program does not hide
//! the database beside the archive.

use std::path::{Path, PathBuf};

/// What the lookup may read of the process it runs in (tests pass their
/// own, so they never depend on the developer's environment).
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// `DATABASE_URL` of amail's environment.
    pub database_url: Option<String>,
    /// amail's current directory.
    pub cwd: Option<PathBuf>,
}

impl Env {
    /// The real process environment.
    pub fn current() -> Env {
        Env {
            database_url: std::env::var("DATABASE_URL").ok(),
            cwd: std::env::current_dir().ok(),
        }
    }
}

/// The database for the storage root named `at` (archive folder
/// `archive`), when `--db` was not given: steps 2 and 3 above, then
/// `beside` (what `source::detect` found next to the archive).
pub fn database(at: &Path, archive: &Path, beside: Option<PathBuf>, env: &Env) -> Option<PathBuf> {
    let cwd = env.cwd.as_deref();
    if let Some(url) = &env.database_url {
        if let Some(p) = sqlite_path(url, cwd).filter(|p| p.is_file()) {
            return Some(p);
        }
    }
    let mut dirs: Vec<&Path> = vec![at];
    if archive != at {
        dirs.push(archive);
    }
    dirs.extend(at.parent());
    dirs.extend(cwd);
    for dir in dirs {
        let Ok(text) = std::fs::read_to_string(dir.join(".env")) else {
            continue;
        };
        if let Some(url) = dotenv_value(&text, "DATABASE_URL") {
            if let Some(p) = sqlite_path(&url, Some(dir)).filter(|p| p.is_file()) {
                return Some(p);
            }
        }
    }
    beside
}

/// The file of a SQLAlchemy SQLite URL (`sqlite:///rel`,
/// `sqlite+aiosqlite:////abs`), relative paths taken against `base`.
/// `None` for other databases and in-memory SQLite.
pub fn sqlite_path(url: &str, base: Option<&Path>) -> Option<PathBuf> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://")?;
    if scheme != "sqlite" && !scheme.starts_with("sqlite+") {
        return None;
    }
    // `sqlite:///x` is the relative path `x`, `sqlite:////x` the absolute `/x`.
    let path = rest.strip_prefix('/')?;
    let path = path.split('?').next().unwrap_or(path);
    if path.is_empty() || path == ":memory:" {
        return None;
    }
    let p = PathBuf::from(path);
    Some(match base {
        Some(base) if p.is_relative() => base.join(p),
        _ => p,
    })
}

/// `KEY=value` from a `.env` text as python-decouple reads it: the last
/// non-comment line for the key, surrounding quotes removed.
fn dotenv_value(text: &str, key: &str) -> Option<String> {
    text.lines().rev().find_map(|line| {
        let line = line.trim();
        let line = line.strip_prefix("export ").unwrap_or(line);
        if line.starts_with('#') {
            return None;
        }
        let (k, v) = line.split_once('=')?;
        (k.trim() == key).then(|| {
            let v = v.trim();
            v.strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                .unwrap_or(v)
                .to_string()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlalchemy_urls_become_paths() {
        let base = Path::new("/srv/clone");
        assert_eq!(
            sqlite_path("sqlite+aiosqlite:///./storage.sqlite3", Some(base)),
            Some(base.join("./storage.sqlite3"))
        );
        assert_eq!(
            sqlite_path("sqlite:////var/db/mail.sqlite3", Some(base)),
            Some(PathBuf::from("/var/db/mail.sqlite3"))
        );
        assert_eq!(sqlite_path("postgresql://u@h/db", Some(base)), None);
        assert_eq!(sqlite_path("sqlite://", Some(base)), None);
        assert_eq!(sqlite_path("sqlite:///:memory:", Some(base)), None);
    }

    #[test]
    fn dotenv_takes_the_last_uncommented_value_without_quotes() {
        let text = "# DATABASE_URL=sqlite:///no\nDATABASE_URL=sqlite:///a\nexport DATABASE_URL=\"sqlite:///b\"\n";
        assert_eq!(
            dotenv_value(text, "DATABASE_URL").as_deref(),
            Some("sqlite:///b")
        );
        assert_eq!(dotenv_value("OTHER=1", "DATABASE_URL"), None);
    }

    #[test]
    fn environment_then_dotenv_then_beside_the_archive() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("home/.mcp_agent_mail_git_mailbox_repo");
        std::fs::create_dir_all(root.join("projects")).unwrap();
        let clone = d.path().join("clone");
        std::fs::create_dir_all(&clone).unwrap();
        let in_clone = clone.join("storage.sqlite3");
        std::fs::write(&in_clone, "").unwrap();
        let beside = Some(root.join("storage.sqlite3"));

        // Nothing names it: what detect found beside the archive.
        let none = Env::default();
        assert_eq!(database(&root, &root, beside.clone(), &none), beside);
        // DATABASE_URL relative to amail's current directory (the server's
        // default URL, amail run where the server runs).
        let env = Env {
            database_url: Some("sqlite+aiosqlite:///./storage.sqlite3".into()),
            cwd: Some(clone.clone()),
        };
        assert_eq!(
            database(&root, &root, beside.clone(), &env),
            Some(clone.join("./storage.sqlite3"))
        );
        // A URL naming no file is skipped.
        let env = Env {
            database_url: Some("sqlite:///missing.sqlite3".into()),
            cwd: Some(clone.clone()),
        };
        assert_eq!(database(&root, &root, beside.clone(), &env), beside.clone());
        // The server's .env in amail's current directory, relative to it.
        std::fs::write(
            clone.join(".env"),
            "DATABASE_URL=sqlite+aiosqlite:///./storage.sqlite3\n",
        )
        .unwrap();
        let env = Env {
            database_url: None,
            cwd: Some(clone.clone()),
        };
        assert_eq!(
            database(&root, &root, beside.clone(), &env),
            Some(clone.join("./storage.sqlite3"))
        );
        // A .env in the storage root comes first.
        let elsewhere = d.path().join("db/mail.sqlite3");
        std::fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
        std::fs::write(&elsewhere, "").unwrap();
        std::fs::write(
            root.join(".env"),
            format!("DATABASE_URL=sqlite:///{}\n", elsewhere.display()),
        )
        .unwrap();
        assert_eq!(database(&root, &root, beside, &env), Some(elsewhere));
    }
}
