//! `amail ack ID... [SOURCE] --as AGENT`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::from_inbox_error;
use super::{default_mailbox, CliError, CliResult};
use amail_core::safe_text::{clean_line, clean_text, shell_arg};
use amail_core::{inbox, stores};

#[derive(Debug, Args)]
#[command(
    override_usage = "amail ack <ID>... [SOURCE] --as <AGENT> [OPTIONS]",
    after_help = "Examples:\n  amail ack 5 10 --as BlueLake ~/.mcp_agent_mail_git_mailbox_repo\n  amail ack ol-527.2-help --as Orchestrator ./mail\n  amail ack 42 http://127.0.0.1:8765/mcp/ --as BlueLake   # through a server\n\nThe last argument is the SOURCE when it is an existing directory or a server's\nURL (the same as --server URL; not both); so is the first, as `amail threads\nSOURCE` takes it. A last one that looks like a path (/..., ./..., ~...), or\nholds a / when there is no default mailbox, but does not exist is an error,\nand nothing is acked. With\nseveral ids, every one must exist and be addressed to the --as agent before\nany is acked."
)]
pub struct AckArgs {
    /// Message ids (as `amail pending` prints them), then optionally the
    /// SOURCE (a mailbox, a storage root or a server's URL; or the SOURCE
    /// first, as `amail threads SOURCE` takes it).
    #[arg(required = true, value_name = "ID", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub items: Vec<String>,
    /// The recipient acknowledging.
    #[arg(long = "as", value_name = "AGENT", required = true, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub as_agent: String,
    /// The mcp_agent_mail SQLite database, when it is not beside the archive.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    #[command(flatten)]
    pub server: super::server::ServerArgs,
    #[command(flatten)]
    pub limit: super::ReadLimit,
}

/// Splits `ID... [SOURCE]`: the last item is the source when it names an
/// existing directory, is `-` or a server's URL (ids never do). The
/// source may come first too, as `threads SOURCE` and `pending SOURCE`
/// take it: an existing directory or a URL first is never an id. A last
/// item that looks like a path (absolute, `./`, `../`, `~`, or ending in
/// `/`) but is no directory is an error: the user named a source and
/// mistyped it, and falling back to the default mailbox would write
/// somewhere else.
pub fn split_source(items: &[String]) -> Result<(Vec<String>, Option<PathBuf>), CliError> {
    match items.split_last() {
        // A source alone: the ids were left out.
        Some((last, [])) if names_source(Path::new(last)) => Err(CliError::usage(format!(
            "{}: a {}, and no message id to ack: `amail ack ID... {} --as AGENT`",
            clean_line(last),
            source_word(Path::new(last)),
            shell_arg(Path::new(last))
        ))),
        Some((last, rest))
            if !rest.is_empty() && (last == "-" || names_source(Path::new(last))) =>
        {
            Ok((rest.to_vec(), Some(PathBuf::from(last))))
        }
        Some((last, rest)) if !rest.is_empty() && looks_like_a_path(last) => {
            Err(no_such_source(last))
        }
        _ => match items.split_first() {
            Some((first, rest)) if !rest.is_empty() && names_source(Path::new(first)) => {
                Ok((rest.to_vec(), Some(PathBuf::from(first))))
            }
            _ => Ok((items.to_vec(), None)),
        },
    }
}

/// `last`, a SOURCE the user named and mistyped.
fn no_such_source(last: &str) -> CliError {
    CliError::bad_input(format!(
        "{}: no such file or directory; nothing was written (the SOURCE must be an existing mailbox directory or mcp_agent_mail storage root)",
        clean_line(last)
    ))
}

/// Whether `item`, where an id or a SOURCE may stand, is the SOURCE: an
/// existing directory or a server's URL, which no id is. (`-`, stdin, is
/// one only last.)
pub fn names_source(item: &Path) -> bool {
    item.is_dir() || super::server::is_url(item)
}

/// What `item`, a SOURCE, is, for a line that names it.
pub fn source_word(item: &Path) -> &'static str {
    if super::server::is_url(item) {
        "server's URL"
    } else {
        "mailbox"
    }
}

