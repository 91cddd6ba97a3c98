//! Names that become paths when a store writes: one rule for which agent
//! names, project slugs and thread ids may be a path component, and the
//! server's slug rule for file names. Both stores write with these, so a
//! hostile name is refused (or slugged) the same way in either; and a
//! name read with U+FFFD in place of bytes that were not UTF-8, which is
//! not the name as written, is never written to (`NameNotUtf8`).

use super::error::{Error, NameNotUtf8};

/// Why `s` may not be one path component of a file amail writes, or
/// `None` when it may: empty, `.`/`..` or a leading dot, a separator (`/`,
/// `\\`), NUL or another control character, a drive colon, more than 200
/// bytes, or a Windows reserved device name (`CON`, `NUL`, `COM1`, ...,
/// with any extension). Agent names, project slugs and thread ids from a
/// database pass through here before they become directories.
pub fn unsafe_component(s: &str) -> Option<&'static str> {
    if s.is_empty() {
        return Some("is empty");
    }
    if s.starts_with('.') {
        return Some("starts with a dot");
    }
    if s.contains(['/', '\\', ':']) {
        return Some("contains a path separator");
    }
    if s.chars().any(char::is_control) {
        return Some("contains a control character");
    }
    if s.len() > 200 {
        return Some("is longer than 200 bytes");
    }
    let stem = s
        .split('.')
        .next()
        .unwrap_or(s)
        .trim_end()
        .to_ascii_uppercase();
    let reserved = matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.len() == 4
            && stem.as_bytes()[3].is_ascii_digit());
    if reserved {
        return Some("is a reserved device name on Windows");
    }
    None
}

/// `Ok` when every `(what, value)` may be a path component, else a clear
/// error naming the first that may not.
pub(crate) fn check_components(parts: &[(&str, &str)]) -> Result<(), Error> {
    for (what, value) in parts {
        if let Some(why) = unsafe_component(value) {
            return Err(Error::Rejected(format!(
                "refusing to write: {what} {value:?} {why} and would become a path component"
            )));
        }
    }
    Ok(())
}

/// `re.sub(r"[^a-zA-Z0-9._-]+", "-", subject).strip("-_").lower()[:80] or "message"`:
/// the mcp_agent_mail server's file-name slug, also used for the names of
/// a plain mailbox's reply files.
pub fn subject_slug(subject: &str) -> String {
    let subject = subject.trim();
    let mut out = String::new();
    let mut in_run = false;
    for c in subject.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
            out.push(c);
            in_run = false;
        } else if !in_run {
            out.push('-');
            in_run = true;
        }
    }
    let trimmed: String = out
        .trim_matches(|c| c == '-' || c == '_')
        .to_ascii_lowercase()
        .chars()
        .take(80)
        .collect();
    if trimmed.is_empty() {
        "message".into()
    } else {
        trimmed
    }
}

/// The first of `names` (`what`, name) holding U+FFFD, which a write
/// refuses: a decoder put it in place of bytes that were not UTF-8 (no
/// agent types one), so the name is not the one written where it was
/// read. `unwritten` says what is refused ([`NameNotUtf8::BY_OR_TO`] for
/// agents, [`NameNotUtf8::INTO`] for a thread or bead a write is filed
/// into).
pub(crate) fn replaced(
    names: &[(&'static str, &str)],
    unwritten: &'static str,
) -> Option<NameNotUtf8> {
    let (what, shown) = names.iter().find(|(_, n)| !read_whole(n))?;
    Some(NameNotUtf8 {
        what,
        shown: shown.to_string(),
        place: "where it was read",
        unwritten,
    })
}

/// Whether `name` is as it was written: no U+FFFD, which a decoder puts
/// in place of bytes that were not UTF-8 (`replaced`'s test, for a
/// caller that only sorts names, as the inbox's "all agents" does).
pub fn read_whole(name: &str) -> bool {
    !name.contains('\u{fffd}')
}

/// [`replaced`] for where a write is filed: a bead and a thread, each
/// `(what, place)`, either absent.
pub(crate) fn place_replaced(
    bead: (&'static str, Option<&str>),
    thread: (&'static str, Option<&str>),
) -> Option<NameNotUtf8> {
    let places: Vec<(&'static str, &str)> = [bead, thread]
        .into_iter()
        .filter_map(|(what, place)| Some((what, place?.trim())))
        .collect();
    replaced(&places, NameNotUtf8::INTO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_match_the_server() {
        assert_eq!(
            subject_slug("[ol-527.2] HELP_REQUEST"),
            "ol-527.2-help_request"
        );
        assert_eq!(
            subject_slug("Re: [ol-527.2] HELP_REQUEST"),
            "re-ol-527.2-help_request"
        );
        assert_eq!(subject_slug("Wave 1 status"), "wave-1-status");
        assert_eq!(subject_slug("¿¿"), "message");
    }
}
