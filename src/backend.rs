//! The real [`Backend`]: a [`MailStore`] for mail, acks and replies (which
//! store is decided once, by `stores::open`), `router::` for the task board.
//!
//! With `route` on (the demo), every load also routes the mailbox through
//! the protocol router, so the board follows the mail, replies included;
//! the router's dedupe makes re-routing a no-op, and a per-session set of
//! routed keys keeps a reload from taking the store lock once per message.

use std::collections::HashSet;
use std::path::PathBuf;

use chrono::Utc;

use amail_core::inbox::{Inbox, InboxMessage};
use amail_core::router::mailbox::Mailbox;
use amail_core::router::{review, Board, RouteOutcome, Router, RouterOptions, Store, StoreError};
use amail_core::stores::{self, LoadOptions, MailStore, Refresh};
use amail_tui::{Backend, ReadError};

/// The task store whose board goes with the mail at `source`: the `store`
/// directory beside it when there is one (`amail demo DIR` writes
/// `DIR/mail` and `DIR/store`; `amail route DIR/mail --store DIR/store` is
/// the usual pairing), else `default`. Only an existing store counts: the
/// inbox never creates one.
pub fn store_beside(source: &std::path::Path, default: PathBuf) -> PathBuf {
    existing_store_beside(source).unwrap_or(default)
}

/// The existing `store` directory beside `source`, if any (see
/// [`store_beside`]).
pub fn existing_store_beside(source: &std::path::Path) -> Option<PathBuf> {
    let source = std::path::absolute(source).unwrap_or_else(|_| source.to_path_buf());
    source
        .parent()
        .map(|dir| dir.join("store"))
        .filter(|s| Store::exists(s))
}

/// The actor a review from the TUI is logged as.
const REVIEWER: &str = "human";

pub struct RealBackend {
    source: PathBuf,
    opts: LoadOptions,
    /// The store at `source`; `None` until it opens (a load says why not).
    mail: Option<Box<dyn MailStore>>,
    /// The store's [`MailStore::watch_paths`], asked once: every store's
    /// are fixed when it opens (its root; an archive and its database's
    /// directory), and a refresh needs them on every file change.
    mail_paths: Option<Vec<PathBuf>>,
    store_root: PathBuf,
    router: Option<Router>,
    route: bool,
    routed: HashSet<String>,
}

impl RealBackend {
    /// `opts`: how to load `source` (database, size limit); `route`:
    /// route the mail into the store on every load (demo).
    pub fn new(source: PathBuf, opts: LoadOptions, store_root: PathBuf, route: bool) -> Self {
        let mail = stores::open(&source, &opts).ok();
        RealBackend {
            source,
            opts,
            mail,
            mail_paths: None,
            store_root,
            router: None,
            route,
            routed: HashSet::new(),
        }
    }

    /// A backend over a store opened elsewhere (a server: `--server`).
    pub fn with_store(mail: Box<dyn MailStore>, store_root: PathBuf) -> Self {
        RealBackend {
            source: PathBuf::from(mail.describe()),
            opts: LoadOptions::default(),
            mail: Some(mail),
            mail_paths: None,
            store_root,
            router: None,
            route: false,
            routed: HashSet::new(),
        }
    }

    /// The mail store, opened now if it could not be before.
    fn mail(&mut self) -> Result<&dyn MailStore, String> {
        if self.mail.is_none() {
            self.mail = Some(stores::open(&self.source, &self.opts).map_err(|e| e.to_string())?);
        }
        Ok(self.mail.as_deref().expect("just set"))
    }

    fn router(&mut self) -> Result<&Router, String> {
        if self.router.is_none() {
            let store = Store::open(&self.store_root)
                .map_err(|e| format!("cannot open the task store: {e}"))?;
            self.router = Some(Router::new(
                store,
                RouterOptions {
                    create_missing: true,
                },
            ));
        }
        Ok(self.router.as_ref().expect("just set"))
    }

    fn route_all(&mut self, inbox: &Inbox) -> Result<(), String> {
        self.route_new(&inbox.messages)
    }

