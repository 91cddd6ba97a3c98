//! Reading and parsing many files on every core: the work per file is
//! independent, and on a big mailbox the filesystem calls dominate.
//!
//! Why not rayon: [`ordered`]'s contract (results handed over in input
//! order *while* later chunks are worked on, a bounded number in flight)
//! is not one of rayon's iterators, so only the threads could move to its
//! pool. That was tried (workers spawned in `rayon::in_place_scope`, `map`
//! as `par_iter().with_min_len(..)`) and measured, threads here vs rayon,
//! interleaved runs at real-time priority on the shared 2-core machine,
//! two sessions:
//! - `cargo bench --bench inbox_load`, medians of 4 rounds: mailbox 2,200
//!   messages 23.2, 23.4, 20.1, 27.3 ms vs 25.2, 30.5, 21.2, 29.1 ms (rayon
//!   slower in every round); mcp corpus 2,200 51.8, 53.3, 45.6, 48.4 ms vs
//!   51.5, 66.7, 47.4, 58.1 ms; mailbox 220 2.79, 2.96, 2.81, 3.50 ms vs
//!   3.08, 3.28, 2.41, 2.57 ms; the fixture within noise;
//! - `amail parse --format jsonl` over 10,000 files (`amail demo
//!   --messages 10000`), 40 and 30 runs: median 65.4 / 68.2 ms vs 66.2 /
//!   67.4 ms; `amail threads` on the same mailbox 126.3 vs 124.9 ms.
//!
//! Mixed on small loads, the same end to end, slower on the larger
//! in-process loads: the threads stay `std::thread::scope`'s. (The walk
//! does use rayon: sub-folders listed as a tree of any shape, results
//! joined in path order, is `par_iter`'s own contract.)

use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Below this many items threads cost more than they save.
const MIN_PER_THREAD: usize = 256;

/// `items.iter().map(f).collect()`, spread over the available cores,
/// results in input order.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_min(items, MIN_PER_THREAD, f)
}

/// [`map`] with the smallest share worth a thread of its own given by the
/// caller.
pub fn map_min<T: Sync, R: Send>(
    items: &[T],
    min_per_thread: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = cores().min(items.len() / min_per_thread.max(1)).max(1);
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for h in handles {
            out.extend(join(h));
        }
        out
    })
}

/// A scoped thread's result; its panic (a bug) goes on where it happened.
pub fn join<T>(h: std::thread::ScopedJoinHandle<'_, T>) -> T {
    h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// The cores worth a thread (at most eight: past that the filesystem, not
/// the CPU, is the limit). Asked of the system once a process (it reads
/// `/proc` and the cgroup files), however many callers ask.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| {
        std::thread::available_parallelism()
            .map(NonZeroUsize::get)
            .unwrap_or(1)
            .min(8)
    })
}

/// Chunks a worker may finish ahead of the one being consumed, per thread:
/// enough to keep every core busy while the consumer writes, few enough
/// that memory stays a handful of chunks whatever the input size.
const AHEAD_PER_THREAD: usize = 4;

