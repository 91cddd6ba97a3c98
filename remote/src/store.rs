//! [`ServerStore`]: the `MailStore` of a running server. Reads are the
//! server's tools and resources per project and agent; every write is one
//! of its tools; nothing is kept but what the last read returned and, per
//! agent, the newest message time seen (the `since_ts` of the next poll)
//! and whether only its first page is held yet (a paged store).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use amail_core::inbox::{
    assemble, intern, Inbox, InboxMessage, Name, Recipient, Recipients, SourceKind,
};
use amail_core::stores::reply_rule::{self, ReplyKind};
use amail_core::stores::{
    AckOutcome, Draft, Error, MailStore, Patch, ReadOutcome, Refresh, ReplyOutcome, ServerFailure,
};
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use crate::convert::{self, AgentInbox, Unacked};
use crate::session::{Request, ServerConfig, ServerError, Session};
use crate::toolset::Release;

/// How often the TUI polls: new mail shows within two seconds.
const POLL: Duration = Duration::from_secs(1);
/// What one `fetch_inbox` asks for: the whole inbox (0.3.x caps it at 1000).
const FETCH_LIMIT: i64 = 100_000;

/// How many of each agent's newest messages the first load of a paged
/// store reads (see [`ServerStore::paged`]).
pub const FIRST_PAGE: i64 = 50;

/// One agent inbox to read.
struct Fetch<'a> {
    project: &'a Project,
    agent: &'a str,
    since: Option<&'a str>,
    limit: i64,
}

/// A project as the server lists it.
#[derive(Debug, Clone)]
struct Project {
    slug: String,
    agents: Vec<String>,
}

#[derive(Debug, Default)]
struct State {
    /// Newest `created_ts` seen per (project slug, agent), as the server wrote it.
    newest: HashMap<(String, String), (DateTime<Utc>, String)>,
    /// Agents of whom only the first page is held (slug, agent), oldest
    /// first in line to be read whole by the next reload.
    partial: Vec<(String, String)>,
    /// A load has succeeded: a refresh asks only for what is new.
    loaded: bool,
    /// The ack views' answer at the load or the last poll since: a poll
    /// that fetched nothing new and finds them the same changed nothing,
    /// and one that did changes only the acks that differ.
    unacked: Option<Unacked>,
    /// (message id, agent) this store acked, and those it marked read
    /// (an ack reads too): a second ack or read of one of them changed
    /// nothing, whatever the inbox the caller holds says (`amail ack 7 7`
    /// judged both by the state loaded before the first).
    acked: HashSet<(String, String)>,
    read: HashSet<(String, String)>,
}

/// What one poll fetched ([`ServerStore`]'s refresh), for an inbox loaded
/// from the same server. Made on the worker that read it, applied in the
/// TUI's `update` (the UI thread), so the apply costs what the poll
/// brought, not the inbox.
#[derive(Debug)]
struct Polled {
    url: String,
    /// The fetched messages, one per id, each with the recipients whose
    /// inboxes returned it.
    messages: Vec<InboxMessage>,
    problems: Vec<(PathBuf, String)>,
    unacked: Unacked,
    /// The acks whose view changed since the load or the last poll:
    /// (project, agent, id, listed as unacknowledged now); `None` when a
    /// view is new, and every held message is read again.
    changed_acks: Option<Vec<(Name, Name, i64, bool)>>,
}

impl Patch for Polled {
    /// Adds the new messages, takes the fetched recipients' state of those
    /// held and the acks the views changed, through the inbox's patch (in
    /// proportion to the poll); where it cannot patch exactly, every held
    /// message is folded with the fetched ones and threaded again.
    fn apply(&self, inbox: &mut Inbox) -> bool {
        if !matches!(&inbox.source, SourceKind::Server { url } if *url == self.url) {
            return false;
        }
        if !self.patch(inbox) {
            let held = std::mem::take(&mut inbox.messages);
            let mut messages = convert::fold(held, self.messages.clone());
            convert::refresh_acks(&mut messages, &self.unacked);
            let problems = std::mem::take(&mut inbox.problems);
            // Checked above to be this server.
            let source = inbox.source.clone();
            *inbox = assemble(source, messages, problems);
        }
        inbox.problems.extend(self.problems.iter().cloned());
        true
    }
}

