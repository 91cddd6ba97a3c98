//! The overlays and text inputs as a person meets them in a terminal:
//! Esc typed just before a key, the mouse wheel, key hints that follow a
//! rebinding, a search kept to the view it was made in, headers at 40
//! columns.

use amail_tui::model::{Overlay, Screen};
use amail_tui::msg::Msg;
use amail_tui::testing::{FakeBackend, TestApp};
use amail_tui::UiConfig;

/// A terminal sends Esc as the byte that also starts Alt+key, so Esc and
/// the key typed right after it, read together, reach the app as Alt+key
/// (crossterm cannot tell them apart). Where nothing binds that Alt chord
/// it is Esc, then the key, acted on by whatever Esc left on screen. In
/// the editors the key was typed into the text and Esc was lost; in the
/// search prompt the key went onto the query; the help and the choosers
/// ignored it and stayed open.
#[test]
fn esc_then_a_key_read_together_as_alt_key_is_esc_then_that_key() {
    // The reply editor over text: Esc asks, the `y` after it discards.
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("/ol-527.2<enter>r");
    app.type_text("Use the spec");
    app.press("<alt-y>");
    assert!(app.model.overlay.is_none(), "{:?}", app.model.overlay);
    assert_eq!(app.notice(), "reply discarded");
    // Empty: Esc closes it, and the `t` after it is the board.
    app.press("r<alt-t>");
    assert!(app.model.overlay.is_none(), "{:?}", app.model.overlay);
    assert_eq!(app.model.screen, Screen::Tasks);

    // The new message's editor: Esc asks, `k` keeps it.
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("c<enter>G<enter>");
    app.type_text("Standup in 5");
    app.press("<alt-k>");
    assert!(app.model.overlay.is_none(), "{:?}", app.model.overlay);
    assert_eq!(app.model.kept_drafts(), 1);

    // The reject reason: Esc cancels (keeping it), `i` is the inbox.
    let mut app = TestApp::sample();
    app.press("t/TASK-527-1<enter>X");
    app.type_text("no tests");
    app.press("<alt-i>");
    assert!(app.model.overlay.is_none(), "{:?}", app.model.overlay);
    assert_eq!(app.model.screen, Screen::Inbox);
    assert_eq!(app.model.kept_reasons(), 1);

    // The search prompt: Esc cancels it, `t` is the board.
    let mut app = TestApp::sample();
    app.press("/gre<alt-t>");
    assert_eq!(app.model.search.query, "");
    assert!(!app.model.search.typing);
    assert_eq!(app.model.screen, Screen::Tasks);

    // The help and a chooser: Esc closes them, `w` is the roster.
    for open in ["?", "c"] {
        let mut app = TestApp::sample();
        app.press(open);
        assert!(app.model.overlay.is_some(), "{open}");
        app.press("<alt-w>");
        assert!(
            app.model.overlay.is_none(),
            "{open}: {:?}",
            app.model.overlay
        );
        assert_eq!(app.model.screen, Screen::Agents, "{open}");
    }

    // An Alt chord the config binds stays that binding.
    let config = UiConfig::from_toml("[keys]\nscreen_agents = [\"w\", \"alt-a\"]", false);
    let mut app = TestApp::new(FakeBackend::sample(), config);
    app.press("<enter><alt-a>");
    assert_eq!(app.model.screen, Screen::Agents);
}

fn wheel(app: &mut TestApp, lines: i8) {
    app.send(Msg::ScrollAt {
        x: 40,
        y: 12,
        lines,
    });
}

