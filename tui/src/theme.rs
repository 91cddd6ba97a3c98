//! The semantic palette and the glyph + word every state is shown with.
//!
//! Views never name a colour: they ask the theme for `ok`, `warn`,
//! `error`, `accent`... Two built-ins (dark, light) and partial overrides
//! from the config's `[theme]` table. With colour off (NO_COLOR, or
//! `color = "never"`), every style keeps only its modifiers (bold,
//! reverse, underline), and meaning is carried by the glyph + word pairs
//! in `badge`, so nothing depends on colour.

use std::borrow::Cow;

use amail_parser::{Message, MessageType};
use ratatui::style::{Color, Modifier, Style};

use amail_core::aof::TaskStatus;
use amail_core::inbox::summary::type_name;
use amail_core::inbox::InboxMessage;
use amail_core::safe_text::clean_line;

/// Named roles the views draw with.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    pub color: bool,
    pub text: Color,
    pub muted: Color,
    pub accent: Color,
    pub ok: Color,
    pub warn: Color,
    pub error: Color,
    pub info: Color,
    pub border: Color,
    pub selection_bg: Color,
    pub selection_fg: Color,
}

impl Theme {
    pub fn dark() -> Theme {
        Theme {
            name: "dark".into(),
            color: true,
            text: Color::Reset,
            muted: Color::DarkGray,
            accent: Color::Cyan,
            ok: Color::Green,
            warn: Color::Yellow,
            error: Color::LightRed,
            info: Color::LightBlue,
            border: Color::DarkGray,
            // 256-colour indices rather than RGB: they render the same on
            // terminals without truecolor.
            selection_bg: Color::Indexed(237),
            selection_fg: Color::White,
        }
    }

    pub fn light() -> Theme {
        Theme {
            name: "light".into(),
            color: true,
            text: Color::Reset,
            // Darker tones than the dark theme's: readable on white.
            muted: Color::Indexed(243),
            accent: Color::Indexed(25),
            ok: Color::Indexed(28),
            warn: Color::Indexed(130),
            error: Color::Indexed(160),
            info: Color::Indexed(24),
            border: Color::Indexed(248),
            selection_bg: Color::Indexed(153),
            selection_fg: Color::Black,
        }
    }

    pub(crate) fn by_name(name: &str) -> Option<Theme> {
        match name {
            "dark" => Some(Theme::dark()),
            "light" => Some(Theme::light()),
            _ => None,
        }
    }

    /// Sets one role from the config; `Err` names what was wrong.
    pub fn set(&mut self, role: &str, value: &str) -> Result<(), String> {
        let c =
            parse_color(value).ok_or_else(|| format!("[theme] {role}: bad colour {value:?}"))?;
        let slot = match role {
            "text" => &mut self.text,
            "muted" => &mut self.muted,
            "accent" => &mut self.accent,
            "ok" => &mut self.ok,
            "warn" => &mut self.warn,
            "error" => &mut self.error,
            "info" => &mut self.info,
            "border" => &mut self.border,
            "selection_bg" => &mut self.selection_bg,
            "selection_fg" => &mut self.selection_fg,
            _ => return Err(format!("[theme] unknown role {role:?}")),
        };
        *slot = c;
        Ok(())
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }

