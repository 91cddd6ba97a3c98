//! inbox (to be built).
