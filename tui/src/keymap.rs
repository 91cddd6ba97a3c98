//! Actions and the keys bound to them.
//!
//! Every user-facing action is an `Action` with a stable config name, a
//! help-group and a one-line description. The [`Keymap`] starts from the
//! built-in vim-style defaults and applies the config file's `[keys]`
//! table on top: an action named there gets exactly the keys listed, and a
//! key the user claims is taken away from whatever default held it (user
//! bindings win). The help overlay and the status-bar hints read the live
//! keymap, so rebinds show everywhere.
//!
//! Text-entry modes (search prompt, reply editor, chooser) take raw keys
//! and are not remappable beyond their documented keys; they say so in `?`.

use std::collections::BTreeMap;
use std::fmt;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// Something the user can ask for from the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Action {
    Up,
    Down,
    Top,
    Bottom,
    HalfPageDown,
    HalfPageUp,
    Open,
    Back,
    NextPane,
    PrevPane,
    FilterAll,
    FilterPending,
    FilterHelp,
    FilterInProgress,
    FilterFailed,
    FilterDone,
    ScreenInbox,
    ScreenTasks,
    ScreenAgents,
    Search,
    SearchNext,
    SearchPrev,
    Ack,
    Reply,
    ReplyInEditor,
    Mark,
    MarkRange,
    MarkRead,
    Compose,
    Approve,
    Reject,
    ToggleRaw,
    Reload,
    Help,
    Suspend,
    Quit,
}

/// Where an action shows in the help overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Group {
    Move,
    Views,
    Mail,
    Tasks,
    App,
}

impl Group {
    pub(crate) fn title(self) -> &'static str {
        match self {
            Group::Move => "Move",
            Group::Views => "Views and filters",
            Group::Mail => "Mail",
            Group::Tasks => "Task board",
            Group::App => "App",
        }
    }
}

impl Action {
    pub(crate) const ALL: [Action; 36] = [
        Action::Up,
        Action::Down,
        Action::Top,
        Action::Bottom,
        Action::HalfPageDown,
        Action::HalfPageUp,
        Action::Open,
        Action::Back,
        Action::NextPane,
        Action::PrevPane,
        Action::FilterAll,
        Action::FilterPending,
        Action::FilterHelp,
        Action::FilterInProgress,
        Action::FilterFailed,
        Action::FilterDone,
        Action::ScreenInbox,
        Action::ScreenTasks,
        Action::ScreenAgents,
        Action::Search,
        Action::SearchNext,
        Action::SearchPrev,
        Action::Ack,
        Action::Reply,
        Action::ReplyInEditor,
        Action::Mark,
        Action::MarkRange,
        Action::MarkRead,
        Action::Compose,
        Action::Approve,
        Action::Reject,
        Action::ToggleRaw,
        Action::Reload,
        Action::Help,
        Action::Suspend,
        Action::Quit,
    ];

