//! What a `/` query matches in a thread or a message, and the
//! case-insensitive substring test under it: the part of a search that
//! runs over every message on each keystroke, apart so that it is
//! measured and tested on its own (a property test holds it to the plain
//! comparison).

use amail_core::inbox::{Inbox, InboxMessage, Thread};

/// Whether thread `t` of `inbox` matches a `/` query: its id, bead,
/// subject or any of its messages.
pub(super) fn thread_matches(inbox: &Inbox, t: &Thread, query: &str) -> bool {
    let hit = |s: &str| contains_ci(s, query);
    hit(&t.id)
        || t.bead.as_deref().is_some_and(hit)
        || hit(&t.subject)
        || t.messages
            .iter()
            .filter_map(|&i| inbox.messages.get(i))
            .any(|m| message_matches(m, query))
}

pub(super) fn message_matches(m: &InboxMessage, q: &str) -> bool {
    let msg = &m.message;
    [
        m.key.as_str(),
        &msg.subject,
        msg.from.as_deref().unwrap_or(""),
        msg.kind.as_str(),
        // From the kept text: a search does not parse every message again.
        msg.body_text(),
    ]
    .iter()
    .any(|s| contains_ci(s, q))
}

/// Case-insensitive substring test; no allocation for ASCII queries.
///
/// An ASCII query is found by its least common byte (both cases of a
/// letter) with `memchr`, each place it occurs then compared whole: `/`
/// searches every message's text on each keystroke, and comparing at
/// every byte (`windows`) took 0.7 s a keystroke over a million messages.
pub(crate) fn contains_ci(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if needle.is_ascii() {
        return contains_ascii_ci(hay.as_bytes(), needle.as_bytes());
    }
    hay.to_lowercase().contains(&needle.to_lowercase())
}

/// [`contains_ci`] for an ASCII `needle` (not empty).
fn contains_ascii_ci(hay: &[u8], needle: &[u8]) -> bool {
    if hay.len() < needle.len() {
        return false;
    }
    // The needle's rarest byte by a rough rank of how often bytes occur in
    // mail text, and where it sits in the needle.
    let (at, b) = needle
        .iter()
        .copied()
        .enumerate()
        .max_by_key(|&(i, b)| (rarity(b), std::cmp::Reverse(i)))
        .expect("not empty");
    let (lo, up) = (b.to_ascii_lowercase(), b.to_ascii_uppercase());
    // Places in `hay` where the needle would start, with that byte at `at`.
    let last = hay.len() - needle.len();
    let tail = &hay[at..=at + last];
    let fits = |p: usize| hay[p..p + needle.len()].eq_ignore_ascii_case(needle);
    if lo == up {
        memchr::memchr_iter(b, tail).any(fits)
    } else {
        memchr::memchr2_iter(lo, up, tail).any(fits)
    }
}

/// How rare a byte is in mail text, roughly: higher is rarer.
fn rarity(b: u8) -> u8 {
    match b.to_ascii_lowercase() {
        b' ' | b'e' | b't' | b'a' | b'o' | b'i' | b'n' | b's' => 0,
        b'r' | b'h' | b'l' | b'd' | b'c' | b'u' | b'\n' => 1,
        b'a'..=b'z' => 2,
        _ => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The memchr search finds what comparing at every byte finds.
        #[test]
        fn ascii_search_agrees_with_every_window(
            hay in "([a-cA-C \\-0-9]|é){0,40}",
            needle in "[a-cA-C \\-0-9]{1,4}",
        ) {
            let (h, n) = (hay.as_bytes(), needle.as_bytes());
            let every = h.len() >= n.len() && h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n));
            proptest::prop_assert_eq!(contains_ci(&hay, &needle), every);
        }
    }

    #[test]
    fn contains_ci_handles_ascii_and_unicode() {
        assert!(contains_ci("Token REFRESH endpoint", "refresh"));
        assert!(!contains_ci("ab", "abc"));
        assert!(contains_ci("正在翻译错误信息", "翻译"));
        assert!(contains_ci("ÉCOLE", "école"));
    }
}
