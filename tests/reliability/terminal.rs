//! Guarantee: agent text cannot drive the terminal. Every C0 and C1
//! control, DEL, and the common escape sequences (CSI cursor moves and
//! screen clears, OSC 0/2 titles, BEL, OSC 8 hyperlinks, OSC 52 clipboard
//! writes, DCS, SGR 8 hidden text, 8-bit CSI/OSC) and the bidi overrides
//! are put in the subject, sender, recipients, thread, body and file name
//! of mail, which then goes through the real renderers: the TUI drawn into
//! ratatui's `TestBackend` (list, message and thread views), and the
//! output of `amail parse --format text`, `amail threads` and
//! `amail pending`. None of the controls reaches a cell or the output, and
//! no cell is hidden.

use std::fs;
use std::path::Path;
use std::process::Command;

use amail_core::stores::{self, LoadOptions};
use amail_tui::config::UiConfig;
use amail_tui::testing::{fixed_now, render_terminal, FakeBackend, TestApp};
use ratatui::style::Modifier;

fn payloads() -> Vec<String> {
    let mut v: Vec<String> = vec![
        "\x1b[2J\x1b[H".into(),
        "\x1b[10;10Hmoved".into(),
        "\x1b[5A\x1b[3C".into(),
        "\x1b]0;pwned title\x07".into(),
        "\x1b]2;pwned title\x1b\\".into(),
        "ring\x07ring".into(),
        "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\".into(),
        "\x1b]52;c;cm0gLXJmIH4=\x07".into(),
        "\x1bP+q544e\x1b\\".into(),
        "\x1b[8mhidden\x1b[0m".into(),
        "\x1b[?1049h\x1b[?25l".into(),
        "\x1bc\x1b7\x1b8".into(),
        "\u{9b}2J\u{9d}0;c1 title\u{9c}".into(),
        "abc\u{202e}txt.exe\u{202c} \u{2066}iso\u{2069} \u{200f}".into(),
    ];
    // Every C0 control but the newline, DEL, and every C1 control.
    let all: String = (0u32..0x20)
        .chain(0x7f..0xa0)
        .filter(|&c| c != 0x0a)
        .filter_map(char::from_u32)
        .collect();
    v.push(all);
    v
}

/// A forbidden character in rendered output: a control other than the
/// newline (tabs are expanded by the renderers) or a bidi control.
fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

fn assert_clean(out: &str, context: &str) {
    if let Some((i, c)) = out.char_indices().find(|(_, c)| forbidden(*c)) {
        let from = out[..i].char_indices().rev().nth(40).map_or(0, |(j, _)| j);
        panic!(
            "{context}: U+{:04X} reached the output near {:?}",
            c as u32,
            &out[from..(i + 8).min(out.len())]
        );
    }
}

fn hostile_mailbox(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    for (i, p) in payloads().iter().enumerate() {
        // Headers are one line each: newlines would end them early.
        let h = p.replace('\n', "");
        let text = format!(
            "Subject: [bead-{i}] HELP_REQUEST {h}\nFrom: agent{h}\nTo: boss, me{h}\nId: msg-{i}\nThread: t{i}{h}\nDate: 2026-11-22T02:{i:02}:00Z\nAck-Required: true\n\nBody:\nBead: bead-{i}\nStatus: BLOCKED\n\n## Problem\nbefore {p} after\n"
        );
        // Control characters in the file name too (all but NUL and '/').
        let name: String = format!("m{i}-{h}.md")
            .chars()
            .filter(|&c| c != '\0' && c != '/')
            .collect();
        fs::write(dir.join(name), text).unwrap();
    }
}

#[test]
fn tui_views_never_put_controls_into_cells() {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    hostile_mailbox(&mail);
    let loaded = stores::load(&mail, &LoadOptions::default()).unwrap();
    // The all-controls file holds NUL: it is refused as binary (a problem).
    assert_eq!(
        loaded.messages.len() + loaded.problems.len(),
        payloads().len()
    );
    assert!(loaded.messages.len() >= payloads().len() - 1);
    let now = fixed_now();
    let mut app = TestApp::new(
        FakeBackend::new(loaded, Vec::new(), now),
        UiConfig::default(),
    );
    let mut screens = 0;
    // The list, then each message and thread opened in turn.
    for step in [
        "",
        "<enter>",
        "<esc>j",
        "<enter>",
        "<tab>",
        "<esc><esc>jj",
        "<enter>",
        "G<enter>",
    ] {
        app.press(step);
        for (w, h) in [(120, 40), (60, 20)] {
            let screen = app.render(w, h);
            assert_clean(&screen, &format!("TUI after {step:?} at {w}x{h}"));
            let term = render_terminal(&app.model, w, h);
            for cell in term.backend().buffer().content() {
                assert!(
                    !cell.modifier.contains(Modifier::HIDDEN),
                    "a hidden cell after {step:?}"
                );
                assert_clean(cell.symbol(), &format!("cell after {step:?}"));
            }
            screens += 1;
        }
    }
    assert!(screens > 0);
}

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_amail"))
        .args(args)
        .env("AMAIL_HOME", "/nonexistent-amail-home")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "amail {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Raw bytes: an ESC or C1 byte would show here even if not UTF-8.
    let mut all = out.stdout.clone();
    all.extend_from_slice(&out.stderr);
    if let Some(i) = all.iter().position(|&b| b == 0x1b || b == 0x07) {
        panic!(
            "amail {args:?}: raw control byte in output near {:?}",
            String::from_utf8_lossy(&all[i.saturating_sub(60)..(i + 10).min(all.len())])
        );
    }
    let s = String::from_utf8(all).expect("output is UTF-8");
    // `threads` prints what a thread is at (`agent: ...`), not its first
    // subject (issue 14), so its evidence is the sender's name.
    assert!(
        s.contains("bead-3") || s.contains("msg-3") || s.contains("agent"),
        "amail {args:?} printed nothing useful:\n{s}"
    );
    s
}

#[test]
fn cli_text_output_never_carries_controls() {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    hostile_mailbox(&mail);
    let m = mail.to_str().unwrap();
    for args in [
        vec!["parse", "--format", "text", m],
        vec!["threads", m],
        vec!["pending", m],
    ] {
        let out = run(&args);
        assert_clean(&out, &format!("amail {args:?}"));
    }
}

/// Removing only the ESC byte leaves the rest of the sequence on screen
/// (`[31m`): the CLI printers must drop whole sequences, as the TUI does.
#[test]
fn cli_text_output_drops_whole_escape_sequences() {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    fs::create_dir_all(&mail).unwrap();
    fs::write(
        mail.join("m3.md"),
        "Subject: [bead-3] HELP_REQUEST \x1b[31mred\x1b[0m alert\nFrom: agent\nTo: boss\nId: msg-3\nThread: t3\nDate: 2026-11-22T02:03:00Z\nAck-Required: true\n\nBody:\nBead: bead-3\n\x1b[31mred\x1b[0m alert: BLOCKED\n",
    )
    .unwrap();
    let m = mail.to_str().unwrap();
    for args in [
        vec!["parse", "--format", "text", m],
        vec!["threads", m],
        vec!["pending", m],
    ] {
        let out = run(&args);
        assert!(out.contains("red alert"), "amail {args:?}: {out}");
        assert!(
            !out.contains("[31m") && !out.contains("[0m"),
            "amail {args:?} left part of an escape sequence: {out}"
        );
    }
}