    /// The name used in the config file's `[keys]` table.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Action::Up => "up",
            Action::Down => "down",
            Action::Top => "top",
            Action::Bottom => "bottom",
            Action::HalfPageDown => "half_page_down",
            Action::HalfPageUp => "half_page_up",
            Action::Open => "open",
            Action::Back => "back",
            Action::NextPane => "next_pane",
            Action::PrevPane => "prev_pane",
            Action::FilterAll => "filter_all",
            Action::FilterPending => "filter_pending",
            Action::FilterHelp => "filter_help",
            Action::FilterInProgress => "filter_in_progress",
            Action::FilterFailed => "filter_failed",
            Action::FilterDone => "filter_done",
            Action::ScreenInbox => "screen_inbox",
            Action::ScreenTasks => "screen_tasks",
            Action::ScreenAgents => "screen_agents",
            Action::Search => "search",
            Action::SearchNext => "search_next",
            Action::SearchPrev => "search_prev",
            Action::Ack => "ack",
            Action::Reply => "reply",
            Action::ReplyInEditor => "reply_in_editor",
            Action::Mark => "mark",
            Action::MarkRange => "mark_range",
            Action::MarkRead => "mark_read",
            Action::Compose => "compose",
            Action::Approve => "approve",
            Action::Reject => "reject",
            Action::ToggleRaw => "toggle_raw",
            Action::Reload => "reload",
            Action::Help => "help",
            Action::Suspend => "suspend",
            Action::Quit => "quit",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.name() == name)
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Action::Up => "move up",
            Action::Down => "move down",
            Action::Top => "first item",
            Action::Bottom => "last item",
            Action::HalfPageDown => "half a page down",
            Action::HalfPageUp => "half a page up",
            Action::Open => "open / go deeper",
            Action::Back => "back / close",
            Action::NextPane => "next pane",
            Action::PrevPane => "previous pane",
            Action::FilterAll => "filter: all threads",
            Action::FilterPending => "filter: pending ack",
            Action::FilterHelp => "filter: help requests",
            Action::FilterInProgress => "filter: in progress",
            Action::FilterFailed => "filter: failed",
            Action::FilterDone => "filter: done",
            Action::ScreenInbox => "inbox (threads)",
            Action::ScreenTasks => "task board",
            Action::ScreenAgents => "agent roster",
            Action::Search => "search (incremental)",
            Action::SearchNext => "next match (in the list searched)",
            Action::SearchPrev => "previous match (in the list searched)",
            Action::Ack => "acknowledge",
            Action::Reply => "reply (inline editor)",
            Action::ReplyInEditor => "reply in $EDITOR",
            Action::Mark => "mark / unmark (then a acks all marked)",
            Action::MarkRange => "mark from the last mark to here",
            Action::MarkRead => "mark read (no ack)",
            Action::Compose => "new message to agents",
            Action::Approve => "approve the task in review (done)",
            Action::Reject => "reject the task in review (asks why)",
            Action::ToggleRaw => "raw source + diagnostics",
            Action::Reload => "reload now",
            Action::Help => "this help",
            Action::Suspend => "suspend to the shell (fg comes back)",
            Action::Quit => "quit (once writes out are sent; twice: now)",
        }
    }

    pub(crate) fn group(self) -> Group {
        use Action::*;
        match self {
            Up | Down | Top | Bottom | HalfPageDown | HalfPageUp | Open | Back | NextPane
            | PrevPane | Search | SearchNext | SearchPrev => Group::Move,
            FilterAll | FilterPending | FilterHelp | FilterInProgress | FilterFailed
            | FilterDone | ScreenInbox | ScreenTasks | ScreenAgents | ToggleRaw => Group::Views,
            Ack | Reply | ReplyInEditor | Mark | MarkRange | MarkRead | Compose => Group::Mail,
            Approve | Reject => Group::Tasks,
            Reload | Help | Suspend | Quit => Group::App,
        }
    }

    fn default_keys(self) -> &'static [&'static str] {
        match self {
            Action::Up => &["k", "up"],
            Action::Down => &["j", "down"],
            Action::Top => &["g", "home"],
            Action::Bottom => &["G", "end"],
            Action::HalfPageDown => &["ctrl-d", "pagedown"],
            Action::HalfPageUp => &["ctrl-u", "pageup"],
            Action::Open => &["enter", "l", "right"],
            Action::Back => &["esc", "h", "left"],
            Action::NextPane => &["tab"],
            Action::PrevPane => &["backtab"],
            Action::FilterAll => &["1"],
            Action::FilterPending => &["2"],
            Action::FilterHelp => &["3"],
            Action::FilterInProgress => &["4"],
            Action::FilterFailed => &["5"],
            Action::FilterDone => &["6"],
            Action::ScreenInbox => &["i"],
            Action::ScreenTasks => &["t"],
            Action::ScreenAgents => &["w"],
            Action::Search => &["/"],
            Action::SearchNext => &["n"],
            Action::SearchPrev => &["N"],
            Action::Ack => &["a"],
            Action::Reply => &["r"],
            Action::ReplyInEditor => &["e"],
            Action::Mark => &["space"],
            Action::MarkRange => &["V"],
            Action::MarkRead => &["m"],
            Action::Compose => &["c"],
            Action::Approve => &["A"],
            Action::Reject => &["X"],
            Action::ToggleRaw => &["v"],
            Action::Reload => &["R", "ctrl-r"],
            Action::Help => &["?"],
            Action::Suspend => &["ctrl-z"],
            Action::Quit => &["q", "ctrl-c"],
        }
    }
}

/// One key with its modifiers, as written in the config (`ctrl-d`, `G`, `enter`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Chord {
    pub code: ChordCode,
    pub ctrl: bool,
    pub alt: bool,
}

