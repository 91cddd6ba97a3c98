//! The app never panics on odd sizes, and the sanitiser lets no control
//! character through whatever an agent writes.

use amail_core::safe_text::{clean_line, clean_text, reveal};
use amail_tui::msg::Msg;
use amail_tui::testing::TestApp;
use proptest::prelude::*;

#[test]
fn tiny_and_odd_terminal_sizes_render_every_view() {
    let scenarios = [
        "",
        "<enter>",
        "<enter><enter>",
        "<enter><enter>v",
        "t",
        "w",
        "?",
        "/ol-527.1<enter>a",
        "r",
        "/refr",
    ];
    for keys in scenarios {
        // A terminal that reports no columns or no rows (a pane being made
        // or closed) draws nothing, and does not panic; the test backend
        // cannot print a buffer 0 wide, so these are drawn, not printed.
        for (w, h) in [(0, 0), (0, 3), (3, 0)] {
            let mut app = TestApp::sample();
            app.press(keys);
            let term = amail_tui::testing::render_terminal(&app.model, w, h);
            assert_eq!(
                term.backend().buffer().area.area(),
                u32::from(w) * u32::from(h)
            );
        }
        // Every height from one row up, at widths each side of the wide
        // layout's threshold (120): a wide terminal a few rows tall (a
        // tmux split) lays out three panes in next to no room.
        let mut app = TestApp::sample();
        app.press(keys);
        for w in [1, 2, 10, 20, 40, 119, 120, 121, 200, 300] {
            for h in (1..=12).chain([24, 30, 80]) {
                let screen = app.render(w, h);
                assert_eq!(screen.lines().count(), h as usize, "{keys:?} at {w}x{h}");
                // What reads the layout back: a click and the wheel on
                // every row, and the message view scrolled.
                for y in 0..h {
                    app.send(Msg::Click { x: w - 1, y });
                    app.send(Msg::ScrollAt {
                        x: w / 2,
                        y,
                        lines: 3,
                    });
                }
                app.send(Msg::Scroll(5));
                app.render(w, h);
            }
        }
    }
}

fn is_control(c: char) -> bool {
    let u = c as u32;
    (u < 0x20 && c != '\n')
        || (0x7f..=0x9f).contains(&u)
        || ('\u{202A}'..='\u{202E}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

proptest! {
    #[test]
    fn sanitised_text_has_no_controls(s in "(\\PC|[\\x00-\\x1f\\x7f-\\x9f\\u{202a}-\\u{202e}\\u{2066}-\\u{2069}]|\\x1b\\[[0-9;]*[A-Za-z]|\\x1b\\][^\\x07]*\\x07){0,40}") {
        let t = clean_text(&s);
        prop_assert!(!t.chars().any(is_control), "{:?} -> {:?}", s, t);
        let l = clean_line(&s);
        prop_assert!(!l.chars().any(|c| is_control(c) || c == '\n'));
        prop_assert!(!reveal(&s).chars().any(is_control));
    }
}
