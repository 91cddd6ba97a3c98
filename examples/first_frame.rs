//! Headless `amail inbox` start-up for `bench/run.sh` (issue 6): loads a
//! mailbox the way the TUI does, builds the model, draws the first frame
//! into a `TestBackend` (120×40), then times a redraw. Prints
//! `load_ms model_ms first_frame_ms redraw_ms messages new_file_ms` on one
//! line, where `new_file_ms` is one new file written into the mailbox
//! (and removed after) to the frame showing it, through the path the
//! running TUI takes: the watcher's `FilesChanged`, `update`, the real
//! backend's reload (incremental), `update` again, draw. The file is dated
//! now, as agents date their mail: it lands after every message. An
//! undated one sorts before them all (the records move once, every
//! message position moves up); its figure goes to stderr (`undated new
//! file: N ms`), and each file's update, backend and draw times too.
//! Then the TUI's way since issue 16: a fresh model drawn at once while the
//! load runs on the worker (`worker_first_ms`), and the load's report
//! drawn (`worker_full_ms`), both from the worker's start; appended to
//! the line.
//! The worker's way runs first, and the process's peak resident memory
//! right after it (`worker_peak_kb`, what `amail inbox` holds: one load)
//! comes next; the inline load after it would add a second inbox's
//! worth of freed-but-kept heap to the process's peak. Last, the first
//! frame that shows threads (`worker_rows_ms`, from the worker's start:
//! the newest threads of a large mailbox, read first and handed over
//! while the rest loads; the full load's frame when it hands none).
//! An mcp_agent_mail storage root (with its database) is measured the
//! same way but for the new file, which it skips (`new_file_ms` NaN).
//! Usage: first_frame DIR

#[path = "../src/allocator.rs"]
mod allocator;

use std::path::{Path, PathBuf};
use std::time::Instant;

use amail::backend::RealBackend;
use amail_core::inbox::SourceKind;
use amail_core::stores::{self, LoadOptions};
use amail_tui::backend::execute;
use amail_tui::testing::render_terminal;
use amail_tui::update::update;
use amail_tui::{Model, Msg, UiConfig};

fn main() {
    // As `amail` starts (src/allocator.rs): what is measured is its way.
    allocator::tune();
    let dir = std::env::args().nth(1).expect("usage: first_frame DIR");
    let (worker_first, worker_full, worker_rows) = through_worker(Path::new(&dir));
    let worker_peak_kb = peak_rss_kb();
    let t0 = Instant::now();
    let inbox = stores::load(Path::new(&dir), &LoadOptions::default()).expect("load");
    let messages = inbox.messages.len();
    let t1 = Instant::now();
    let model = Model::new(inbox, Vec::new(), chrono::Utc::now(), UiConfig::default());
    let t2 = Instant::now();
    let term = render_terminal(&model, 120, 40);
    let t3 = Instant::now();
    std::hint::black_box(&term);
    // A redraw: the same model drawn again (what a key press or tick costs).
    let n = 20;
    for _ in 0..n {
        std::hint::black_box(render_terminal(&model, 120, 40));
    }
    let redraw = t3.elapsed().as_secs_f64() * 1000.0 / n as f64;
    let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1000.0;
    let mut model = model;
    // One new file is a plain mailbox's change: an mcp root's new mail is
    // a database row with its archive copies (its figure is NaN).
    let plain = matches!(model.inbox.source, SourceKind::Mailbox { .. });
    let mut dated = f64::NAN;
    if plain {
        dated = new_file(Path::new(&dir), &mut model, true);
        let undated = new_file(Path::new(&dir), &mut model, false);
        eprintln!("undated new file: {undated:.1} ms");
    }
    println!(
        "{:.1} {:.1} {:.1} {:.2} {messages} {dated:.1} {worker_first:.1} {worker_full:.1} {worker_peak_kb} {worker_rows:.1}",
        ms(t0, t1),
        ms(t1, t2),
        ms(t0, t3),
        redraw
    );
}

