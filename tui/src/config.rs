//! The `[keys]`, `[theme]` and `color` parts of the amail config file.
//!
//! Everything is optional: a missing file is the defaults, and each table
//! only overrides what it names (partial overrides, gitui style). Problems
//! never stop the app; they come back as warnings shown in the status bar
//! and the help overlay.
//!
//! ```toml
//! color = "auto"          # "always" | "never"; beats NO_COLOR either way
//! mouse = false           # true: click selects, the wheel scrolls the pane under it
//! notify = "off"          # "bell", "osc9" or "osc777": new help requests and failures
//! [theme]
//! name = "light"          # or "dark" (default)
//! accent = "#d33682"      # any role: text muted accent ok warn error info border selection_bg selection_fg
//! [keys]
//! down = ["j", "ctrl-n"]  # or a single string
//! quit = "Q"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::keymap::Keymap;
use super::theme::Theme;

/// The top-level keys [`UiConfig::from_toml`] reads, and of them the ones
/// that are tables. The binary warns of any other top-level key as
/// unknown; a key read here and missing there would be warned of while
/// it works, so the list lives beside the reading.
pub const TOP_LEVEL_KEYS: &[&str] = &["color", "mouse", "notify", "theme", "keys"];
/// See [`TOP_LEVEL_KEYS`].
pub const TABLE_KEYS: &[&str] = &["theme", "keys"];

/// When to use colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ColorMode {
    Auto,
    Always,
    Never,
}

/// The resolved UI configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct UiConfig {
    pub keymap: Keymap,
    pub theme: Theme,
    pub path: Option<PathBuf>,
    /// Whether the file at `path` was there and read (the help says when
    /// the defaults are in use because it was not).
    pub path_read: bool,
    pub warnings: Vec<String>,
    /// `mouse = true`: the wheel scrolls (off by default, as in aerc and
    /// gitui, so the terminal's own selection keeps working).
    pub mouse: bool,
    /// `notify`: how a new help request or failure is announced (off by
    /// default).
    pub notify: NotifyMode,
}

impl Default for UiConfig {
    fn default() -> Self {
        UiConfig {
            keymap: Keymap::default(),
            theme: Theme::dark(),
            path: None,
            path_read: false,
            warnings: Vec::new(),
            mouse: false,
            notify: Default::default(),
        }
    }
}

impl UiConfig {
    /// Reads `path` (missing is fine) and resolves colour against `no_color`
    /// (whether the NO_COLOR variable is set and non-empty).
    pub fn load(path: &Path, no_color: bool) -> UiConfig {
        match std::fs::read(path).map(amail_core::utf8_text::text) {
            Ok(Ok(t)) => {
                let mut c = UiConfig::from_toml(&t, no_color);
                c.at_path(path, true);
                c
            }
            Ok(Err(at)) => {
                let mut c = UiConfig::from_file(path, None, no_color);
                c.warnings.push(format!("{}:{at}", path.display()));
                c
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                UiConfig::from_file(path, None, no_color)
            }
            Err(e) => {
                let mut c = UiConfig::from_file(path, None, no_color);
                c.warnings.push(format!("{}: {e}", path.display()));
                c
            }
        }
    }

    /// The config file at `path` as already read and parsed by the caller
    /// (`None`: there is none): the binary parses the file once for all
    /// its settings and hands the values here, so warnings still name the
    /// file.
    pub fn from_file(path: &Path, table: Option<&toml::Table>, no_color: bool) -> UiConfig {
        let mut c = UiConfig::from_table(table.unwrap_or(&toml::Table::new()), no_color);
        c.at_path(path, table.is_some());
        c
    }

    /// Names `path` as where this config came from (`read`: the file was
    /// there), and in its warnings.
    fn at_path(&mut self, path: &Path, read: bool) {
        self.path = Some(path.to_path_buf());
        self.path_read = read;
        for w in self.warnings.iter_mut() {
            *w = format!("{}: {w}", path.display());
        }
    }

    /// Resolves a config from TOML text.
    pub fn from_toml(text: &str, no_color: bool) -> UiConfig {
        match text.parse::<toml::Table>() {
            Ok(table) => UiConfig::from_table(&table, no_color),
            Err(e) => {
                let mut c = UiConfig::from_table(&toml::Table::new(), no_color);
                c.warnings
                    .push(format!("not valid TOML, using defaults: {}", e.message()));
                c
            }
        }
    }

