//! AOF task ids: the bead -> task id rule, and the check (without a regex
//! engine) of every form AOF has accepted.
//!
//! Accepted forms, all `TASK-YYYY-MM-DD-` followed by:
//! - `NNN` (the seed's form),
//! - `NNN-NN` (AOF, February 2026),
//! - eight characters of the nanoid alphabet without look-alikes (AOF HEAD).

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

/// The alphabet AOF draws generated id suffixes from (no 0, 1, I, O, l).
pub(crate) const ID_ALPHABET: &[u8] = b"23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/// The task id a bead gets: `TASK-<date>-<8 chars>`, the suffix derived
/// from the bead (and a salt, to step past a collision) in AOF's id
/// alphabet, so the same mail always yields the same ids. The router uses
/// it to create tasks; `amail parse --format aof` uses it (salt 0) to show
/// the id a bead first seen that day would get.
pub(crate) fn for_bead(bead: &str, date: DateTime<Utc>, salt: u32) -> String {
    let digest = Sha256::digest(format!("{bead}\u{0}{salt}").as_bytes());
    let suffix: String = digest
        .iter()
        .take(8)
        .map(|b| ID_ALPHABET[*b as usize % ID_ALPHABET.len()] as char)
        .collect();
    format!("TASK-{}-{suffix}", date.format("%Y-%m-%d"))
}

/// Whether `s` is a task id in any of the forms AOF has accepted.
pub fn is_valid_task_id(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 19 || !s.starts_with("TASK-") {
        return false;
    }
    let date = &b[5..15];
    let digits = |r: &[u8]| r.iter().all(u8::is_ascii_digit);
    if !(digits(&date[0..4])
        && date[4] == b'-'
        && digits(&date[5..7])
        && date[7] == b'-'
        && digits(&date[8..10])
        && b[15] == b'-')
    {
        return false;
    }
    let rest = &b[16..];
    match rest.len() {
        3 => digits(rest),
        6 => digits(&rest[..3]) && rest[3] == b'-' && digits(&rest[4..]),
        8 => rest.iter().all(|c| ID_ALPHABET.contains(c)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        assert!(is_valid_task_id("TASK-2026-02-09-057"));
        assert!(is_valid_task_id("TASK-2026-02-09-057-02"));
        assert!(is_valid_task_id("TASK-2026-11-22-D4j2t7Vy"));
        assert!(!is_valid_task_id("TASK-2026-11-22-D4j2t7V0"));
        assert!(!is_valid_task_id("not-a-task"));
        assert!(!is_valid_task_id("TASK-2026-02-09-57"));
        assert!(!is_valid_task_id("TASK-2026-02-09-0577"));
        assert!(!is_valid_task_id("TASK-2026-02-09-057 "));
        assert!(!is_valid_task_id("TASK-20x6-02-09-057"));
    }
}
