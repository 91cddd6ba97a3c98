//! The real [`Backend`]: `inbox::` for mail, acks and replies, `router::`
//! for the task board.
//!
//! With `route` on (the demo), every load also routes the mailbox through
//! the protocol router, so the board follows the mail, replies included;
//! the router's dedupe makes re-routing a no-op, and a per-session set of
//! routed keys keeps a reload from taking the store lock once per message.

use std::collections::HashSet;
use std::path::PathBuf;

use amail_core::inbox::{self, Inbox, LoadOptions, SourceKind};
use amail_core::router::{RouteOutcome, Router, RouterOptions, Store, TaskSummary};
use amail_tui::Backend;

pub struct RealBackend {
    source: PathBuf,
    opts: LoadOptions,
    store_root: PathBuf,
    router: Option<Router>,
    route: bool,
    routed: HashSet<String>,
    watch: Vec<PathBuf>,
}

impl RealBackend {
    /// `opts`: how to load `source` (database, size limit); `route`:
    /// route the mail into the store on every load (demo).
    pub fn new(source: PathBuf, opts: LoadOptions, store_root: PathBuf, route: bool) -> Self {
        let mut watch = vec![source.clone()];
        if let Some(db) = &opts.db {
            // SQLite writes the -wal beside the file: watch the folder.
            watch.push(db.parent().map(PathBuf::from).unwrap_or_else(|| db.clone()));
        }
        watch.push(store_root.clone());
        RealBackend {
            source,
            opts,
            store_root,
            router: None,
            route,
            routed: HashSet::new(),
            watch,
        }
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
        let todo: Vec<usize> = inbox
            .messages
            .iter()
            .enumerate()
            .filter(|(_, m)| !self.routed.contains(&m.key))
            .map(|(i, _)| i)
            .collect();
        if todo.is_empty() {
            return Ok(());
        }
        // Oldest first, as the mail was written, so transitions apply in order.
        let mut todo = todo;
        todo.sort_by_key(|&i| inbox.messages[i].message.timestamp);
        let router = self.router()?;
        for &i in &todo {
            match router.route(&amail_core::bridge::mail::routable(
                &inbox.messages[i].message,
            )) {
                Ok(RouteOutcome::Rejected(_)) | Ok(_) => {}
                Err(e) => return Err(format!("routing {}: {e}", inbox.messages[i].key)),
            }
        }
        router
            .store
            .checkpoint()
            .map_err(|e| format!("cannot flush the store: {e}"))?;
        for i in todo {
            self.routed.insert(inbox.messages[i].key.clone());
        }
        Ok(())
    }
}

impl Backend for RealBackend {
    fn describe(&self) -> String {
        self.source.display().to_string()
    }

    fn load(&mut self) -> Result<Inbox, String> {
        let inbox = inbox::load(&self.source, &self.opts).map_err(|e| e.to_string())?;
        if self.route {
            self.route_all(&inbox)?;
        }
        Ok(inbox)
    }

    /// A plain mailbox is patched with just the changed files
    /// (`inbox::incremental`); changes only in the task store need no mail
    /// read at all (the tasks are read after every reload); anything else
    /// is read again in full.
    fn reload(&mut self, inbox: &mut Inbox, changed: &[PathBuf]) -> Result<(), String> {
        let SourceKind::Mailbox { root } = &inbox.source else {
            *inbox = self.load()?;
            return Ok(());
        };
        let mail: Vec<PathBuf> = changed
            .iter()
            .filter(|p| p.starts_with(root) || !p.starts_with(&self.store_root))
            .cloned()
            .collect();
        if mail.is_empty() && !changed.is_empty() {
            return Ok(());
        }
        inbox::incremental::reload_changed(inbox, &mail, self.opts.max_bytes)
            .map_err(|e| e.to_string())?;
        if self.route {
            self.route_all(inbox)?;
        }
        Ok(())
    }

    fn tasks(&mut self) -> Result<Vec<TaskSummary>, String> {
        if !self.store_root.exists() {
            return Ok(Vec::new());
        }
        Store::board(&self.store_root).map_err(|e| e.to_string())
    }

    fn ack(&mut self, inbox: &Inbox, keys: &[String], as_agent: &str) -> Result<usize, String> {
        if matches!(inbox.source, SourceKind::Stdin) {
            return Err("mail piped on stdin is read-only".into());
        }
        let out = inbox::ack_loaded(inbox, keys, as_agent).map_err(|e| e.to_string())?;
        Ok(out.iter().filter(|o| o.changed).count())
    }

    fn reply(
        &mut self,
        inbox: &Inbox,
        key: &str,
        as_agent: &str,
        body: &str,
    ) -> Result<(), String> {
        inbox::reply_loaded(inbox, key, as_agent, body)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        self.watch.clone()
    }
}