    /// Resolves a config from its parsed values.
    pub fn from_table(table: &toml::Table, no_color: bool) -> UiConfig {
        let mut warnings = Vec::new();
        let mode = match table.get("color") {
            None => ColorMode::Auto,
            Some(v) => match v.as_str() {
                Some("auto") => ColorMode::Auto,
                Some("always") => ColorMode::Always,
                Some("never") => ColorMode::Never,
                _ => {
                    warnings.push(format!("color = {v}: expected auto, always or never"));
                    ColorMode::Auto
                }
            },
        };
        let mouse = match table.get("mouse") {
            None => false,
            Some(toml::Value::Boolean(b)) => *b,
            Some(_) => {
                warnings.push("mouse: expected true or false".into());
                false
            }
        };
        let notify = match table.get("notify") {
            None => Default::default(),
            Some(v) => match v.as_str().and_then(NotifyMode::parse) {
                Some(n) => n,
                None => {
                    warnings.push(format!(
                        "notify = {v}: expected \"off\", \"bell\", \"osc9\" or \"osc777\""
                    ));
                    Default::default()
                }
            },
        };
        let mut theme = Theme::dark();
        if let Some(t) = table.get("theme").and_then(|v| v.as_table()) {
            if let Some(v) = t.get("name") {
                match v.as_str().and_then(Theme::by_name) {
                    Some(th) => theme = th,
                    None => warnings.push(format!("[theme] name = {v}: expected dark or light")),
                }
            }
            for (role, v) in t {
                if role == "name" {
                    continue;
                }
                match v.as_str() {
                    Some(s) => {
                        if let Err(e) = theme.set(role, s) {
                            warnings.push(e);
                        }
                    }
                    None => warnings.push(format!("[theme] {role}: expected a string")),
                }
            }
        }
        theme.color = match mode {
            ColorMode::Always => true,
            ColorMode::Never => false,
            ColorMode::Auto => !no_color,
        };
        let mut keymap = Keymap::default();
        if let Some(k) = table.get("keys").and_then(|v| v.as_table()) {
            let mut overrides = BTreeMap::new();
            for (name, v) in k {
                let specs: Vec<String> = match v {
                    toml::Value::String(s) => vec![s.clone()],
                    toml::Value::Array(a) => a
                        .iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect(),
                    _ => {
                        warnings.push(format!("[keys] {name}: expected a key or a list of keys"));
                        continue;
                    }
                };
                overrides.insert(name.clone(), specs);
            }
            warnings.extend(keymap.apply_overrides(&overrides));
        }
        UiConfig {
            keymap,
            theme,
            path: None,
            path_read: false,
            warnings,
            mouse,
            notify,
        }
    }
}

/// Whether NO_COLOR asks for no colour (set and not empty, per no-color.org).
pub fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// How a notification reaches the person.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NotifyMode {
    #[default]
    Off,
    /// BEL: the terminal's own bell (or its visual bell).
    Bell,
    /// OSC 9 (iTerm2, WezTerm, Windows Terminal, foot...).
    Osc9,
    /// OSC 777 `notify` (rxvt-unicode, VTE terminals, kitty...).
    Osc777,
}

impl NotifyMode {
    pub(crate) fn parse(s: &str) -> Option<NotifyMode> {
        Some(match s {
            "off" | "none" => NotifyMode::Off,
            "bell" => NotifyMode::Bell,
            "osc9" => NotifyMode::Osc9,
            "osc777" => NotifyMode::Osc777,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keymap::Action;

    #[test]
    fn partial_overrides_keep_the_rest() {
        let c = UiConfig::from_toml("[keys]\nquit = \"Q\"\n[theme]\nname = \"light\"\n", false);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert_eq!(c.keymap.keys_label(Action::Quit), "Q");
        assert_eq!(c.keymap.keys_label(Action::Down), "j ↓");
        assert_eq!(c.theme.name, "light");
        assert!(c.theme.color);
    }

    #[test]
    fn color_never_and_no_color() {
        assert!(!UiConfig::from_toml("color = \"never\"", false).theme.color);
        assert!(!UiConfig::from_toml("", true).theme.color);
        assert!(UiConfig::from_toml("color = \"always\"", true).theme.color);
    }

    #[test]
    fn bad_input_warns_and_uses_defaults() {
        let c = UiConfig::from_toml("[keys\n", false);
        assert_eq!(c.warnings.len(), 1);
        assert_eq!(c.keymap, Keymap::default());
    }

    /// A value of the wrong kind is said, as a wrong word is: `color = 5`
    /// and `[theme] name = 5` were read as absent and said nothing.
    #[test]
    fn values_of_the_wrong_kind_warn() {
        for (text, says) in [
            ("color = 5", "color = 5: expected auto, always or never"),
            (
                "color = true",
                "color = true: expected auto, always or never",
            ),
            (
                "[theme]\nname = 5",
                "[theme] name = 5: expected dark or light",
            ),
        ] {
            let c = UiConfig::from_toml(text, false);
            assert_eq!(c.warnings, [says], "{text}");
            assert_eq!(c.theme.name, Theme::dark().name, "{text}");
        }
    }
}
