//! router (to be built).
