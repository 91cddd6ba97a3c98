//! Where the committed mcp_agent_mail 0.1.0 sample (a storage root the real
//! server wrote: `archive/` and `storage.sqlite3`) lives.

use std::path::{Path, PathBuf};

/// The mcp_agent_mail 0.1.0 sample mailbox.
pub fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp-agent-mail-0.1.0")
}