/// A comparable subset of crossterm's `KeyCode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChordCode {
    Char(char),
    F(u8),
    Enter,
    Esc,
    Tab,
    BackTab,
    Backspace,
    Delete,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
}

impl Chord {
    /// Parses `j`, `G`, `ctrl-d`, `C-d`, `<C-d>`, `alt-x`, `enter`, `f2`, `space`.
    pub fn parse(spec: &str) -> Result<Chord, String> {
        let s = spec.trim();
        let s = s
            .strip_prefix('<')
            .and_then(|x| x.strip_suffix('>'))
            .unwrap_or(s);
        if s.is_empty() {
            return Err("empty key".into());
        }
        let (mut ctrl, mut alt) = (false, false);
        let mut rest = s;
        loop {
            let lower = rest.to_ascii_lowercase();
            if rest.chars().count() > 2
                && (lower.starts_with("ctrl-") || lower.starts_with("ctrl+"))
            {
                ctrl = true;
                rest = &rest[5..];
            } else if rest.chars().count() > 2
                && (lower.starts_with("c-") || lower.starts_with("c+"))
            {
                ctrl = true;
                rest = &rest[2..];
            } else if rest.chars().count() > 2
                && (lower.starts_with("alt-") || lower.starts_with("alt+"))
            {
                alt = true;
                rest = &rest[4..];
            } else if rest.chars().count() > 2
                && (lower.starts_with("a-") || lower.starts_with("m-"))
            {
                alt = true;
                rest = &rest[2..];
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_control() => return Err(format!("unprintable key {spec:?}")),
            (Some(c), None) => ChordCode::Char(if ctrl { c.to_ascii_lowercase() } else { c }),
            _ => match rest.to_ascii_lowercase().as_str() {
                "enter" | "return" | "cr" => ChordCode::Enter,
                "esc" | "escape" => ChordCode::Esc,
                "tab" => ChordCode::Tab,
                "backtab" | "shift-tab" | "s-tab" => ChordCode::BackTab,
                "backspace" | "bs" => ChordCode::Backspace,
                "delete" | "del" => ChordCode::Delete,
                "up" => ChordCode::Up,
                "down" => ChordCode::Down,
                "left" => ChordCode::Left,
                "right" => ChordCode::Right,
                "home" => ChordCode::Home,
                "end" => ChordCode::End,
                "pageup" | "pgup" => ChordCode::PageUp,
                "pagedown" | "pgdown" | "pgdn" => ChordCode::PageDown,
                "space" => ChordCode::Char(' '),
                f if f.starts_with('f') && f[1..].parse::<u8>().is_ok() => {
                    ChordCode::F(f[1..].parse().unwrap_or(1))
                }
                _ => return Err(format!("unknown key {spec:?}")),
            },
        };
        Ok(Chord { code, ctrl, alt })
    }

    /// The chord a terminal key event stands for (`None` for releases and
    /// keys we never bind).
    pub(crate) fn from_event(ev: &KeyEvent) -> Option<Chord> {
        if ev.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        let alt = ev.modifiers.contains(KeyModifiers::ALT);
        let code = match ev.code {
            // Shift is already in the character ('G'), so it is not kept.
            KeyCode::Char(c) => ChordCode::Char(if ctrl { c.to_ascii_lowercase() } else { c }),
            KeyCode::F(n) => ChordCode::F(n),
            KeyCode::Enter => ChordCode::Enter,
            KeyCode::Esc => ChordCode::Esc,
            KeyCode::Tab if ev.modifiers.contains(KeyModifiers::SHIFT) => ChordCode::BackTab,
            KeyCode::Tab => ChordCode::Tab,
            KeyCode::BackTab => ChordCode::BackTab,
            KeyCode::Backspace => ChordCode::Backspace,
            KeyCode::Delete => ChordCode::Delete,
            KeyCode::Up => ChordCode::Up,
            KeyCode::Down => ChordCode::Down,
            KeyCode::Left => ChordCode::Left,
            KeyCode::Right => ChordCode::Right,
            KeyCode::Home => ChordCode::Home,
            KeyCode::End => ChordCode::End,
            KeyCode::PageUp => ChordCode::PageUp,
            KeyCode::PageDown => ChordCode::PageDown,
            _ => return None,
        };
        Some(Chord { code, ctrl, alt })
    }

    /// The key event this chord stands for (tests and docs).
    pub fn to_event(self) -> KeyEvent {
        let mut mods = KeyModifiers::NONE;
        if self.ctrl {
            mods |= KeyModifiers::CONTROL;
        }
        if self.alt {
            mods |= KeyModifiers::ALT;
        }
        let code = match self.code {
            ChordCode::Char(c) => KeyCode::Char(c),
            ChordCode::F(n) => KeyCode::F(n),
            ChordCode::Enter => KeyCode::Enter,
            ChordCode::Esc => KeyCode::Esc,
            ChordCode::Tab => KeyCode::Tab,
            ChordCode::BackTab => {
                mods |= KeyModifiers::SHIFT;
                KeyCode::BackTab
            }
            ChordCode::Backspace => KeyCode::Backspace,
            ChordCode::Delete => KeyCode::Delete,
            ChordCode::Up => KeyCode::Up,
            ChordCode::Down => KeyCode::Down,
            ChordCode::Left => KeyCode::Left,
            ChordCode::Right => KeyCode::Right,
            ChordCode::Home => KeyCode::Home,
            ChordCode::End => KeyCode::End,
            ChordCode::PageUp => KeyCode::PageUp,
            ChordCode::PageDown => KeyCode::PageDown,
        };
        KeyEvent::new(code, mods)
    }
}

impl fmt::Display for Chord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("Ctrl-")?;
        }
        if self.alt {
            f.write_str("Alt-")?;
        }
        match self.code {
            ChordCode::Char(' ') => f.write_str("Space"),
            ChordCode::Char(c) => write!(f, "{c}"),
            ChordCode::F(n) => write!(f, "F{n}"),
            ChordCode::Enter => f.write_str("Enter"),
            ChordCode::Esc => f.write_str("Esc"),
            ChordCode::Tab => f.write_str("Tab"),
            ChordCode::BackTab => f.write_str("Shift-Tab"),
            ChordCode::Backspace => f.write_str("Backspace"),
            ChordCode::Delete => f.write_str("Del"),
            ChordCode::Up => f.write_str("↑"),
            ChordCode::Down => f.write_str("↓"),
            ChordCode::Left => f.write_str("←"),
            ChordCode::Right => f.write_str("→"),
            ChordCode::Home => f.write_str("Home"),
            ChordCode::End => f.write_str("End"),
            ChordCode::PageUp => f.write_str("PgUp"),
            ChordCode::PageDown => f.write_str("PgDn"),
        }
    }
}

