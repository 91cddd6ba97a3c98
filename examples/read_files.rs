//! The floor under `amail parse DIR`: the same directory walk and the same
//! reads (one open and read per file into a reused buffer, on every core),
//! with no parsing and no output. `bench/run.sh` times `amail parse`
//! against it.
//!
//!     cargo run --release --example read_files -- DIR

use std::ops::ControlFlow;

use amail_core::fsio::{FileReader, DEFAULT_MAX_MESSAGE_BYTES};
use amail_core::source::{parallel, walk};

fn main() {
    let Some(dir) = std::env::args_os().nth(1) else {
        eprintln!("usage: read_files DIR");
        std::process::exit(2);
    };
    let files = walk::mail_files(std::path::Path::new(&dir)).unwrap_or_else(|(at, e)| {
        eprintln!("read_files: {}: {e}", at.display());
        std::process::exit(1);
    });
    let mut total = 0usize;
    let _ = parallel::ordered(
        &files,
        32,
        parallel::cores(),
        FileReader::new,
        |reader, _, part, bytes: &mut usize| {
            *bytes = part
                .iter()
                .map(|p| {
                    reader
                        .read(p, DEFAULT_MAX_MESSAGE_BYTES)
                        .map_or(0, <[u8]>::len)
                })
                .sum();
        },
        |bytes| {
            total += *bytes;
            ControlFlow::<()>::Continue(())
        },
    );
    println!("{} files, {total} bytes", files.len());
}
