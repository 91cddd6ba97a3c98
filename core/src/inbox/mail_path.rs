//! [`MailPath`]: the file a message was read from, as the inbox holds it.
//!
//! Why (issue 16): an owned `PathBuf` per message was a heap block of
//! about 80 bytes (the root, the folder and the name, spelled out again
//! for each file) and an allocation per message: 8 MB of a
//! 100,000-message load's peak. A load makes the paths of a chunk of
//! files at once, so it keeps them in one shared buffer, one after the
//! other, and each message holds a range of it: 16 bytes inline (the
//! buffer behind a thin pointer), where the `PathBuf` it replaced was 24,
//! and no block of its own. It reads as a
//! [`Path`] (`Deref`), so `m.path.as_deref()` is an `Option<&Path>` as
//! before; what must own a path (a problem's entry, a reply) copies it.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Serialize, Serializer};

/// A message's file: a range of a buffer shared by the paths made with
/// it (see the module documentation).
#[derive(Clone)]
pub struct MailPath {
    buf: Arc<Box<OsStr>>,
    at: u32,
    len: u32,
}

impl MailPath {
    /// `path`, in a buffer of its own.
    pub fn new(path: &Path) -> MailPath {
        MailPath::whole(Box::from(path.as_os_str()))
    }

    fn whole(buf: Box<OsStr>) -> MailPath {
        MailPath {
            len: u32::try_from(buf.len()).unwrap_or(u32::MAX),
            buf: Arc::new(buf),
            at: 0,
        }
    }

    /// Each of `files` (a folder and a file's name in it: the path
    /// `folder.join(name)`), all in one buffer (one allocation for them
    /// all). Each path is made in one scratch buffer and copied in, where
    /// a `join` of each made a path of its own and grew it for the name:
    /// an allocation, a reallocation and a free a message (callgrind, an
    /// mcp root of 10,000 messages loaded: 2,100 instructions a row).
    pub fn shared(files: &[(&Path, &OsStr)]) -> Vec<MailPath> {
        let each = || files.iter().map(|&(dir, name)| dir.join(name));
        // At most this long: a separator between each folder and name.
        let total: usize = files
            .iter()
            .map(|(dir, name)| dir.as_os_str().len() + 1 + name.len())
            .sum();
        // Ranges are `u32`s; a buffer past that (never, for a chunk of
        // files), or one this platform cannot cut ([`cuts_cleanly`]),
        // gives each path its own.
        if u32::try_from(total).is_err() {
            return each().map(MailPath::from).collect();
        }
        let mut all = OsString::with_capacity(total);
        let mut ranges = Vec::with_capacity(files.len());
        let mut one = PathBuf::new();
        for &(dir, name) in files {
            one.as_mut_os_string().clear();
            one.push(dir);
            one.push(name);
            let at = all.len();
            all.push(one.as_os_str());
            ranges.push((at as u32, (all.len() - at) as u32));
        }
        let buf: Arc<Box<OsStr>> = Arc::new(all.into_boxed_os_str());
        if !cuts_cleanly(&buf) {
            return each().map(MailPath::from).collect();
        }
        ranges
            .into_iter()
            .map(|(at, len)| MailPath {
                buf: Arc::clone(&buf),
                at,
                len,
            })
            .collect()
    }

    pub fn as_path(&self) -> &Path {
        if self.at == 0 && self.len as usize == self.buf.len() {
            return Path::new(&**self.buf);
        }
        Path::new(cut(&self.buf, self.at as usize, self.len as usize))
    }

    /// An owned copy.
    pub fn to_path_buf(&self) -> PathBuf {
        self.as_path().to_path_buf()
    }
}

/// Whether this platform can take ranges of `buf` without unsafe code
/// (the crate has none): Unix by bytes; elsewhere a UTF-8 buffer only.
#[cfg(unix)]
fn cuts_cleanly(_: &OsStr) -> bool {
    true
}

#[cfg(not(unix))]
fn cuts_cleanly(buf: &OsStr) -> bool {
    buf.to_str().is_some()
}

/// `buf`'s bytes `at..at + len`, which are one whole path pushed there.
#[cfg(unix)]
fn cut(buf: &OsStr, at: usize, len: usize) -> &OsStr {
    use std::os::unix::ffi::OsStrExt;
    OsStr::from_bytes(buf.as_bytes().get(at..at + len).unwrap_or_default())
}

#[cfg(not(unix))]
fn cut(buf: &OsStr, at: usize, len: usize) -> &OsStr {
    // Shared only when UTF-8 (`cuts_cleanly`), so this always slices.
    OsStr::new(
        buf.to_str()
            .and_then(|s| s.get(at..at + len))
            .unwrap_or_default(),
    )
}

