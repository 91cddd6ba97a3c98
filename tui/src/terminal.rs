//! Entering and leaving the full-screen terminal, on every exit path.
//!
//! [`TerminalGuard`] enters raw mode + the alternate screen and undoes
//! both (and re-shows the cursor) in `Drop`, so an early `?` return or an
//! unwinding panic restores the terminal. `install_panic_hook` restores
//! *before* the panic message prints, so the message lands on the normal
//! screen where the user can read it, then chains to the previous hook.
//! Restoring is idempotent: the hook and the guard may both run.
//!
//! The guard is generic over [`TerminalOps`] so tests can check, with a
//! recording fake, that a panic inside the app really runs the teardown.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use ratatui::crossterm::cursor::{Hide, Show};
use ratatui::crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};

/// The two halves of terminal setup.
pub trait TerminalOps {
    fn enter(&mut self) -> io::Result<()>;
    fn leave(&mut self) -> io::Result<()>;
}

/// The real terminal via crossterm, writing control sequences to `W`.
pub(crate) struct CrosstermOps<W: Write> {
    pub out: W,
    /// Whether to toggle raw mode (a tty-wide setting, off in unit tests).
    pub raw_mode: bool,
    /// Capture the mouse (wheel scrolling); undone on leave.
    pub mouse: bool,
}

impl CrosstermOps<io::Stdout> {
    pub(crate) fn stdout() -> Self {
        CrosstermOps {
            out: io::stdout(),
            raw_mode: true,
            mouse: false,
        }
    }
}

impl<W: Write> TerminalOps for CrosstermOps<W> {
    fn enter(&mut self) -> io::Result<()> {
        // Marked first so a half-done enter is still undone by `leave`.
        ACTIVE.store(true, Ordering::SeqCst);
        if self.raw_mode {
            enable_raw_mode()?;
        }
        execute!(self.out, EnterAlternateScreen, Hide)?;
        if self.mouse {
            execute!(self.out, EnableMouseCapture)?;
        }
        Ok(())
    }

    fn leave(&mut self) -> io::Result<()> {
        // Only once: leaving the alternate screen when already out of it
        // restores a stale cursor position, so the panic hook's restore
        // followed by the guard's would scribble over the panic message.
        if !ACTIVE.swap(false, Ordering::SeqCst) {
            return Ok(());
        }
        // Try every step even if one fails: a half-restored terminal is
        // worse than a reported error.
        // Mouse capture off unconditionally: harmless when it was never on,
        // and the panic hook's ops do not know whether it was.
        let screen = execute!(self.out, DisableMouseCapture, LeaveAlternateScreen, Show);
        let raw = if self.raw_mode {
            disable_raw_mode()
        } else {
            Ok(())
        };
        screen.and(raw)
    }
}

/// Restores the terminal when dropped (normal return, `?`, or unwinding).
pub struct TerminalGuard<O: TerminalOps> {
    ops: O,
    active: bool,
}

impl<O: TerminalOps> TerminalGuard<O> {
    pub fn enter(mut ops: O) -> io::Result<Self> {
        if let Err(e) = ops.enter() {
            // Undo a partial enter (raw mode on, alternate screen failed).
            let _ = ops.leave();
            return Err(e);
        }
        Ok(TerminalGuard { ops, active: true })
    }

    /// Gives the terminal back (for `$EDITOR`); [`Self::resume`] retakes it.
    pub fn suspend(&mut self) -> io::Result<()> {
        if self.active {
            self.active = false;
            self.ops.leave()?;
        }
        Ok(())
    }

    pub fn resume(&mut self) -> io::Result<()> {
        if !self.active {
            self.ops.enter()?;
            self.active = true;
        }
        Ok(())
    }

    pub fn ops(&self) -> &O {
        &self.ops
    }
}

impl<O: TerminalOps> Drop for TerminalGuard<O> {
    fn drop(&mut self) {
        if self.active {
            self.active = false;
            let _ = self.ops.leave();
        }
    }
}

/// Whether the real terminal is in app mode, shared by the guard's ops and
/// the panic hook so whichever runs first restores and the other does nothing.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Installs (once) a panic hook that restores the terminal, then runs the
/// previously installed hook (which prints the message).
pub(crate) fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // A no-op unless the app is on screen (see `leave`).
            let _ = CrosstermOps::stdout().leave();
            previous(info);
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leave_writes_the_restoring_sequences() {
        let mut ops = CrosstermOps {
            out: Vec::new(),
            raw_mode: false,
            mouse: true,
        };
        ops.enter().unwrap();
        ops.leave().unwrap();
        let s = String::from_utf8(ops.out).unwrap();
        assert!(s.starts_with("\x1b[?1049h\x1b[?25l\x1b[?1000h"), "{s:?}");
        // Mouse modes off, then back to the main screen, cursor shown.
        assert!(s.ends_with("\x1b[?1049l\x1b[?25h"), "{s:?}");
        assert!(s.contains("\x1b[?1000l"), "{s:?}");
    }
}