/// The wheel over an open overlay scrolls it, as `j`/`k` do: the help
/// scrolled with keys only, and the choosers and the recipients' list
/// ignored it. The roster's task queues are a pane the wheel did not
/// reach either.
#[test]
fn the_wheel_scrolls_the_overlays_and_the_task_queues() {
    let config = UiConfig::from_toml("mouse = true", false);
    // The help.
    let mut app = TestApp::new(FakeBackend::sample(), config.clone());
    app.press("?");
    app.render(80, 24);
    wheel(&mut app, 3);
    assert!(
        matches!(app.model.overlay, Some(Overlay::Help { scroll: 3 })),
        "{:?}",
        app.model.overlay
    );
    wheel(&mut app, -3);
    assert!(matches!(
        app.model.overlay,
        Some(Overlay::Help { scroll: 0 })
    ));
    // A chooser ("Send as") and the recipients' list after it.
    let mut app = TestApp::new(FakeBackend::sample(), config.clone());
    app.press("c");
    app.render(80, 24);
    let thread = app.model.sel.thread.clone();
    wheel(&mut app, 3);
    assert!(
        matches!(app.model.overlay, Some(Overlay::Choose { index: 3, .. })),
        "{:?}",
        app.model.overlay
    );
    assert_eq!(app.model.sel.thread, thread, "the list behind stays");
    app.press("g<enter>");
    wheel(&mut app, 3);
    assert!(
        matches!(app.model.overlay, Some(Overlay::Pick { index: 3, .. })),
        "{:?}",
        app.model.overlay
    );
    app.send(Msg::Scroll(-3));
    assert!(matches!(
        app.model.overlay,
        Some(Overlay::Pick { index: 0, .. })
    ));
    // The roster's task queues, under the pointer: GreenCastle has a
    // task in review there.
    let mut app = TestApp::new(FakeBackend::sample(), config);
    app.press("w/GreenCastle<enter>");
    let screen = app.render(100, 40);
    let y = screen
        .lines()
        .position(|l| l.contains("OUTBOX 1"))
        .unwrap_or_else(|| panic!("the queues show:\n{screen}")) as u16
        + 1;
    app.send(Msg::ScrollAt { x: 80, y, lines: 1 });
    assert_eq!(app.model.sel.agent.as_deref(), Some("GreenCastle"));
    assert!(
        app.model.queue_focus,
        "the queues take the focus:\n{screen}"
    );
    assert_eq!(app.model.sel.queued.as_deref(), Some("TASK-527-1"));
}

/// The wheel moved a chooser's cursor (and the recipients' list's), but
/// a click on an option did nothing: the lists take a click as every
/// other list does, the cursor going to the option clicked (`Enter`
/// takes it, `Space` marks it), and the panes behind stay.
#[test]
fn a_click_on_a_chooser_option_moves_the_cursor_there() {
    let config = UiConfig::from_toml("mouse = true", false);
    let mut app = TestApp::new(FakeBackend::sample(), config);
    app.press("c");
    let screen = app.render(80, 24);
    let thread = app.model.sel.thread.clone();
    let (y, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(" 3. "))
        .unwrap_or_else(|| panic!("{screen}"));
    let x = line[..line.find(" 3. ").unwrap()].chars().count() as u16 + 2;
    app.send(Msg::Click { x, y: y as u16 });
    assert!(
        matches!(app.model.overlay, Some(Overlay::Choose { index: 2, .. })),
        "{:?}",
        app.model.overlay
    );
    assert_eq!(app.model.sel.thread, thread, "the list behind stays");
    // The recipients' list.
    app.press("g<enter>");
    let screen = app.render(80, 24);
    let (y, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("[ ] GreenCastle"))
        .unwrap_or_else(|| panic!("{screen}"));
    let x = line[..line.find("GreenCastle").unwrap()].chars().count() as u16;
    app.send(Msg::Click { x, y: y as u16 });
    let Some(Overlay::Pick { index, options, .. }) = &app.model.overlay else {
        panic!("{:?}", app.model.overlay);
    };
    assert_eq!(options[*index], "GreenCastle");
    // A click outside the box moves nothing.
    app.send(Msg::Click { x: 0, y: 5 });
    let Some(Overlay::Pick { index, options, .. }) = &app.model.overlay else {
        panic!("{:?}", app.model.overlay);
    };
    assert_eq!(options[*index], "GreenCastle");
}