impl Polled {
    /// The poll as a patch of `inbox`: new messages added, held ones'
    /// recipients restated (fetched state, then the views' changes);
    /// false, with `inbox` untouched, when it cannot be done exactly.
    fn patch(&self, inbox: &mut Inbox) -> bool {
        let Some(changed_acks) = &self.changed_acks else {
            return false;
        };
        let mut added = Vec::new();
        let mut restated: HashMap<&str, Recipients> = HashMap::new();
        for m in &self.messages {
            match inbox.message_by_key(&m.key) {
                Some(held) => {
                    let recipients = restated
                        .entry(held.key.as_str())
                        .or_insert_with(|| held.recipients.clone());
                    for r in &m.recipients {
                        convert::take_state_in(recipients, r.clone());
                    }
                }
                None => added.push(m.clone()),
            }
        }
        for &(project, agent, id, listed) in changed_acks {
            // A message new in this poll took its view when it was read.
            let Some(held) = inbox.message_by_key(&id.to_string()) else {
                continue;
            };
            if !held.message.ack_required || held.project != Some(project) {
                continue;
            }
            let recipients = restated
                .entry(held.key.as_str())
                .or_insert_with(|| held.recipients.clone());
            if let Some(r) = recipients.iter_mut().find(|r| r.agent == agent) {
                convert::view_state(r, held.message.timestamp, listed);
            }
        }
        let restated: Vec<(String, Vec<Recipient>)> = restated
            .into_iter()
            .filter(|(key, recipients)| {
                inbox
                    .message_by_key(key)
                    .is_some_and(|held| held.recipients != *recipients)
            })
            .map(|(key, recipients)| (key.to_string(), recipients.to_vec()))
            .collect();
        inbox.patch(added, restated)
    }
}

/// A running mcp_agent_mail server as a `MailStore`.
pub struct ServerStore {
    session: Session,
    state: Mutex<State>,
    /// How many of each agent's newest messages a load reads, when it
    /// reads only a first page (the TUI).
    first_page: Option<i64>,
}

/// A server's error as a store's: its sentence, and how the asking failed
/// for whoever shows the link's state (the inbox's status bar).
impl From<ServerError> for Error {
    fn from(e: ServerError) -> Error {
        let failure = match e {
            ServerError::Unauthorized { .. } | ServerError::Forbidden { .. } => {
                ServerFailure::Refused
            }
            ServerError::Unreachable { .. }
            | ServerError::Dropped { .. }
            | ServerError::UnknownHost { .. }
            | ServerError::Timeout { .. } => ServerFailure::Unreachable,
            ServerError::Tool { .. }
            | ServerError::TooOld { .. }
            | ServerError::Protocol { .. }
            | ServerError::Tls { .. } => ServerFailure::Answered,
        };
        Error::Server {
            message: e.to_string(),
            failure,
        }
    }
}

impl ServerStore {
    /// A store for the server `config` names; nothing is sent until the
    /// first read or write.
    pub fn new(config: ServerConfig) -> Result<ServerStore, Error> {
        Ok(ServerStore {
            session: Session::new(config).map_err(Error::from)?,
            state: Mutex::new(State::default()),
            first_page: None,
        })
    }

    /// Says where the bearer token came from, for the line of a server
    /// that refuses it ([`Session::with_token_from`]).
    pub fn with_token_from(mut self, from: impl Into<String>) -> ServerStore {
        self.session = self.session.with_token_from(from);
        self
    }

    /// A store whose [`load`](MailStore::load) reads each agent's
    /// `first_page` newest messages only (the TUI: [`FIRST_PAGE`]), so the first frame does not
    /// wait for the whole of a large server (the Python server spends
    /// about half a second per thousand messages of one agent); each
    /// later [`reload`](MailStore::reload) (the TUI's poll) reads one
    /// partly read agent whole, until all are. For the TUI: the commands
    /// need the whole inbox at once and use [`ServerStore::new`] alone.
    pub fn paged(mut self, first_page: i64) -> ServerStore {
        self.first_page = Some(first_page.max(1));
        self
    }

    /// Every agent's inbox is held whole (not only its first page).
    pub fn complete(&self) -> bool {
        self.state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .partial
            .is_empty()
    }

    fn url(&self) -> &str {
        &self.session.config().url
    }

