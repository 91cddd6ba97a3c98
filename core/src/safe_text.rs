//! Making agent text safe to put on a terminal: the one sanitiser.
//!
//! Everything an agent wrote (subjects, bodies, names, file paths, error
//! text quoting them) passes through here before it is printed, by the
//! CLI printers (`threads`, `pending`, `tasks`, `events`, `parse --format
//! text`, warnings) and by the TUI before a ratatui buffer, so one set of
//! rules holds everywhere. A terminal acts on what it is sent: an ESC in
//! a subject could recolour the screen, move the cursor, set the window
//! title, write the clipboard (OSC 52) or plant a link (OSC 8). Replacing
//! only the ESC would still leave `[31m` on screen, so whole sequences go.
//!
//! Rules, applied in one pass over the characters:
//! - ESC-introduced sequences (CSI, OSC, DCS, SOS, PM, APC and two-byte
//!   escapes) and their 8-bit C1 introducers are removed whole, up to
//!   their terminator (BEL, ST or a CSI final byte). An unterminated
//!   string sequence swallows the rest of the text, as a terminal would.
//! - Remaining C0 controls and DEL become their visible Control Pictures
//!   (`␇`), so a reader sees that something odd was there.
//! - Other C1 controls become `�`.
//! - Bidi embedding, override and isolate controls are dropped: they can
//!   reorder what the reader sees (the "Trojan Source" trick).
//! - `\r\n` becomes `\n`, a lone `\r` is dropped, a tab becomes spaces.
//!
//! Newlines survive [`clean_text`]; [`clean_line`] folds them to spaces for
//! single-line places (list rows, headers, one printed line per item).
//! [`reveal`] is the opposite choice for the raw view: nothing removed,
//! everything shown. [`shell_arg`] is a path cleaned for one line and
//! quoted for a POSIX shell, for the commands amail suggests: a user
//! pastes them, so a folder with a space must stay one word.
//!
//! It sits at the bottom of the crate (no imports from it) so that every
//! layer, the router included, can print through it.

use std::borrow::Cow;

const TAB: &str = "    ";

/// Cleans multi-line text; keeps `\n`.
pub fn clean_text(s: &str) -> Cow<'_, str> {
    clean(s, false)
}

/// Cleans text for one line: newlines become spaces too.
pub fn clean_line(s: &str) -> Cow<'_, str> {
    clean(s, true)
}

/// `path` as one word of a command a user can paste into a POSIX shell:
/// cleaned as [`clean_line`] cleans it (so no control character reaches
/// the terminal, and no NUL the quoting), and quoted only when it needs
/// to be (`/tmp/mail` stays as it is, `/tmp/my mail` becomes
/// `'/tmp/my mail'`).
pub fn shell_arg(path: &std::path::Path) -> String {
    let text = path.to_string_lossy();
    let line = clean_line(&text);
    match shlex::try_quote(&line) {
        Ok(quoted) => quoted.into_owned(),
        // Cleaning turned every NUL into a control picture.
        Err(_) => line.into_owned(),
    }
}

fn needs_work(c: char) -> bool {
    let u = c as u32;
    u < 0x20 || (0x7f..=0x9f).contains(&u) || is_bidi_control(c)
}

/// Bidi embedding, override, isolate and mark controls (Trojan Source).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

fn clean(s: &str, one_line: bool) -> Cow<'_, str> {
    // Fast path: most text needs nothing, so borrow it.
    if !s.chars().any(needs_work) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\n' => out.push(if one_line { ' ' } else { '\n' }),
            '\t' => out.push_str(if one_line { " " } else { TAB }),
            '\r' => {}
            '\u{1b}' => match it.next() {
                Some('[') => skip_csi(&mut it),
                Some(']') | Some('P') | Some('X') | Some('^') | Some('_') => skip_string(&mut it),
                // Two-byte escapes (ESC 7, ESC c, ESC ( B ...): drop the
                // escape and its final; intermediates 0x20-0x2F come first.
                Some(n) if (' '..='/').contains(&n) => {
                    it.next();
                }
                Some(_) | None => {}
            },
            '\u{9b}' => skip_csi(&mut it),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut it),
            c if (c as u32) < 0x20 => {
                out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'))
            }
            '\u{7f}' => out.push('\u{2421}'),
            c if (0x80..=0x9f).contains(&(c as u32)) => out.push('\u{fffd}'),
            c if is_bidi_control(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// CSI: parameters and intermediates, then one final byte in 0x40..=0x7E.
fn skip_csi(it: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in it.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            return;
        }
        // A stray control inside a CSI aborts it on real terminals; stop
        // here too rather than eat the following text.
        if (c as u32) < 0x20 {
            return;
        }
    }
}