    /// The `changed` paths that are mail (not the task store); `None`
    /// when only the task store changed.
    fn mail_changed(&mut self, changed: &[PathBuf]) -> Result<Option<Vec<PathBuf>>, String> {
        if self.mail_paths.is_none() {
            self.mail_paths = Some(self.mail()?.watch_paths());
        }
        let (store_root, watched) = (&self.store_root, self.mail_paths.as_deref().unwrap_or(&[]));
        let in_mail =
            |p: &PathBuf| !p.starts_with(store_root) || watched.iter().any(|w| p.starts_with(w));
        let mail_changed: Vec<PathBuf> = changed.iter().filter(|p| in_mail(p)).cloned().collect();
        if mail_changed.is_empty() && !changed.is_empty() {
            return Ok(None);
        }
        Ok(Some(mail_changed))
    }

    /// Routes those of `messages` not routed yet this session.
    fn route_new(&mut self, messages: &[InboxMessage]) -> Result<(), String> {
        let todo: Vec<usize> = messages
            .iter()
            .enumerate()
            .filter(|(_, m)| !self.routed.contains(m.key.as_str()))
            .map(|(i, _)| i)
            .collect();
        if todo.is_empty() {
            return Ok(());
        }
        // Oldest first, as the mail was written, so transitions apply in order.
        let mut todo = todo;
        todo.sort_by_key(|&i| messages[i].message.timestamp);
        let router = self.router()?;
        for &i in &todo {
            match router.route(&amail_core::bridge::mail::routable(&messages[i].message)) {
                Ok(RouteOutcome::Rejected(_)) | Ok(_) => {}
                Err(e) => return Err(format!("routing {}: {e}", messages[i].key)),
            }
        }
        router
            .store
            .checkpoint()
            .map_err(|e| format!("cannot flush the store: {e}"))?;
        for i in todo {
            self.routed.insert(messages[i].key.to_string());
        }
        Ok(())
    }
}

impl Backend for RealBackend {
    fn describe(&self) -> String {
        match &self.mail {
            Some(mail) => mail.describe(),
            None => self.source.display().to_string(),
        }
    }

    fn load(&mut self) -> Result<Inbox, ReadError> {
        self.load_with_progress(&|_, _| ())
    }

    fn load_with_progress(&mut self, progress: &dyn Fn(usize, usize)) -> Result<Inbox, ReadError> {
        let inbox = self
            .mail()?
            .load_with_progress(progress)
            .map_err(ReadError::from)?;
        if self.route {
            self.route_all(&inbox)?;
        }
        Ok(inbox)
    }

    /// The partial inboxes are not routed: the whole one is, at the end.
    fn load_in_steps(
        &mut self,
        progress: &dyn Fn(usize, usize),
        partial: &dyn Fn(Inbox),
    ) -> Result<Inbox, ReadError> {
        let inbox = self
            .mail()?
            .load_in_steps(progress, partial)
            .map_err(ReadError::from)?;
        if self.route {
            self.route_all(&inbox)?;
        }
        Ok(inbox)
    }

    /// The store reads what changed (a plain mailbox just the changed
    /// files, a server what is new), on the TUI's worker; changes only in
    /// the task store need no mail read at all (the tasks are read after
    /// every reload). The new messages are routed here, so the UI thread
    /// only patches.
    fn refresh(&mut self, changed: &[PathBuf]) -> Result<Refresh, ReadError> {
        let Some(mail_changed) = self.mail_changed(changed)? else {
            return Ok(Refresh::Unchanged);
        };
        let refresh = self
            .mail()?
            .refresh(&mail_changed)
            .map_err(ReadError::from)?;
        if self.route {
            match &refresh {
                Refresh::Unchanged => {}
                Refresh::Whole(inbox) => self.route_all(inbox)?,
                Refresh::Files(files) => self.route_new(files.added())?,
                // Only a server's store answers with a patch, and a
                // backend over a server never routes (`with_store`).
                Refresh::Patch(_) => {}
            }
        }
        Ok(refresh)
    }

    fn tasks(&mut self) -> Result<Board, String> {
        if !self.store_root.exists() {
            return Ok(Board::default());
        }
        Store::board(&self.store_root).map_err(|e| e.to_string())
    }

    fn approve(&mut self, id: &str) -> Result<String, String> {
        let store = Store::open_existing(&self.store_root).map_err(|e| e.to_string())?;
        let done = review::approve(&store, id, REVIEWER).map_err(|e| e.to_string())?;
        Ok(amail_tui::backend::approved_sentence(id, &done.promoted))
    }

