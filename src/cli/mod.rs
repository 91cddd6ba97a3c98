//! Command implementations. `main.rs` holds only the clap enum and dispatch;
//! each subcommand lives in its own module here with its `Args` struct and a
//! `run(args) -> anyhow-free Result<ExitCode, CliError>`.

pub mod inbox;
pub mod parse;

use std::process::ExitCode;

use amail_core::safe_text::shell_arg;

/// Exit codes from the design: 0 success, 1 bad input or store, 2 usage.
pub const EXIT_OK: u8 = 0;
pub const EXIT_BAD_INPUT: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

// `--max-size`, offered by the commands that read mail and by no other
// (a flag that does nothing where it is accepted misleads). A plain
// comment: clap takes a doc comment here for the about text of every
// command that flattens it, once their arguments are built deferred
// (`main.rs`).
#[derive(Debug, Default, clap::Args)]
pub struct ReadLimit {
    /// Largest mail file or input to read (default 10MiB, or
    /// `max_message_size` in the config file), e.g. 512KiB, 50MiB.
    #[arg(long = "max-size", value_name = "SIZE")]
    pub max_size: Option<String>,
}

/// An error a command reports to the user: the text already names file,
/// line and column where there are any, and says what to do. It may quote
/// agent text (file names, ids), so it is printed through
/// [`amail_core::safe_text`], not built from it.
#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

impl CliError {
    pub fn bad_input(message: impl Into<String>) -> Self {
        CliError {
            code: EXIT_BAD_INPUT,
            message: message.into(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            code: EXIT_USAGE,
            message: message.into(),
        }
    }
}

pub type CliResult = Result<ExitCode, CliError>;

/// Exit status of a command that can simply be run again (sysexits'
/// `EX_TEMPFAIL`): the SQLite database was locked by another writer.
pub const EXIT_RETRY: u8 = 75;

/// Store errors as exit codes, as the README lists them: a request the
/// command cannot make (writing to stdin, an empty body) is usage (2);
/// an unknown id, a wrong recipient or an unreadable store is bad input
/// (1).
pub fn from_inbox_error(e: amail_core::stores::Error) -> CliError {
    CliError {
        // 75 (EX_TEMPFAIL): the database was locked; run it again.
        code: if e.is_retryable() {
            EXIT_RETRY
        } else if e.is_usage() {
            EXIT_USAGE
        } else {
            EXIT_BAD_INPUT
        },
        message: e.to_string(),
    }
}

/// Whether a path the user gave is `-`: standard input, everywhere amail
/// takes mail.
pub fn names_stdin(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

/// Says on stderr that the command is reading standard input when that is a
/// terminal: a bare `amail parse` would otherwise sit waiting, silent.
/// (Piped input needs no hint, and gets none.)
pub fn say_reading_stdin() {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        crate::errln!("amail: reading standard input (type or paste mail, then Ctrl-D to end; Ctrl-C to quit)");
    }
}

/// Opens the store a command reads or works on, never creating one: a
/// missing store (a mistyped `--store`, or nothing routed yet) is an error
/// that names the path and says how a store is made.
pub fn open_store(root: &std::path::Path) -> Result<amail_core::router::Store, CliError> {
    use amail_core::router::{Store, StoreError};
    Store::open_existing(root).map_err(|e| match e {
        StoreError::Missing { path } => CliError::bad_input(missing_store(&path)),
        e => CliError::bad_input(format!("cannot open store: {e}")),
    })
}

/// `amail tasks DIR` (every other command takes its folder that way):
/// the store commands take it as `--store DIR`, which clap's own error
/// ("unrecognized subcommand", or "unexpected argument" with a tip to
/// put `--` before it) does not say. Only a path that is there gets the
/// tip: a word that is not (`tasks aprove`) keeps clap's own, which may
/// name the sub-command meant.
pub fn store_tip(e: &mut clap::Error, args: &[std::ffi::OsString]) {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let Some(command) = args.first().and_then(|c| c.to_str()) else {
        return;
    };
    if !matches!(command, "tasks" | "events" | "sweep" | "doctor") {
        return;
    }
    let given = match e.kind() {
        ErrorKind::InvalidSubcommand => e.get(ContextKind::InvalidSubcommand),
        ErrorKind::UnknownArgument => e.get(ContextKind::InvalidArg),
        _ => None,
    };
    let Some(ContextValue::String(given)) = given else {
        return;
    };
    let path = std::path::Path::new(given);
    if !path.exists() {
        return;
    }
    // The command as typed, the path given its option in place: a
    // sub-command and its arguments (`tasks approve T DIR`) kept. The path
    // is given `--store` once: a copy typed after `--store DIR` (or
    // `--store=DIR`), or typed twice, is a stray and left out, since
    // clap's error does not say which copy it refused.
    let is_store = |a: &std::ffi::OsString| {
        a == "--store" || a.to_str().is_some_and(|a| a.starts_with("--store="))
    };
    let store_given = args.iter().any(is_store);
    let loose: Vec<usize> = (0..args.len())
        .filter(|&i| args[i].as_os_str() == path.as_os_str())
        .filter(|&i| i == 0 || args[i - 1] != "--store")
        .collect();
    let kept = (!store_given).then(|| loose.last().copied()).flatten();
    let mut words = vec!["amail".to_string()];
    for (i, arg) in args.iter().enumerate() {
        if Some(i) == kept {
            words.push("--store".into());
        } else if loose.contains(&i) {
            continue;
        }
        words.push(shell_arg(std::path::Path::new(arg)));
    }
    let tip = format!(
        "`amail {command}` takes the task store {}as an option: `{}`",
        if store_given { "once, " } else { "" },
        words.join(" ")
    );
    e.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![tip.into()]),
    );
}

