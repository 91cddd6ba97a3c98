//! Settings shared by every command, read once from the config file
//! ([`config_path`], TOML) and overridden by global flags.
//!
//! The binary's keys: `max_message_size`, the largest mail file (or
//! standard input) amail reads, default 10 MiB like AOF's envelope limit
//! (bytes as an integer, or a string with a unit: `"512KiB"`, `"10MiB"`,
//! `"1G"`); the server and agents' token files; `[[servers]]`. The TUI's
//! own keys (keys, colours, mouse, notify) are read by
//! [`amail_tui::config`] from the same parse: the file is read and parsed
//! here, once.

use std::io;
use std::path::{Path, PathBuf};

use amail_core::formats::pos::line_col;
use amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES;

/// The config key holding the limit.
pub const MAX_MESSAGE_SIZE_KEY: &str = "max_message_size";

/// `1048576`, `512k`, `512KiB`, `10M`, `10MiB`, `1G` (binary units).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("bad size {s:?}: expected bytes or e.g. 10MiB"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("bad size {s:?}: unit must be B, KiB, MiB or GiB")),
    };
    n.checked_mul(mult)
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("bad size {s:?}: must be between 1 byte and 2^64"))
}

/// The config file, read and parsed once per run, and what the binary
/// resolved from it. The TUI's keys are read from the same parse
/// (`amail_tui::UiConfig::from_file`); nothing reads or parses it again.
#[derive(Debug, Clone)]
pub struct Config {
    pub path: PathBuf,
    /// The file's values, from its one parse; `None` when there is no
    /// config file.
    pub table: Option<toml::Table>,
    /// The message size limit for this run: `--max-size`, else the file's
    /// [`MAX_MESSAGE_SIZE_KEY`], else [`DEFAULT_MAX_MESSAGE_BYTES`].
    pub max_bytes: u64,
    /// Keys the file holds that amail does not read, each as
    /// `PATH:LINE:COL: what`: warnings, not errors, as cargo warns of an
    /// unused manifest key (a config written for a newer amail still
    /// works), but never silent: `[key]` for `[keys]` rebound nothing.
    pub warnings: Vec<String>,
    /// What the file's other keys say, read with the rest.
    keys: FileKeys,
}

/// The keys read from the file when it parses. A value of the wrong kind
/// is kept as its error (`PATH:LINE:COL: ...`), said when a command needs
/// it: a bad `[[servers]]` entry does not stop `amail parse`.
#[derive(Debug, Clone)]
struct FileKeys {
    /// `server_token_file`, resolved ([`Config::server_token_file`]).
    server_token_file: Result<Option<PathBuf>, String>,
    /// `agent_tokens_file`, resolved ([`Config::agent_tokens_file`]).
    agent_tokens_file: Result<Option<PathBuf>, String>,
    /// The `[[servers]]` entries in the file's order, each resolved or
    /// the error it is.
    servers: Vec<Result<ServerFor, String>>,
}

impl Default for FileKeys {
    /// No file: no keys.
    fn default() -> FileKeys {
        FileKeys {
            server_token_file: Ok(None),
            agent_tokens_file: Ok(None),
            servers: Vec::new(),
        }
    }
}

impl Config {
    /// Reads the config file at [`config_path`] and resolves the size
    /// limit against `flag` (`--max-size`).
    pub fn load(flag: Option<&str>) -> Result<Config, String> {
        Config::load_from(&config_path(), flag)
    }

    /// [`Config::load`] from a given path. A missing file is no config; an
    /// unreadable or malformed one, or a bad value, is an error naming the
    /// file, even when the flag overrides the value, so a broken config
    /// never goes unnoticed.
    pub fn load_from(path: &Path, flag: Option<&str>) -> Result<Config, String> {
        let text = match std::fs::read(path) {
            Ok(bytes) => Some(amail_core::utf8_text::text(bytes).map_err(|at| {
                format!(
                    "{}:{at}: the config file must be UTF-8 text",
                    path.display()
                )
            })?),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => {
                return Err(format!(
                    "{}: cannot read config: {}",
                    path.display(),
                    amail_core::fsio::reason(&e)
                ))
            }
        };
        Config::from_text(path, text, flag)
    }

