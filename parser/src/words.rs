//! Short names looked up case-insensitively as whole words: field labels
//! (`Context usage`), spec headers (`Subject`), type tokens (`PROGRESS`).
//!
//! These lookups run on every field line and subject of every message. A
//! name is compared as up to four overlapping `u64` words ([`words`])
//! rather than byte by byte: the text's words, OR-ed with `0x20` where
//! the name has a letter (which folds exactly the ASCII capitals onto
//! their small letters and no other byte onto a letter), equal the name's
//! words exactly when the text is the name in some case. The names'
//! words are computed at compile time by the same `const fn` that reads
//! a text's. (A byte-by-byte case-insensitive compare cost about 130
//! instructions a label; this about 30.)

/// A name as [`find`] compares it: its length, its words and, per byte,
/// `0x20` where it has a letter; and what it stands for.
pub(crate) struct Name<T> {
    len: usize,
    words: [u64; 4],
    fold: [u64; 4],
    pub value: T,
}

/// Byte `i` of `b` in a little-endian word, `n` bytes from `at`.
#[inline(always)]
const fn word_at(b: &[u8], at: usize, n: usize) -> u64 {
    let mut w = 0u64;
    let mut i = 0;
    while i < n {
        w |= (b[at + i] as u64) << (8 * i);
        i += 1;
    }
    w
}

/// Up to four words that together hold every byte of `b` (at most 32
/// bytes long), read at fixed places for its length, overlapping where
/// the length is not a multiple of the word: all of it in one word below
/// 4 bytes, `[0..4, len-4..len]` in one word for 4 to 7, `[0..8,
/// len-8..len]` for 8 to 16, and so on. Two texts of one length are equal
/// exactly when their words are. Unused words are 0; a longer text is
/// all 0 (no name is that long, and [`find`] checks the length first).
// Always inlined: after the caller's `match` on the length, only the
// branch for that length is left (out of line, it cost 56 a call).
#[inline(always)]
const fn words(b: &[u8]) -> [u64; 4] {
    let n = b.len();
    if n < 4 {
        [word_at(b, 0, n), 0, 0, 0]
    } else if n < 8 {
        [word_at(b, 0, 4) | word_at(b, n - 4, 4) << 32, 0, 0, 0]
    } else if n <= 16 {
        [word_at(b, 0, 8), word_at(b, n - 8, 8), 0, 0]
    } else if n <= 24 {
        [word_at(b, 0, 8), word_at(b, 8, 8), word_at(b, n - 8, 8), 0]
    } else if n <= 32 {
        [
            word_at(b, 0, 8),
            word_at(b, 8, 8),
            word_at(b, 16, 8),
            word_at(b, n - 8, 8),
        ]
    } else {
        [0; 4]
    }
}

/// `name` (in small letters, at most 32 bytes) as [`find`] compares it.
pub(crate) const fn name<T: Copy>(name: &[u8], value: T) -> Name<T> {
    let mut letters = [0u8; 32];
    let mut i = 0;
    while i < name.len() {
        if name[i].is_ascii_lowercase() {
            letters[i] = 0x20;
        }
        i += 1;
    }
    let (letters, _) = letters.split_at(name.len());
    Name {
        len: name.len(),
        words: words(name),
        fold: words(letters),
        value,
    }
}

/// What the first of `names` that `text` spells, in any case, stands for.
/// Callers pass the names of `text`'s length (a `match` on it), so that
/// most texts compare with one name or none.
#[inline]
pub(crate) fn find<T: Copy>(names: &[Name<T>], text: &[u8]) -> Option<T> {
    let w = words(text);
    names
        .iter()
        .find(|n| n.len == text.len() && (0..4).all(|i| w[i] | n.fold[i] == n.words[i]))
        .map(|n| n.value)
}

/// Texts to hold a lookup built on [`find`] to the compare it replaced,
/// for the property tests of each (labels, titles, header names, type
/// tokens): one of `names`, as written or in capitals; the same with one
/// byte changed to any other, when that is still UTF-8 (a near miss, the
/// case a word compare could get wrong); and any text of up to `other`
/// characters.
#[cfg(test)]
pub(crate) fn spellings(
    names: &[&str],
    other: usize,
) -> impl proptest::strategy::Strategy<Value = Spellings> {
    use proptest::prelude::*;
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let any_text = proptest::string::string_regex(&format!("\\PC{{0,{other}}}"))
        .unwrap_or_else(|e| panic!("{e}"));
    (
        0..names.len(),
        any::<usize>(),
        any::<u8>(),
        any::<bool>(),
        any_text,
    )
        .prop_map(move |(i, at, byte, upper, other)| {
            let mut name = names[i].clone();
            if upper {
                name.make_ascii_uppercase();
            }
            let mut b = name.clone().into_bytes();
            if let Some(at) = at.checked_rem(b.len()) {
                b[at] = byte;
            }
            Spellings {
                name,
                near: String::from_utf8(b).ok(),
                other,
            }
        })
}

/// What [`spellings`] makes.
#[cfg(test)]
#[derive(Debug, Clone)]
pub(crate) struct Spellings {
    /// A name, as written or in capitals.
    pub name: String,
    /// The name with one byte changed, when still UTF-8.
    pub near: Option<String>,
    /// Any text.
    pub other: String,
}

#[cfg(test)]
impl Spellings {
    /// The name, the near miss and the other text.
    pub(crate) fn all(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str())
            .chain(self.near.as_deref())
            .chain(std::iter::once(self.other.as_str()))
    }
}
