//! The `/` search's count ("3/7", "no match"), made a slice of the list at
//! a time.
//!
//! A thread matches when any of its messages' text holds the query, so a
//! count is a pass over every message: over a million messages (318,000
//! threads, half a gigabyte of text) about 0.65 s on this machine kind,
//! and it ran on each keystroke, before the frame. Now each frame advances
//! the count by [`SLICE`] items and the event loop draws again while one
//! is unfinished, taking keys in between (`runtime`), so typing never
//! waits for it; until it is done the prompt shows the count so far
//! ("3/120…"), and "no match" only once it is done. The thread list's
//! slice is tried on every core at once ([`Count::step_on`]): once the
//! inbox is loaded the other cores are idle. At a million messages the
//! count was done 0.68-0.84 s after the last key on one core of two,
//! 0.48-0.67 s on both (`docs/tui.md` has the figures).
//!
//! A query that extends the last one (typing on) can only match what the
//! last one matched: once that count is done, the next one goes over its
//! matches only.

use std::ops::Range;

use amail_core::source::parallel;

/// Items of a list a frame's count goes over (on each core, for the
/// thread list: [`Count::step_on`]): a few milliseconds of threads with
/// bodies to search. Twice as many a core held keys longer (the frame's
/// second part competed with the terminal for a core) for a count little
/// sooner done.
pub(crate) const SLICE: usize = 1_024;

/// The fewest items worth a thread of their own in a count: a thread's
/// start (tens of microseconds) against a few hundred threads' text.
const MIN_PER_CORE: usize = 256;

/// What a count is of: the query over one list as it stands (`L` says
/// which list, as the model knows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CountKey<L> {
    pub(crate) query: String,
    pub(crate) list: L,
    /// The list's length: a list that grew or shrank is another list.
    pub(crate) len: usize,
}

/// A count under way, or done.
#[derive(Debug)]
pub(crate) struct Count<L> {
    pub(crate) key: CountKey<L>,
    /// The items still to try, when fewer than the whole list (the last
    /// query's matches); `None`: every item.
    within: Option<Vec<u32>>,
    /// How far the pass is (an index into `within`, else into the list).
    next: usize,
    /// The matching items found so far, ascending.
    matches: Vec<u32>,
}

impl<L: PartialEq> Count<L> {
    /// A count for `key`, over `last`'s matches when `key` extends the
    /// query `last` counted to the end (same list, longer query holding
    /// it).
    pub(crate) fn new(key: CountKey<L>, last: Option<Count<L>>) -> Count<L> {
        let within = last
            .filter(|l| l.done() && extends(&key, &l.key))
            .map(|l| l.matches);
        Count {
            key,
            within,
            next: 0,
            matches: Vec::new(),
        }
    }

    /// Tries the next `slice` items with `matches` (an item's index in the
    /// list).
    pub(crate) fn step(&mut self, slice: usize, matches: impl Fn(usize) -> bool) {
        let end = self.end_after(slice);
        let within = self.within.as_deref();
        self.matches
            .extend(matching(within, self.next..end, &matches));
        self.next = end;
    }

    /// [`Count::step`] of `slice` items for each of `cores` threads, tried
    /// side by side (the parts' matches joined in list order): a frame
    /// takes the count as many times as far in the time of one slice. The
    /// thread list's count at a million messages is a pass over half a
    /// gigabyte of text, and the other core is idle once the inbox is
    /// loaded.
    pub(crate) fn step_on(
        &mut self,
        slice: usize,
        cores: usize,
        matches: impl Fn(usize) -> bool + Sync,
    ) {
        let cores = cores.max(1);
        let end = self.end_after(slice.saturating_mul(cores));
        // At most a part a core, none under `MIN_PER_CORE` items (but one).
        let n = end - self.next;
        let shares = cores.min(n / MIN_PER_CORE).max(1);
        let part = n.div_ceil(shares).max(1);
        let parts: Vec<Range<usize>> = (self.next..end)
            .step_by(part)
            .map(|start| start..end.min(start + part))
            .collect();
        let within = self.within.as_deref();
        let found = parallel::map_min(&parts, 1, |r| {
            matching(within, r.clone(), &matches).collect::<Vec<u32>>()
        });
        self.matches.extend(found.into_iter().flatten());
        self.next = end;
    }

    /// Where a step of `items` more ends (the list's end at most).
    fn end_after(&self, items: usize) -> usize {
        self.todo().min(self.next.saturating_add(items))
    }

    /// Every item is tried.
    pub(crate) fn done(&self) -> bool {
        self.next >= self.todo()
    }

    /// Matches so far, and where the item at `selected` is among them
    /// (1-based), when it matches.
    pub(crate) fn answer(&self, selected: Option<usize>) -> (usize, Option<usize>) {
        let at = selected.and_then(|s| self.matches.binary_search(&(s as u32)).ok());
        (self.matches.len(), at.map(|i| i + 1))
    }

    /// Once done: the first match at or after item `from` (after it, when
    /// not `inclusive`), or before it going back, wrapping round the list.
    pub(crate) fn next_match(&self, from: usize, forward: bool, inclusive: bool) -> Option<usize> {
        let m = &self.matches;
        if !self.done() || m.is_empty() {
            return None;
        }
        let from = from as u32;
        let i = if forward {
            let i = m.partition_point(|&x| x < from || (!inclusive && x == from));
            if i == m.len() {
                0
            } else {
                i
            }
        } else {
            let i = m.partition_point(|&x| x < from || (inclusive && x == from));
            if i == 0 {
                m.len() - 1
            } else {
                i - 1
            }
        };
        Some(m[i] as usize)
    }

    fn todo(&self) -> usize {
        self.within.as_ref().map_or(self.key.len, Vec::len)
    }
}