impl Deref for MailPath {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.as_path()
    }
}

impl AsRef<Path> for MailPath {
    fn as_ref(&self) -> &Path {
        self
    }
}

impl From<&Path> for MailPath {
    fn from(p: &Path) -> MailPath {
        MailPath::new(p)
    }
}

impl From<PathBuf> for MailPath {
    fn from(p: PathBuf) -> MailPath {
        MailPath::whole(p.into_os_string().into_boxed_os_str())
    }
}

impl PartialEq for MailPath {
    fn eq(&self, other: &MailPath) -> bool {
        self.as_path() == other.as_path()
    }
}

impl Eq for MailPath {}

impl PartialEq<Path> for MailPath {
    fn eq(&self, other: &Path) -> bool {
        self.as_path() == other
    }
}

impl PartialEq<PathBuf> for MailPath {
    fn eq(&self, other: &PathBuf) -> bool {
        self.as_path() == other
    }
}

impl PartialEq<MailPath> for Path {
    fn eq(&self, other: &MailPath) -> bool {
        self == other.as_path()
    }
}

impl PartialEq<MailPath> for PathBuf {
    fn eq(&self, other: &MailPath) -> bool {
        self.as_path() == other.as_path()
    }
}

impl Hash for MailPath {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.as_path().hash(h)
    }
}

impl fmt::Debug for MailPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_path(), f)
    }
}

/// As a `PathBuf` serializes.
impl Serialize for MailPath {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_path().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The folder and name of each path `given` (split as a walk lists it).
    fn parts(given: &[PathBuf]) -> Vec<(&Path, &OsStr)> {
        given
            .iter()
            .map(|p| (p.parent().unwrap(), p.file_name().unwrap()))
            .collect()
    }

    #[test]
    fn shared_paths_read_as_the_paths_given() {
        let given = [
            PathBuf::from("/m/BlueLake/000001-a.md"),
            PathBuf::from("/m/Chiron/2026-11-22T03-16-28Z__b.md"),
            PathBuf::from("c.md"),
        ];
        let shared = MailPath::shared(&parts(&given));
        assert_eq!(shared.len(), 3);
        for (p, want) in shared.iter().zip(&given) {
            assert_eq!(p.as_path(), want.as_path());
            assert_eq!(*p, MailPath::new(want), "equal to its own copy");
            assert_eq!(p.file_name(), want.file_name(), "reads as a Path");
            assert_eq!(p.to_path_buf(), *want);
            assert_eq!(
                serde_json::to_string(p).unwrap(),
                serde_json::to_string(want).unwrap()
            );
            assert_eq!(format!("{p:?}"), format!("{want:?}"));
        }
        // One buffer for all of them: no block per path.
        assert!(Arc::ptr_eq(&shared[0].buf, &shared[2].buf));
        assert_eq!(MailPath::from(given[1].clone()), shared[1]);
        assert!(MailPath::shared(&[]).is_empty());
    }

    /// Each path is the one `join` makes of its folder and name, byte for
    /// byte, whatever the folder's form, however long the one before it
    /// (the scratch path each is made in is reused).
    #[test]
    fn shared_paths_are_joined_as_join_joins() {
        let dirs = [
            "/m/a/b/c/d/e",
            "",
            "/",
            "/m",
            "/m/",
            "m",
            "m/a",
            "./m",
            "m//",
        ];
        let names = ["x.md", "a b.md", ".x", "é.md"];
        let files: Vec<(&Path, &OsStr)> = dirs
            .iter()
            .flat_map(|d| names.iter().map(move |n| (Path::new(d), OsStr::new(n))))
            .collect();
        let shared = MailPath::shared(&files);
        assert_eq!(shared.len(), files.len());
        for (p, (dir, name)) in shared.iter().zip(&files) {
            let want = dir.join(name);
            assert_eq!(
                p.as_os_str().as_encoded_bytes(),
                want.as_os_str().as_encoded_bytes(),
                "{dir:?} {name:?}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_is_kept_byte_for_byte() {
        use std::os::unix::ffi::OsStrExt;
        let odd = PathBuf::from(OsStr::from_bytes(b"/m/\xff\xfe.md"));
        let given = [PathBuf::from("/m/a.md"), odd.clone()];
        let shared = MailPath::shared(&parts(&given));
        assert_eq!(shared[1].as_path(), odd.as_path());
        assert_eq!(shared[0].as_path(), Path::new("/m/a.md"));
    }
}
