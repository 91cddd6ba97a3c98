//! Agent Mail message -> AOF envelope (to be built).