/// Runs `work` over `items` a chunk of `chunk` items at a time on
/// `threads` worker threads, and hands each chunk's result to `sink` on
/// the calling thread in input order, as soon as it and every chunk before
/// it are done. Output can so be written while later chunks are still
/// being worked on, in exactly the order of a sequential run, with a
/// bounded number of results in memory.
///
/// `work(state, first, items, out)` gets its thread's `state` (made once
/// by `init`, for buffers reused from chunk to chunk), the index of the
/// chunk's first item, the chunk, and a result to fill: results are
/// recycled once `sink` has seen them, so `work` must reset it first.
/// `sink` returning `Break` stops everything: no chunk after it is
/// handed over and workers stop taking new ones.
pub fn ordered<T, S, R, B>(
    items: &[T],
    chunk: usize,
    threads: usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize, &[T], &mut R) + Sync,
    mut sink: impl FnMut(&mut R) -> ControlFlow<B>,
) -> ControlFlow<B>
where
    T: Sync,
    R: Default + Send,
{
    let chunk = chunk.max(1);
    let chunks = items.len().div_ceil(chunk);
    let threads = threads.min(chunks);
    if threads <= 1 {
        let mut state = init();
        let mut out = R::default();
        for (k, part) in items.chunks(chunk).enumerate() {
            work(&mut state, k * chunk, part, &mut out);
            sink(&mut out)?;
        }
        return ControlFlow::Continue(());
    }
    let window = threads * AHEAD_PER_THREAD;
    let shared = Shared {
        state: Mutex::new(Pipeline {
            // Chunk `k` waits in slot `k % window`: a worker never runs
            // more than `window` chunks ahead, so slots are never shared.
            done: (0..window).map(|_| None).collect(),
            consumed: 0,
            spare: Vec::new(),
            stop: false,
            workers: threads,
        }),
        ready: Condvar::new(),
        room: Condvar::new(),
    };
    let next = AtomicUsize::new(0);
    let (shared, next, init, work) = (&shared, &next, &init, &work);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(move || {
                // Tells the consumer this worker is gone even if `work`
                // panics, so it never waits for a chunk nobody will finish
                // (the scope then re-raises the panic).
                let _alive = WorkerAlive(shared);
                let mut state = init();
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= chunks {
                        return;
                    }
                    let mut out = {
                        let mut p = shared.lock();
                        while !p.stop && k >= p.consumed + window {
                            p = shared.room.wait(p).unwrap_or_else(PoisonError::into_inner);
                        }
                        if p.stop {
                            return;
                        }
                        p.spare.pop().unwrap_or_default()
                    };
                    let first = k * chunk;
                    let end = (first + chunk).min(items.len());
                    work(&mut state, first, &items[first..end], &mut out);
                    shared.lock().done[k % window] = Some(out);
                    shared.ready.notify_one();
                }
            });
        }
        let mut flow = ControlFlow::Continue(());
        for k in 0..chunks {
            let mut out = {
                let mut p = shared.lock();
                loop {
                    if let Some(out) = p.done[k % window].take() {
                        break out;
                    }
                    if p.workers == 0 {
                        // Every worker is gone and this chunk is not done:
                        // one panicked, and the scope re-raises it.
                        return flow;
                    }
                    p = shared.ready.wait(p).unwrap_or_else(PoisonError::into_inner);
                }
            };
            flow = sink(&mut out);
            let mut p = shared.lock();
            p.consumed = k + 1;
            p.spare.push(out);
            p.stop = flow.is_break();
            drop(p);
            shared.room.notify_all();
            if flow.is_break() {
                break;
            }
        }
        flow
    })
}

struct Shared<R> {
    state: Mutex<Pipeline<R>>,
    /// A chunk is done, or a worker left.
    ready: Condvar,
    /// A chunk was consumed, or everyone must stop.
    room: Condvar,
}

impl<R> Shared<R> {
    fn lock(&self) -> MutexGuard<'_, Pipeline<R>> {
        // Nothing holding the lock can panic; a poisoned lock still holds
        // consistent data.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

struct Pipeline<R> {
    done: Vec<Option<R>>,
    /// Chunks handed to the sink so far.
    consumed: usize,
    /// Consumed results, for workers to reuse.
    spare: Vec<R>,
    stop: bool,
    /// Workers still running.
    workers: usize,
}

struct WorkerAlive<'a, R>(&'a Shared<R>);

impl<R> Drop for WorkerAlive<'_, R> {
    fn drop(&mut self) {
        self.0.lock().workers -= 1;
        self.0.ready.notify_all();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_order() {
        let v: Vec<u32> = (0..10_000).collect();
        assert_eq!(
            super::map(&v, |x| x * 2),
            v.iter().map(|x| x * 2).collect::<Vec<_>>()
        );
    }

    #[test]
    fn ordered_hands_chunks_over_in_order_on_any_number_of_threads() {
        let v: Vec<u32> = (0..10_007).collect();
        for threads in [1, 2, 3, 8] {
            for chunk in [1, 7, 64, 20_000] {
                let mut seen = Vec::new();
                let flow = super::ordered(
                    &v,
                    chunk,
                    threads,
                    || (),
                    |_, first, part, out: &mut Vec<u32>| {
                        out.clear();
                        assert_eq!(part[0] as usize, first);
                        out.extend(part.iter().map(|x| x * 2));
                    },
                    |out| {
                        seen.extend_from_slice(out);
                        std::ops::ControlFlow::<()>::Continue(())
                    },
                );
                assert!(flow.is_continue());
                assert_eq!(seen, v.iter().map(|x| x * 2).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn ordered_stops_at_the_first_break() {
        let v: Vec<u32> = (0..5_000).collect();
        let mut seen = 0;
        let flow = super::ordered(
            &v,
            10,
            2,
            || (),
            |_, _, part, out: &mut Vec<u32>| {
                out.clear();
                out.extend_from_slice(part);
            },
            |out| {
                seen += out.len();
                if out.contains(&1234) {
                    std::ops::ControlFlow::Break(1234)
                } else {
                    std::ops::ControlFlow::Continue(())
                }
            },
        );
        assert_eq!(flow, std::ops::ControlFlow::Break(1234));
        assert_eq!(seen, 1240);
    }
}
