//! A large mailbox while it loads (issue 16): the newest part of it
//! arrives first (`Msg::Partial`) and is browsable as it is; counts grow
//! to the full ones; the selection and the filter survive each step; a
//! write asked for meanwhile says what it works on.

use amail_core::inbox::{assemble, Inbox};
use amail_core::router::Board;
use amail_tui::model::Overlay;
use amail_tui::runtime::empty_inbox;
use amail_tui::testing::{render_to_string, FakeBackend};
use amail_tui::update::update;
use amail_tui::{Model, Msg, UiConfig};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn enter() -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))
}

/// The newest `n` messages of `whole`, as a step of its load holds them.
pub fn newest(whole: &Inbox, n: usize) -> Inbox {
    let mut messages = whole.messages.clone();
    messages.sort_by_key(|m| std::cmp::Reverse(m.message.timestamp));
    messages.truncate(n);
    assemble(whole.source.clone(), messages, Vec::new())
}

/// A model on an empty screen with a load running on the worker, `done`
/// of `total` files read.
fn loading(fake: &FakeBackend, done: usize, total: usize) -> Model {
    let mut m = Model::new(empty_inbox(), Vec::new(), fake.now, UiConfig::default());
    m.size = (120, 36);
    m.working = true;
    update(
        &mut m,
        Msg::Progress {
            done,
            total,
            per_sec: 1000,
        },
    );
    m
}

fn thread_ids(m: &Model) -> Vec<String> {
    m.visible_threads().iter().map(|t| t.id.clone()).collect()
}

#[test]
fn a_partial_inbox_is_browsable_and_its_counts_grow_to_the_full_ones() {
    let fake = FakeBackend::sample();
    let whole = fake.inbox.clone();
    let n = whole.messages.len();
    let mut m = loading(&fake, n / 3, n);

    update(&mut m, Msg::Partial(Box::new(newest(&whole, n / 3))));
    let screen = render_to_string(&m, 120, 36);
    assert!(
        screen.contains(&format!("loading {}/{n} · ", n / 3)),
        "{screen}"
    );
    let first = m.visible_threads()[0].id.clone();
    assert!(screen.contains(&first), "{screen}");
    // Keys work on it: move, open, back.
    let top = thread_ids(&m);
    assert!(top.len() > 1);
    update(&mut m, key('j'));
    assert_eq!(m.sel.thread.as_deref(), Some(top[1].as_str()));
    update(&mut m, enter());
    assert!(m.sel.message.is_some(), "the thread opened");
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
    );
    let small = m.counts();

    update(&mut m, Msg::Partial(Box::new(newest(&whole, 2 * n / 3))));
    let middle = m.counts();
    assert_eq!(m.sel.thread.as_deref(), Some(top[1].as_str()));
    assert!(middle.filters[0] >= small.filters[0]);
    assert_eq!(thread_ids(&m)[..top.len()], top[..], "the top stays put");

    update(
        &mut m,
        Msg::Loaded {
            inbox: Ok(whole.clone()),
            tasks: Ok(fake.tasks.clone().into()),
        },
    );
    m.working = false;
    assert_eq!(m.sel.thread.as_deref(), Some(top[1].as_str()));
    let full = Model::new(whole, fake.tasks.clone(), fake.now, UiConfig::default()).counts();
    assert_eq!(m.counts(), full, "the counts end as the full ones");
    assert!(full.filters[0] > small.filters[0], "and grew to them");
    assert!(!render_to_string(&m, 120, 36).contains("loading"));
}

#[test]
fn the_filter_and_the_selection_survive_each_step() {
    let fake = FakeBackend::sample();
    let whole = fake.inbox.clone();
    let n = whole.messages.len();
    let mut m = loading(&fake, n / 2, n);
    update(&mut m, Msg::Partial(Box::new(newest(&whole, n / 2))));
    // A filter (the first of 2-6 that shows two threads of this half, else
    // All), and its last thread selected.
    let (filter, shown) = ['2', '3', '4', '5', '6', '1']
        .into_iter()
        .find_map(|c| {
            update(&mut m, key(c));
            let shown = thread_ids(&m);
            (shown.len() > 1).then_some((m.filter, shown))
        })
        .expect("a filter shows two threads");
    let chosen = shown.last().unwrap().clone();
    update(&mut m, key('G'));
    assert_eq!(m.sel.thread.as_deref(), Some(chosen.as_str()));
    // Search works on the partial inbox too.
    update(&mut m, key('/'));
    for c in chosen.chars().take(4) {
        update(&mut m, key(c));
    }
    assert!(m.search_matches().is_some_and(|(n, _)| n > 0));
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
    );

    update(&mut m, Msg::Partial(Box::new(newest(&whole, 3 * n / 4))));
    assert_eq!(m.filter, filter);
    assert_eq!(m.sel.thread.as_deref(), Some(chosen.as_str()));
    update(
        &mut m,
        Msg::Loaded {
            inbox: Ok(whole),
            tasks: Ok(Board::default()),
        },
    );
    assert_eq!(m.filter, filter);
    assert_eq!(m.sel.thread.as_deref(), Some(chosen.as_str()));
}