/// A search belongs to the list it was made in: `/Silver` made in the
/// roster showed in the inbox's filter line and thread title without a
/// count (it counts nothing there), as if the inbox were searched.
/// Shown, a search has its count.
#[test]
fn a_search_shows_only_in_its_own_view_and_with_its_count() {
    let mut app = TestApp::sample();
    app.press("w/Silver<enter>i");
    let screen = app.render(120, 30);
    assert!(!screen.contains("/Silver"), "{screen}");
    app.press("t");
    let screen = app.render(120, 30);
    assert!(!screen.contains("/Silver"), "{screen}");
    // The inbox's own search, with its count; into a thread's messages
    // (one pane at a time) it is not that list's, so it goes.
    app.press("i/green<enter>");
    let tabs = app.render(80, 24).lines().nth(1).unwrap().to_string();
    assert!(tabs.contains("/green 1/2"), "{tabs}");
    app.press("<enter>");
    let tabs = app.render(80, 24).lines().nth(1).unwrap().to_string();
    assert!(!tabs.contains("/green"), "{tabs}");
}

/// `n`/`N` act where the search shows, as in lazygit (a search is its
/// view's; another view's `n` is not it) and aerc (the index's search is
/// the index's): a search made in the thread list went on moving in a
/// thread's messages, where nothing showed it (no `/term`, no count, no
/// `n/N` hint), and a roster's search moved the thread list unseen. There
/// `n`/`N` now move nothing and say whose search it is and how to search
/// here; back in its list the search shows and they move again.
#[test]
fn n_and_n_move_only_in_the_list_whose_search_shows() {
    let mut app = TestApp::sample();
    app.render(80, 24);
    app.press("/ol-527<enter>");
    let tabs = app.render(80, 24).lines().nth(1).unwrap().to_string();
    assert!(tabs.contains("/ol-527 1/"), "{tabs}");
    app.press("<enter>");
    let message = app.model.sel.message.clone();
    assert!(message.is_some());
    app.press("n");
    assert_eq!(app.model.sel.message, message, "n moved in the messages");
    let screen = app.render(80, 24);
    assert!(
        screen.contains("the thread list's") && screen.contains("/ searches here"),
        "n said nothing of where the search is:\n{screen}"
    );
    app.press("N");
    assert_eq!(app.model.sel.message, message, "N moved in the messages");
    // Back in the thread list the search shows and moves again.
    app.press("<esc>");
    let thread = app.model.sel.thread.clone();
    app.press("n");
    assert_ne!(app.model.sel.thread, thread, "n in its own list");
    assert!(app.render(80, 24).contains("/ol-527 2/"));
    // A roster's search, in the inbox: the thread list stays.
    let mut app = TestApp::sample();
    app.render(80, 24);
    app.press("w/Silver<enter>i");
    let thread = app.model.sel.thread.clone();
    app.press("n");
    assert_eq!(
        app.model.sel.thread, thread,
        "a roster's search moved the threads"
    );
    assert!(app.notice().contains("the roster's"), "{}", app.notice());
}

/// A kept search shows where `n`/`N` move, with its count, in every list
/// it can be made in: the thread list's title and the tab line had it,
/// but the board's title had the query without a count, and the roster
/// showed nothing at all (only the `n/N match` hint said a search was
/// kept).
#[test]
fn a_kept_search_shows_with_its_count_on_the_board_and_the_roster() {
    let mut app = TestApp::sample();
    app.press("w/Silver<enter>");
    let screen = app.render(100, 30);
    assert!(screen.contains("Agents · "), "{screen}");
    let title = screen.lines().find(|l| l.contains("Agents · ")).unwrap();
    assert!(title.contains("/Silver 1/1"), "{screen}");
    let mut app = TestApp::sample();
    app.press("t/TASK-52<enter>");
    let screen = app.render(100, 30);
    let title = screen.lines().find(|l| l.contains("Task board ·")).unwrap();
    assert!(title.contains("/TASK-52 1/"), "{screen}");
}