/// Milliseconds to the first frame, to the loaded frame and to the first
/// frame with threads when the load runs on the worker, as `amail inbox`
/// does.
fn through_worker(root: &Path) -> (f64, f64, f64) {
    let t = Instant::now();
    let store = PathBuf::from("/nonexistent/amail-first-frame-store");
    let backend = RealBackend::new(root.to_path_buf(), LoadOptions::default(), store, false);
    let (tx, rx) = std::sync::mpsc::channel();
    let mut worker = amail_tui::worker::Worker::spawn(Box::new(backend), move |m| {
        let _ = tx.send(m);
    });
    let mut model = Model::new(
        amail_tui::runtime::empty_inbox(),
        Vec::new(),
        chrono::Utc::now(),
        UiConfig::default(),
    );
    worker.dispatch(&mut model.inbox, amail_tui::Command::Load);
    model.working = worker.busy();
    std::hint::black_box(render_terminal(&model, 120, 40));
    let first = t.elapsed().as_secs_f64() * 1000.0;
    let mut rows = None;
    loop {
        let msg = rx.recv().expect("the worker reports");
        let done = msg.from_backend();
        update(&mut model, msg);
        if done {
            worker.reported();
            break;
        }
        if rows.is_none() && !model.inbox.threads.is_empty() {
            std::hint::black_box(render_terminal(&model, 120, 40));
            rows = Some(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    model.working = worker.busy();
    std::hint::black_box(render_terminal(&model, 120, 40));
    let full = t.elapsed().as_secs_f64() * 1000.0;
    (first, full, rows.unwrap_or(full))
}

/// Milliseconds from a new file landing to the frame that shows it
/// (`dated`: with a `Date:` of now).
fn new_file(root: &Path, model: &mut Model, dated: bool) -> f64 {
    // No task store: `tasks()` is then an empty board, not a disk read.
    let store = PathBuf::from("/nonexistent/amail-first-frame-store");
    let mut backend = RealBackend::new(root.to_path_buf(), LoadOptions::default(), store, false);
    let path = root.join(if dated {
        "zz-bench-new-file.md"
    } else {
        "zz-bench-new-file-undated.md"
    });
    let before = model.inbox.messages.len();
    let date = if dated {
        format!(
            "Date: {}\n",
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
        )
    } else {
        String::new()
    };
    std::fs::write(
        &path,
        format!("Subject: [ol-9999.1] PROGRESS\nFrom: GreenCastle\nTo: Orchestrator\n{date}\nBody:\nBead: ol-9999.1\nStep: Step 1 - bench\nStatus: running\nContext usage: 10%\n"),
    )
    .expect("write");
    let t = Instant::now();
    // Where the time goes, on stderr: `update` (the patch and the model's
    // own work), the backend (reading the file), the draw.
    let (mut in_update, mut in_backend) = (0.0, 0.0);
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1000.0;
    let mut next = Some(Msg::FilesChanged(vec![path.clone()]));
    while let Some(msg) = next.take() {
        let u = Instant::now();
        let cmd = update(model, msg);
        in_update += ms(u);
        let b = Instant::now();
        next = cmd.and_then(|cmd| execute(&mut backend, &mut model.inbox, cmd));
        in_backend += ms(b);
    }
    let d = Instant::now();
    std::hint::black_box(render_terminal(model, 120, 40));
    let elapsed = t.elapsed().as_secs_f64() * 1000.0;
    eprintln!(
        "new file ({}): {elapsed:.1} ms = update {in_update:.1} + backend {in_backend:.1} + draw {:.1}",
        if dated { "dated" } else { "undated" },
        ms(d)
    );
    std::fs::remove_file(&path).ok();
    assert_eq!(
        model.inbox.messages.len(),
        before + 1,
        "the new file loaded"
    );
    elapsed
}

/// The process's peak resident set so far, in KiB (Linux; 0 elsewhere).
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}
