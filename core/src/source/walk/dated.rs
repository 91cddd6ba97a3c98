//! The newest files of a mailbox filed by date, without listing the rest.
//!
//! A folder lists in the filesystem's order (ext4: by hash), so the
//! newest names of a flat folder are known only once all of it is
//! listed: a million files in six folders is half a second of the
//! kernel's listing before the first of them can be read. Mail is often
//! filed by date instead: the mcp_agent_mail server files each copy under
//! `YYYY/MM/`, and `amail demo --messages` writes its corpus the same way
//! (`<sender>/YYYY/MM/`). Such a tree says, by its folders' names alone,
//! which folders can hold the newest mail, so those can be listed first.
//!
//! [`newest_dated`] lists folders best first: each folder waiting to be
//! listed carries the days its path's dated names allow ([`Span`]), and
//! the one that may end latest is listed next; a folder whose path says
//! nothing (an agent's folder, the mailbox itself) may hold anything and
//! comes first. It stops as soon as the files it has listed include
//! `at_least` in folders that begin after every unlisted folder ends: the
//! newest `at_least` files it listed are then the newest of the whole
//! tree, provided each file lies in the days its folders say. A file
//! filed in the wrong month shows in the wrong step for a moment; the
//! whole load, which lists everything and orders by name, puts it right.
//!
//! It gives up (None: the caller walks the whole tree, as always) when
//! the tree has no dates to go by: an undated folder that holds no
//! sub-folder (a flat agent folder could hold the newest mail, and
//! listing it is the whole walk's work), an mcp_agent_mail project inside
//! the mailbox (its own walk), or more files listed than a step could
//! use. What it lists is a [`Listing`] like the whole walk's, by the same
//! rules (mail names only, hidden entries and task stores left out,
//! symlinked folders not entered), so a step reads the same files the
//! whole load does.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

use super::{is_leaf, is_mail_bytes, list_dir, Kind, Listing};

/// Files listed past which a best-first walk is not worth going on with:
/// this many times what the caller asked for.
const LISTED_LIMIT: usize = 16;

/// The newest `at_least` files of `root` (or more: all those listed), as
/// the module doc says, or None when the tree's folders do not date them.
pub(crate) fn newest_dated(root: &Path, at_least: usize) -> Option<Listing> {
    if super::super::detect::archive_of(root).is_some() {
        return None;
    }
    // Not mail, as in the whole walk (`mailbox::drop_handoff_folder`).
    let handoffs = super::mailbox::walked_handoff_folder(root);
    let mut out = Listing::default();
    // Files listed whose folder may still hold mail no newer than an
    // unlisted folder's, by the first day their folder allows, latest
    // first: the latest day an unlisted folder allows only falls (a
    // folder's sub-folders end no later than it does), so each leaves
    // this heap once, for `sure`, instead of every folder listed being
    // counted again after each listing.
    let mut unsure: BinaryHeap<(u32, usize)> = BinaryHeap::new();
    let mut sure = 0;
    let mut total = 0;
    let mut waiting = BinaryHeap::from([Waiting {
        span: Span::OPEN,
        dir: root.to_path_buf(),
    }]);
    while let Some(next) = waiting.pop() {
        if handoffs.as_ref().is_some_and(|h| next.dir.starts_with(h)) {
            continue;
        }
        if next.span == Span::OPEN && is_leaf(&next.dir) {
            return None;
        }
        let found = list_dir(&next.dir, &mut out.problems, is_mail_bytes)?;
        if found.is_task_store() {
            continue;
        }
        if found.is_project() {
            return None;
        }
        let mut names = Vec::new();
        for e in &found.entries {
            let name = found.folder.bytes(e.name);
            if e.kind == Kind::Dir {
                waiting.push(Waiting {
                    span: next.span.below(name),
                    dir: next.dir.join(found.name(e.name)),
                });
            } else if found.is_file(e, &mut out.problems) {
                names.push(e.name);
            }
        }
        total += names.len();
        unsure.push((next.span.from, names.len()));
        let folder = out.push_folder(found.folder);
        out.push_run(folder, names);
        if total > at_least.saturating_mul(LISTED_LIMIT) {
            return None;
        }
        let Some(latest_unlisted) = waiting.peek().map(|w| w.span.to) else {
            // Everything is listed: the whole walk does as much.
            return None;
        };
        while let Some(&(from, n)) = unsure.peek() {
            if from <= latest_unlisted {
                break;
            }
            unsure.pop();
            sure += n;
        }
        if sure >= at_least {
            return Some(out);
        }
    }
    None
}

/// A folder not yet listed, the one that may end latest first.
struct Waiting {
    span: Span,
    dir: PathBuf,
}

impl Ord for Waiting {
    fn cmp(&self, other: &Self) -> Ordering {
        // Among equals, the first path first (the heap pops the greatest).
        (self.span.to, &other.dir).cmp(&(other.span.to, &self.dir))
    }
}

impl PartialOrd for Waiting {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Waiting {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Waiting {}

/// The days a folder's files can be from, as its path's dated names say:
/// `YYYYMMDD` numbers, both ends in. A month is taken to end on its 31st
/// and a year on December 31st: only the order of the numbers matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    from: u32,
    to: u32,
    unit: Unit,
}

/// How far a path's names have dated a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Open,
    Year,
    Month,
    Day,
}

impl Span {
    const OPEN: Span = Span {
        from: 0,
        to: u32::MAX,
        unit: Unit::Open,
    };

    fn year(y: u32) -> Span {
        Span {
            from: y * 10_000 + 101,
            to: y * 10_000 + 1231,
            unit: Unit::Year,
        }
    }

