//! Reading mail files from disk (finding them is [`super::walk`]'s job;
//! the size-limited read itself is [`crate::fsio`]'s).

use std::path::Path;

/// Reads a mail file. Refuses binary files (a NUL byte in the first 8 KiB)
/// and files over `max_bytes` (one huge file must not exhaust memory),
/// with a reason fit for `Inbox::problems`.
pub fn read_mail_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, String> {
    let buf = crate::fsio::read_file_limited(path, max_bytes).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => format!("file is {e}; skipped"),
        _ => format!("cannot read: {e}"),
    })?;
    if buf[..buf.len().min(8192)].contains(&0) {
        return Err("binary file (NUL bytes), not mail; skipped".into());
    }
    Ok(buf)
}
