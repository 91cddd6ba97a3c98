//! Backend work off the UI thread: loading, acks, replies (and the routing
//! a real backend does while loading) run on one worker thread that owns
//! the [`Backend`], and come back to the event loop as the same [`Msg`]s
//! [`execute`] returns, so `update` cannot tell the difference. A slow
//! disk or a locked database then shows "working" in the status bar while
//! keys keep working, instead of a frozen screen.
//!
//! A load reports how many files it has read, of how many and how fast,
//! every 100 ms ([`Msg::Progress`]), for the status bar. A load onto an
//! empty screen (the first one) also hands over a browsable inbox of the
//! newest messages as it goes ([`Msg::Partial`], from
//! [`Backend::load_in_steps`]), so a large mailbox shows its newest
//! threads, and keys work on them, long before the whole inbox is read; a
//! load over an inbox already on screen (after an ack, `R`) swaps the
//! whole new one in at the end instead of shrinking the screen to a step.
//!
//! One thread, jobs in order: a reply is written before the load it asks
//! for, as when they ran inline. An ack or reply takes only the messages it
//! names ([`Inbox::subset`]) to the worker, never a copy of the inbox.
//!
//! The incremental reload after a watched file changes is split: the
//! worker reads the changed files ([`Backend::refresh`]: the disk, the
//! journal, the router), and `update` applies what they hold to the inbox
//! on screen, in memory and in proportion to the change (the patch), so
//! the inbox is never copied and the screen never waits for a disk. A
//! reload asked while the worker is busy queues behind its job (the patch
//! matches the inbox by path when it arrives). A store that is polled (a
//! server) answers the same way: its refresh fetches what is new on the
//! worker and hands back a patch (`Refresh::Patch`) that `update` merges
//! into the inbox on screen. Every poll is a network call that may wait
//! for its timeout, so a poll that finds the worker busy is dropped (the
//! next one catches up), and a load over a server's inbox on screen is
//! such a refresh too (see [`Worker::dispatch`]).

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use amail_core::inbox::{Inbox, SourceKind};

use super::backend::{execute, Backend};
use super::msg::{Command, Msg};

/// The backend, shared by the worker and the event loop's in-place reload.
type Shared = Arc<Mutex<Box<dyn Backend + Send>>>;

/// A command and the messages it needs, on its way to the worker.
struct Job {
    cmd: Command,
    inbox: Inbox,
    /// A load hands out partial inboxes as it goes.
    steps: bool,
}

/// The worker thread and the jobs in flight.
pub struct Worker {
    backend: Shared,
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
    in_flight: usize,
    /// Writes the user asked for (acks, replies, sends, reviews) handed to
    /// the worker and not yet done: quitting waits for these only.
    writes: Arc<AtomicUsize>,
    /// The backend is polled over the network (see the module doc).
    remote: bool,
}

impl Worker {
    /// Starts the worker; each job's outcome goes to `report`.
    pub fn spawn(backend: Box<dyn Backend + Send>, report: impl Fn(Msg) + Send + 'static) -> Self {
        let remote = backend.poll_interval().is_some();
        let backend: Shared = Arc::new(Mutex::new(backend));
        let (tx, rx) = mpsc::channel::<Job>();
        let shared = Arc::clone(&backend);
        let writes = Arc::new(AtomicUsize::new(0));
        let written = Arc::clone(&writes);
        let thread = std::thread::Builder::new()
            .name("amail-backend".into())
            .spawn(move || {
                for mut job in rx {
                    let mut b = shared.lock().unwrap_or_else(PoisonError::into_inner);
                    let write = job.cmd.writes();
                    let msg = match job.cmd {
                        Command::Load => Some(load(&mut **b, &report, job.steps)),
                        cmd => execute(&mut **b, &mut job.inbox, cmd),
                    };
                    if write {
                        written.fetch_sub(1, Ordering::SeqCst);
                    }
                    if let Some(msg) = msg {
                        drop(b);
                        report(msg);
                    }
                }
            })
            .expect("spawn the backend worker");
        Worker {
            backend,
            jobs: Some(tx),
            thread: Some(thread),
            in_flight: 0,
            writes,
            remote,
        }
    }

    /// Something the worker was asked to do has not reported yet: what,
    /// for the status bar.
    pub fn busy(&self) -> bool {
        self.in_flight > 0
    }