    fn month(y: u32, m: u32) -> Span {
        Span {
            from: y * 10_000 + m * 100 + 1,
            to: y * 10_000 + m * 100 + 31,
            unit: Unit::Month,
        }
    }

    fn day(y: u32, m: u32, d: u32) -> Span {
        let day = y * 10_000 + m * 100 + d;
        Span {
            from: day,
            to: day,
            unit: Unit::Day,
        }
    }

    /// The span of a folder named `name` in a folder of this one: a
    /// dated name narrows it (`2026`, `2026-11`, `2026-11-29` or
    /// `20261129` in an undated folder; `11` in a year; `29` in a month),
    /// any other name keeps it (`BlueLake` in `2026/11/` is of November).
    fn below(self, name: &[u8]) -> Span {
        let (y, m) = (self.from / 10_000, self.from / 100 % 100);
        match (self.unit, name) {
            (Unit::Open, _) => Self::dated(name).unwrap_or(self),
            (Unit::Year, [_, _]) => match number(name) {
                Some(m @ 1..=12) => Span::month(y, m),
                _ => self,
            },
            (Unit::Month, [_, _]) => match number(name) {
                Some(d @ 1..=31) => Span::day(y, m, d),
                _ => self,
            },
            _ => self,
        }
    }

    /// A folder name that is a date on its own, or None.
    fn dated(name: &[u8]) -> Option<Span> {
        let year = |y: &[u8]| number(y).filter(|y| (1900..=2099).contains(y));
        let month = |m: &[u8]| number(m).filter(|m| (1..=12).contains(m));
        let day = |d: &[u8]| number(d).filter(|d| (1..=31).contains(d));
        match name.len() {
            4 => Some(Span::year(year(name)?)),
            7 if name[4] == b'-' => Some(Span::month(year(&name[..4])?, month(&name[5..])?)),
            8 => Some(Span::day(
                year(&name[..4])?,
                month(&name[4..6])?,
                day(&name[6..])?,
            )),
            10 if name[4] == b'-' && name[7] == b'-' => Some(Span::day(
                year(&name[..4])?,
                month(&name[5..7])?,
                day(&name[8..])?,
            )),
            _ => None,
        }
    }
}

/// The number `digits` spells, when it is only ASCII digits (at most 4).
fn number(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 4 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(digits.iter().fold(0, |n, &d| n * 10 + u32::from(d - b'0')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dated_names_narrow_a_folder_s_days_and_others_keep_them() {
        let open = Span::OPEN;
        assert_eq!(open.below(b"BlueLake"), open);
        let year = open.below(b"2026");
        assert_eq!((year.from, year.to), (20260101, 20261231));
        let month = year.below(b"11");
        assert_eq!((month.from, month.to), (20261101, 20261131));
        assert_eq!(month.below(b"29"), Span::day(2026, 11, 29));
        // An agent's folder inside a month is of that month.
        assert_eq!(month.below(b"BlueLake"), month);
        assert_eq!(year.below(b"13"), year, "no 13th month");
        assert_eq!(
            year.below(b"2025"),
            year,
            "a year inside a year says nothing"
        );
        assert_eq!(open.below(b"2026-11"), Span::month(2026, 11));
        assert_eq!(open.below(b"2026-11-29"), Span::day(2026, 11, 29));
        assert_eq!(open.below(b"20261129"), Span::day(2026, 11, 29));
        for undated in [
            &b"123"[..],
            b"0042",
            b"2026-13",
            b"2026-11-32",
            b"12345678",
            b"2026x11",
            b"",
        ] {
            assert_eq!(
                open.below(undated),
                open,
                "{}",
                String::from_utf8_lossy(undated)
            );
        }
    }

    /// Files named `000001.md` ... in `root/rel`.
    fn files(root: &Path, rel: &str, n: usize) {
        let dir = root.join(rel);
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..n {
            std::fs::write(dir.join(format!("{i:06}.md")), "Subject: x\n").unwrap();
        }
    }

    fn folders_of(listing: &Listing, root: &Path) -> Vec<String> {
        let mut out: Vec<String> = listing
            .iter()
            .map(|(dir, _)| dir.strip_prefix(root).unwrap().display().to_string())
            .collect();
        out.dedup();
        out
    }

    #[test]
    fn the_newest_months_are_listed_and_the_older_ones_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        files(root, "Alpha/2026/11", 60);
        files(root, "Alpha/2026/10", 5);
        // Quiet since March: its months end before November's begin.
        files(root, "Bravo/2026/03", 10);
        files(root, "Bravo/2025/12", 10);
        let listing = newest_dated(root, 50).expect("dated");
        assert_eq!(folders_of(&listing, root), ["Alpha/2026/11"]);
        assert_eq!(listing.len(), 60);
        // Asking for more than November holds: October's month too, and
        // then Bravo's March, which no unlisted folder can be newer than.
        let listing = newest_dated(root, 70).expect("dated");
        assert_eq!(
            folders_of(&listing, root),
            ["Alpha/2026/11", "Alpha/2026/10", "Bravo/2026/03"]
        );
    }

    #[test]
    fn an_undated_folder_of_files_or_a_fully_listed_tree_gives_none() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        files(root, "Alpha/2026/11", 60);
        files(root, "Alpha/2026/10", 5);
        // A flat agent folder may hold the newest mail, dated nowhere.
        files(root, "Bravo", 10);
        assert!(newest_dated(root, 50).is_none());
        std::fs::remove_dir_all(root.join("Bravo")).unwrap();
        assert!(newest_dated(root, 50).is_some());
        // Everything listed and still too few: the whole walk's work.
        assert!(newest_dated(root, 66).is_none());
    }
}
