//! Settings shared by every command, read from the config file
//! ([`crate::cli::config_path`], TOML) and overridden by global flags.
//!
//! Today one key: `max_message_size`, the largest mail file (or standard
//! input) amail reads, default 10 MiB like AOF's envelope limit. Bytes as
//! an integer, or a string with a unit: `"512KiB"`, `"10MiB"`, `"1G"`.
//! The TUI's own keys (`[ui]`, keys, colours) are read by
//! [`crate::tui::config`] from the same file.

use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The default message size limit: 10 MiB, as AOF.
pub const DEFAULT_MAX_MESSAGE_BYTES: u64 = 10 * 1024 * 1024;

/// The config key holding the limit.
pub const MAX_MESSAGE_SIZE_KEY: &str = "max_message_size";

static MAX_MESSAGE_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_MESSAGE_BYTES);

/// The largest message amail reads now (process-wide).
pub fn max_message_bytes() -> u64 {
    MAX_MESSAGE_BYTES.load(Ordering::Relaxed)
}

/// Sets the limit for this process.
pub fn set_max_message_bytes(n: u64) {
    MAX_MESSAGE_BYTES.store(n.max(1), Ordering::Relaxed);
}

/// `1048576`, `512k`, `512KiB`, `10M`, `10MiB`, `1G` (binary units).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("bad size {s:?}: expected bytes or e.g. 10MiB"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("bad size {s:?}: unit must be B, KiB, MiB or GiB")),
    };
    n.checked_mul(mult)
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("bad size {s:?}: must be between 1 byte and 2^64"))
}

/// The limit the config file at `path` sets, if any. A missing file is
/// no limit; an unreadable or malformed one, or a bad value, is an error
/// naming the file.
pub fn max_size_from_file(path: &Path) -> Result<Option<u64>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: cannot read config: {e}", path.display())),
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e| format!("{}: bad config: {e}", path.display()))?;
    match table.get(MAX_MESSAGE_SIZE_KEY) {
        None => Ok(None),
        Some(toml::Value::Integer(i)) if *i > 0 => Ok(Some(*i as u64)),
        Some(toml::Value::String(s)) => parse_size(s)
            .map(Some)
            .map_err(|e| format!("{}: {MAX_MESSAGE_SIZE_KEY}: {e}", path.display())),
        Some(v) => Err(format!(
            "{}: {MAX_MESSAGE_SIZE_KEY} must be a positive number of bytes or a size like \"10MiB\", not {v}",
            path.display()
        )),
    }
}

/// Sets the process limit from the config file, then `flag` (`--max-size`).
pub fn init(flag: Option<&str>) -> Result<(), String> {
    if let Some(n) = max_size_from_file(&crate::cli::config_path())? {
        set_max_message_bytes(n);
    }
    if let Some(f) = flag {
        set_max_message_bytes(parse_size(f).map_err(|e| format!("--max-size: {e}"))?);
    }
    Ok(())
}

/// The error for input of `len` bytes over the limit; shared with
/// [`crate::source::files::FileReader`], which must word it the same.
pub(crate) fn too_large(len: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "{len} bytes is over the message size limit of {} bytes \
             (raise it with --max-size or `{MAX_MESSAGE_SIZE_KEY}` in the config file)",
            max_message_bytes()
        ),
    )
}

/// Reads `r` whole unless it is over the limit.
pub fn read_limited(r: impl Read) -> io::Result<Vec<u8>> {
    read_limited_into(r, Vec::new())
}

fn read_limited_into(mut r: impl Read, mut buf: Vec<u8>) -> io::Result<Vec<u8>> {
    let max = max_message_bytes();
    r.by_ref()
        .take(max.saturating_add(1))
        .read_to_end(&mut buf)?;
    if buf.len() as u64 > max {
        // Count the rest without keeping it, for the message.
        let rest = io::copy(&mut r, &mut io::sink()).unwrap_or(0);
        return Err(too_large(buf.len() as u64 + rest));
    }
    Ok(buf)
}

/// Reads the file at `path` unless it is over the limit (checked before
/// reading, so a huge file costs nothing).
pub fn read_file_limited(path: &Path) -> io::Result<Vec<u8>> {
    let f = std::fs::File::open(path)?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if len > max_message_bytes() {
        return Err(too_large(len));
    }
    // Sized from the metadata: one read of the whole file and one to see
    // the end, not a small probe read and regrowth (100,000 files a load).
    read_limited_into(f, Vec::with_capacity(len as usize + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("10MiB"), Ok(10 << 20));
        assert_eq!(parse_size("512 k"), Ok(512 << 10));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("ten").is_err());
        assert!(parse_size("5 parsecs").is_err());
    }
}
