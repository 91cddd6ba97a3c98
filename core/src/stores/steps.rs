//! When a load hands out a partial inbox (issue 16): the one step policy
//! of every store that loads in steps (`mailbox::load`, `mcp::load`).
//!
//! A store reads its messages newest first and, through
//! [`MailStore::load_in_steps`](super::MailStore::load_in_steps), hands
//! the caller a browsable inbox of what it has read after the first
//! [`FIRST_STEP`] messages, then each time the count has grown
//! [`STEP_GROWTH`]-fold, until [`LAST_STEP`] says it is too late to be
//! worth one. Each step is built from scratch (a copy of the messages
//! read so far, then `build`), so the policy trades how often the screen
//! fills in against what the copies cost in time and memory.

/// Messages read before the first partial inbox is handed out: a few
/// screens of threads, read in a few tens of milliseconds.
pub const FIRST_STEP: usize = 1_000;

/// Each later step holds this many times the messages of the one before.
/// A step costs about a build of what it holds (a copy, then `build`: 40
/// ms for 16,000 messages at load 5-7 on 2 cores, on the thread that
/// joins the parsed files, so the parsing waits), so the steps together
/// cost `4/3` of the last one; doubling costs twice the last (100,000
/// messages: 2,000 to 32,000 in doubling steps added 215 ms to a 1.5-2 s
/// load, 1,000 to 16,000 in fourfold ones about 65 ms).
const STEP_GROWTH: usize = 4;

/// No step once this share of the work is done, and the later a step
/// the less it adds to what is already on screen.
const LAST_STEP: usize = 4;

/// No step after the first that holds more than this share of the work
/// (at most `total / LARGEST_STEP` messages): the last step is held on
/// screen while the rest loads, beside the whole inbox being built, so it
/// adds to the peak memory. 1,000,000 messages with steps up to half the
/// files: the largest held 256,000 messages, peak RSS 1.83 -> 2.06 GB; up
/// to a quarter, 64,000 (65,536 of them). Since the seventh round (issue
/// 16: peak RSS at most 2x the corpus) none holds more than a sixteenth:
/// 16,384 of 1,000,000, 4,096 of 100,000, the newest few thousand threads
/// a person reads while the status bar counts the rest.
const LARGEST_STEP: usize = 16;

/// Where a load stands against the step policy.
#[derive(Debug)]
pub(crate) struct Steps {
    /// Messages a load must hold before its next step.
    next: usize,
}

impl Steps {
    pub(crate) fn new() -> Self {
        Steps { next: FIRST_STEP }
    }

    /// The steps of a load that has already handed out one of `held`
    /// messages (a mailbox filed by date, before its whole walk): the
    /// next shows more than that, as if it had been this load's own.
    pub(crate) fn after(held: usize) -> Self {
        Steps {
            next: held.max(FIRST_STEP) * STEP_GROWTH,
        }
    }

    /// Whether to hand out a step now that the load holds `held`
    /// messages and has done `done` of its `total` units of work (files
    /// read, rows parsed); when it says yes, the next step waits for
    /// [`STEP_GROWTH`] times as many messages.
    pub(crate) fn due(&mut self, held: usize, done: usize, total: usize) -> bool {
        let first = self.next == FIRST_STEP;
        if held >= self.next && done <= total / LAST_STEP && (first || held <= total / LARGEST_STEP)
        {
            self.next = held * STEP_GROWTH;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The steps a load of `total` files, one message each, hands out.
    fn steps_of(total: usize) -> Vec<usize> {
        let mut steps = Steps::new();
        (1..=total / 128)
            .map(|n| n * 128)
            .filter(|&n| steps.due(n, n, total))
            .collect()
    }

    #[test]
    fn steps_come_at_the_first_step_then_fourfold_while_small() {
        // The first step, then fourfold while a step holds no more than a
        // sixteenth of the files.
        assert_eq!(steps_of(100_000), [1_024, 4_096]);
        assert_eq!(steps_of(1_000_000), [1_024, 4_096, 16_384]);
        // A small mailbox still gets its first step, while under a
        // quarter of the work is done.
        assert_eq!(steps_of(5_000), [1_024]);
        assert_eq!(steps_of(3_000), Vec::<usize>::new());
        // Too few to be worth one.
        assert!(!Steps::new().due(FIRST_STEP - 1, 10, 100_000));
        // Past a quarter of the work: none, however many are held.
        assert!(!Steps::new().due(50_000, 25_001, 100_000));
        // A later step over a sixteenth of the work: none.
        let mut steps = Steps::new();
        assert!(steps.due(1_000, 1_000, 100_000));
        assert!(!steps.due(6_251, 6_000, 100_000));
        assert!(steps.due(6_250, 6_000, 100_000));
    }
}