/// The key typed right after Esc, when the terminal's Esc and that key
/// were read as one Alt+key: a terminal sends Esc as the byte that starts
/// an Alt+key, so crossterm reads `ESC q` arriving together as Alt+q.
/// Only the keys a terminal sends as one byte after that Esc (a character,
/// Enter, Tab, Backspace) can be such a pair; `None` for any other key.
pub(crate) fn after_esc(ev: &KeyEvent) -> Option<KeyEvent> {
    let one_byte = matches!(
        ev.code,
        KeyCode::Char(_) | KeyCode::Enter | KeyCode::Tab | KeyCode::Backspace
    );
    if !one_byte || !ev.modifiers.contains(KeyModifiers::ALT) {
        return None;
    }
    let mut key = *ev;
    key.modifiers.remove(KeyModifiers::ALT);
    Some(key)
}

/// The live bindings: action -> keys (in the order shown) and the reverse.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    keys: BTreeMap<Action, Vec<Chord>>,
}

impl Default for Keymap {
    fn default() -> Self {
        let keys = Action::ALL
            .into_iter()
            .map(|a| {
                let chords = a
                    .default_keys()
                    .iter()
                    .map(|s| Chord::parse(s).expect("built-in key specs parse"))
                    .collect();
                (a, chords)
            })
            .collect();
        Keymap { keys }
    }
}

