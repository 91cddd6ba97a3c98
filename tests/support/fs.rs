//! File-system helpers every test binary may include alone: nothing here
//! depends on another support module.

use std::fs;
use std::path::Path;

/// Copies the tree at `from` into `to` (created), so a test writes to its
/// own copy, never to committed test data.
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            fs::copy(e.path(), &target).unwrap();
        }
    }
}
