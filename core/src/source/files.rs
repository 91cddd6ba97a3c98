//! Reading mail files from disk (finding them is [`super::walk`]'s job;
//! the size-limited read itself is [`crate::fsio`]'s).

use std::path::Path;

use crate::fsio::FileReader;

/// Why bytes read as mail are not mail, if they are not: a NUL byte in the
/// first 8 KiB marks a binary file (an image, an archive), which no agent
/// wrote as a message. The one rule for every command that reads mail
/// (`parse`, `route`, `threads`, `pending`, the inbox): each reports such a
/// file as `amail: warning: PATH: <reason>` (or in `Inbox::problems`) and
/// reads on.
pub fn not_mail(bytes: &[u8]) -> Option<&'static str> {
    // memchr's vector search: `<[u8]>::contains` went a word at a time,
    // 440 instructions for a 500-byte mail file (4.4 M of the 300 M of
    // `amail parse` over 10,000 files), this 130.
    memchr::memchr(0, &bytes[..bytes.len().min(8192)])
        .map(|_| "binary file (NUL bytes), not mail; skipped")
}

/// Reads a mail file. Refuses binary files ([`not_mail`]) and files over
/// `max_bytes` (one huge file must not exhaust memory), with a reason fit
/// for `Inbox::problems`.
pub(crate) fn read_mail_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, String> {
    let buf = crate::fsio::read_file_limited(path, max_bytes).map_err(reason)?;
    if let Some(why) = not_mail(&buf) {
        return Err(why.into());
    }
    Ok(buf)
}

/// [`read_mail_file`] into `reader`'s reused buffer, for a loader reading
/// many files: no allocation per file.
pub(crate) fn read_mail_file_into<'r>(
    reader: &'r mut FileReader,
    path: &Path,
    max_bytes: u64,
) -> Result<&'r [u8], String> {
    let buf = reader.read(path, max_bytes).map_err(reason)?;
    if let Some(why) = not_mail(buf) {
        return Err(why.into());
    }
    Ok(buf)
}

fn reason(e: std::io::Error) -> String {
    match e.kind() {
        // `fsio::too_large`, which reads after the path as it is.
        std::io::ErrorKind::InvalidData => format!("{e}; skipped"),
        _ => format!("cannot read: {}", crate::fsio::reason(&e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_byte_near_the_start_is_not_mail() {
        assert!(not_mail(b"Subject: x\n\0\x01").is_some());
        assert!(not_mail(b"").is_none());
        assert!(not_mail("Subject: caf\u{e9}\n".as_bytes()).is_none());
        // Past the first 8 KiB a NUL is a damaged message, not a binary file.
        let mut late = vec![b'a'; 9000];
        late.push(0);
        assert!(not_mail(&late).is_none());
    }
}