/// Mailbox keys can hold a `/` (a file's path inside the mailbox), but
/// never start like a path of the user's own.
fn looks_like_a_path(s: &str) -> bool {
    let p = std::path::Path::new(s);
    p.is_absolute()
        || s.starts_with("./")
        || s.starts_with("../")
        || s.starts_with('~')
        || s.ends_with('/')
}

/// Every id must name a message addressed to `agent` before any is
/// acked: a mistyped SOURCE that did not look like a path is then an
/// unknown id, an id owed by someone else is refused as the store would
/// refuse it, and nothing is half done. The one check of a batch, on
/// every store (a local one's and a server's inbox, read from `store`);
/// `missing` words the store's error for an id `inbox` does not hold (it
/// names the id there it is a slip from). The recipient is matched as the
/// store matches `--as` ([`inbox::SourceKind::same_agent`]).
fn check_batch(
    store: &dyn stores::MailStore,
    inbox: &inbox::Inbox,
    ids: &[String],
    agent: &str,
    missing: impl Fn(stores::Error) -> CliError,
) -> Result<(), CliError> {
    for id in ids {
        let Some(m) = inbox.message_by_key(id) else {
            return Err(missing(store.not_found(id).near_miss(inbox.keys())));
        };
        if !m
            .recipients
            .iter()
            .any(|r| inbox.source.same_agent(&r.agent, agent))
        {
            // The store's own refusal, and what that means for the rest.
            let refused = stores::Error::not_recipient(
                id,
                agent,
                m.recipients.iter().map(|r| r.agent.as_str()),
                inbox.source.ignores_case(),
            );
            return Err(CliError::bad_input(format!(
                "{refused}, or ack that id apart; nothing was acked"
            )));
        }
    }
    Ok(())
}

/// [`check_batch`] on a local store, read now; the inbox read, which
/// the acks then use.
fn check_ids(
    store: &dyn stores::MailStore,
    ids: &[String],
    agent: &str,
) -> Result<inbox::Inbox, CliError> {
    let inbox = store.load().map_err(from_inbox_error)?;
    check_batch(store, &inbox, ids, agent, |e| {
        CliError::bad_input(format!(
            "{e}; nothing was acked (a SOURCE must be an existing directory)"
        ))
    })?;
    Ok(inbox)
}

/// Where a write goes: the source's kind, without reading every message
/// (ack and reply re-read what they need under their own locks).
pub fn source_kind(
    source: Option<PathBuf>,
    db: Option<PathBuf>,
) -> Result<inbox::SourceKind, CliError> {
    if source.as_deref().is_some_and(super::names_stdin) {
        return Err(CliError::usage(
            "JSON from stdin is read-only: give the mailbox or store to write to",
        ));
    }
    let defaulted = source.is_none();
    let path = source.unwrap_or_else(default_mailbox);
    if defaulted && !path.exists() {
        return Err(CliError::bad_input(format!(
            "no mailbox at {} yet: give a SOURCE, or run `amail demo` to write a sample",
            path.display()
        )));
    }
    match stores::detect_store(&path, db.as_deref()).map_err(CliError::bad_input)? {
        amail_core::source::Detected::Mailbox { root } => Ok(inbox::SourceKind::Mailbox { root }),
        amail_core::source::Detected::McpStore { archive, db: Some(db) } => {
            Ok(inbox::SourceKind::McpStore { root: archive, db })
        }
        amail_core::source::Detected::McpStore { archive, db: None } => Err(CliError::bad_input(format!(
            "{}: mcp_agent_mail archive whose database was not found (not in DATABASE_URL, the server's .env, nor beside it): give it with --db FILE",
            archive.display()
        ))),
    }
}

fn print_outcome(o: &stores::AckOutcome) {
    let when = o.ack_at.format("%Y-%m-%d %H:%M:%S UTC");
    if o.changed {
        crate::outln!(
            "acked {} as {} at {when}",
            clean_line(&o.key),
            clean_line(&o.agent)
        );
    } else {
        crate::outln!(
            "{} was already acked by {} at {when}; nothing changed",
            clean_line(&o.key),
            clean_line(&o.agent)
        );
    }
}