    pub fn base(&self) -> Style {
        self.fg(self.text)
    }
    pub(crate) fn muted(&self) -> Style {
        if self.color {
            self.fg(self.muted)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }
    pub(crate) fn accent(&self) -> Style {
        self.fg(self.accent).add_modifier(Modifier::BOLD)
    }
    pub fn ok(&self) -> Style {
        self.fg(self.ok)
    }
    pub fn warn(&self) -> Style {
        self.fg(self.warn).add_modifier(Modifier::BOLD)
    }
    pub fn error(&self) -> Style {
        self.fg(self.error).add_modifier(Modifier::BOLD)
    }
    pub fn info(&self) -> Style {
        self.fg(self.info)
    }
    pub(crate) fn border(&self, focused: bool) -> Style {
        if focused {
            self.fg(self.accent).add_modifier(Modifier::BOLD)
        } else {
            self.fg(self.border)
        }
    }
    /// The selected row: reverse video without colour, so it always shows.
    pub fn selected(&self) -> Style {
        if self.color {
            Style::new()
                .bg(self.selection_bg)
                .fg(self.selection_fg)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }
    pub fn heading(&self) -> Style {
        self.fg(self.accent)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    pub(crate) fn tone(&self, tone: Tone) -> Style {
        match tone {
            Tone::Ok => self.ok(),
            Tone::Warn => self.warn(),
            Tone::Error => self.error(),
            Tone::Info => self.info(),
            Tone::Muted => self.muted(),
            Tone::Plain => self.base(),
        }
    }
}

fn parse_color(s: &str) -> Option<Color> {
    let s = s.trim();
    if let Some(hex) = s.strip_prefix('#') {
        if hex.len() == 6 {
            let v = u32::from_str_radix(hex, 16).ok()?;
            return Some(Color::Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8));
        }
        return None;
    }
    s.parse::<Color>().ok()
}

/// How a state should look, independent of the palette.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    Ok,
    Warn,
    Error,
    Info,
    Muted,
    Plain,
}

/// Glyph, short word and tone for a message type: the badge in lists.
pub(crate) fn badge(kind: MessageType) -> (&'static str, &'static str, Tone) {
    match kind {
        MessageType::BeadAccepted => ("▶", "ACCEPTED", Tone::Info),
        MessageType::Progress => ("…", "PROGRESS", Tone::Info),
        MessageType::HelpRequest => ("?", "HELP", Tone::Warn),
        MessageType::HelpResponse => ("↩", "ANSWER", Tone::Ok),
        MessageType::OfferingReady => ("◆", "OFFERED", Tone::Ok),
        MessageType::Done => ("✓", "DONE", Tone::Ok),
        MessageType::Failed => ("✗", "FAILED", Tone::Error),
        MessageType::Checkpoint => ("⟳", "CHECKPT", Tone::Warn),
        MessageType::SpawnRequest => ("+", "SPAWN", Tone::Info),
        MessageType::SpawnAck => ("+", "SPAWNED", Tone::Info),
        MessageType::Unknown => ("·", "NOTE", Tone::Plain),
    }
}

/// The badge of a plain reply (`Re:` before whatever type its subject
/// names): conversation in the thread.
pub(crate) const REPLY: (&str, &str, Tone) = ("↪", "REPLY", Tone::Plain);

/// The badge a message's row and header carry: its type's, but a plain
/// reply's is [`REPLY`]. `reply_message` keeps the original's subject after
/// `Re: `, so a reviewer's "Approved" to an OFFERING_READY has that type;
/// shown as it, the row said the reviewer had offered work (and a reply in
/// a help thread, a new help request), where the inbox already takes it as
/// a reply (no agent state, no AOF event, an answer in a help thread). A
/// HELP_RESPONSE is an answer whatever its subject.
pub(crate) fn message_badge(x: &InboxMessage) -> (&'static str, Cow<'_, str>, Tone) {
    if x.is_reply() && x.message.kind != MessageType::HelpResponse {
        let (g, w, tone) = REPLY;
        (g, Cow::Borrowed(w), tone)
    } else {
        type_badge(&x.message)
    }
}

/// A badge as a list's cell: glyph and word in `cols - 1`, cut with `…`
/// where the word is longer (`A2A_RESULT`), and the blank that keeps it
/// off the next column.
pub(crate) fn badge_cell(glyph: &str, word: &str, cols: usize) -> String {
    crate::text::fit(&format!("{glyph} {word}"), cols.saturating_sub(1)) + " "
}

/// The badge of a message's type: [`badge`]'s, but a type the protocol
/// does not list carries the name its subject gives it
/// ([`amail_core::inbox::summary::type_name`], as the CLI's tables say).
pub(crate) fn type_badge<'m>(msg: &'m Message<'_>) -> (&'static str, Cow<'m, str>, Tone) {
    let (g, w, tone) = badge(msg.kind);
    match msg.kind {
        MessageType::Unknown => (g, clean_line(type_name(msg)), tone),
        _ => (g, Cow::Borrowed(w), tone),
    }
}

/// Glyph and tone for an AOF task status.
pub(crate) fn task_status(status: TaskStatus) -> (&'static str, Tone) {
    match status {
        TaskStatus::Backlog => ("○", Tone::Muted),
        TaskStatus::Ready => ("◌", Tone::Info),
        TaskStatus::InProgress => ("…", Tone::Info),
        TaskStatus::Blocked => ("⊘", Tone::Warn),
        TaskStatus::Review => ("◆", Tone::Ok),
        TaskStatus::Done => ("✓", Tone::Ok),
        TaskStatus::Cancelled => ("–", Tone::Muted),
        TaskStatus::Deadletter => ("✗", Tone::Error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colourless_theme_keeps_selection_visible() {
        let mut t = Theme::dark();
        t.color = false;
        assert_eq!(t.selected(), Style::new().add_modifier(Modifier::REVERSED));
        assert_eq!(t.ok(), Style::new());
    }

    #[test]
    fn overrides_parse_names_and_hex() {
        let mut t = Theme::light();
        t.set("accent", "#ff8800").unwrap();
        assert_eq!(t.accent, Color::Rgb(0xff, 0x88, 0));
        t.set("ok", "magenta").unwrap();
        assert!(t.set("ok", "#zz").is_err());
        assert!(t.set("nope", "red").is_err());
    }
}