    /// The config file at `path` whose text the caller read (`None`: there
    /// is none), parsed here once: its values, their places for errors and
    /// the warnings all come from the one parse.
    pub fn from_text(
        path: &Path,
        text: Option<String>,
        flag: Option<&str>,
    ) -> Result<Config, String> {
        let (table, max_size, keys, warnings) = match &text {
            Some(t) => {
                let (table, max_size, keys, warnings) = read(path, t)?;
                (Some(table), max_size, keys, warnings)
            }
            None => (None, None, FileKeys::default(), Vec::new()),
        };
        let max_bytes = match flag {
            Some(f) => parse_size(f).map_err(|e| format!("--max-size: {e}"))?,
            None => max_size.unwrap_or(DEFAULT_MAX_MESSAGE_BYTES),
        };
        Ok(Config {
            path: path.to_path_buf(),
            table,
            max_bytes,
            warnings,
            keys,
        })
    }

    /// The inbox's settings from the same text, with [`Config::warnings`]
    /// among the TUI's own, so the inbox shows them where it shows its
    /// config warnings (status bar and help): stderr is behind its screen.
    pub fn ui_config(&self, no_color: bool) -> amail_tui::UiConfig {
        let mut ui = amail_tui::UiConfig::from_file(&self.path, self.table.as_ref(), no_color);
        ui.warnings.splice(0..0, self.warnings.iter().cloned());
        ui
    }
}

/// What [`read`] makes of a config file: its values (the TUI's keys are
/// read from them), the size limit, the binary's other keys, warnings.
type Read = (toml::Table, Option<u64>, FileKeys, Vec<String>);

/// `text`, the config file at `path`, parsed (the only parse of it):
/// its values, the size limit it sets, its other keys, and its warnings.
/// Text that is not TOML, or a bad `max_message_size`, is an error.
fn read(path: &Path, text: &str) -> Result<Read, String> {
    use serde::Deserialize;
    const NOT_TOML: &str = "not a valid config file (TOML)";
    let spanned =
        toml::de::DeTable::parse(text).map_err(|e| toml_error(path, text, &e, NOT_TOML))?;
    // The values from the parsed tree (a conversion, not a second parse);
    // the tree itself keeps where each is written.
    let table = toml::Table::deserialize(toml::de::Deserializer::from(spanned.clone()))
        .map_err(|e| toml_error(path, text, &e, NOT_TOML))?;
    let de = spanned.get_ref();
    let at = |span: Option<std::ops::Range<usize>>| position(path, text, span);
    let max_size = max_size_from_table(&table, || at(value_span(de, MAX_MESSAGE_SIZE_KEY)))?;
    let path_key = |key: &str| match table.get(key) {
        None => Ok(None),
        Some(toml::Value::String(s)) => Ok(Some(resolve(path, s))),
        Some(v) => Err(format!(
            "{}: {key} must be a file path, not {v}",
            at(value_span(de, key))
        )),
    };
    let keys = FileKeys {
        server_token_file: path_key(SERVER_TOKEN_FILE_KEY),
        agent_tokens_file: path_key(AGENT_TOKENS_FILE_KEY),
        servers: servers(path, table.get(SERVERS_KEY), |i, field| {
            at(server_entry_span(de, i, field))
        }),
    };
    let warnings = unknown_keys(path, text, de);
    Ok((table, max_size, keys, warnings))
}

/// The top-level keys the binary reads; the TUI's are
/// [`amail_tui::config::TOP_LEVEL_KEYS`], which it reads.
const BINARY_KEYS: &[&str] = &[
    MAX_MESSAGE_SIZE_KEY,
    SERVER_TOKEN_FILE_KEY,
    AGENT_TOKENS_FILE_KEY,
    SERVERS_KEY,
];

/// The keys of a `[[servers]]` entry.
const SERVER_ENTRY_KEYS: &[&str] = &["storage_root", "url", "token_file"];

