//! `--server URL` and its companions, shared by `inbox`, `threads`,
//! `pending`, `ack` and `reply`: the commands then work through a running
//! MCP Agent Mail server (`amail_remote::ServerStore`) instead of files.
//!
//! The bearer token comes from `--token-file FILE`, else the environment
//! variable `AMAIL_SERVER_TOKEN`, else the config file's
//! `server_token_file`; it is never taken as a command-line value (other
//! users of the machine can read process arguments) and never printed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use amail::config::Config;
use amail_core::source::Detected;
use amail_core::stores::{self, LoadOptions, MailStore};
use amail_remote::{AgentTokens, ServerConfig, ServerStore, WriteThrough};
use clap::Args;

use super::CliError;

/// The environment variable holding the server's bearer token.
pub const TOKEN_ENV: &str = "AMAIL_SERVER_TOKEN";

/// The environment variable naming the agents' tokens file (else the
/// config's `agent_tokens_file`).
pub const AGENT_TOKENS_ENV: &str = "AMAIL_AGENT_TOKENS_FILE";

// `--token-file` and `--project` are checked against the server by
// `ServerArgs::take_source`, not by clap's `requires = "server"`: the
// server may be named as SOURCE, which clap cannot know is a URL.
#[derive(Debug, Clone, Default, Args)]
pub struct ServerArgs {
    /// Work through a running MCP Agent Mail server instead of files: its
    /// MCP endpoint, e.g. http://127.0.0.1:8765/mcp/ (or give that URL as
    /// the SOURCE; not both, and not with --db).
    #[arg(long, value_name = "URL", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub server: Option<String>,
    /// A file holding the server's bearer token (else AMAIL_SERVER_TOKEN,
    /// else the config file's `server_token_file`).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Only this project of the server (slug or human key).
    #[arg(long, value_name = "KEY", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub project: Option<String>,
    /// Seconds to wait for the server on each call (also a storage root's
    /// server named in the config's [[servers]]); at least 1.
    // 0 was read as 1 without a word: a user asking for no limit got the
    // shortest one.
    #[arg(long, value_name = "SECS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
}

/// Whether a SOURCE the user gave is a server's URL (`http://` or
/// `https://`, the scheme in any case), not a path.
pub fn is_url(source: &Path) -> bool {
    source
        .to_str()
        .is_some_and(amail_remote::session::is_http_url)
}

/// Refuses a server's URL among the paths of a command that reads files
/// (`parse`, `route`): said as a missing path, it sent the user looking
/// for a file. A path that exists is a path, whatever it looks like.
pub fn refuse_urls(paths: &[PathBuf], command: &str) -> Result<(), CliError> {
    match paths.iter().find(|p| is_url(p) && !p.exists()) {
        Some(url) => Err(CliError::usage(format!(
            "{}: a server's URL, and `amail {command}` reads files, folders and stdin: work \
             through a server with `amail threads`, `pending`, `inbox`, `ack` or `reply` (the \
             URL as SOURCE or with --server), or pipe its fetch_inbox JSON in with `-`",
            amail_core::safe_text::clean_line(&url.display().to_string())
        ))),
        None => Ok(()),
    }
}