    /// Runs `f` on the backend from the event loop (describe, watch
    /// paths), waiting for the worker if it holds it.
    pub fn with_backend<R>(&self, f: impl FnOnce(&mut dyn Backend) -> R) -> R {
        let mut b = self.backend.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut **b)
    }

    /// Hands `cmd` to the worker; its outcome arrives later through
    /// `report`. Returns `None` (kept for callers that handled an inline
    /// outcome). Editor and Quit are the runtime's.
    pub fn dispatch(&mut self, inbox: &mut Inbox, cmd: Command) -> Option<Msg> {
        // A load onto an empty screen shows the newest part as it goes.
        let steps = cmd == Command::Load && !self.remote && inbox.messages.is_empty();
        let (cmd, inbox) = match cmd {
            Command::Reload { .. } if self.remote && self.in_flight > 0 => return None,
            // A server's inbox on screen is brought up to date, not read
            // again whole: after a send or a manual reload the polled
            // store asks only for what is new (and the TUI's paged store
            // keeps what it already holds, not just the first page).
            Command::Load if self.remote && matches!(inbox.source, SourceKind::Server { .. }) => {
                let cmd = Command::Reload {
                    changed: Vec::new(),
                };
                (cmd, inbox.subset(&[]))
            }
            // The messages written to, and those that decide the keys
            // and thread they are recorded under (a folder above
            // mailboxes: `stores::mailbox::write_context`).
            Command::Ack { ref keys, .. } | Command::MarkRead { ref keys, .. } => {
                let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                let keys = amail_core::stores::mailbox::write_context(inbox, &keys);
                let inbox = inbox.subset(&keys);
                (cmd, inbox)
            }
            Command::Reply { ref key, .. } => {
                let keys = amail_core::stores::mailbox::write_context(inbox, &[key.as_str()]);
                let inbox = inbox.subset(&keys);
                (cmd, inbox)
            }
            // A new message needs the messages that say which mailbox it
            // goes into, when a folder above mailboxes is open (none
            // else: the draft names its recipients).
            Command::Send(ref draft) => {
                let keys = amail_core::stores::mailbox::send_context(inbox, draft);
                let inbox = inbox.subset(&keys);
                (cmd, inbox)
            }
            // A file to show and the task store's review and queues need
            // none of the inbox: they name their path, task or agent.
            Command::Reload { .. }
            | Command::ReadFile { .. }
            | Command::Load
            | Command::Approve { .. }
            | Command::Reject { .. }
            | Command::Mailbox { .. } => (cmd, inbox.subset(&[])),
            Command::Editor { .. } | Command::Suspend | Command::Quit => return None,
        };
        if let Some(jobs) = &self.jobs {
            let write = cmd.writes();
            if write {
                self.writes.fetch_add(1, Ordering::SeqCst);
            }
            if jobs.send(Job { cmd, inbox, steps }).is_ok() {
                self.in_flight += 1;
            } else if write {
                self.writes.fetch_sub(1, Ordering::SeqCst);
            }
        }
        None
    }

    /// Ends with the writes still out left to the process's end, not
    /// waited for as dropping the worker waits: a forced quit waited its
    /// while, and said that they may not have landed.
    pub fn leave(mut self) {
        self.thread = None;
    }

    /// A job's report reached the event loop.
    pub fn reported(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }
}

/// How often a load reports its progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// A load that reports files done, in all and per second as it goes, and
/// with `steps` the partial inboxes (each after a progress report that
/// counts it, so the status bar never shows threads without the count).
fn load(backend: &mut dyn Backend, report: &impl Fn(Msg), steps: bool) -> Msg {
    let start = Instant::now();
    let last = Cell::new(start);
    let latest = Cell::new((0, 0));
    let tell = |done: usize, total: usize, now: Instant| {
        last.set(now);
        let secs = (now - start).as_secs_f64();
        report(Msg::Progress {
            done,
            total,
            per_sec: (done as f64 / secs) as u64,
        });
    };
    let progress = |done: usize, total: usize| {
        latest.set((done, total));
        let now = Instant::now();
        if now - last.get() >= PROGRESS_EVERY {
            tell(done, total, now);
        }
    };
    let partial = |inbox: Inbox| {
        let (done, total) = latest.get();
        tell(done, total, Instant::now());
        report(Msg::Partial(Box::new(inbox)));
    };
    let inbox = if steps {
        backend.load_in_steps(&progress, &partial)
    } else {
        backend.load_with_progress(&progress)
    };
    Msg::Loaded {
        inbox,
        tasks: backend.tasks(),
    }
}

impl Drop for Worker {
    /// Waits while a write the user asked for is in hand or queued (an
    /// ack or a reply half written, or never written, is worse than a slow
    /// quit); otherwise leaves the worker to end with the process: a load
    /// or a reload only reads (the demo's routing into its task store is
    /// atomic per message, and routing again is idempotent), and a
    /// million-message load held `q` for seconds.
    fn drop(&mut self) {
        self.jobs = None;
        let thread = self.thread.take();
        if self.writes.load(Ordering::SeqCst) > 0 {
            if let Some(t) = thread {
                let _ = t.join();
            }
        }
    }
}

impl Msg {
    /// The outcome of a job the worker ran.
    pub fn from_backend(&self) -> bool {
        matches!(
            self,
            Msg::Loaded { .. }
                | Msg::Reloaded { .. }
                | Msg::Acked { .. }
                | Msg::Replied { .. }
                | Msg::MarkedRead { .. }
                | Msg::Sent { .. }
                | Msg::FileRead { .. }
                | Msg::Reviewed { .. }
                | Msg::MailboxRead { .. }
        )
    }
}
