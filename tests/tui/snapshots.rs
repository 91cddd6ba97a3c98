//! Snapshots of the real app rendered into `TestBackend` at 60x20, 80x24,
//! 120x36 and 200x60 ([`SIZES`]: the narrowest supported, the classic
//! terminal, the first side-by-side layout, the board's columns), on the
//! sample inbox with a fixed clock. Each scenario is a key
//! sequence from the start screen, so the snapshots double as flow tests.

use amail_tui::testing::TestApp;
use amail_tui::UiConfig;

/// Every screen is snapshotted at these sizes.
pub(crate) const SIZES: [(u16, u16); 4] = [(60, 20), (80, 24), (120, 36), (200, 60)];

fn snap(name: &str, keys: &str) {
    for (w, h) in SIZES {
        let mut app = TestApp::sample();
        app.press(keys);
        let screen = app.render(w, h);
        insta::with_settings!({
            snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => format!("keys: {keys:?}"),
        }, {
            insta::assert_snapshot!(format!("tui_{name}_{w}x{h}"), screen);
        });
    }
}

#[test]
fn threads_view() {
    snap("threads", "");
}

#[test]
fn thread_messages_view() {
    snap("thread_messages", "/ol-527.2<enter><enter>");
}

#[test]
fn help_request_message() {
    snap("message_help_request", "/ol-527.2<enter><enter><enter>");
}

#[test]
fn progress_message_with_context_bar() {
    // ol-531 is the most recent thread.
    snap("message_progress", "<enter><enter>");
}

#[test]
fn offering_message_with_checklist() {
    snap("message_offering", "/ol-527.1<enter><enter><enter>");
}

#[test]
fn failed_message() {
    snap("message_failed", "5<enter><enter>");
}

#[test]
fn checkpoint_message() {
    snap("message_checkpoint", "/ol-528<enter><enter><enter>");
}

#[test]
fn hostile_message_is_rendered_harmlessly() {
    snap("message_hostile", "/ol-666<enter><enter><enter>");
}

#[test]
fn raw_view_with_diagnostics() {
    snap("message_raw", "/ol-666<enter><enter><enter>v");
}

#[test]
fn pending_filter() {
    snap("filter_pending", "2");
}

#[test]
fn help_filter() {
    snap("filter_help", "3");
}

#[test]
fn done_filter() {
    snap("filter_done", "6");
}

#[test]
fn task_board() {
    snap("tasks", "t");
}

#[test]
fn agent_roster() {
    snap("agents", "w");
}

#[test]
fn help_overlay() {
    snap("help", "?");
}

#[test]
fn ack_chooser() {
    snap("ack_chooser", "/ol-527.1<enter>a");
}

#[test]
fn reply_editor() {
    snap("reply_editor", "r");
}

#[test]
fn search_prompt() {
    snap("search_prompt", "/refresh");
}

#[test]
fn reply_asks_before_discarding() {
    snap(
        "reply_confirm_discard",
        "/ol-527.2<enter>rUse the spec<esc>",
    );
}

#[test]
fn compose_recipients() {
    snap("compose_pick", "c<enter>j<space>jj<space>");
}

#[test]
fn compose_editor() {
    snap(
        "compose_editor",
        "c<enter>j<space><enter><enter>Use the spec<enter>Refresh tokens last 15 minutes.",
    );
}

#[test]
fn marked_threads() {
    snap("marked", "<space>j<space>");
}

#[test]
fn board_column_moves() {
    snap("tasks_moved", "tll");
}

#[test]
fn empty_inbox() {
    for (w, h) in SIZES {
        let mut fake = amail_tui::testing::FakeBackend::sample();
        fake.inbox.messages.clear();
        fake.inbox.threads.clear();
        fake.inbox.agents.clear();
        fake.tasks.clear();
        let mut app = TestApp::new(fake, UiConfig::default());
        let screen = app.render(w, h);
        insta::with_settings!({
            snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(format!("tui_empty_{w}x{h}"), screen);
        });
    }
}

/// Colours are not in the text snapshots; this one records the styles of
/// the thread list (the buffer's `Debug` lists every style change) for
/// both built-in themes and for colour off.
#[test]
fn theme_styles() {
    for (name, toml) in [
        ("dark", ""),
        ("light", "[theme]\nname = \"light\""),
        ("nocolor", "color = \"never\""),
    ] {
        let mut app = TestApp::new(
            amail_tui::testing::FakeBackend::sample(),
            UiConfig::from_toml(toml, false),
        );
        app.send(amail_tui::msg::Msg::Resize(80, 10));
        let term = amail_tui::testing::render_terminal(&app.model, 80, 10);
        insta::with_settings!({
            snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_debug_snapshot!(format!("tui_styles_{name}_80x10"), term.backend().buffer());
        });
    }
}
