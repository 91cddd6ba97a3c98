//! How a [`Draft`] (a new message a person sends, not a reply) becomes
//! mail, the same for every store: the protocol type goes into the subject
//! (`[bead] GUIDANCE: subject`) and on the body's first line, as agents
//! write and parse typed messages; the arguments are refused before
//! anything is looked at.

use super::error::{Error, NameNotUtf8};
use super::store::Draft;

/// The types a person may send to agents: what the orchestrator sends and
/// agents act on, and the answer to a help request.
pub const KINDS: [&str; 4] = ["HELP_RESPONSE", "GUIDANCE", "NUDGE", "TERMINATE"];

/// Refuses an empty sender, no recipients, an empty body, an unknown type,
/// a name, thread or bead read with U+FFFD (`names::replaced`).
pub(crate) fn check(d: &Draft) -> Result<(), Error> {
    if d.from.trim().is_empty() {
        return Err(Error::Invalid("the sender is empty".into()));
    }
    if d.to.iter().all(|t| t.trim().is_empty()) {
        return Err(Error::Invalid(
            "a message needs at least one recipient".into(),
        ));
    }
    if d.body.trim().is_empty() && d.subject.trim().is_empty() {
        return Err(Error::Invalid("the message is empty".into()));
    }
    check_names(&d.from, &d.to)?;
    check_place(d.bead.as_deref(), d.thread.as_deref())?;
    if let Some(k) = &d.kind {
        if !KINDS.contains(&k.as_str()) {
            return Err(Error::Invalid(format!(
                "{k} is not a type a person sends to agents ({})",
                KINDS.join(", ")
            )));
        }
    }
    Ok(())
}

/// Refuses a sender or recipient whose name was read with U+FFFD: a
/// message by or to it reaches no agent. `check` asks it; the inbox
/// asks it when the recipients are picked, before anything is typed.
pub fn check_names(from: &str, to: &[String]) -> Result<(), Error> {
    let mut names = vec![("the sender's name", from.trim())];
    names.extend(to.iter().map(|t| ("a recipient's name", t.trim())));
    match super::names::replaced(&names, NameNotUtf8::BY_OR_TO) {
        Some(name) => Err(Error::Rejected(name.to_string())),
        None => Ok(()),
    }
}

/// Refuses a bead or thread read with U+FFFD (the inbox's `c` inside a
/// thread takes both): filed there, the message is in no thread for
/// whoever matches the bytes as written. `check` asks it; the inbox
/// asks it before its editor opens, so nothing typed meets the refusal.
pub fn check_place(bead: Option<&str>, thread: Option<&str>) -> Result<(), Error> {
    match super::names::place_replaced(("the bead", bead), ("the thread", thread)) {
        Some(place) => Err(Error::Rejected(place.to_string())),
        None => Ok(()),
    }
}

/// `[bead] KIND: subject`, `KIND: subject`, or the subject as given.
pub(crate) fn subject(d: &Draft) -> String {
    let s = d.subject.trim();
    let typed = match (&d.kind, s.is_empty()) {
        (Some(k), true) => k.clone(),
        (Some(k), false) => format!("{k}: {s}"),
        (None, _) => s.to_string(),
    };
    match &d.bead {
        Some(b) if !b.trim().is_empty() => format!("[{}] {typed}", b.trim()),
        _ => typed,
    }
}

/// The body with the type on its first line (unless it already is).
pub(crate) fn body(d: &Draft) -> String {
    let b = super::reply_rule::body_text(&d.body);
    let b = if b.is_empty() { d.subject.trim() } else { b };
    match &d.kind {
        Some(k)
            if !b
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case(k) =>
        {
            format!("{k}\n\n{b}")
        }
        _ => b.to_string(),
    }
}

/// The recipients, trimmed, each once, in the order given.
pub(crate) fn recipients(d: &Draft) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in d.to.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
        if !out.iter().any(|o| o.eq_ignore_ascii_case(t)) {
            out.push(t.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(kind: Option<&str>, bead: Option<&str>) -> Draft {
        Draft {
            from: "Overseer".into(),
            to: vec!["BlueLake".into(), " bluelake ".into(), "RedFox".into()],
            kind: kind.map(String::from),
            bead: bead.map(String::from),
            subject: "use the spec".into(),
            body: "Refresh tokens last 15 minutes.".into(),
            thread: None,
            importance: None,
            ack_required: false,
        }
    }

    #[test]
    fn the_type_goes_into_subject_and_first_line() {
        let d = draft(Some("GUIDANCE"), Some("ol-527.2"));
        assert_eq!(subject(&d), "[ol-527.2] GUIDANCE: use the spec");
        assert_eq!(body(&d), "GUIDANCE\n\nRefresh tokens last 15 minutes.");
        let plain = draft(None, None);
        assert_eq!(subject(&plain), "use the spec");
        assert_eq!(body(&plain), "Refresh tokens last 15 minutes.");
        assert_eq!(recipients(&d), ["BlueLake", "RedFox"]);
    }

    #[test]
    fn bad_drafts_are_refused() {
        assert!(check(&draft(Some("GUIDANCE"), None)).is_ok());
        assert!(check(&draft(Some("DONE"), None)).is_err());
        let mut d = draft(None, None);
        d.to.clear();
        assert!(check(&d).is_err());
    }
}