    /// The projects to read, with their agents.
    fn projects(&self) -> Result<Vec<Project>, Error> {
        let listed = self
            .session
            .read("resource://projects")
            .map_err(Error::from)?;
        let all: Vec<(String, String)> = listed
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|p| {
                        Some((
                            p.get("slug")?.as_str()?.to_string(),
                            p.get("human_key")?.as_str()?.to_string(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let chosen: Vec<(String, String)> = match &self.session.config().project {
            None => all,
            Some(want) => {
                let hit: Vec<_> = all
                    .iter()
                    .filter(|(s, k)| s == want || k == want)
                    .cloned()
                    .collect();
                if hit.is_empty() {
                    let names: Vec<&str> = all.iter().map(|(s, _)| s.as_str()).collect();
                    return Err(Error::Source(format!(
                        "{}: no project {want} on this server (projects: {}); give --project with one of them",
                        self.url(),
                        if names.is_empty() { "none".into() } else { names.join(", ") }
                    )));
                }
                hit
            }
        };
        let requests = chosen
            .iter()
            .map(|(slug, _)| Request::Read {
                uri: format!("resource://agents/{slug}"),
            })
            .collect();
        chosen
            .into_iter()
            .zip(self.session.batch(requests))
            .map(|((slug, _human_key), listed)| {
                let v = listed.map_err(Error::from)?;
                let agents = v
                    .get("agents")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.get("name").and_then(Value::as_str))
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                Ok(Project { slug, agents })
            })
            .collect()
    }

    /// Agents' inboxes (each newer than its `since` when given, at most
    /// `limit` newest), with their not-yet-acknowledged ids: two requests
    /// per agent, all sent at once (see [`Session::batch`]).
    fn fetch(&self, wanted: &[Fetch<'_>]) -> Result<Vec<AgentInbox>, Error> {
        // 0.3.x refuses more than its cap: ask for at most that.
        let cap = match self.session.tools() {
            Ok(t) if t.release() == Release::V03 => convert::V03_CAP,
            _ => i64::MAX,
        };
        let mut requests = Vec::with_capacity(wanted.len() * 2);
        for w in wanted {
            let mut args = Map::new();
            args.insert("project_key".into(), json!(w.project.slug));
            args.insert("agent_name".into(), json!(w.agent));
            args.insert("include_bodies".into(), json!(true));
            args.insert("limit".into(), json!(w.limit.min(cap)));
            if let Some(s) = w.since {
                args.insert("since_ts".into(), json!(s));
            }
            requests.push(Request::Call {
                tool: "fetch_inbox".into(),
                args,
            });
            requests.push(Request::Read {
                uri: ack_view(w.agent, &w.project.slug),
            });
        }
        let mut answers = self.session.batch(requests).into_iter();
        let mut out = Vec::with_capacity(wanted.len());
        for w in wanted {
            let (Some(fetched), Some(view)) = (answers.next(), answers.next()) else {
                break;
            };
            let items = match fetched.map_err(Error::from)? {
                Value::Array(a) => a,
                Value::Object(mut o) => match o.remove("messages") {
                    Some(Value::Array(a)) => a,
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            };
            // The ack-required messages the agent has not acknowledged,
            // from the server's view; `None` when the server has no such
            // view (the Rust port's payloads carry `ack_ts` instead).
            let unacked = match view {
                Ok(v) => Some(listed(&v)),
                Err(e) if e.is_connection() => return Err(Error::from(e)),
                Err(_) => None,
            };
            out.push(AgentInbox {
                project: w.project.slug.clone(),
                agent: w.agent.to_string(),
                capped: w.limit > cap && items.len() as i64 >= cap,
                items,
                unacked,
            });
        }
        Ok(out)
    }

    fn remember(&self, inboxes: &[AgentInbox]) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        for inbox in inboxes {
            for item in &inbox.items {
                let (Some(t), Some(raw)) = (
                    convert::time_of(item, "created_ts"),
                    item.get("created_ts").and_then(Value::as_str),
                ) else {
                    continue;
                };
                let key = (inbox.project.clone(), inbox.agent.clone());
                let newer = st.newest.get(&key).is_none_or(|(old, _)| t > *old);
                if newer {
                    st.newest.insert(key, (t, raw.to_string()));
                }
            }
        }
    }

    fn build(&self, messages: Vec<InboxMessage>, problems: Vec<(PathBuf, String)>) -> Inbox {
        assemble(self.source(), messages, problems)
    }

    /// What an inbox loaded here comes from (and how it matches names:
    /// [`SourceKind::same_agent`]).
    fn source(&self) -> SourceKind {
        SourceKind::Server {
            url: self.url().to_string(),
        }
    }

    /// The message `key` and its project from `inbox`, or from a fresh
    /// load when the caller has none.
    fn find(&self, inbox: Option<&Inbox>, key: &str) -> Result<(InboxMessage, String), Error> {
        let loaded;
        let inbox = match inbox {
            Some(i) if i.message_by_key(key).is_some() => i,
            _ => {
                loaded = self.load()?;
                &loaded
            }
        };
        let m = inbox
            .message_by_key(key)
            .ok_or_else(|| self.not_found(key).near_miss(inbox.keys()))?;
        let project = m.project.unwrap_or_default().to_string();
        Ok((m.clone(), project))
    }

    fn recipient_check(&self, m: &InboxMessage, agent: &str) -> Result<String, Error> {
        let source = self.source();
        match m
            .recipients
            .iter()
            .find(|r| source.same_agent(&r.agent, agent))
        {
            Some(r) => Ok(r.agent.to_string()),
            None => Err(Error::not_recipient(
                &m.key,
                agent,
                m.recipients.iter().map(|r| r.agent.as_str()),
                source.ignores_case(),
            )),
        }
    }

    /// Calls `tool` (ack, mark read) on message `key` for its recipient
    /// `as_agent`: the recipient's name as the message spells it, their
    /// state before the call, and the server's answer.
    fn call_as_recipient(
        &self,
        inbox: Option<&Inbox>,
        key: &str,
        as_agent: &str,
        tool: &str,
    ) -> Result<(String, Option<Recipient>, Value), Error> {
        let (m, project, agent) = self.resolve(inbox, key, as_agent)?;
        let v = self.call_tool_as(key, &project, &agent, tool)?;
        Ok((agent.clone(), before(&m, &agent), v))
    }

    /// Message `key`, its project, and its recipient `as_agent` as the
    /// message spells the name.
    fn resolve(
        &self,
        inbox: Option<&Inbox>,
        key: &str,
        as_agent: &str,
    ) -> Result<(InboxMessage, String, String), Error> {
        let (m, project) = self.find(inbox, key)?;
        let agent = self.recipient_check(&m, as_agent)?;
        Ok((m, project, agent))
    }

    /// `tool` on message `key` of `project` for its recipient `agent`.
    fn call_tool_as(
        &self,
        key: &str,
        project: &str,
        agent: &str,
        tool: &str,
    ) -> Result<Value, Error> {
        let mut args = Map::new();
        args.insert("project_key".into(), json!(project));
        args.insert("agent_name".into(), json!(agent));
        args.insert("message_id".into(), json!(key.parse::<i64>().unwrap_or(-1)));
        self.session.call(tool, args).map_err(Error::from)
    }

    /// The ids each (project, agent) of `pairs` has yet to acknowledge,
    /// by the server's ack views read now, in one round of requests. A
    /// pair whose view the server lacks (the Rust port's) is left out:
    /// nothing is known of it beyond the inbox held.
    fn unacked_now(
        &self,
        pairs: impl Iterator<Item = (String, String)>,
    ) -> Result<HashMap<(String, String), HashSet<i64>>, Error> {
        let mut pairs: Vec<(String, String)> = pairs.collect();
        pairs.sort();
        pairs.dedup();
        if pairs.is_empty() {
            return Ok(HashMap::new());
        }
        let requests = pairs
            .iter()
            .map(|(project, agent)| Request::Read {
                uri: ack_view(agent, project),
            })
            .collect();
        let mut out = HashMap::new();
        for (pair, view) in pairs.into_iter().zip(self.session.batch(requests)) {
            match view {
                Ok(v) => {
                    out.insert(pair, listed(&v));
                }
                Err(e) if e.is_connection() => return Err(Error::from(e)),
                Err(_) => {}
            }
        }
        Ok(out)
    }

    fn time_field(&self, v: &Value, key: &str, tool: &str) -> Result<DateTime<Utc>, Error> {
        convert::time_of(v, key).ok_or_else(|| {
            Error::from(ServerError::Protocol {
                url: self.url().to_string(),
                detail: format!("{tool} returned no {key}: {v}"),
            })
        })
    }
}

/// The server's view of the ack-required messages `agent` of project
/// `slug` has not acknowledged.
fn ack_view(agent: &str, slug: &str) -> String {
    format!("resource://views/ack-required/{agent}?project={slug}&limit={FETCH_LIMIT}")
}

/// Recipient `agent`'s state on `m` before a call changes it.
fn before(m: &InboxMessage, agent: &str) -> Option<Recipient> {
    m.recipients.iter().find(|r| r.agent == agent).cloned()
}

/// The ids an ack view lists.
fn listed(view: &Value) -> HashSet<i64> {
    view.get("messages")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(convert::id_of).collect())
        .unwrap_or_default()
}

/// The ack views the agents' inboxes came with, by interned (project,
/// agent).
fn views(inboxes: &[AgentInbox]) -> Unacked {
    inboxes
        .iter()
        .filter_map(|i| {
            let set = i.unacked.clone()?;
            Some(((intern(&i.project), intern(&i.agent)), set))
        })
        .collect()
}

/// The message payload of a send or reply result (0.1.0 and 0.2.x wrap it
/// in `deliveries`).
fn payload(v: &Value) -> &Value {
    v.get("deliveries")
        .and_then(|d| d.get(0))
        .and_then(|d| d.get("payload"))
        .unwrap_or(v)
}

fn outcome(v: &Value, from: &str, fallback_to: &[String]) -> ReplyOutcome {
    let p = payload(v);
    let strings = |k: &str| -> Option<Vec<String>> {
        p.get(k)?.as_array().map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
    };
    ReplyOutcome {
        key: convert::id_of(p).map(|i| i.to_string()).unwrap_or_default(),
        from: p
            .get("from")
            .and_then(Value::as_str)
            .unwrap_or(from)
            .to_string(),
        thread: p
            .get("thread_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        subject: p
            .get("subject")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        to: strings("to").unwrap_or_else(|| fallback_to.to_vec()),
        paths: Vec::new(),
        // The server commits its own archive.
        committed: false,
    }
}

impl MailStore for ServerStore {
    fn describe(&self) -> String {
        self.url().to_string()
    }

    fn not_found(&self, key: &str) -> Error {
        Error::not_found(key, self.url(), format!("--server {}", self.url()))
    }

    fn load(&self) -> Result<Inbox, Error> {
        let projects = self.projects()?;
        let limit = self.first_page.unwrap_or(FETCH_LIMIT);
        let wanted: Vec<Fetch<'_>> = projects
            .iter()
            .flat_map(|p| {
                p.agents.iter().map(move |agent| Fetch {
                    project: p,
                    agent,
                    since: None,
                    limit,
                })
            })
            .collect();
        let inboxes = self.fetch(&wanted)?;
        let (messages, problems) = convert::merge(&inboxes);
        let unacked = views(&inboxes);
        let partial = inboxes
            .iter()
            .filter(|i| self.first_page.is_some() && i.items.len() as i64 >= limit)
            .map(|i| (i.project.clone(), i.agent.clone()))
            .collect();
        {
            let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
            st.newest.clear();
            st.partial = partial;
            st.loaded = true;
            // The views this load's messages took: the first poll changes
            // only what differs from them.
            st.unacked = Some(unacked);
        }
        self.remember(&inboxes);
        Ok(self.build(messages, problems))
    }

    /// What [`refresh`](MailStore::refresh) fetches, applied: `inbox` is
    /// replaced only when all of it was read (see `Polled::apply`).
    fn reload(&self, inbox: &mut Inbox, changed: &[PathBuf]) -> Result<(), Error> {
        // An inbox from elsewhere is replaced: no poll to fetch and throw away.
        let ours = matches!(&inbox.source, SourceKind::Server { url } if url == self.url());
        if !ours || !self.refresh(changed)?.apply(inbox) {
            *inbox = self.load()?;
        }
        Ok(())
    }

    /// Asks each agent's inbox only for mail newer than the newest seen
    /// (`since_ts`), and the ack views for acks made elsewhere; agents new
    /// to the server are read whole, and so is the first agent of whom a
    /// paged load read only the first page. Before any load it loads.
    fn refresh(&self, _changed: &[PathBuf]) -> Result<Refresh, Error> {
        let (newest, whole) = {
            let st = self.state.lock().unwrap_or_else(|p| p.into_inner());
            if !st.loaded {
                drop(st);
                return Ok(Refresh::Whole(self.load()?));
            }
            (st.newest.clone(), st.partial.first().cloned())
        };
        let projects = self.projects()?;
        let wanted: Vec<Fetch<'_>> = projects
            .iter()
            .flat_map(|p| {
                let (newest, whole) = (&newest, &whole);
                p.agents.iter().map(move |agent| {
                    let key = (p.slug.clone(), agent.clone());
                    let since = match whole {
                        Some(w) if *w == key => None,
                        _ => newest.get(&key).map(|(_, raw)| raw.as_str()),
                    };
                    Fetch {
                        project: p,
                        agent,
                        since,
                        limit: FETCH_LIMIT,
                    }
                })
            })
            .collect();
        let inboxes = self.fetch(&wanted)?;
        let unacked = views(&inboxes);
        // Parsed here, on the caller's reading thread; only the merge is
        // left for `apply`.
        let (messages, problems) = convert::merge(&inboxes);
        self.remember(&inboxes);
        {
            let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(w) = whole {
                st.partial.retain(|p| *p != w);
            }
            // Nothing new and no ack made elsewhere: the inbox on screen
            // is not threaded again (on the UI thread) for a quiet poll.
            let changed_acks = st
                .unacked
                .as_ref()
                .and_then(|before| convert::view_changes(before, &unacked));
            let quiet = messages.is_empty()
                && problems.is_empty()
                && changed_acks.as_ref().is_some_and(Vec::is_empty);
            st.unacked = Some(unacked.clone());
            if quiet {
                return Ok(Refresh::Unchanged);
            }
            Ok(Refresh::Patch(Arc::new(Polled {
                url: self.url().to_string(),
                messages,
                problems,
                unacked,
                changed_acks,
            })))
        }
    }

    /// Whether an ack is new is the server's to say, as the journal or
    /// the database says it on files; but its `acknowledge_message`
    /// answers a repeat with the first ack's time and no flag, and that
    /// time is on the server's clock, which amail cannot compare with its
    /// own. So the ack views of the recipients are read first, at once,
    /// and an ack-required message they no longer list was acked before
    /// this call, by another process (or an agent) since `inbox` was read.
    fn ack(
        &self,
        inbox: Option<&Inbox>,
        keys: &[String],
        as_agent: &str,
        _now: DateTime<Utc>,
    ) -> Result<Vec<AckOutcome>, Error> {
        // Each key resolved first; an error is met at its turn, after the
        // acks before it, as the trait says.
        let resolved: Vec<Result<(InboxMessage, String, String), Error>> = keys
            .iter()
            .map(|key| self.resolve(inbox, key, as_agent))
            .collect();
        let unacked = self.unacked_now(
            resolved
                .iter()
                .flatten()
                .filter(|(m, _, _)| m.message.ack_required)
                .map(|(_, project, agent)| (project.clone(), agent.clone())),
        )?;
        let mut out = Vec::new();
        for (key, resolved) in keys.iter().zip(resolved) {
            let (m, project, agent) = resolved?;
            let before = before(&m, &agent);
            let acked_before = m.message.ack_required
                && key.parse::<i64>().is_ok_and(|id| {
                    unacked
                        .get(&(project.clone(), agent.clone()))
                        .is_some_and(|listed| !listed.contains(&id))
                });
            let v = self.call_tool_as(key, &project, &agent, "acknowledge_message")?;
            let ack_at = self.time_field(&v, "acknowledged_at", "acknowledge_message")?;
            let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
            let first = st.acked.insert((key.clone(), agent.clone()));
            st.read.insert((key.clone(), agent.clone()));
            drop(st);
            out.push(AckOutcome {
                key: key.clone(),
                agent,
                ack_at,
                read_at: convert::time_of(&v, "read_at"),
                changed: first && before.and_then(|r| r.ack_at).is_none() && !acked_before,
            });
        }
        Ok(out)
    }

    fn mark_read(
        &self,
        inbox: Option<&Inbox>,
        keys: &[String],
        as_agent: &str,
        _now: DateTime<Utc>,
    ) -> Result<Vec<ReadOutcome>, Error> {
        let mut out = Vec::new();
        for key in keys {
            let (agent, before, v) =
                self.call_as_recipient(inbox, key, as_agent, "mark_message_read")?;
            let read_at = self.time_field(&v, "read_at", "mark_message_read")?;
            let first = self
                .state
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .read
                .insert((key.clone(), agent.clone()));
            out.push(ReadOutcome {
                key: key.clone(),
                agent,
                read_at,
                changed: first && before.and_then(|r| r.read_at).is_none(),
            });
        }
        Ok(out)
    }

    /// The reply rule is amail's one rule (`reply_rule`), so a reply reads
    /// the same through the server as written directly; the server's
    /// `reply_message` writes it, to the recipients the rule names.
    fn reply(
        &self,
        inbox: Option<&Inbox>,
        key: &str,
        as_agent: &str,
        body: &str,
        _now: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error> {
        if body.trim().is_empty() {
            return Err(Error::Invalid(
                "the reply body is empty: give --body TEXT or pipe it on stdin".into(),
            ));
        }
        if as_agent.trim().is_empty() {
            return Err(Error::Invalid("--as AGENT is empty".into()));
        }
        let (m, project) = self.find(inbox, key)?;
        let plan = reply_rule::plan_for(&self.source(), &m, as_agent)?;
        let body_md = match plan.kind {
            ReplyKind::HelpResponse => reply_rule::help_response_body(body),
            ReplyKind::Plain => reply_rule::body_text(body).to_string(),
        };
        let mut args = Map::new();
        args.insert("project_key".into(), json!(project));
        args.insert("message_id".into(), json!(key.parse::<i64>().unwrap_or(-1)));
        args.insert("sender_name".into(), json!(plan.from));
        args.insert("body_md".into(), json!(body_md));
        args.insert("to".into(), json!(plan.to));
        let v = self
            .session
            .call("reply_message", args)
            .map_err(Error::from)?;
        Ok(outcome(&v, &plan.from, &plan.to))
    }

    /// `send_message` in the project holding the sender and every
    /// recipient (or `--project`).
    fn send(
        &self,
        _inbox: Option<&Inbox>,
        draft: &Draft,
        _now: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error> {
        if draft.to.is_empty() {
            return Err(Error::Invalid(
                "a message needs at least one recipient".into(),
            ));
        }
        let projects = self.projects()?;
        let source = self.source();
        let holds = |p: &Project, name: &str| p.agents.iter().any(|a| source.same_agent(a, name));
        let fits: Vec<&Project> = projects
            .iter()
            .filter(|p| holds(p, &draft.from) && draft.to.iter().all(|t| holds(p, t)))
            .collect();
        let project = match fits.as_slice() {
            [one] => *one,
            [] => {
                return Err(Error::Rejected(format!(
                    "{}: no project has {} and {} as agents; register them on the server, \
                     or give --project",
                    self.url(),
                    draft.from,
                    draft.to.join(", ")
                )))
            }
            many => {
                return Err(Error::Rejected(format!(
                    "{}: {} and {} are agents of several projects ({}): give --project",
                    self.url(),
                    draft.from,
                    draft.to.join(", "),
                    many.iter()
                        .map(|p| p.slug.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        };
        let mut subject = String::new();
        if let Some(b) = &draft.bead {
            subject.push_str(&format!("[{b}] "));
        }
        if let Some(k) = &draft.kind {
            subject.push_str(k);
            if !draft.subject.trim().is_empty() {
                subject.push_str(": ");
            }
        }
        subject.push_str(draft.subject.trim());
        let body_md = match &draft.kind {
            Some(k) => format!("{k}\n\n{}", reply_rule::body_text(&draft.body)),
            None => reply_rule::body_text(&draft.body).to_string(),
        };
        let mut args = Map::new();
        args.insert("project_key".into(), json!(project.slug));
        args.insert("sender_name".into(), json!(draft.from));
        args.insert("to".into(), json!(draft.to));
        args.insert("subject".into(), json!(subject.trim()));
        args.insert("body_md".into(), json!(body_md));
        args.insert(
            "importance".into(),
            json!(draft.importance.as_deref().unwrap_or("normal")),
        );
        args.insert("ack_required".into(), json!(draft.ack_required));
        if let Some(t) = draft.thread.as_ref().or(draft.bead.as_ref()) {
            args.insert("thread_id".into(), json!(t));
        }
        let v = self
            .session
            .call("send_message", args)
            .map_err(Error::from)?;
        Ok(outcome(&v, &draft.from, &draft.to))
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        Vec::new()
    }

    fn poll_interval(&self) -> Option<Duration> {
        Some(POLL)
    }
}
