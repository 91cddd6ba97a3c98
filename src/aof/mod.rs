//! aof (to be built).
