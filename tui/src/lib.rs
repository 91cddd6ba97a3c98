//! `amail inbox`: the terminal inbox.
//!
//! The Elm Architecture on ratatui + crossterm + tokio:
//! - [`model`]: the state, selections held by key so reloads keep them;
//! - [`msg`]: what can happen ([`Msg`]) and what the app asks for ([`Command`]);
//! - [`update`]: the only place state changes, pure over the model;
//! - [`view`]: draws the model, one module per pane, no side effects;
//! - [`runtime`]: the event loop (keys, resize, ticks, file watch in one
//!   channel), command execution through a [`Backend`], redraw when dirty;
//! - [`backend`]: the trait every side effect goes through;
//! - [`worker`]: the thread that runs the backend's work off the UI thread;
//! - [`watch`]: live refresh, its watches added behind the first frame (on
//!   Linux inotify asked for changes only);
//! - `search_count` and `activity`: the `/` count made a slice per frame,
//!   and the agents view's pace made once per change: what a frame asks of
//!   a million messages must not be a pass over all of them;
//! - [`keymap`], [`theme`], [`config`]: rebindable keys, light/dark
//!   palettes, partial overrides from the config file;
//! - [`text`]: widths in columns (agent text is made safe by
//!   [`amail_core::safe_text`] before it is drawn);
//! - [`notify`]: the opt-in bell / desktop notification, made safe;
//! - [`terminal`]: the guard and panic hook that restore the terminal;
//! - `testing`: fake backend, sample mailbox and render helpers.

mod activity;
pub mod backend;
pub mod config;
pub mod keymap;
pub mod model;
pub mod msg;
pub mod notify;
pub mod runtime;
mod search_count;
pub mod terminal;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod theme;
pub mod update;
pub mod view;
pub mod watch;
pub mod worker;

pub use backend::Backend;
pub use config::UiConfig;
pub use model::Model;
pub use msg::{Command, Msg, ReadError};
pub use runtime::{run, RunOptions};
