//! Near misses: the known word a misspelled one is nearest, for the hint
//! a problem gives (`` did you mean `PROGRESS`? ``).
//!
//! One rule for every closed set of words amail names back to a writer
//! (message types, a field's enum values, the `Subject:` header, config
//! keys): at most two edits (Damerau-Levenshtein: a letter left out,
//! added or changed, or two side by side swapped), and fewer than half the
//! known word's letters, so that a short word is not taken for a short
//! name (`NOTE` is two edits from `DONE`). Compared in any case. Nothing
//! is ever read as the word it is near: the hint is for the writer, and
//! the text stays what was written.

/// The most edits a near miss may be.
const MAX_EDITS: usize = 2;

/// The word of `known` that `word` is a near miss of (see the module
/// doc), the nearest when several are; `None` when none is, or when
/// `word` is one of them.
pub fn nearest<'k>(word: &str, known: &[&'k str]) -> Option<&'k str> {
    // A word longer than every known one by more than the edits allowed
    // is near none of them: not compared (on hostile input it may be a
    // whole line, and the distance costs the product of the lengths).
    let longest = known.iter().map(|k| k.len()).max()?;
    if word.len() > longest + MAX_EDITS {
        return None;
    }
    let word = word.to_lowercase();
    known
        .iter()
        .map(|&k| (strsim::damerau_levenshtein(&word, &k.to_lowercase()), k))
        .filter(|&(d, k)| (1..=MAX_EDITS).contains(&d) && 2 * d < k.chars().count())
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::nearest;

    const TYPES: [&str; 4] = ["PROGRESS", "DONE", "FAILED", "HELP_REQUEST"];

    #[test]
    fn a_near_miss_names_the_nearest_word() {
        for (word, expected) in [
            // A letter left out, added, changed; two swapped; two edits.
            ("PROGRES", Some("PROGRESS")),
            ("PROGRESSS", Some("PROGRESS")),
            ("PROGRUSS", Some("PROGRESS")),
            ("PROGERSS", Some("PROGRESS")),
            ("FAIL", Some("FAILED")),
            // Any case.
            ("progres", Some("PROGRESS")),
            ("DONES", Some("DONE")),
            // Two edits from a four-letter name is half of it: no hint.
            ("NOTE", None),
            // Three edits.
            ("PRGRS", None),
            // The word itself is no near miss.
            ("DONE", None),
            ("", None),
            // Far too long to be near anything: not compared.
            ("PROGRESS PROGRESS PROGRESS", None),
        ] {
            assert_eq!(nearest(word, &TYPES), expected, "{word}");
        }
        assert_eq!(nearest("x", &[]), None);
    }
}
