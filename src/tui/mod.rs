//! tui (to be built).
