//! Parsing cost grows linearly with the input, on ordinary and adversarial
//! shapes (`support/shapes.rs`): each input is parsed at N/4 and N, and
//! what the parse allocated (bytes and calls, counted per thread by a
//! counting allocator) must grow less than 8x (linear is 4x, quadratic
//! 16x). Allocation is counted, not time, so the test gives the same
//! answer on a loaded CI machine as on a quiet one (the timed version
//! failed under load). Time is measured where timing belongs: `cargo run
//! --release -p amail-parser --example linear`, run by `bench/run.sh`,
//! prints the same shapes' time ratios. Re-scanning that allocates
//! nothing is not seen here: the one that counts places (`json_pos`'s
//! cursor, which placed each JSON Lines line's messages from the top of
//! the document) is counted by its own unit test over these same shapes
//! (`json_pos::tests`); any other shows in the example's ratios.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use amail_parser::{parse, ParseOptions};

#[path = "support/shapes.rs"]
mod shapes;

const MAX_RATIO: f64 = 8.0;

thread_local! {
    static BYTES: Cell<u64> = const { Cell::new(0) };
    static CALLS: Cell<u64> = const { Cell::new(0) };
}

/// The system allocator, counting what this thread asks of it: tests run
/// on several threads, and each measures only its own parse.
struct Counting;

fn count(bytes: usize) {
    // `try_with`: an allocation during thread teardown must not panic.
    let _ = BYTES.try_with(|b| b.set(b.get() + bytes as u64));
    let _ = CALLS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every call is passed to `System` unchanged; the counters are
// const-initialised thread-locals without destructors, so counting never
// allocates or re-enters the allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size.saturating_sub(layout.size()));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// (bytes, calls) allocated while parsing `text`, result dropped inside.
fn allocated(text: &str, opts: &ParseOptions) -> (u64, u64) {
    let (b0, c0) = (BYTES.with(Cell::get), CALLS.with(Cell::get));
    let r = parse(text, opts);
    if let Ok(msgs) = &r {
        assert!(!msgs.is_empty());
    }
    drop(r);
    (BYTES.with(Cell::get) - b0, CALLS.with(Cell::get) - c0)
}

fn assert_linear(shape: &shapes::Shape) {
    let small = (shape.make)(shape.big / 4);
    let large = (shape.make)(shape.big);
    assert!(
        large.len() >= 3 * small.len(),
        "{}: inputs do not scale",
        shape.name
    );
    let modes: &[bool] = if shape.strict_too {
        &[false, true]
    } else {
        &[false]
    };
    for &strict in modes {
        let opts = ParseOptions { strict };
        let (sb, sc) = allocated(&small, &opts);
        let (lb, lc) = allocated(&large, &opts);
        // A few allocations are fixed costs: compare growth beyond a floor
        // of one allocation per 1 KiB of the small input.
        let floor_b = small.len() as u64 / 4;
        let floor_c = small.len() as u64 / 1024 + 16;
        let rb = lb as f64 / sb.max(floor_b).max(1) as f64;
        let rc = lc as f64 / sc.max(floor_c) as f64;
        assert!(
            rb < MAX_RATIO && rc < MAX_RATIO,
            "{} (strict={strict}): {} -> {} bytes of input allocated {sb} -> {lb} bytes ({rb:.1}x) in {sc} -> {lc} calls ({rc:.1}x)",
            shape.name,
            small.len(),
            large.len()
        );
    }
}

#[test]
fn every_shape_allocates_linearly() {
    for shape in shapes::SHAPES {
        assert_linear(shape);
    }
}

/// The counter sees a quadratic pattern, so the test above can fail.
#[test]
fn the_counter_catches_quadratic_growth() {
    let quadratic = |n: usize| {
        let mut v = Vec::new();
        for i in 0..n {
            v.push("x".repeat(i));
        }
        v
    };
    let b0 = BYTES.with(Cell::get);
    drop(quadratic(250));
    let small = BYTES.with(Cell::get) - b0;
    let b1 = BYTES.with(Cell::get);
    drop(quadratic(1000));
    let large = BYTES.with(Cell::get) - b1;
    assert!(
        large as f64 / small as f64 > MAX_RATIO,
        "{small} -> {large}"
    );
}
