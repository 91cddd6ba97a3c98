//! Notifications (opt-in, `notify = "bell" | "osc9" | "osc777"` in the
//! config): a new help request or failure rings the terminal bell or sends
//! a desktop-notification escape, once per message.
//!
//! The text inside an OSC escape comes from agents, so it is made safe
//! first ([`amail_core::safe_text::clean_line`] shows every control
//! character as a visible symbol) and then stripped of what could still
//! end or split the escape: any remaining control character, and `;`,
//! which separates OSC 777's fields. Nothing an agent writes can close
//! the escape early and smuggle its own.

use amail_core::inbox::InboxMessage;
use amail_core::safe_text::clean_line;
use amail_parser::MessageType;

use crate::config::NotifyMode;
use crate::model::Model;

/// Longest text put in an escape (terminals cut long ones anyway).
const MAX_CHARS: usize = 160;

/// Agent text as it may sit inside an OSC string.
pub fn osc_safe(text: &str) -> String {
    clean_line(text)
        .chars()
        .filter(|c| !c.is_control())
        .map(|c| if c == ';' { ',' } else { c })
        .take(MAX_CHARS)
        .collect()
}

/// The bytes that notify with `text` in `mode` (empty when off).
pub fn escape(mode: NotifyMode, text: &str) -> String {
    match mode {
        NotifyMode::Off => String::new(),
        NotifyMode::Bell => "\x07".into(),
        NotifyMode::Osc9 => format!("\x1b]9;{}\x07", osc_safe(text)),
        NotifyMode::Osc777 => format!("\x1b]777;notify;amail;{}\x07", osc_safe(text)),
    }
}

/// What a message says in a notification, if it is one that notifies.
fn about(x: &InboxMessage) -> Option<String> {
    let msg = &x.message;
    let from = msg.from.as_deref().unwrap_or("?");
    match msg.kind {
        MessageType::HelpRequest if !msg.is_reply => {
            Some(format!("help request from {from}: {}", msg.subject))
        }
        MessageType::Failed => Some(format!("FAILED from {from}: {}", msg.subject)),
        _ => None,
    }
}

/// After a load: queues one notification per help request or failure not
/// seen before (the first load only remembers what is there).
/// Off (the default), nothing is tracked: a reload of a large inbox pays
/// nothing for a feature not asked for. On, a reload looks each key up and
/// copies only the new ones.
pub(crate) fn collect(m: &mut Model) {
    let mode = m.config.notify;
    if mode == NotifyMode::Off {
        return;
    }
    let Some(seen) = m.seen.as_mut() else {
        m.seen = Some(m.inbox.messages.iter().map(|x| x.key.to_string()).collect());
        return;
    };
    for x in &m.inbox.messages {
        if seen.contains(x.key.as_str()) {
            continue;
        }
        seen.insert(x.key.to_string());
        if let Some(text) = about(x) {
            m.notify.push(escape(mode, &text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_text_cannot_break_out_of_the_escape() {
        let hostile = "help\x07\x1b]52;c;cm0gLXJmIH4=\x07 now\x1b\\; x";
        for mode in [NotifyMode::Osc9, NotifyMode::Osc777] {
            let e = escape(mode, hostile);
            // One ESC (the opener) and one BEL (the terminator), nothing else.
            assert_eq!(e.matches('\x1b').count(), 1, "{e:?}");
            assert_eq!(e.matches('\x07').count(), 1, "{e:?}");
            assert!(e.ends_with('\x07'));
            let inner = &e[..e.len() - 1];
            assert!(!inner[1..].chars().any(|c| c.is_control()), "{e:?}");
        }
        assert_eq!(escape(NotifyMode::Osc777, "a;b").matches(';').count(), 3);
        assert_eq!(escape(NotifyMode::Bell, hostile), "\x07");
        assert_eq!(escape(NotifyMode::Off, hostile), "");
    }
}