impl Keymap {
    /// Applies `action name -> key specs` overrides; returns warnings for
    /// unknown actions and unparsable keys (the rest still applies).
    pub(crate) fn apply_overrides(
        &mut self,
        overrides: &BTreeMap<String, Vec<String>>,
    ) -> Vec<String> {
        let mut warnings = Vec::new();
        // Keys the file has given so far, and to which action (by the
        // name it used): two of its own bindings on one key cannot both
        // hold, and the one that loses may be left with no key at all.
        let mut given: Vec<(Chord, &str)> = Vec::new();
        for (name, specs) in overrides {
            let Some(action) = Action::from_name(name) else {
                warnings.push(format!("[keys] unknown action {name:?}"));
                continue;
            };
            let mut chords = Vec::new();
            for spec in specs {
                match Chord::parse(spec) {
                    Ok(c) => chords.push(c),
                    Err(e) => warnings.push(format!("[keys] {name}: {e}")),
                }
            }
            for c in &chords {
                match given.iter_mut().find(|(g, _)| g == c) {
                    Some((_, other)) if *other != name.as_str() => {
                        warnings.push(format!(
                            "[keys] {:?} is given to both {other} and {name}: {name} keeps it",
                            c.to_string()
                        ));
                        *other = name;
                    }
                    Some(_) => {}
                    None => given.push((*c, name)),
                }
            }
            // User bindings win: a key claimed here leaves any other action.
            for (other, list) in self.keys.iter_mut() {
                if *other != action {
                    list.retain(|c| !chords.contains(c));
                }
            }
            self.keys.insert(action, chords);
        }
        warnings
    }

    pub(crate) fn action_for(&self, ev: &KeyEvent) -> Option<Action> {
        let chord = Chord::from_event(ev)?;
        self.keys
            .iter()
            .find(|(_, cs)| cs.contains(&chord))
            .map(|(a, _)| *a)
    }

    pub(crate) fn keys_for(&self, action: Action) -> &[Chord] {
        self.keys.get(&action).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The first key of an action, for hints ("" when unbound).
    pub(crate) fn first_key(&self, action: Action) -> String {
        self.keys_for(action)
            .first()
            .map(|c| c.to_string())
            .unwrap_or_default()
    }

    /// Several actions' first keys as one hint: `1-6` while more than two
    /// are characters that run on one from the next, else each, `/`
    /// between (`j/k`; unbound ones left out). Every hint naming more
    /// than one key is made here.
    pub(crate) fn run(&self, actions: &[Action]) -> String {
        let keys: Vec<String> = actions
            .iter()
            .map(|&a| self.first_key(a))
            .filter(|k| !k.is_empty())
            .collect();
        let chars: Vec<char> = keys
            .iter()
            .filter_map(|k| {
                let mut cs = k.chars();
                cs.next().filter(|_| cs.next().is_none())
            })
            .collect();
        let runs_on = chars.len() == keys.len()
            && chars.len() > 2
            && chars.windows(2).all(|w| w[1] as u32 == w[0] as u32 + 1);
        match (runs_on, chars.first(), chars.last()) {
            (true, Some(a), Some(z)) => format!("{a}-{z}"),
            _ => keys.join("/"),
        }
    }

    /// All keys of an action joined for the help overlay.
    pub(crate) fn keys_label(&self, action: Action) -> String {
        let keys: Vec<String> = self
            .keys_for(action)
            .iter()
            .map(|c| c.to_string())
            .collect();
        if keys.is_empty() {
            "(unbound)".into()
        } else {
            keys.join(" ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_displays_chords() {
        for (spec, shown) in [
            ("j", "j"),
            ("G", "G"),
            ("ctrl-d", "Ctrl-d"),
            ("<C-u>", "Ctrl-u"),
            ("enter", "Enter"),
            ("f2", "F2"),
            ("backtab", "Shift-Tab"),
        ] {
            assert_eq!(Chord::parse(spec).unwrap().to_string(), shown, "{spec}");
        }
        assert!(Chord::parse("hyper-x").is_err());
    }

    #[test]
    fn defaults_round_trip_through_events() {
        let km = Keymap::default();
        for a in Action::ALL {
            for c in km.keys_for(a) {
                assert_eq!(km.action_for(&c.to_event()), Some(a), "{a:?} {c}");
            }
        }
    }

    #[test]
    fn user_binding_wins_over_default() {
        let mut km = Keymap::default();
        let mut o = BTreeMap::new();
        o.insert("down".to_string(), vec!["n".to_string()]);
        o.insert("nope".to_string(), vec!["x".to_string()]);
        let w = km.apply_overrides(&o);
        assert_eq!(w.len(), 1);
        let n = Chord::parse("n").unwrap().to_event();
        assert_eq!(km.action_for(&n), Some(Action::Down));
        assert!(km.keys_for(Action::SearchNext).is_empty());
        assert_eq!(km.keys_label(Action::Down), "n");
    }
}