/// The list indices of the items a count tries at `range` (of the last
/// query's matches `within`, or of the whole list) that `matches` takes.
fn matching<'a>(
    within: Option<&'a [u32]>,
    range: Range<usize>,
    matches: &'a impl Fn(usize) -> bool,
) -> impl Iterator<Item = u32> + 'a {
    range
        .map(move |k| within.map_or(k as u32, |w| w[k]))
        .filter(move |&item| matches(item as usize))
}

/// Whether every item matching `key` matches `last`: the same list, and
/// `last`'s query inside `key`'s (case-insensitively, as the search).
fn extends<L: PartialEq>(key: &CountKey<L>, last: &CountKey<L>) -> bool {
    key.list == last.list
        && key.len == last.len
        && key
            .query
            .to_lowercase()
            .contains(&last.query.to_lowercase())
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// The list here is a number: which of several lists.
    fn key(query: &str, len: usize) -> CountKey<u8> {
        CountKey {
            query: query.into(),
            list: 0,
            len,
        }
    }

    /// Slice by slice, the count ends where one pass ends, and says it is
    /// not done until then.
    #[test]
    fn a_count_in_slices_is_the_count_of_one_pass() {
        let hits = |i: usize| i % 7 == 3 || i % 11 == 0;
        let whole: Vec<usize> = (0..10_000).filter(|&i| hits(i)).collect();
        let mut c = Count::new(key("q", 10_000), None);
        let mut slices = 0;
        while !c.done() {
            assert!(slices < 10_000 / 64 + 1);
            c.step(64, hits);
            slices += 1;
        }
        assert_eq!(slices, 10_000usize.div_ceil(64));
        let at = whole[40];
        assert_eq!(c.answer(Some(at)), (whole.len(), Some(41)));
        assert_eq!(c.answer(Some(1)), (whole.len(), None));
    }

    /// On every core, slice by slice, the count is the one-pass count:
    /// the same matches in the same order, over the whole list and over
    /// the last query's matches, whatever the slice (a boundary item
    /// tried twice or not at all, or parts joined out of order, would
    /// show here).
    #[test]
    fn a_count_on_every_core_is_the_count_of_one_pass() {
        let hits = |i: usize| i % 7 == 3 || i % 11 == 0;
        let cases = [
            (10_000, 64),
            (10_000, 300),
            (10_000, 4_096),
            (999, 1),
            (3, 2_048),
            (0, 8),
        ];
        for ((len, slice), cores) in cases.into_iter().flat_map(|c| [1, 2, 3].map(|n| (c, n))) {
            let mut one = Count::new(key("q", len), None);
            one.step(usize::MAX, hits);
            let mut on_cores = Count::new(key("q", len), None);
            let mut slices = 0;
            while !on_cores.done() {
                assert!(slices <= len, "a step that made no progress");
                on_cores.step_on(slice, cores, hits);
                slices += 1;
            }
            let case = format!("{len} items, slices of {slice} on {cores} threads");
            assert_eq!(on_cores.matches, one.matches, "{case}");

            // Typing on: over the last query's matches only.
            let narrower = |i: usize| hits(i) && i % 2 == 0;
            let mut again = Count::new(key("qq", len), Some(on_cores));
            while !again.done() {
                again.step_on(slice, cores, narrower);
            }
            let want: Vec<u32> = (0..len as u32).filter(|&i| narrower(i as usize)).collect();
            assert_eq!(again.matches, want, "{case}, typing on");
        }
    }

    /// `n` and `N` over a finished count: the next match either way,
    /// round the end of the list.
    #[test]
    fn the_next_match_wraps_round() {
        let mut c = Count::new(key("q", 100), None);
        c.step(usize::MAX, |i| [10, 40, 70].contains(&i));
        assert_eq!(c.next_match(40, true, true), Some(40));
        assert_eq!(c.next_match(40, true, false), Some(70));
        assert_eq!(c.next_match(71, true, false), Some(10));
        assert_eq!(c.next_match(40, false, false), Some(10));
        assert_eq!(c.next_match(5, false, false), Some(70));
        assert_eq!(c.next_match(10, false, true), Some(10));
        let mut half = Count::new(key("q", 100), None);
        half.step(50, |i| i == 10);
        assert_eq!(half.next_match(0, true, true), None, "not done");
    }

    /// Typing on tries only the last query's matches; anything else (a
    /// shorter query, another list, a count not done) tries every item.
    #[test]
    fn typing_on_tries_only_the_last_matches() {
        let tried = Cell::new(0);
        let hits = |i: usize| {
            tried.set(tried.get() + 1);
            i % 10 == 0
        };
        let mut first = Count::new(key("ol", 1_000), None);
        first.step(usize::MAX, hits);
        assert_eq!(tried.replace(0), 1_000);
        let mut next = Count::new(key("OL-9", 1_000), Some(first));
        next.step(usize::MAX, |i| hits(i) && i % 20 == 0);
        assert_eq!(tried.replace(0), 100, "only the 100 matches of `ol`");
        assert_eq!(next.answer(None).0, 50);

        let shorter = Count::new(key("ol", 1_000), Some(next));
        assert_eq!(shorter.todo(), 1_000);
        let mut half = Count::new(key("a", 1_000), None);
        half.step(10, hits);
        let after_half = Count::new(key("ab", 1_000), Some(half));
        assert_eq!(
            after_half.todo(),
            1_000,
            "an unfinished count narrows nothing"
        );
        let mut other = Count::new(key("a", 1_000), None);
        other.step(usize::MAX, hits);
        let mut moved = key("ab", 1_000);
        moved.list = 1;
        assert_eq!(Count::new(moved, Some(other)).todo(), 1_000);
    }
}