/// The footer's hints in overlays follow the config's rebinding, as the
/// panes' do: the help, the choosers and the recipients' list said
/// `j/k` and `Esc` whatever the keys, and a kept search `n/N`.
#[test]
fn overlay_hints_follow_rebound_keys() {
    let config = UiConfig::from_toml(
        "[keys]\ndown = \"J\"\nup = \"K\"\nback = \"x\"\nsearch_next = \"]\"\nsearch_prev = \"[\"",
        false,
    );
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let hints = |app: &mut TestApp| app.render(100, 30).lines().last().unwrap().to_string();
    let mut app = TestApp::new(FakeBackend::sample(), config);
    app.press("?");
    assert!(
        hints(&mut app).contains("J/K scroll  x close"),
        "{}",
        hints(&mut app)
    );
    app.press("x");
    app.press("c");
    assert!(
        hints(&mut app).contains("J/K move  Enter choose  x cancel"),
        "{}",
        hints(&mut app)
    );
    app.press("<enter>");
    assert!(
        hints(&mut app).contains("x cancel  J/K move"),
        "{}",
        hints(&mut app)
    );
    app.press("x/gre");
    assert!(hints(&mut app).contains("then ]/["), "{}", hints(&mut app));
    app.press("<enter>");
    let h = hints(&mut app);
    assert!(h.starts_with("\" ]/[ match  x clear search"), "{h}");
}