/// The warnings for `table`, `text` (the file at `path`) parsed:
/// unknown top-level keys, unknown keys of a `[[servers]]` entry, and a
/// table key given a plain value. The keys of `[keys]` and `[theme]` are
/// the TUI's to judge (it warns of those in the inbox, where they act).
fn unknown_keys(path: &Path, text: &str, table: &toml::de::DeTable<'_>) -> Vec<String> {
    use toml::de::DeValue;
    let at = |span: std::ops::Range<usize>| (span.start, position(path, text, Some(span)));
    let unknown = |key: &str, known: &[&str], within: &str| {
        let hint = amail_parser::near::did_you_mean(amail_parser::near::nearest(key, known));
        format!("unknown key `{key}`{within}{hint}; amail ignores it")
    };
    use amail_tui::config::{TABLE_KEYS, TOP_LEVEL_KEYS};
    let known: Vec<&str> = BINARY_KEYS.iter().chain(TOP_LEVEL_KEYS).copied().collect();
    let mut out = Vec::new();
    for (key, value) in table {
        let name = key.get_ref().as_ref();
        if !known.contains(&name) {
            let (o, place) = at(key.span());
            out.push((o, format!("{place}: {}", unknown(name, &known, ""))));
            continue;
        }
        match value.get_ref() {
            DeValue::Table(_) => {}
            _ if TABLE_KEYS.contains(&name) => {
                let (o, place) = at(key.span());
                out.push((
                    o,
                    format!(
                        "{place}: `{name}` must be a table (`[{name}]` on a line of its own, \
                         its keys below it); amail ignores it"
                    ),
                ));
            }
            DeValue::Array(entries) if name == SERVERS_KEY => {
                for entry in entries {
                    let DeValue::Table(t) = entry.get_ref() else {
                        continue;
                    };
                    for k in t.keys() {
                        let n = k.get_ref().as_ref();
                        if !SERVER_ENTRY_KEYS.contains(&n) {
                            let (o, place) = at(k.span());
                            let what = unknown(n, SERVER_ENTRY_KEYS, " in [[servers]]");
                            out.push((o, format!("{place}: {what}")));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // In the file's order: the table's keys come sorted.
    out.sort_by_key(|(o, _)| *o);
    out.into_iter().map(|(_, w)| w).collect()
}

/// The config key naming a file that holds a server's bearer token.
pub const SERVER_TOKEN_FILE_KEY: &str = "server_token_file";

impl Config {
    /// The file holding the server's bearer token (`server_token_file`),
    /// `~` expanded, relative to the config file's folder; the token
    /// itself is never written in the config file.
    pub fn server_token_file(&self) -> Result<Option<PathBuf>, String> {
        self.keys.server_token_file.clone()
    }
}

/// `e`, a TOML error in `text` (the file at `path`), as one line that
/// starts where the problem is, `PATH:LINE:COL: what: why`, as amail's
/// other errors do (toml's own text says it in prose over four lines).
pub fn toml_error(path: &Path, text: &str, e: &toml::de::Error, what: &str) -> String {
    let at = position(path, text, e.span());
    let why = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
    format!("{at}: {what}: {why}")
}

/// `PATH:LINE:COL` of the value of top-level `key` in `text` (the file
/// at `path`), else `PATH`.
pub fn key_place(path: &Path, text: &str, key: &str) -> String {
    place(path, text, |t| value_span(t, key))
}

/// `PATH:LINE:COL` of what `span_of` finds in `text` (the file at
/// `path`), else `PATH`: errors about a value start where it is written.
fn place(
    path: &Path,
    text: &str,
    span_of: impl FnOnce(&toml::de::DeTable<'_>) -> Option<std::ops::Range<usize>>,
) -> String {
    let span = toml::de::DeTable::parse(text)
        .ok()
        .and_then(|t| span_of(t.get_ref()));
    position(path, text, span)
}

/// `PATH:LINE:COL` where `span` starts in `text` (the file at `path`),
/// else `PATH`: the one way every config message names its place.
fn position(path: &Path, text: &str, span: Option<std::ops::Range<usize>>) -> String {
    match span {
        Some(span) => {
            let (line, col) = line_col(text, span.start);
            format!("{}:{line}:{col}", path.display())
        }
        None => path.display().to_string(),
    }
}

/// Where the value of top-level `key` is written.
fn value_span(table: &toml::de::DeTable<'_>, key: &str) -> Option<std::ops::Range<usize>> {
    table
        .iter()
        .find(|(k, _)| k.get_ref().as_ref() == key)
        .map(|(_, v)| v.span())
}

/// Where the `index`th `[[servers]]` entry's `field` is written, else the
/// entry itself (a field it lacks).
fn server_entry_span(
    table: &toml::de::DeTable<'_>,
    index: usize,
    field: &str,
) -> Option<std::ops::Range<usize>> {
    use toml::de::DeValue;
    let (_, servers) = table
        .iter()
        .find(|(k, _)| k.get_ref().as_ref() == SERVERS_KEY)?;
    let DeValue::Array(entries) = servers.get_ref() else {
        return Some(servers.span());
    };
    let entry = entries.into_iter().nth(index)?;
    let DeValue::Table(t) = entry.get_ref() else {
        return Some(entry.span());
    };
    Some(
        t.iter()
            .find(|(k, _)| k.get_ref().as_ref() == field)
            .map_or_else(|| entry.span(), |(_, v)| v.span()),
    )
}

/// The config table naming a running server for a storage root.
pub const SERVERS_KEY: &str = "servers";

/// A `[[servers]]` entry: writes into `storage_root` go through `url`.
///
/// ```toml
/// [[servers]]
/// storage_root = "~/.mcp_agent_mail_git_mailbox_repo"
/// url = "http://127.0.0.1:8765/mcp/"
/// token_file = "~/.config/amail/agent-mail-token"   # optional
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerFor {
    pub storage_root: PathBuf,
    pub url: String,
    /// The bearer token's file; `None`: `AMAIL_SERVER_TOKEN`, else
    /// `server_token_file`.
    pub token_file: Option<PathBuf>,
}

impl Config {
    /// The server that owns the storage root at `root`, when a
    /// `[[servers]]` entry names it (paths compared after resolving links
    /// and `~`). A malformed entry is an error naming the file.
    pub fn server_for(&self, root: &Path) -> Result<Option<ServerFor>, String> {
        let want = canonical(root);
        self.server_where(|r| canonical(r) == want)
    }

    /// The server that owns the mcp storage root the user named `named`,
    /// whose archive is `archive`: an entry may name either, or a folder
    /// whose archive is the same one (a folder holding `archive/` and the
    /// database, as the fixture and `amail demo --format mcp` lay a root
    /// out). Every command that writes asks this, so a root's writes go
    /// to the same server however the user or the config names it.
    pub fn server_for_store(
        &self,
        named: &Path,
        archive: &Path,
    ) -> Result<Option<ServerFor>, String> {
        let (named, archive) = (canonical(named), canonical(archive));
        self.server_where(|r| {
            let r = canonical(r);
            r == named
                || r == archive
                || matches!(
                    amail_core::source::detect(&r, None),
                    Ok(amail_core::source::Detected::McpStore { archive: a, .. }) if canonical(&a) == archive
                )
        })
    }

    /// The first `[[servers]]` entry whose `storage_root` (`~` expanded)
    /// `same` accepts; a malformed entry before it is its error.
    fn server_where(&self, same: impl Fn(&Path) -> bool) -> Result<Option<ServerFor>, String> {
        for entry in &self.keys.servers {
            let entry = entry.as_ref().map_err(Clone::clone)?;
            if same(&entry.storage_root) {
                return Ok(Some(entry.clone()));
            }
        }
        Ok(None)
    }
}

/// The `[[servers]]` value of the config file at `path`, each entry
/// resolved or the error it is; `place(index, field)` is where an
/// entry's field is written (`PATH:LINE:COL`).
fn servers(
    path: &Path,
    value: Option<&toml::Value>,
    place: impl Fn(usize, &str) -> String,
) -> Vec<Result<ServerFor, String>> {
    let bad = |index: usize, field: &str, what: &str| {
        format!(
            "{}: [[{SERVERS_KEY}]] {what}: each entry needs storage_root = \"DIR\" and \
             url = \"http://HOST:PORT/mcp/\" (token_file optional)",
            place(index, field)
        )
    };
    let Some(value) = value else {
        return Vec::new();
    };
    let Some(entries) = value.as_array() else {
        return vec![Err(bad(0, "", "must be an array of tables"))];
    };
    let entry = |i: usize, e: &toml::Value| {
        let string = |k: &str| e.get(k).and_then(toml::Value::as_str);
        let (Some(r), Some(url)) = (string("storage_root"), string("url")) else {
            let lacks = if string("storage_root").is_none() {
                "storage_root"
            } else {
                "url"
            };
            return Err(bad(i, lacks, &format!("lacks {lacks} (a string)")));
        };
        // The one reading of a server's URL, as a SOURCE and
        // `--server` take it: the same URL is a server in both places.
        if !amail_remote::session::is_http_url(url) {
            return Err(bad(i, "url", &format!("url {url:?} is not an http(s) URL")));
        }
        Ok(ServerFor {
            storage_root: resolve(path, r),
            url: url.to_string(),
            token_file: string("token_file").map(|f| resolve(path, f)),
        })
    };
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| entry(i, e))
        .collect()
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p)
        .or_else(|_| std::path::absolute(p))
        .unwrap_or_else(|_| p.to_path_buf())
}

/// A path the config file at `config` names: `~/x` under `$HOME`, a
/// relative one under the config file's folder (as cargo reads its config
/// files' paths: read against the working directory, `server_token_file =
/// "token"` beside the config was found only when amail ran there).
fn resolve(config: &Path, s: &str) -> PathBuf {
    let p = expand_home(s);
    match config.parent() {
        Some(dir) if p.is_relative() => dir.join(p),
        _ => p,
    }
}

/// `~/x` under `$HOME`; other paths as they are.
fn expand_home(s: &str) -> PathBuf {
    match s.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(rest),
        None => PathBuf::from(s),
    }
}

/// The config key naming a file of the agents' own tokens (0.3.x servers).
pub const AGENT_TOKENS_FILE_KEY: &str = "agent_tokens_file";

impl Config {
    /// The file of agents' tokens (`agent_tokens_file`, `~` expanded): a
    /// TOML table `AgentName = "registration token"`.
    pub fn agent_tokens_file(&self) -> Result<Option<PathBuf>, String> {
        self.keys.agent_tokens_file.clone()
    }
}

/// The limit a config file's table sets, if any; `at` is where its
/// value is written (`PATH:LINE:COL`), for the error.
fn max_size_from_table(
    table: &toml::Table,
    at: impl Fn() -> String,
) -> Result<Option<u64>, String> {
    match table.get(MAX_MESSAGE_SIZE_KEY) {
        None => Ok(None),
        Some(toml::Value::Integer(i)) if *i > 0 => Ok(Some(*i as u64)),
        Some(toml::Value::String(s)) => parse_size(s)
            .map(Some)
            .map_err(|e| format!("{}: {MAX_MESSAGE_SIZE_KEY}: {e}", at())),
        Some(v) => Err(format!(
            "{}: {MAX_MESSAGE_SIZE_KEY} must be a positive number of bytes or a size like \"10MiB\", not {v}",
            at()
        )),
    }
}

/// `AMAIL_HOME`, else the platform data dir (`~/.local/share/amail` on Linux).
pub fn amail_home() -> PathBuf {
    if let Some(h) = std::env::var_os("AMAIL_HOME") {
        return PathBuf::from(h);
    }
    directories::ProjectDirs::from("", "", "amail")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from(".amail"))
}

/// The default AOF project root: `<home>/store`.
pub fn default_store() -> PathBuf {
    amail_home().join("store")
}

/// The default plain mailbox: `<home>/mail`.
pub fn default_mailbox() -> PathBuf {
    amail_home().join("mail")
}

/// `AMAIL_CONFIG`, else `~/.config/amail/config.toml` (also on macOS).
pub fn config_path() -> PathBuf {
    if let Some(p) = std::env::var_os("AMAIL_CONFIG") {
        return PathBuf::from(p);
    }
    directories::BaseDirs::new()
        .map(|d| d.home_dir().join(".config/amail/config.toml"))
        .unwrap_or_else(|| PathBuf::from("config.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_entry_names_the_server_of_a_storage_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            format!(
                "[[servers]]\nstorage_root = \"{}\"\nurl = \"http://127.0.0.1:8765/mcp/\"\n",
                root.display()
            ),
        )
        .unwrap();
        let c = Config::load_from(&path, None).unwrap();
        let s = c.server_for(&root.join(".")).unwrap().unwrap();
        assert_eq!(s.url, "http://127.0.0.1:8765/mcp/");
        assert_eq!(s.token_file, None);
        assert_eq!(c.server_for(dir.path()).unwrap(), None);
        std::fs::write(&path, "[[servers]]\nurl = \"ftp://x\"\n").unwrap();
        let c = Config::load_from(&path, None).unwrap();
        let e = c.server_for(&root).unwrap_err();
        assert!(
            e.contains("config.toml") && e.contains("storage_root"),
            "{e}"
        );
    }

    /// `[[servers]]` read its url's scheme in lower case only, while a
    /// SOURCE and `--server` take `HTTP://` (schemes ignore case, RFC
    /// 3986): the same URL was a server on the command line and "not an
    /// http(s) URL" in the config. One reading, `is_http_url`, for all.
    #[test]
    fn a_servers_url_is_read_as_a_source_url_is() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        let path = dir.path().join("config.toml");
        let server_for = |url: &str| {
            std::fs::write(
                &path,
                format!(
                    "[[servers]]\nstorage_root = \"{}\"\nurl = \"{url}\"\n",
                    root.display()
                ),
            )
            .unwrap();
            let c = Config::load_from(&path, None).unwrap();
            c.server_for(&root).map(|s| s.map(|s| s.url))
        };
        for url in ["HTTP://127.0.0.1:8765/mcp/", "Https://mailhost/mcp/"] {
            assert!(amail_remote::session::is_http_url(url));
            let s = server_for(url).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(s.as_deref(), Some(url));
        }
        for url in ["ftp://127.0.0.1/mcp/", "127.0.0.1:8765/mcp/", "httpx://h/"] {
            assert!(!amail_remote::session::is_http_url(url));
            assert!(server_for(url).is_err(), "{url}");
        }
    }

    /// A key amail does not read was ignored without a word (`[key]`
    /// for `[keys]`): each is a warning at its line and column, for the
    /// commands (stderr) and the inbox (its status bar and help, where
    /// the TUI's own config warnings go).
    #[test]
    fn unknown_keys_are_warnings_at_their_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "mouse = true\n[key]\nquit = \"Q\"\ntheme = \"light\"\n",
        )
        .unwrap();
        let c = Config::load_from(&path, None).unwrap();
        let p = path.display();
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert!(
            c.warnings[0].starts_with(&format!("{p}:2:2: unknown key `key`"))
                && c.warnings[0].contains("did you mean `keys`?"),
            "{:?}",
            c.warnings
        );
        // `theme = "light"` inside [key] is [key]'s: only `key` is unknown.
        std::fs::write(&path, "theme = \"light\"\n").unwrap();
        let c = Config::load_from(&path, None).unwrap();
        assert!(
            c.warnings.len() == 1
                && c.warnings[0].starts_with(&format!("{p}:1:1: `theme` must be a table")),
            "{:?}",
            c.warnings
        );
        let ui = c.ui_config(false);
        assert_eq!(
            ui.warnings.iter().filter(|w| *w == &c.warnings[0]).count(),
            1,
            "the inbox shows it, once: {:?}",
            ui.warnings
        );
        std::fs::write(&path, "").unwrap();
        assert!(Config::load_from(&path, None).unwrap().warnings.is_empty());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("10MiB"), Ok(10 << 20));
        assert_eq!(parse_size("512 k"), Ok(512 << 10));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("ten").is_err());
        assert!(parse_size("5 parsecs").is_err());
    }

    #[test]
    fn the_size_error_names_the_key_that_raises_the_limit() {
        let e = amail_core::fsio::too_large(2, 1).to_string();
        assert!(e.contains(&format!("`{MAX_MESSAGE_SIZE_KEY}`")), "{e}");
    }
}