/// OSC/DCS/SOS/PM/APC: everything up to BEL, ESC \ or the 8-bit ST.
fn skip_string(it: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = it.next() {
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                if it.peek() == Some(&'\\') {
                    it.next();
                }
                return;
            }
            _ => {}
        }
    }
}

/// For the raw view: shows the source as written, with every control
/// character (ESC included) as its visible Control Picture and bidi
/// controls as `<U+202E>`, so a reader sees exactly what an agent sent
/// without the terminal acting on it.
pub fn reveal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let u = c as u32;
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str(TAB),
            _ if u < 0x20 => out.push(char::from_u32(0x2400 + u).unwrap_or('\u{fffd}')),
            '\u{7f}' => out.push('\u{2421}'),
            _ if (0x80..=0x9f).contains(&u) || is_bidi_control(c) => {
                out.push_str(&format!("<U+{u:04X}>"))
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_controls(s: &str) -> bool {
        !s.chars().any(|c| c != '\n' && needs_work(c))
    }

    #[test]
    fn a_shell_arg_is_one_word_of_what_was_there() {
        use std::path::Path;
        assert_eq!(shell_arg(Path::new("/tmp/mail")), "/tmp/mail");
        for (path, word) in [
            ("/tmp/my mail", "/tmp/my mail"),
            ("/tmp/it's", "/tmp/it's"),
            ("/tmp/$HOME`x`", "/tmp/$HOME`x`"),
            // The escape sequence goes whole; a NUL shows as its picture.
            ("/tmp/a\u{1b}[31mb\0c\nd", "/tmp/ab\u{2400}c d"),
        ] {
            let arg = shell_arg(Path::new(path));
            assert!(no_controls(&arg), "{arg:?}");
            assert_eq!(shlex::split(&arg), Some(vec![word.to_string()]), "{arg}");
        }
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(clean_text("héllo 世界 👋"), Cow::Borrowed(_)));
    }

    #[test]
    fn csi_osc_dcs_are_removed() {
        let s = "a\x1b[31mred\x1b[0m b\x1b]0;pwned\x07c \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1bPq#0\x1b\\d";
        assert_eq!(clean_line(s), "ared bc link d");
    }

    #[test]
    fn osc52_clipboard_write_is_removed() {
        assert_eq!(clean_line("x\x1b]52;c;ZWNobyBoaQ==\x07y"), "xy");
    }

    #[test]
    fn c1_and_c0_are_made_visible_or_dropped() {
        let out = clean_text("bell\x07 nul\0 del\x7f c1\u{85} csi\u{9b}2Jz");
        assert_eq!(out, "bell␇ nul␀ del␡ c1\u{fffd} csiz");
        assert!(no_controls(&out));
    }

    #[test]
    fn bidi_overrides_are_dropped_and_newlines_kept() {
        assert_eq!(clean_text("a\u{202E}b\r\nc\td"), "ab\nc    d");
        assert_eq!(clean_line("a\nb"), "a b");
    }

    #[test]
    fn unterminated_sequences_do_not_leak() {
        assert!(no_controls(&clean_text("x\x1b]0;never ends")));
        assert!(no_controls(&clean_text("x\x1b[")));
        assert!(no_controls(&clean_text("\x1b")));
    }

    #[test]
    fn reveal_shows_escapes_as_pictures() {
        assert_eq!(reveal("a\x1b[31mb\u{202E}"), "a␛[31mb<U+202E>");
    }
}