impl ServerArgs {
    /// Settles where the command works when the user may have named a
    /// server twice, or a server and a SOURCE (or `--db`): a URL as
    /// SOURCE is the server, as `--server URL` is; any other pairing is a
    /// usage error naming both, before anything is read or written. Of
    /// two places named, amail never picks one unsaid (a reply meant for
    /// a mailbox went to the server). `--token-file` and `--project`
    /// without any server are refused too: they would do nothing; and a
    /// `--db` that names a folder.
    pub fn take_source(
        &mut self,
        source: &mut Option<PathBuf>,
        db: Option<&Path>,
    ) -> Result<(), CliError> {
        let clean = |s: &str| amail_core::safe_text::clean_line(s).into_owned();
        // SQLite opens a folder and fails later as "disk I/O error" or
        // "unable to open database file", naming no mistake: said here,
        // for every command that takes --db.
        if let Some(db) = db.filter(|d| d.is_dir()) {
            return Err(CliError::usage(format!(
                "--db {}: a folder; --db names the SQLite database file itself (the server's \
                 storage.sqlite3); nothing was read or written",
                clean(&db.display().to_string())
            )));
        }
        if let Some(url) = source.as_deref().filter(|s| is_url(s)) {
            let url = url.to_string_lossy().into_owned();
            if let Some(flag) = &self.server {
                return Err(CliError::usage(format!(
                    "{} as SOURCE and --server {}: name the server once, as SOURCE or with \
                     --server, not both; nothing was read or written",
                    clean(&url),
                    clean(flag)
                )));
            }
            self.server = Some(url);
            *source = None;
        }
        match &self.server {
            Some(url) => {
                if let Some(s) = source.as_deref() {
                    return Err(CliError::usage(format!(
                        "{} and --server {}: give a SOURCE or a server, not both; nothing was \
                     read or written",
                        clean(&s.display().to_string()),
                        clean(url)
                    )));
                }
                if let Some(db) = db {
                    return Err(CliError::usage(format!(
                        "--db {} and --server {}: --db names a storage root's database on \
                     disk; give it or a server, not both; nothing was read or written",
                        clean(&db.display().to_string()),
                        clean(url)
                    )));
                }
            }
            None => {
                let flag = if self.token_file.is_some() {
                    Some("--token-file")
                } else if self.project.is_some() {
                    Some("--project")
                } else {
                    None
                };
                if let Some(flag) = flag {
                    return Err(CliError::usage(format!(
                        "{flag} is for a server: give its URL as SOURCE or with --server URL"
                    )));
                }
                // Beside a SOURCE with no database it would do nothing:
                // the mailbox was read, and --db left unread unsaid.
                if let Some(db) = db {
                    let path = source.clone().unwrap_or_else(super::default_mailbox);
                    let what = if super::names_stdin(&path) {
                        Some("JSON on stdin".to_string())
                    } else {
                        matches!(
                            amail_core::source::detect(&path, None),
                            Ok(amail_core::source::Detected::Mailbox { .. })
                        )
                        .then(|| format!("{} is a plain mailbox", path.display()))
                    };
                    if let Some(what) = what {
                        return Err(CliError::usage(format!(
                            "--db {}: {}, with no database; --db names the database of an \
                             mcp_agent_mail storage root; nothing was read or written",
                            clean(&db.display().to_string()),
                            clean(&what)
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The server store when `--server` is given, else `None` (files).
pub fn open(args: &ServerArgs, config: &Config) -> Result<Option<Box<dyn MailStore>>, CliError> {
    Ok(server_store(args, config)?.map(|s| Box::new(s) as Box<dyn MailStore>))
}

/// [`open`] for the TUI: the store reads each agent's first page first
/// and the rest on its polls ([`ServerStore::paged`]), so the first frame
/// of a large server does not wait for all of its mail.
pub fn open_paged(
    args: &ServerArgs,
    config: &Config,
) -> Result<Option<Box<dyn MailStore>>, CliError> {
    Ok(server_store(args, config)?
        .map(|s| Box::new(s.paged(amail_remote::FIRST_PAGE)) as Box<dyn MailStore>))
}

fn server_store(args: &ServerArgs, config: &Config) -> Result<Option<ServerStore>, CliError> {
    let Some(url) = args.server.clone() else {
        return Ok(None);
    };
    if !amail_remote::session::is_http_url(&url) {
        return Err(CliError::usage(format!(
            "--server {url}: give the server's MCP URL, e.g. http://127.0.0.1:8765/mcp/"
        )));
    }
    let token = token(
        args.token_file
            .as_deref()
            .map(|f| (f, "--token-file".to_string())),
        config,
    )?;
    let store = with_token(
        ServerConfig {
            url,
            token: None,
            project: args.project.clone(),
            timeout: Duration::from_secs(args.timeout.max(1)),
            agent_tokens: agent_tokens(config)?,
        },
        token,
    )?;
    Ok(Some(store))
}

/// The server store for `config` sending `token` (with where it came
/// from, which a 401 or 403 then names).
fn with_token(
    mut config: ServerConfig,
    token: Option<(String, String)>,
) -> Result<ServerStore, CliError> {
    let from = token.as_ref().map(|(_, from)| from.clone());
    config.token = token.map(|(t, _)| t);
    let store = ServerStore::new(config).map_err(super::from_inbox_error)?;
    Ok(match from {
        Some(from) => store.with_token_from(from),
        None => store,
    })
}

/// The bearer token, from the first place that has one: `file` (the
/// flag's or the `[[servers]]` entry's, with where it was named),
/// `AMAIL_SERVER_TOKEN`, the config's `server_token_file`; with where it
/// came from, in the words a refused token's line says it.
fn token(
    file: Option<(&Path, String)>,
    config: &Config,
) -> Result<Option<(String, String)>, CliError> {
    let from_file = |f: &Path, origin: &str| {
        read_token(f, origin).map(|t| Some((t, format!("{} ({origin})", f.display()))))
    };
    if let Some((f, origin)) = file {
        return from_file(f, &origin);
    }
    if let Some(t) = std::env::var_os(TOKEN_ENV) {
        // Bytes that are not UTF-8 are no token either: refused by name,
        // as in a token file, not passed over for the config's token.
        let t = t.into_string().map_err(|_| {
            CliError::bad_input(format!(
                "{TOKEN_ENV} holds bytes that are not UTF-8, which no bearer token does: set \
                 it to the server's HTTP_BEARER_TOKEN alone"
            ))
        })?;
        let t = t.trim();
        if let Some((i, what)) = t
            .chars()
            .enumerate()
            .find_map(|(i, c)| not_in_a_token(c).map(|w| (i, w)))
        {
            return Err(CliError::bad_input(format!(
                "{TOKEN_ENV} holds {what} at character {}, which no bearer token does: set it \
                 to the server's HTTP_BEARER_TOKEN alone",
                i + 1
            )));
        }
        if !t.is_empty() {
            return Ok(Some((t.to_string(), TOKEN_ENV.to_string())));
        }
    }
    match config.server_token_file().map_err(CliError::usage)? {
        Some(f) => from_file(
            &f,
            &format!("server_token_file in {}", config.path.display()),
        ),
        None => Ok(None),
    }
}

/// The mail store at `source` (as `stores::open` opens it), writing
/// through its server when the config's `[[servers]]` names one for that
/// storage root ([`WriteThrough`]); reads stay on the disk. `None`: no
/// server is configured for it (write into its files as before).
pub fn write_through(
    source: &Path,
    opts: &LoadOptions,
    timeout: Duration,
    config: &Config,
) -> Result<Option<Box<dyn MailStore>>, CliError> {
    // The entry may name the folder the user gave or the archive found in
    // it (a folder that holds `archive/` and the database, as the fixture
    // and `amail demo --format mcp` lay a root out): the same root either
    // way, so the same server takes its writes from every command.
    // What the root holds is found once, for the match and the store.
    let detected = stores::detect_store(source, opts.db.as_deref());
    let entry = match &detected {
        Ok(Detected::McpStore { archive, .. }) => config.server_for_store(source, archive),
        _ => config.server_for(source),
    }
    .map_err(CliError::usage)?;
    let Some(entry) = entry else {
        return Ok(None);
    };
    let detected = detected
        .map_err(stores::Error::Source)
        .map_err(super::from_inbox_error)?;
    let local = stores::open_detected(source, detected, opts);
    let server = with_token(
        ServerConfig {
            url: entry.url,
            token: None,
            project: None,
            timeout,
            agent_tokens: agent_tokens(config)?,
        },
        token(
            entry.token_file.as_deref().map(|f| {
                (
                    f,
                    format!("token_file of [[servers]] in {}", config.path.display()),
                )
            }),
            config,
        )?,
    )?;
    Ok(Some(Box::new(WriteThrough::new(
        local,
        server,
        format!("[[servers]] in {}", config.path.display()),
    ))))
}

/// The agents' own tokens for a 0.3.x server, from the file
/// `AMAIL_AGENT_TOKENS_FILE` names, else the config's `agent_tokens_file`
/// (a TOML table `AgentName = "token"`); none when neither is set. Errors
/// name the file and the agent, never a token.
fn agent_tokens(config: &Config) -> Result<AgentTokens, CliError> {
    let file = match std::env::var_os(AGENT_TOKENS_ENV) {
        Some(f) if !f.is_empty() => Some((PathBuf::from(f), AGENT_TOKENS_ENV.to_string())),
        _ => config
            .agent_tokens_file()
            .map_err(CliError::usage)?
            .map(|f| (f, format!("agent_tokens_file in {}", config.path.display()))),
    };
    let Some((file, origin)) = file else {
        return Ok(AgentTokens::default());
    };
    let bytes = std::fs::read(&file).map_err(|e| {
        CliError::bad_input(format!(
            "{}: cannot read the agents' tokens file (named by {origin}): {}",
            file.display(),
            amail_core::fsio::reason(&e)
        ))
    })?;
    let text = amail_core::utf8_text::text(bytes).map_err(|at| {
        CliError::bad_input(format!(
            "{}:{at}: the agents' tokens file (named by {origin}) must be UTF-8 text",
            file.display()
        ))
    })?;
    // Where it goes wrong, by line and column; the message of a TOML
    // error names no token (its snippet would, so it is left out).
    let table: toml::Table = text.parse().map_err(|e| {
        CliError::bad_input(amail::config::toml_error(
            &file,
            &text,
            &e,
            "not a TOML table of AgentName = \"token\" lines",
        ))
    })?;
    let mut pairs = Vec::new();
    for (agent, v) in table {
        let Some(t) = v.as_str() else {
            return Err(CliError::bad_input(format!(
                "{}: the token of {agent} must be a string",
                amail::config::key_place(&file, &text, &agent)
            )));
        };
        pairs.push((agent, t.trim().to_string()));
    }
    Ok(AgentTokens::new(pairs))
}

/// The token in file `f`, which `origin` named (`--token-file`, a key of
/// the config file): a file the user never typed is named with where it
/// came from, so a stale config entry is found, not guessed at.
fn read_token(f: &Path, origin: &str) -> Result<String, CliError> {
    let bytes = std::fs::read(f).map_err(|e| {
        CliError::bad_input(format!(
            "{}: cannot read the server's token file (named by {origin}): {}",
            f.display(),
            amail_core::fsio::reason(&e)
        ))
    })?;
    // A byte-order mark (Notepad's "UTF-8 with BOM") is not the token's:
    // read past, as the toml reader and ripgrep read past it, and columns
    // count from after it, as an editor shows them.
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    // Bytes that are not UTF-8 are U+FFFD here, one character each, so
    // the column counts them as the file holds them.
    let text = String::from_utf8_lossy(bytes);
    let t = text.trim();
    if t.is_empty() {
        return Err(CliError::bad_input(format!(
            "{}: the server's token file (named by {origin}) is empty: put the server's \
             HTTP_BEARER_TOKEN in it",
            f.display()
        )));
    }
    // What no HTTP header can carry was sent, and the client's refusal
    // to build the request read as a server that answered wrongly.
    let start = text.len() - text.trim_start().len();
    if let Some((i, what)) = t
        .char_indices()
        .find_map(|(i, c)| not_in_a_token(c).map(|w| (i, w)))
    {
        let (line, col) = amail_core::formats::pos::line_col(&text, start + i);
        return Err(CliError::bad_input(format!(
            "{}:{line}:{col}: the server's token file (named by {origin}) holds {what}, which \
             no bearer token does: put only the server's HTTP_BEARER_TOKEN in it",
            f.display()
        )));
    }
    Ok(t.to_string())
}

/// What `c` is when a bearer token cannot hold it (an HTTP header value
/// is printable ASCII): `None` for a character it can.
fn not_in_a_token(c: char) -> Option<&'static str> {
    match c {
        ' '..='~' => None,
        '\0' => Some("a NUL byte (a binary file?)"),
        '\n' | '\r' => Some("a line break (a second line)"),
        char::REPLACEMENT_CHARACTER => Some("a byte that is not UTF-8 (a binary file?)"),
        c if c.is_control() => Some("a control character"),
        _ => Some("a character that is not ASCII"),
    }
}

/// Loads the inbox through `store`, reporting skipped entries on stderr
/// as `threads::load_source` does for files.
pub fn load(store: &dyn MailStore) -> Result<amail_core::inbox::Inbox, CliError> {
    let inbox = store.load().map_err(super::from_inbox_error)?;
    for (path, why) in &inbox.problems {
        crate::errln!(
            "amail: warning: {}: {}",
            amail_core::safe_text::clean_line(&path.display().to_string()),
            amail_core::safe_text::clean_text(why)
        );
    }
    Ok(inbox)
}
