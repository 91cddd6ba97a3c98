//! A kept text parsed again for one of its messages
//! ([`CompactMessage::full`](super::compact::CompactMessage::full)).
//!
//! Most files hold one message, parsed again alone. A file of many (a JSON
//! Lines export, an array of messages) is parsed again once for all of
//! them: when each message's first read parsed the whole file, a walk over
//! its N messages made N parses of it (`amail threads` over one
//! 20,000-line export took 4 minutes; the inbox showed nothing meanwhile).
//! The messages of the last few such files are kept on the thread that
//! asked, each handed over once (its record keeps it from then on, until
//! let go), and a file's entry goes when all of its messages are taken
//! or the holder lets go of its parses: memory holds at most a few
//! files' messages beside the records.

use std::cell::RefCell;
use std::sync::Arc;

use amail_parser::{Message, OwnedMessage, ParseOptions};

/// How many files of many messages a thread keeps the parsed messages
/// of: a walk reads a few files in turn (two exports, a day's each),
/// not hundreds.
const FILES: usize = 4;

/// The most text those files may have together: past it the oldest go
/// (the newest stays whatever its size, or it would be parsed again for
/// each message).
const BYTES: usize = 32 << 20;

/// A file's messages not yet handed over.
struct Kept {
    /// The text's place (start and length): which file it is, while
    /// `buffer` keeps it where it is.
    text: (usize, usize),
    /// The buffer the text is a range of (a record's `Text`).
    _buffer: Arc<Box<str>>,
    messages: Vec<Option<OwnedMessage>>,
    left: usize,
}

/// Where `text` is: the same text of a kept buffer is the same file.
fn place(text: &str) -> (usize, usize) {
    (text.as_ptr() as usize, text.len())
}

thread_local! {
    static KEPT: RefCell<Vec<Kept>> = const { RefCell::new(Vec::new()) };
}

/// The `index`-th message of `text` (a range of `buffer`) parsed with the
/// default options, as [`amail_parser::parse`] gives it; `None` when it
/// gives fewer.
pub(crate) fn nth(text: &str, buffer: &Arc<Box<str>>, index: usize) -> Option<OwnedMessage> {
    if let Some(m) = KEPT.with(|k| take(&mut k.borrow_mut(), text, index)) {
        return Some(m);
    }
    #[cfg(test)]
    tests::PARSES.with(|p| p.set(p.get() + 1));
    let parsed = amail_parser::parse(text, &ParseOptions::default()).ok()?;
    if parsed.len() <= 1 {
        return parsed.into_iter().nth(index).map(Message::into_owned);
    }
    let mut messages: Vec<Option<OwnedMessage>> =
        parsed.into_iter().map(|m| Some(m.into_owned())).collect();
    let m = messages.get_mut(index)?.take();
    let left = messages.len() - 1;
    KEPT.with(|k| {
        keep(
            &mut k.borrow_mut(),
            Kept {
                text: place(text),
                _buffer: Arc::clone(buffer),
                messages,
                left,
            },
        )
    });
    m
}

/// Lets go of this thread's kept messages (a holder letting go of its
/// parses, [`crate::inbox::Inbox::let_go_of_parses`]): how many there
/// were.
pub(crate) fn let_go() -> usize {
    KEPT.with(|k| k.take().iter().map(|k| k.left).sum())
}

/// The kept message `index` of `text`, if it is still there.
fn take(kept: &mut Vec<Kept>, text: &str, index: usize) -> Option<OwnedMessage> {
    let at = kept.iter().position(|k| k.text == place(text))?;
    let m = kept[at].messages.get_mut(index)?.take()?;
    kept[at].left -= 1;
    if kept[at].left == 0 {
        kept.remove(at);
    }
    Some(m)
}

/// Keeps `new` (in place of an older entry of its text, one of whose
/// messages was asked again), the oldest let go past [`FILES`] and
/// [`BYTES`].
fn keep(kept: &mut Vec<Kept>, new: Kept) {
    kept.retain(|k| k.text != new.text);
    if new.left == 0 {
        return;
    }
    kept.push(new);
    let bytes = |kept: &[Kept]| kept.iter().map(|k| k.text.1).sum::<usize>();
    while kept.len() > FILES || (kept.len() > 1 && bytes(kept) > BYTES) {
        kept.remove(0);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    thread_local! {
        pub(super) static PARSES: Cell<usize> = const { Cell::new(0) };
    }

    /// How many times this thread parsed a kept text again.
    pub(crate) fn parses() -> usize {
        PARSES.with(Cell::get)
    }
}