/// The command that lists the task ids of a store as the user named it:
/// `None`, the default store, is what a bare `amail tasks` reads; a named
/// one must be named again, or the ids listed are another store's.
pub(crate) fn tasks_lister(store: Option<&std::path::Path>) -> String {
    match store {
        Some(s) => format!("amail tasks --store {}", shell_arg(s)),
        None => "amail tasks".to_string(),
    }
}

/// What a `--store` with no task store is, and what to do: a file is not
/// a store; a folder with a store beside its mail (`DIR` or `DIR/mail`
/// after `amail demo DIR`) names that store; another folder (a mailbox?)
/// gets the route into a store of its own, never into itself, which would
/// make a mailbox a task store; only a path with nothing there gets the
/// hint to start a store at it.
fn missing_store(path: &std::path::Path) -> String {
    use amail_core::router::Store;
    let clean = |p: &std::path::Path| {
        amail_core::safe_text::clean_line(&p.display().to_string()).into_owned()
    };
    let p = clean(path);
    if path.is_file() {
        return format!("{p} is a file, not a task store (a store is a folder with tasks/ in it); nothing was created");
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    // `DIR` names the store in it; `DIR/mail` the one beside it, as the
    // inbox finds it.
    let found = path
        .is_dir()
        .then(|| {
            Some(absolute.join("store"))
                .filter(|s| Store::exists(s))
                .or_else(|| amail::backend::existing_store_beside(path))
        })
        .flatten();
    if let Some(store) = &found {
        return format!(
            "no task store at {p} (nothing was created); the store beside this mail is {}: `--store {}`",
            clean(store),
            shell_arg(store)
        );
    }
    if path.is_dir() {
        let own = absolute
            .parent()
            .map_or_else(|| absolute.join("store"), |d| d.join("store"));
        return format!(
            "no task store at {p} (nothing was created): a folder with no tasks/ in it; if it holds mail, route it into a store of its own: `amail route {} --store {}`",
            shell_arg(path),
            shell_arg(&own)
        );
    }
    format!(
        "no task store at {p} (nothing was created); check the path, or route mail into a new store first: `amail route MAIL --store {}`",
        shell_arg(path)
    )
}

pub use amail::config::{amail_home, default_mailbox, default_store};

pub mod ack;
pub mod demo;
pub mod doctor;
pub mod events;
pub mod pending;
pub mod reply;
pub mod route;
pub mod server;
pub mod sweep;
mod table;
mod tally;
pub mod tasks;
pub mod threads;

/// Prints a line to stdout, like `println!`, except that a closed pipe
/// (`amail threads | head`) ends the process quietly with success: the
/// reader has what it wanted, and `println!` would panic.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::cli::stdout_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::cli::stdout_line(format_args!($($arg)*))
    };
}

#[doc(hidden)]
pub fn stdout_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.write_all(b"\n")) {
        exit_on_write_error(e);
    }
}

/// Prints a line to stderr, like `eprintln!`, except that a stderr that
/// cannot be written (`2>/dev/full`, a reader gone: `2>&1 | head -1`) is
/// not a panic (exit 101): the note is lost, the exit code stays the one
/// the command means. Every message amail writes to stderr goes through
/// here (`clippy::print_stderr` is denied in `main.rs`).
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cli::stderr_line(format_args!($($arg)*))
    };
}

#[doc(hidden)]
pub fn stderr_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    // Nowhere left to say it: the exit code still does.
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

/// Ends the process after stdout failed: quietly with success for a closed
/// pipe, with exit 1 and the reason otherwise.
pub fn exit_on_write_error(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(i32::from(EXIT_OK));
    }
    crate::errln!("amail: cannot write output: {e}");
    std::process::exit(i32::from(EXIT_BAD_INPUT));
}

/// Standard output for bulk writes, without the standard library's line
/// buffering: `io::Stdout` looks for the last newline in every write it
/// gets, which on one 20 MB JSON line (a big body, its newlines escaped)
/// is a scan of every byte for nothing. Wrap it in a `BufWriter`.
///
/// On Unix this is a duplicate of the stdout descriptor, so nothing may be
/// left buffered in `io::stdout()` while it is written; elsewhere, and if
/// the descriptor cannot be duplicated, it is `io::stdout()` itself.
pub fn raw_stdout() -> Box<dyn std::io::Write> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() {
            return Box::new(std::fs::File::from(fd));
        }
    }
    Box::new(std::io::stdout().lock())
}