pub fn run(mut args: AckArgs, config: &amail::config::Config) -> CliResult {
    let max_bytes = config.max_bytes;
    let (ids, mut source) = split_source(&args.items)?;
    args.server.take_source(&mut source, args.db.as_deref())?;
    if let Some(store) = super::server::open(&args.server, config)? {
        return run_on_server(store.as_ref(), &ids, &args.as_agent);
    }
    // With no default mailbox for it to be an id of, a last item holding
    // a `/` (which a mailbox key may hold) is the SOURCE, mistyped: "no
    // mailbox at DEFAULT yet" did not name it.
    if source.is_none() && ids.len() > 1 && !default_mailbox().exists() {
        if let Some(last) = ids.last().filter(|l| l.contains('/')) {
            return Err(no_such_source(last));
        }
    }
    let kind = source_kind(source.clone(), args.db.clone())?;
    if let Some(store) = through(source.as_deref(), &kind, &args.server, config)? {
        return run_on_server(store.as_ref(), &ids, &args.as_agent);
    }
    ack_local(
        store_as_named(source.as_deref(), args.db, &kind, max_bytes).as_ref(),
        &ids,
        &args.as_agent,
    )
}

/// The local store `kind` is, opened as the user named it (`source`,
/// `--db`): its hint for an unknown id names `amail threads SOURCE` as
/// typed. Opened from `kind` alone, a storage root named as the folder
/// holding `archive/` was listed as its archive, a path never given.
pub fn store_as_named(
    source: Option<&std::path::Path>,
    db: Option<PathBuf>,
    kind: &inbox::SourceKind,
    max_bytes: u64,
) -> Box<dyn stores::MailStore> {
    match (kind, source) {
        (inbox::SourceKind::McpStore { root, db: found }, Some(named)) => stores::open_detected(
            named,
            amail_core::source::Detected::McpStore {
                archive: root.clone(),
                db: Some(found.clone()),
            },
            &stores::LoadOptions { db, max_bytes },
        ),
        _ => stores::for_source(kind, max_bytes),
    }
}

/// `amail ack ID...` on a local store. A batch is checked against one
/// reading of the store, and acked with it: each ack read the whole
/// mailbox again (20 ids on 20,000 messages took 17 s). One id: the
/// store reads what it needs.
fn ack_local(store: &dyn stores::MailStore, ids: &[String], as_agent: &str) -> CliResult {
    let inbox = match ids.len() {
        1 => None,
        _ => Some(check_ids(store, ids, as_agent)?),
    };
    ack_each(store, inbox.as_ref(), ids, as_agent)
}