    fn reject(&mut self, id: &str, reason: &str) -> Result<String, String> {
        let store = Store::open_existing(&self.store_root).map_err(|e| e.to_string())?;
        review::reject(&store, id, reason, REVIEWER).map_err(|e| e.to_string())?;
        Ok(format!("{id} rejected: back in progress"))
    }

    fn mailbox(&mut self, agent: &str) -> Result<Mailbox, String> {
        match Store::open_existing(&self.store_root) {
            Ok(store) => store.mailbox(agent).map_err(|e| e.to_string()),
            Err(StoreError::Missing { .. }) => Ok(Mailbox {
                agent: agent.to_string(),
                ..Mailbox::default()
            }),
            Err(e) => Err(e.to_string()),
        }
    }

    fn ack(&mut self, inbox: &Inbox, keys: &[String], as_agent: &str) -> Result<usize, String> {
        let out = self
            .mail()?
            .ack(Some(inbox), keys, as_agent, Utc::now())
            .map_err(|e| e.to_string())?;
        Ok(out.iter().filter(|o| o.changed).count())
    }

    fn reply(
        &mut self,
        inbox: &Inbox,
        key: &str,
        as_agent: &str,
        body: &str,
    ) -> Result<(), String> {
        self.mail()?
            .reply(Some(inbox), key, as_agent, body, Utc::now())
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn mark_read(
        &mut self,
        inbox: &Inbox,
        keys: &[String],
        as_agent: &str,
    ) -> Result<usize, String> {
        let out = self
            .mail()?
            .mark_read(Some(inbox), keys, as_agent, Utc::now())
            .map_err(|e| e.to_string())?;
        Ok(out.iter().filter(|o| o.changed).count())
    }

    fn send(&mut self, inbox: &Inbox, draft: &amail_core::stores::Draft) -> Result<(), String> {
        self.mail()?
            .send(Some(inbox), draft, Utc::now())
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn poll_interval(&self) -> Option<std::time::Duration> {
        self.mail.as_ref().and_then(|m| m.poll_interval())
    }

    /// The store's paths and the task store's.
    fn watch_paths(&self) -> Vec<PathBuf> {
        let mut watch = match &self.mail {
            Some(mail) => mail.watch_paths(),
            None => vec![self.source.clone()],
        };
        // The task store is optional (`amail route` makes one): one that
        // is not there is nothing to watch, not a watch that failed.
        if self.store_root.is_dir() {
            watch.push(self.store_root.clone());
        }
        watch
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amail_core::inbox::SourceKind;

    /// Mail piped on stdin cannot be acked or marked read: the stdin
    /// store refuses every write itself (the backend keeps no copy of
    /// the rule), and its reason reaches the status bar.
    #[test]
    fn the_stdin_store_refusal_reaches_the_user() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = RealBackend::with_store(
            stores::for_source(&SourceKind::Stdin, 1024),
            dir.path().join("store"),
        );
        let inbox = amail_core::inbox::assemble(SourceKind::Stdin, Vec::new(), Vec::new());
        let keys = ["1".to_string()];
        let e = b.ack(&inbox, &keys, "BlueLake").unwrap_err();
        assert!(e.contains("read-only"), "{e}");
        let e = b.mark_read(&inbox, &keys, "BlueLake").unwrap_err();
        assert!(e.contains("stdin") || e.contains("read-only"), "{e}");
        let e = b.reply(&inbox, "1", "BlueLake", "hi").unwrap_err();
        assert!(e.contains("read-only"), "{e}");
    }

    /// A task store that is not there is nothing to watch: watched, it
    /// made the status bar of `amail inbox --server` (whose only watched
    /// path is the store) say "watch failed" while the server was polled
    /// fine. The mail's own paths stay.
    #[test]
    fn a_missing_task_store_is_not_watched() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        let paths = || {
            RealBackend::with_store(stores::for_source(&SourceKind::Stdin, 1024), store.clone())
                .watch_paths()
        };
        assert!(paths().is_empty(), "{:?}", paths());
        std::fs::create_dir(&store).unwrap();
        assert_eq!(paths(), vec![store.clone()]);
    }
}
