//! A private copy of the mcp_agent_mail fixture, so no test writes to the
//! committed one (a binary that needs only [`super::fs::copy_dir`]
//! includes `fs` alone).

use super::fixture::fixture;
use super::fs::copy_dir;

/// A private copy of the fixture (never write to the original).
pub fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    dir
}