/// Acks `ids` as `as_agent` on `store`, with `inbox` when it was read
/// from it: one id at a time, so every ack that succeeded is reported
/// even when a later id fails; the first failure decides the exit code.
fn ack_each(
    store: &dyn stores::MailStore,
    inbox: Option<&inbox::Inbox>,
    ids: &[String],
    as_agent: &str,
) -> CliResult {
    let mut failure = None;
    for id in ids {
        match store.ack(
            inbox,
            std::slice::from_ref(id),
            as_agent,
            chrono::Utc::now(),
        ) {
            Ok(outcomes) => outcomes.iter().for_each(print_outcome),
            Err(e) => {
                let e = from_inbox_error(e);
                crate::errln!("amail: {}", clean_text(&e.message));
                failure.get_or_insert(e.code);
            }
        }
    }
    match failure {
        Some(code) => Ok(ExitCode::from(code)),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The store of an mcp storage root `kind`, named `source` by the user
/// (`None`: the default mailbox), that writes through the server the
/// config names for it (see `server::write_through`), if any.
pub fn through(
    source: Option<&std::path::Path>,
    kind: &inbox::SourceKind,
    server: &super::server::ServerArgs,
    config: &amail::config::Config,
) -> Result<Option<Box<dyn stores::MailStore>>, CliError> {
    let inbox::SourceKind::McpStore { db, .. } = kind else {
        return Ok(None);
    };
    super::server::write_through(
        &source.map_or_else(default_mailbox, std::path::Path::to_path_buf),
        &stores::LoadOptions {
            db: Some(db.clone()),
            max_bytes: config.max_bytes,
        },
        std::time::Duration::from_secs(server.timeout.max(1)),
        config,
    )
}

/// `amail ack ID... --server URL` (or a storage root that writes through
/// its server): every id is checked against one load of the server's
/// inbox before the first ack is sent, as a local store's are
/// ([`check_batch`]: it exists and is addressed to `as_agent`), so a
/// mistyped id or one owed by someone else acks nothing; then each ack is
/// the server's `acknowledge_message`.
fn run_on_server(store: &dyn stores::MailStore, ids: &[String], as_agent: &str) -> CliResult {
    let inbox = super::server::load(store)?;
    check_batch(store, &inbox, ids, as_agent, |e| {
        CliError::bad_input(format!("{e}; nothing was acked"))
    })?;
    ack_each(store, Some(&inbox), ids, as_agent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use amail_core::inbox::Inbox;
    use amail_core::stores::{AckOutcome, Error, MailStore, ReplyOutcome};
    use chrono::{DateTime, Utc};
    use std::cell::Cell;

    /// A mailbox store that counts its whole readings: the CLI's own
    /// (`load`) and the ones it leaves to the store (an ack handed no
    /// inbox reads the mailbox itself).
    struct Counting {
        inner: Box<dyn MailStore>,
        loads: Cell<usize>,
        acks_reading_anew: Cell<usize>,
    }

    impl MailStore for Counting {
        fn describe(&self) -> String {
            self.inner.describe()
        }
        fn load(&self) -> Result<Inbox, Error> {
            self.loads.set(self.loads.get() + 1);
            self.inner.load()
        }
        fn ack(
            &self,
            inbox: Option<&Inbox>,
            keys: &[String],
            as_agent: &str,
            now: DateTime<Utc>,
        ) -> Result<Vec<AckOutcome>, Error> {
            if inbox.is_none() {
                self.acks_reading_anew.set(self.acks_reading_anew.get() + 1);
            }
            self.inner.ack(inbox, keys, as_agent, now)
        }
        fn reply(
            &self,
            inbox: Option<&Inbox>,
            key: &str,
            as_agent: &str,
            body: &str,
            now: DateTime<Utc>,
        ) -> Result<ReplyOutcome, Error> {
            self.inner.reply(inbox, key, as_agent, body, now)
        }
        fn watch_paths(&self) -> Vec<PathBuf> {
            self.inner.watch_paths()
        }
    }

    /// A batch of acks read the whole mailbox once per id (and once more
    /// for the check): `amail ack` of 20 ids on the 20,000-message corpus
    /// took 17 s, one id 0.5 s. Found by acking a screenful of `amail
    /// pending` output at once. Counted, not timed.
    #[test]
    fn a_batch_of_acks_reads_the_mailbox_once() {
        let dir = tempfile::tempdir().unwrap();
        let ids: Vec<String> = (0..12).map(|i| format!("m{i}")).collect();
        for id in &ids {
            std::fs::write(
                dir.path().join(format!("{id}.md")),
                format!(
                    "Subject: [b1] HELP_REQUEST\nFrom: w\nTo: boss\nId: {id}\nDate: 2026-11-22T01:01:00Z\nAck-Required: yes\n\nBody:\nBead: b1\nIssue Type: STUCK\n\n## Problem\nstuck\n"
                ),
            )
            .unwrap();
        }
        let kind = inbox::SourceKind::Mailbox {
            root: dir.path().to_path_buf(),
        };
        let store = Counting {
            inner: stores::for_source(&kind, 1 << 20),
            loads: Cell::new(0),
            acks_reading_anew: Cell::new(0),
        };
        let code = ack_local(&store, &ids, "boss").unwrap();
        assert_eq!(code, ExitCode::SUCCESS);
        assert_eq!(store.loads.get(), 1, "the batch's check reads the mailbox");
        assert_eq!(
            store.acks_reading_anew.get(),
            0,
            "an ack of the batch read the mailbox again"
        );
        let before = store.loads.get();
        assert!(store.load().unwrap().pending(Some("boss")).is_empty());
        assert_eq!(store.loads.get(), before + 1);
    }
}
