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

/// The hint for a near miss, as every problem words it: `` (did you
/// mean `X`?)`` after what was not known, or nothing.
pub fn did_you_mean(near: Option<&str>) -> String {
    near.map(|n| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default()
}

/// The one id of `known` that `id` is a near miss of: the rule above,
/// with case counted (an id is matched exactly, so `Demo-17` is a slip
/// from `demo-17`), and only when no other id is as near. Ids are many
/// and alike (`demo-11`, `demo-17`, `demo-21` are each one edit from
/// `demo-71`): a hint that picked one of several would guess. So sequential
/// numbers (an mcp_agent_mail database's) rarely get one, and long ids
/// with a slip in them (`ol-527.2-hepl`) do. Ids whose lengths differ by
/// more than the edits allowed are not compared. `None` when `id` is one
/// of `known`; an id listed twice is one id (an event log names a task
/// once an event).
pub fn nearest_id<'k>(id: &str, known: impl IntoIterator<Item = &'k str>) -> Option<&'k str> {
    nearest_name(id, known, false)
}

/// The one agent name of `known` that `name` (an `--as` matching none)
/// is a slip from: [`nearest_id`]'s rule, with case counted as the store
/// that matches the names counts it. `ignore_ascii_case`: an
/// mcp_agent_mail database or server, where `bluelake` is BlueLake, so a
/// letter's case is no edit (`greencastel` is one swap from
/// GreenCastle); a plain mailbox matches exactly and counts it.
pub fn nearest_name<'k>(
    name: &str,
    known: impl IntoIterator<Item = &'k str>,
    ignore_ascii_case: bool,
) -> Option<&'k str> {
    fn fold(s: &str, ignore_ascii_case: bool) -> std::borrow::Cow<'_, str> {
        if ignore_ascii_case {
            std::borrow::Cow::Owned(s.to_ascii_lowercase())
        } else {
            std::borrow::Cow::Borrowed(s)
        }
    }
    let id = fold(name, ignore_ascii_case);
    let mut best: Option<(usize, &'k str)> = None;
    let mut tied = false;
    for k in known {
        if k.len().abs_diff(id.len()) > MAX_EDITS {
            continue;
        }
        // Optimal string alignment: Damerau's edits, each letter edited
        // once, which is all a slip is; it needs no table of the alphabet.
        let d = strsim::osa_distance(&id, &fold(k, ignore_ascii_case));
        if d == 0 {
            return None;
        }
        if d > MAX_EDITS || 2 * d >= k.chars().count() {
            continue;
        }
        match best {
            Some((b, bk)) if d > b || (d == b && k == bk) => {}
            Some((b, _)) if d == b => tied = true,
            _ => {
                best = Some((d, k));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::{nearest, nearest_id, nearest_name};

    #[test]
    fn a_near_id_is_named_only_when_it_is_the_one_nearest() {
        let ids = ["demo-11", "demo-17", "demo-21", "ol-527.2-help", "5"];
        for (id, expected) in [
            // Case counts in an id: one edit.
            ("Demo-17", Some("demo-17")),
            ("ol-527.2-hepl", Some("ol-527.2-help")),
            ("ol-527.2-hel", Some("ol-527.2-help")),
            // One edit from three ids: no guess.
            ("demo-71", None),
            // The nearest tied: `demo-1` and `demo-117` are each one
            // edit from `demo-11` and from `demo-17`.
            ("demo-1", None),
            ("demo-117", None),
            // Too short to have a near miss; the id itself; far off.
            ("6", None),
            ("demo-17", None),
            ("ticket-9", None),
            ("", None),
        ] {
            assert_eq!(nearest_id(id, ids), expected, "{id}");
        }
        // The one nearest of two at different distances.
        assert_eq!(nearest_id("ol-12", ["ol-1234", "ol-1"]), Some("ol-1"));
        assert_eq!(nearest_id("x", []), None);
    }

    #[test]
    fn a_name_s_case_is_an_edit_only_where_the_store_counts_it() {
        let names = ["BlueLake", "GreenCastle"];
        // Counted (a plain mailbox): three edits, no hint; two: a hint.
        assert_eq!(nearest_name("greencastel", names, false), None);
        assert_eq!(nearest_name("bluelake", names, false), Some("BlueLake"));
        // Not counted (mcp_agent_mail): one swap; and a name the store
        // matches already is no slip.
        assert_eq!(
            nearest_name("greencastel", names, true),
            Some("GreenCastle")
        );
        assert_eq!(nearest_name("bluelake", names, true), None);
        assert_eq!(nearest_name("Nobody", names, true), None);
    }

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
