//! The terminal guard: every exit path, panics included, runs the
//! teardown exactly once; a failed setup undoes what it did.

use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use amail_tui::terminal::{TerminalGuard, TerminalOps};
use amail_tui::testing::TestApp;

#[derive(Clone, Default)]
struct Recorder {
    log: Arc<Mutex<Vec<&'static str>>>,
    fail_enter: bool,
}

impl TerminalOps for Recorder {
    fn enter(&mut self) -> io::Result<()> {
        self.log.lock().unwrap().push("enter");
        if self.fail_enter {
            return Err(io::Error::other("no tty"));
        }
        Ok(())
    }
    fn leave(&mut self) -> io::Result<()> {
        self.log.lock().unwrap().push("leave");
        Ok(())
    }
}

#[test]
fn a_panic_inside_the_app_restores_the_terminal() {
    let rec = Recorder::default();
    let log = rec.log.clone();
    let result = catch_unwind(AssertUnwindSafe(move || {
        let _guard = TerminalGuard::enter(rec).unwrap();
        let mut app = TestApp::sample();
        app.press("jj");
        // Something inside the app goes wrong mid-session.
        let missing: Option<&str> = app.model.sel.task.as_deref().filter(|_| false);
        missing.expect("a bug in the app");
    }));
    assert!(result.is_err(), "the closure panicked");
    assert_eq!(*log.lock().unwrap(), ["enter", "leave"]);
}

#[test]
fn normal_return_and_editor_suspend_restore_once_each() {
    let rec = Recorder::default();
    let log = rec.log.clone();
    {
        let mut guard = TerminalGuard::enter(rec).unwrap();
        guard.suspend().unwrap();
        guard.suspend().unwrap(); // idempotent
        guard.resume().unwrap();
    }
    assert_eq!(*log.lock().unwrap(), ["enter", "leave", "enter", "leave"]);
}

#[test]
fn a_failed_setup_is_undone() {
    let rec = Recorder {
        fail_enter: true,
        ..Recorder::default()
    };
    let log = rec.log.clone();
    assert!(TerminalGuard::enter(rec).is_err());
    assert_eq!(*log.lock().unwrap(), ["enter", "leave"]);
}
