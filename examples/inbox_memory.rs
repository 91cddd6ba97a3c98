//! Where a loaded inbox's memory goes (issue 16): loads a mailbox the way
//! `amail inbox` does, then prints the live heap (counted by this
//! example's allocator), the live allocations, the process's resident and
//! peak memory, and how many records hold their full message; again after
//! the TUI's model and first frame. `bench/run.sh` measures the peak of
//! the real path (`first_frame`); this says what the peak is made of.
//!
//!     cargo run --release --example inbox_memory -- DIR

#[path = "../src/allocator.rs"]
mod allocator;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use amail_core::inbox::Inbox;

/// The system allocator, counting live bytes and allocations.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static COUNT: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(live, Relaxed);
        COUNT.fetch_add(1, Relaxed);
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        COUNT.fetch_sub(1, Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn status() -> String {
    let mb = |n: usize| n >> 20;
    let proc = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        proc.lines()
            .find_map(|l| l.strip_prefix(name))
            .map_or("?".into(), |v| v.trim().to_string())
    };
    format!(
        "live heap {} MB (peak {} MB) in {} allocations; RSS {}, peak {}",
        mb(LIVE.load(Relaxed)),
        mb(PEAK.load(Relaxed)),
        COUNT.load(Relaxed),
        field("VmRSS:"),
        field("VmHWM:")
    )
}

fn held_whole(inbox: &Inbox) -> usize {
    let whole = |m: &&amail_core::inbox::InboxMessage| m.message.full_if_held().is_some();
    inbox.messages.iter().filter(whole).count()
}

fn main() {
    // As `amail` starts (src/allocator.rs): what is measured is its way.
    allocator::tune();
    let Some(dir) = std::env::args_os().nth(1) else {
        eprintln!("usage: inbox_memory DIR");
        std::process::exit(2);
    };
    println!(
        "bytes inline: InboxMessage {} (CompactMessage {}), Recipient {}, parser Message {}, Thread {}",
        size_of::<amail_core::inbox::InboxMessage>(),
        size_of::<amail_core::inbox::CompactMessage>(),
        size_of::<amail_core::inbox::Recipient>(),
        size_of::<amail_parser::OwnedMessage>(),
        size_of::<amail_core::inbox::Thread>()
    );
    let opts = amail_core::stores::LoadOptions::default();
    let inbox = amail_core::stores::load(std::path::Path::new(&dir), &opts).unwrap_or_else(|e| {
        eprintln!("inbox_memory: {e}");
        std::process::exit(1);
    });
    let (messages, threads) = (inbox.messages.len(), inbox.threads.len());
    println!(
        "{messages} messages, {threads} threads, {} held whole",
        held_whole(&inbox)
    );
    println!("after the load: {}", status());
    // The derivation alone (threads, roster, turns, index), timed on the
    // loaded messages: what a load costs beyond reading and parsing.
    let mut inbox = inbox;
    for _ in 0..3 {
        let (source, problems) = (inbox.source.clone(), std::mem::take(&mut inbox.problems));
        let messages = std::mem::take(&mut inbox.messages);
        drop(inbox);
        let t = std::time::Instant::now();
        inbox = amail_core::inbox::assemble(source, messages, problems);
        println!("build: {:.1} ms", t.elapsed().as_secs_f64() * 1000.0);
    }
    let model = amail_tui::Model::new(inbox, Vec::new(), chrono::Utc::now(), Default::default());
    std::hint::black_box(amail_tui::testing::render_terminal(&model, 120, 40));
    println!(
        "after the model and a frame ({} held whole): {}",
        held_whole(&model.inbox),
        status()
    );
}
