//! source (to be built).