/// `c` before any mail has arrived says the inbox is loading (not that
/// there is nobody to write to); on a partial inbox it offers the agents
/// seen so far and says so.
#[test]
fn compose_while_loading_says_what_it_writes_to() {
    let fake = FakeBackend::sample();
    let whole = fake.inbox.clone();
    let n = whole.messages.len();
    let mut m = loading(&fake, 0, n);
    update(&mut m, key('c'));
    let notice = m.notice.clone().unwrap();
    assert!(notice.text.contains("still loading (0/"), "{notice:?}");
    assert!(m.overlay.is_none());

    update(&mut m, Msg::Partial(Box::new(newest(&whole, n / 2))));
    update(&mut m, key('c'));
    // Who sends: the person, first.
    assert!(
        matches!(m.overlay, Some(Overlay::Choose { .. })),
        "{:?}",
        m.overlay
    );
    update(&mut m, enter());
    match &m.overlay {
        Some(Overlay::Pick { options, .. }) => {
            assert!(
                options[0].starts_with("all agents seen so far (")
                    && options[0].contains("still loading"),
                "{options:?}"
            );
        }
        other => panic!("no recipient picker: {other:?}"),
    }

    // Once loaded, "all agents" is all of them again, also while a later
    // load (after an ack, `R`) runs over the whole inbox on screen.
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
    );
    update(
        &mut m,
        Msg::Loaded {
            inbox: Ok(whole.clone()),
            tasks: Ok(Board::default()),
        },
    );
    update(
        &mut m,
        Msg::Progress {
            done: 1,
            total: n,
            per_sec: 10,
        },
    );
    assert!(m.loading().is_some());
    update(&mut m, key('c'));
    update(&mut m, enter());
    match &m.overlay {
        Some(Overlay::Pick { options, .. }) => {
            assert!(options[0].starts_with("all agents ("), "{options:?}")
        }
        other => panic!("no recipient picker: {other:?}"),
    }
    // And an inbox with no mail at all says that.
    let mut m = Model::new(empty_inbox(), Vec::new(), fake.now, UiConfig::default());
    update(&mut m, key('c'));
    let notice = m.notice.clone().unwrap();
    assert!(notice.text.contains("has no mail"), "{notice:?}");
}

/// An ack asked for while the load runs goes to the worker (behind the
/// load) with the loaded messages it names, and says so: older messages
/// of the thread may not be loaded yet.
#[test]
fn an_ack_while_loading_says_it_acks_the_loaded_messages() {
    let fake = FakeBackend::sample();
    let whole = fake.inbox.clone();
    let n = whole.messages.len();
    let mut m = loading(&fake, n - 1, n);
    update(&mut m, Msg::Partial(Box::new(newest(&whole, n))));
    update(&mut m, key('2'));
    assert!(!thread_ids(&m).is_empty(), "the sample owes acks");
    let mut cmd = update(&mut m, key('a'));
    if matches!(m.overlay, Some(Overlay::Choose { .. })) {
        cmd = update(&mut m, enter());
    }
    let Some(amail_tui::Command::Ack { keys, .. }) = cmd else {
        panic!("no ack: {cmd:?}");
    };
    let notice = m.notice.clone().unwrap();
    assert!(
        notice.text.contains("still loading")
            && notice
                .text
                .contains(&format!("the {} loaded message", keys.len())),
        "{notice:?}"
    );
    assert!(!notice.error);

    // A later load over the whole inbox on screen: an ack is just an ack.
    update(
        &mut m,
        Msg::Loaded {
            inbox: Ok(whole),
            tasks: Ok(Board::default()),
        },
    );
    update(
        &mut m,
        Msg::Progress {
            done: 1,
            total: n,
            per_sec: 10,
        },
    );
    m.notice = None;
    let mut cmd = update(&mut m, key('a'));
    if matches!(m.overlay, Some(Overlay::Choose { .. })) {
        cmd = update(&mut m, enter());
    }
    assert!(
        matches!(cmd, Some(amail_tui::Command::Ack { .. })),
        "{cmd:?}"
    );
    assert!(m.notice.is_none(), "{:?}", m.notice);
}

/// A step of an mcp root's load can come before the archive's listing
/// (issue 16): its messages know no file yet. The raw view says so, not
/// that they came from a database, and shows the file once it is known.
#[test]
fn the_raw_view_of_a_step_without_files_says_they_are_still_coming() {
    let fake = FakeBackend::sample();
    let whole = fake.inbox.clone();
    let n = whole.messages.len();
    assert!(whole.messages.iter().all(|m| m.path.is_some()));
    let mut m = loading(&fake, n / 2, n);
    let mut step = newest(&whole, n / 2);
    step.messages.iter_mut().for_each(|x| x.path = None);
    update(&mut m, Msg::Partial(Box::new(step)));
    update(&mut m, enter());
    update(&mut m, key('v'));
    assert!(m.raw);
    let screen = render_to_string(&m, 120, 36);
    assert!(
        screen.contains("file not known yet (still loading)"),
        "{screen}"
    );
    assert!(!screen.contains("came from a database"), "{screen}");

    let asked = update(
        &mut m,
        Msg::Loaded {
            inbox: Ok(whole.clone()),
            tasks: Ok(fake.tasks.clone().into()),
        },
    );
    m.working = false;
    let key = m.sel.message.clone().expect("a message is open");
    let path = whole
        .message_by_key(&key)
        .and_then(|x| x.path.clone())
        .unwrap();
    // The file, now known, is asked for at once.
    match asked {
        Some(amail_tui::Command::ReadFile { path: asked }) => assert_eq!(*asked, *path),
        other => panic!("{other:?}"),
    }
    let screen = render_to_string(&m, 120, 36);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(screen.contains(&name), "{screen}");
}