/// At 40 columns the recipients' list cut its header ("Enter take"), and
/// the editors' titles cut their keys in the middle ("Ctrl…"): a header
/// too wide keeps what it is about and leaves the keys to the footer.
#[test]
fn overlay_headers_fit_at_40_columns() {
    let mut app = TestApp::sample().with_identity("GreenCastle");
    app.press("c");
    let screen = app.render(40, 24);
    let line = screen
        .lines()
        .find(|l| l.contains("from GreenCastle"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(!line.contains("Enter"), "{line}");
    assert!(screen.contains("Space mark"), "the footer says the keys");
    // The editors and the discard question.
    app.press("<enter><enter>");
    app.type_text("Standup");
    let title = |app: &mut TestApp, what: &str| {
        let screen = app.render(40, 24);
        screen
            .lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no {what:?}:\n{screen}"))
            .to_string()
    };
    let t = title(&mut app, "New");
    assert!(!t.contains("Ctrl"), "{t}");
    app.press("<esc>");
    let t = title(&mut app, "Discard this message?");
    assert!(!t.contains("keep"), "{t}");
    let mut app = TestApp::sample().with_identity("BlueLake");
    app.press("/ol-527.2<enter>r");
    let t = title(&mut app, "Reply as");
    assert!(!t.contains("Ctrl"), "{t}");
    // The footer, which the title leaves its keys to, keeps how to leave.
    let screen = app.render(40, 24);
    let hints = screen.lines().last().unwrap();
    assert!(hints.contains("Esc discard"), "{hints}");
}

/// The thread list's `1-6 filter` hint was written in, whatever keys the
/// filters had: it follows them too, as a range only while they run on.
#[test]
fn the_filter_hint_follows_rebound_filter_keys() {
    let hints = |config: &str| {
        let mut app = TestApp::new(FakeBackend::sample(), UiConfig::from_toml(config, false));
        app.render(160, 30).lines().last().unwrap().to_string()
    };
    assert!(hints("").contains(" 1-6 filter"), "{}", hints(""));
    let rebound = "[keys]\nfilter_all = \"0\"";
    assert!(
        hints(rebound).contains(" 0/2/3/4/5/6 filter"),
        "{}",
        hints(rebound)
    );
}

/// A click over the help did nothing, beside it too: the help is read,
/// not answered, so a click outside its box closes it (as `?` and `Esc`
/// do; nothing is lost), and a click inside leaves it open (the wheel
/// scrolls it). The panes behind do not take the click.
#[test]
fn a_click_beside_the_help_closes_it_and_inside_keeps_it() {
    let config = UiConfig::from_toml("mouse = true", false);
    let mut app = TestApp::new(FakeBackend::sample(), config);
    app.press("?");
    app.render(120, 36);
    let thread = app.model.sel.thread.clone();
    // The middle of the box.
    app.send(Msg::Click { x: 60, y: 10 });
    assert!(matches!(app.model.overlay, Some(Overlay::Help { .. })));
    // Beside it, over the thread list.
    app.send(Msg::Click { x: 2, y: 5 });
    assert!(app.model.overlay.is_none(), "{:?}", app.model.overlay);
    assert_eq!(app.model.sel.thread, thread, "the list behind stays");
    // Narrow, the box is the body's width: the header is outside it.
    app.press("?");
    app.render(60, 20);
    app.send(Msg::Click { x: 30, y: 0 });
    assert!(app.model.overlay.is_none(), "{:?}", app.model.overlay);
    assert_eq!(app.model.screen, amail_tui::model::Screen::Inbox);
}

/// The (column, row) of `needle` in a rendered screen, its first
/// character's cell.
fn cell_of(screen: &str, needle: &str) -> (u16, u16) {
    let (y, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle:?} in\n{screen}"));
    // The rendered line is quoted: its first character is `"`.
    let x = line[..line.find(needle).unwrap()].chars().count() - 1;
    (x as u16, y as u16)
}

/// A click in an editor did nothing: the text a person types takes a
/// click as a text field does, the cursor going to the character
/// clicked (past a line's end, to its end); a click elsewhere (the quote,
/// the title, beside the box) leaves the editor and its text as they
/// are: an editor never closes under a stray click.
#[test]
fn a_click_in_an_editor_puts_the_cursor_there() {
    let config = UiConfig::from_toml("mouse = true", false);
    let mut app = TestApp::new(FakeBackend::sample(), config);
    // A new message: plain, to one agent.
    app.press("c<enter><space><enter>G<enter>");
    app.type_text("Hello");
    app.press("<enter>");
    app.type_text("world");
    let screen = app.render(80, 24);
    let (x, y) = cell_of(&screen, "Hello");
    app.send(Msg::Click { x: x + 1, y });
    app.type_text("X");
    let Some(Overlay::Compose { text, .. }) = &app.model.overlay else {
        panic!("{:?}", app.model.overlay);
    };
    assert_eq!(text, "HXello\nworld");
    // Past the end of "world": its end.
    let screen = app.render(80, 24);
    let (x, y) = cell_of(&screen, "world");
    app.send(Msg::Click { x: x + 20, y });
    app.type_text("!");
    // Beside the box: nothing moves, nothing closes.
    app.send(Msg::Click { x: 0, y: 3 });
    app.type_text("?");
    let Some(Overlay::Compose { text, .. }) = &app.model.overlay else {
        panic!("{:?}", app.model.overlay);
    };
    assert_eq!(text, "HXello\nworld!?");

    // The reply editor, the same.
    let config = UiConfig::from_toml("mouse = true", false);
    let mut app = TestApp::new(FakeBackend::sample(), config).with_identity("BlueLake");
    app.press("/ol-527.2<enter><enter>r");
    assert!(
        matches!(app.model.overlay, Some(Overlay::Editor { .. })),
        "{:?}",
        app.model.overlay
    );
    app.type_text("Thanks");
    let screen = app.render(80, 24);
    let (x, y) = cell_of(&screen, "Thanks");
    app.send(Msg::Click { x, y });
    app.type_text("Many ");
    // The quote above the text takes no click: the cursor stays after
    // "Many ".
    let screen = app.render(80, 24);
    let (x, y) = cell_of(&screen, "> ");
    app.send(Msg::Click { x: x + 3, y });
    app.type_text("!");
    let Some(Overlay::Editor { text, .. }) = &app.model.overlay else {
        panic!("{:?}", app.model.overlay);
    };
    assert_eq!(text, "Many !Thanks");
}
