//! The inbox's record of one message: the envelope every derivation and
//! list reads (type, sender, recipients, thread, time, ack, bead, status)
//! kept small, and the rest (body, parsed fields, diagnostics) parsed again
//! from the file's text the first time something asks for it.
//!
//! Why (issue 16): a parsed [`OwnedMessage`] is 880 bytes inline (thirty
//! optional fields, most of them empty) plus a dozen owned strings, about
//! 2 KB a message; 100,000 of them held 6.9x the corpus on disk. The record
//! is about a third of that inline, the repeated names (agents, threads,
//! beads, importance, type words) are interned once per process, and the
//! file's text is kept once, shared by the messages of one file (and, in a
//! load, one buffer for a chunk of files: [`TextChunk`]), so the full
//! message can be re-parsed (about a microsecond) without I/O.
//!
//! The envelope fields have the names and types of [`amail_parser::Message`]'s,
//! so `m.message.subject` reads the record itself; anything else
//! (`m.message.parsed`, `.body`, `.diagnostics`, or `&m.message` passed as a
//! `&OwnedMessage`) goes through [`Deref`] to the full message, parsed
//! once on first use and then kept. A record made from a full message (the
//! mcp database, piped JSON, protocol items, a server) keeps that message
//! as it is. The envelope fields are the record's own: set them before the
//! inbox is built, not after (the full message keeps the parse's values).
//!
//! A parse made again is kept until the holder of the record lets it go
//! ([`CompactMessage::let_go`], [`crate::inbox::Inbox::let_go_of_parses`]):
//! a list that shows each row's newest message parses a few dozen a
//! frame, and paging through a big inbox would otherwise keep one per
//! thread for good. [`parsed_again`] counts them, so a holder knows when.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use amail_parser::{Message, MessageType, OwnedMessage, Parsed};
use chrono::{DateTime, Utc};
use once_cell::race::OnceBox;
use serde::{Serialize, Serializer};

/// What a type that stands for a text has of `&str`, from its
/// `as_str`: `Deref` and `AsRef` to it, equality with `str`, `&str` and
/// `String`, and `Debug`, `Display` and `Serialize` as the text. One
/// place for [`Name`] and [`Text`], which differ in how they hold it.
macro_rules! reads_as_str {
    ($t:ty) => {
        impl Deref for $t {
            type Target = str;

            fn deref(&self) -> &str {
                self.as_str()
            }
        }

        impl AsRef<str> for $t {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }

        impl PartialEq<str> for $t {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $t {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl PartialEq<String> for $t {
            fn eq(&self, other: &String) -> bool {
                self.as_str() == other
            }
        }

        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self.as_str(), f)
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self.as_str(), f)
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

/// A name held once per process (an agent, a thread id, a bead, a
/// project, a type word: see [`intern`]): its number in the interner's
/// table, 4 bytes, where the `&'static str` it replaced was 16 (issue 16:
/// a record holds eight names and two lists of them, a million times in
/// a big inbox). It reads as the `&'static str` it stands for (`Deref`,
/// [`Name::as_str`]), compares with strings, and sorts, hashes, prints and
/// serializes as its text; two names are equal when their texts are, as
/// the interner gives one number per text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Name(std::num::NonZeroU32);

impl Name {
    /// The empty name (number 1, never in the table).
    pub const EMPTY: Name = Name(std::num::NonZeroU32::MIN);

    /// The name's text, held for the life of the process.
    pub fn as_str(self) -> &'static str {
        names::text(self.0.get())
    }

    /// Its number: the same for the same text.
    pub(crate) fn number(self) -> u32 {
        self.0.get()
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::EMPTY
    }
}

reads_as_str!(Name);

/// Hashed as its number (one per text), without reading the text: a
/// build hashes a name per message. So it is not `Borrow<str>`: a map
/// keyed by names is asked with names.
impl std::hash::Hash for Name {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h)
    }
}

/// As the text: lists sorted by name read as before.
impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        if self == other {
            return std::cmp::Ordering::Equal;
        }
        self.as_str().cmp(other.as_str())
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl From<Name> for &'static str {
    fn from(n: Name) -> &'static str {
        n.as_str()
    }
}

/// One message as the inbox holds it. See the module documentation.
///
/// The names are [`Name`]s and the recipient lists [`Names`]: 4 and 16
/// bytes inline and no allocation for up to two names, where a
/// `Cow<'static, str>` is 24 and a `Vec` of them allocates (issue 16:
/// every byte here is paid 100,000 times).
#[derive(Clone)]
pub struct CompactMessage {
    /// A range of the kept text when written there as parsed (no copy).
    pub id: Option<Text>,
    pub kind: MessageType,
    pub raw_type: Option<Name>,
    pub is_reply: bool,
    /// A range of the kept text when written there as parsed (no copy).
    pub subject: Text,
    pub from: Option<Name>,
    pub to: Names,
    pub cc: Names,
    pub thread_id: Option<Name>,
    pub timestamp: Option<DateTime<Utc>>,
    pub ack_required: bool,
    /// `parsed.context_usage` (at most 100; [`NO_READING`] for none), read
    /// for every message by the agents view: kept so that view parses
    /// nothing again (a million messages: 2.5 s and 1.8 GB more when it
    /// went through the full message). One byte, not an `Option`: the two
    /// bytes of one made every record 8 bytes larger.
    context_usage: u8,
    pub importance: Name,
    pub project: Option<Name>,
    /// [`Message::bead`], read for every message by threading and turns.
    bead: Option<Name>,
    /// `parsed.status`, read for every message by turns: a range of the
    /// kept text, when the parser took it as written (most do; no copy of
    /// it per message).
    status: Option<Text>,
    /// Where the full message is parsed again from; `None` when `full` was
    /// set at construction.
    source: Option<Source>,
    /// 8 bytes (a `OnceLock` of the box is 16, its state beside the
    /// pointer): a race to parse it first keeps one and drops the other,
    /// the same message.
    full: OnceBox<OwnedMessage>,
}

/// How many full messages records have parsed again, in this process: a
/// holder of records compares it with its count at its last
/// [`CompactMessage::let_go`] pass to know when the parses it keeps have
/// grown (one count for the process, not per inbox: a record does not
/// know its inbox, and a count that also moves with others' parses only
/// makes a holder let go sooner).
pub fn parsed_again() -> usize {
    PARSED_AGAIN.load(Ordering::Relaxed)
}

static PARSED_AGAIN: AtomicUsize = AtomicUsize::new(0);

/// [`CompactMessage`]'s context usage when the message gives none.
const NO_READING: u8 = u8::MAX;

/// The text of the file a message was parsed from.
#[derive(Clone)]
struct Source {
    /// The file's text (a range of its read chunk's buffer).
    text: Text,
    /// Which of the file's messages (the low 31 bits), and in the top bit
    /// ([`ENVELOPE_OVER`]) whether the record's envelope was set over what
    /// parsing `text` gives (a database row's columns over its rendered
    /// file), so that parsing again puts it back
    /// ([`CompactMessage::from_text_under`]). One field for both: a flag
    /// of its own made every record 8 bytes larger.
    index: u32,
    /// The body's byte range in `text`, when the parser borrowed it as
    /// written (search reads every body; this keeps it from parsing all).
    body: Option<(u32, u32)>,
}

/// [`Source::index`]'s flag bit.
const ENVELOPE_OVER: u32 = 1 << 31;

impl CompactMessage {
    /// The record of `m`, the `index`-th message parsed (with the default
    /// options, by [`amail_parser::parse`]) from `text`. Re-parsing `text`
    /// must give `m` again: the caller passes text whose messages came
    /// from that call alone (no front matter applied, no lossy decoding).
    pub fn from_text(m: &Message<'_>, text: &Text, index: usize) -> CompactMessage {
        CompactMessage::from_source(m, text, index, false)
    }

    /// The record of `m`, the `index`-th message parsed from `text` with
    /// its envelope (id, sender, recipients, thread, time, ack, importance,
    /// subject, project) then set from elsewhere: a database row's columns
    /// over the file the row renders to. Parsing `text` again gives `m`
    /// once the record's envelope is put back over it, which the full
    /// message does. Why (issue 16): a row held as its whole parsed message
    /// took about 3.7 KB; its rendered text and this record about a third
    /// of that.
    pub fn from_text_under(m: &Message<'_>, text: &Text, index: usize) -> CompactMessage {
        CompactMessage::from_source(m, text, index, true)
    }

    fn from_source(
        m: &Message<'_>,
        text: &Text,
        index: usize,
        envelope_over: bool,
    ) -> CompactMessage {
        let body = span_in(&m.body, text);
        let flag = if envelope_over { ENVELOPE_OVER } else { 0 };
        let index = (u32::try_from(index).unwrap_or(u32::MAX) & !ENVELOPE_OVER) | flag;
        CompactMessage::envelope(
            m,
            Some(Source {
                text: text.clone(),
                index,
                body,
            }),
        )
    }

    /// `m`'s envelope, with `source` to parse the rest from (none: the
    /// caller sets `full`).
    fn envelope(m: &Message<'_>, source: Option<Source>) -> CompactMessage {
        let text = source.as_ref().map(|s| &s.text);
        CompactMessage {
            id: m.id.as_deref().map(|id| Text::within(id, text)),
            kind: m.kind,
            raw_type: m.raw_type.as_deref().map(intern),
            is_reply: m.is_reply,
            subject: Text::within(&m.subject, text),
            from: m.from.as_deref().map(intern),
            to: Names::of(&m.to),
            cc: Names::of(&m.cc),
            thread_id: m.thread_id.as_deref().map(intern),
            timestamp: m.timestamp,
            ack_required: m.ack_required,
            context_usage: m.parsed.context_usage.map_or(NO_READING, |p| p.min(100)),
            importance: intern(&m.importance),
            project: m.project.as_deref().map(intern),
            bead: m.bead().map(intern),
            status: m.parsed.status.as_deref().map(|st| Text::within(st, text)),
            source,
            full: OnceBox::new(),
        }
    }

    /// [`Message::bead`], without parsing the message again.
    pub fn bead(&self) -> Option<Name> {
        self.bead
    }

    /// `parsed.context_usage` (over 100 read as 100), without parsing the
    /// message again.
    pub fn context_usage(&self) -> Option<u8> {
        (self.context_usage != NO_READING).then_some(self.context_usage)
    }

    /// `parsed.status`, without parsing the message again.
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    /// The body, from the kept text when the parser took it as written.
    pub fn body_text(&self) -> &str {
        match &self.source {
            Some(Source {
                text,
                body: Some((at, len)),
                ..
            }) => text
                .get(*at as usize..(*at + *len) as usize)
                .unwrap_or_default(),
            _ => &self.full().body,
        }
    }

    /// The full message, parsed again from the kept text on first use.
    pub fn full(&self) -> &OwnedMessage {
        self.full.get_or_init(|| {
            PARSED_AGAIN.fetch_add(1, Ordering::Relaxed);
            Box::new(self.reparse())
        })
    }

    /// Lets go of the full message when it was parsed again (and can be
    /// again): true if one was held. A full message the record was made
    /// from stays, as there is no text to parse it from.
    pub fn let_go(&mut self) -> bool {
        if self.source.is_none() || self.full.get().is_none() {
            return false;
        }
        self.full = OnceBox::new();
        true
    }

    /// The full message if it is already held: what is known without
    /// parsing again.
    pub fn full_if_held(&self) -> Option<&OwnedMessage> {
        self.full.get()
    }

    fn reparse(&self) -> OwnedMessage {
        let again = self.source.as_ref().and_then(|s| {
            let index = (s.index & !ENVELOPE_OVER) as usize;
            let mut m = super::reparse::nth(&s.text, &s.text.buf, index)?;
            if s.index & ENVELOPE_OVER != 0 {
                self.put_envelope(&mut m);
            }
            Some(m)
        });
        // The text parsed once already, so this is never reached; if it
        // were, the envelope still shows.
        again.unwrap_or_else(|| self.envelope_only())
    }

    /// The record's envelope over `m`: the fields
    /// [`CompactMessage::from_text_under`] says were set from elsewhere
    /// (and all [`CompactMessage::envelope_only`] knows beside the type,
    /// bead and status).
    fn put_envelope(&self, m: &mut OwnedMessage) {
        let name = |n: Name| Cow::Borrowed(n.as_str());
        m.id = self.id.as_deref().map(|id| Cow::Owned(id.to_owned()));
        m.from = self.from.map(name);
        m.to = self.to.iter().copied().map(name).collect();
        m.cc = self.cc.iter().copied().map(name).collect();
        m.thread_id = self.thread_id.map(name);
        m.timestamp = self.timestamp;
        m.ack_required = self.ack_required;
        m.importance = name(self.importance);
        m.subject = Cow::Owned(self.subject.to_string());
        m.project = self.project.map(name);
    }

    fn envelope_only(&self) -> OwnedMessage {
        let mut m = Message {
            kind: self.kind,
            raw_type: self.raw_type.map(|n| Cow::Borrowed(n.as_str())),
            is_reply: self.is_reply,
            parsed: Parsed {
                bead_id: self.bead.map(|n| Cow::Borrowed(n.as_str())),
                status: self.status().map(|s| Cow::Owned(s.to_owned())),
                context_usage: self.context_usage(),
                ..Parsed::default()
            },
            ..Message::empty()
        };
        self.put_envelope(&mut m);
        m
    }
}

impl From<OwnedMessage> for CompactMessage {
    /// Keeps the full message; the envelope's repeated names are shared.
    fn from(m: OwnedMessage) -> CompactMessage {
        let record = CompactMessage::envelope(&m, None);
        let _ = record.full.set(Box::new(m));
        record
    }
}

impl Deref for CompactMessage {
    type Target = OwnedMessage;

    fn deref(&self) -> &OwnedMessage {
        self.full()
    }
}

/// Equal when the full messages are: how a record was made does not count.
impl PartialEq for CompactMessage {
    fn eq(&self, other: &CompactMessage) -> bool {
        self.full() == other.full()
    }
}

impl fmt::Debug for CompactMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.full().fmt(f)
    }
}

/// The full message's JSON, as before the record existed.
impl Serialize for CompactMessage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.full().serialize(s)
    }
}

/// A range of a shared buffer, read as a `&str`: a file's kept text, and
/// a record's own texts (its id, its subject, its key). Made from a slice
/// of a kept text it is that range, with no allocation or copy (issue 16:
/// an id and a subject per message were 200,000 allocations in a
/// 100,000-message load); from anything else, its own copy. A clone
/// counts a reference.
///
/// 16 bytes: the buffer is behind a thin pointer (`Arc<Box<str>>`, 8
/// bytes, where an `Arc<str>` is 16). A record holds four of them (its
/// file's text, id, subject and key), 100,000 times in a big inbox; the
/// second pointer hop costs a read of a field nothing reads in a loop.
#[derive(Clone)]
pub struct Text {
    buf: Arc<Box<str>>,
    at: u32,
    len: u32,
}

impl Text {
    /// `s`, copied.
    pub fn new(s: &str) -> Text {
        if s.is_empty() {
            return Text::default();
        }
        Text::whole(Box::from(s))
    }

    /// `s` as it is, no copy: a buffer of its own.
    pub fn whole(s: Box<str>) -> Text {
        Text {
            // 4 GiB or more: no range fits; the mark says "all of it".
            len: u32::try_from(s.len()).unwrap_or(u32::MAX),
            buf: Arc::new(s),
            at: 0,
        }
    }

    /// `s` as a range of `text`'s buffer when it is a slice of it, else
    /// copied.
    fn within(s: &str, text: Option<&Text>) -> Text {
        match text.and_then(|t| Some((t, span_in(s, &t.buf)?))) {
            // (`u32::MAX` long is the whole buffer's mark: copied.)
            Some((t, (at, len))) if !s.is_empty() && len < u32::MAX => Text {
                buf: Arc::clone(&t.buf),
                at,
                len,
            },
            _ => Text::new(s),
        }
    }

    /// Whether this text is a range of `other`'s buffer (no copy).
    #[cfg(test)]
    pub(crate) fn shares(&self, other: &Text) -> bool {
        Arc::ptr_eq(&self.buf, &other.buf)
    }

    /// `s` as a range of this text's buffer when it is a slice of it
    /// (a trimmed id, as a key), else copied.
    pub fn part(&self, s: &str) -> Text {
        Text::within(s, Some(self))
    }

    /// The bytes `range` of this text (counted from its start) as a text
    /// of the same buffer; `None` past its end or off a character
    /// boundary.
    pub fn sub(&self, range: std::ops::Range<usize>) -> Option<Text> {
        let s = self.as_str().get(range)?;
        Some(Text::within(s, Some(self)))
    }

    pub fn as_str(&self) -> &str {
        if self.len == u32::MAX && self.at == 0 {
            return &self.buf;
        }
        let (at, len) = (self.at as usize, self.len as usize);
        self.buf.get(at..at + len).unwrap_or_default()
    }
}

/// The texts of a chunk of files, gathered one after the other and then
/// kept as one buffer that each file's [`Text`] is a range of: one
/// allocation for a load's chunk of files where each file's text was one
/// of its own (issue 16: 100,000 blocks of a heap header, an `Arc`'s
/// counts and the allocator's rounding, about 3 MB of a 100,000-message
/// load).
///
/// A reader keeps one for all its chunks: texts are gathered in its
/// reused buffer and each chunk's kept buffer is allocated once at its
/// exact size ([`TextChunk::to_text`]). A buffer grown by doubling and
/// then shrunk left a hole behind each chunk that the heap did not give
/// back: the same 100,000-message load peaked 3 to 5 MB higher.
#[derive(Default)]
pub struct TextChunk {
    buf: String,
}

impl TextChunk {
    /// Empties it for the next chunk (its room is kept).
    pub fn clear(&mut self) {
        self.buf.clear();
    }

    /// Adds `s` at the end; its range in the chunk, or `None` (nothing
    /// added) when the chunk would pass what a [`Text`]'s `u32` ranges
    /// reach: that file keeps a buffer of its own.
    pub fn push(&mut self, s: &str) -> Option<std::ops::Range<usize>> {
        self.push_with(|buf| buf.push_str(s))
    }

    /// Adds the text `write` appends to the chunk's buffer (a text made
    /// in place, not made and then copied); its range, or `None` (taken
    /// back) as [`TextChunk::push`] says.
    pub fn push_with(&mut self, write: impl FnOnce(&mut String)) -> Option<std::ops::Range<usize>> {
        let at = self.buf.len();
        write(&mut self.buf);
        if u32::try_from(self.buf.len()).is_ok_and(|end| end < u32::MAX) {
            Some(at..self.buf.len())
        } else {
            self.buf.truncate(at);
            None
        }
    }

    /// The texts gathered so far, copied into one buffer of their exact
    /// size; their ranges are cut from it with [`Text::sub`].
    pub fn to_text(&self) -> Text {
        Text::new(&self.buf)
    }

    /// A chunk for texts of about `bytes` in all, made once for them
    /// (not a reused one, [`TextChunk::to_text`]).
    pub fn with_capacity(bytes: usize) -> TextChunk {
        TextChunk {
            buf: String::with_capacity(bytes),
        }
    }

    /// The texts gathered, the chunk's own buffer kept as theirs (cut to
    /// their size), not copied: for a chunk made for one use
    /// ([`TextChunk::with_capacity`]) whose room was about right.
    pub fn into_text(self) -> Text {
        Text::whole(self.buf.into_boxed_str())
    }
}

impl Default for Text {
    /// The empty text, one shared buffer.
    fn default() -> Text {
        static EMPTY: OnceLock<Arc<Box<str>>> = OnceLock::new();
        Text {
            buf: Arc::clone(EMPTY.get_or_init(|| Arc::new(Box::from("")))),
            at: 0,
            len: 0,
        }
    }
}

reads_as_str!(Text);

impl std::borrow::Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::new(s)
    }
}

impl From<String> for Text {
    /// `s` as it is (its room beyond its length given back), no copy.
    fn from(s: String) -> Text {
        if s.is_empty() {
            return Text::default();
        }
        Text::whole(s.into_boxed_str())
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        **self == **other
    }
}

impl Eq for Text {}

/// As the text: a key sorts as the `String` it replaced.
impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> std::cmp::Ordering {
        (**self).cmp(&**other)
    }
}

impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (**self).hash(h)
    }
}

/// `p`'s byte range in `text`, when it is a slice of it (the parser
/// borrowed it as written; a normalised copy lives elsewhere).
fn span_in(p: &str, text: &str) -> Option<(u32, u32)> {
    let start = (p.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    (start + p.len() <= text.len()).then_some(())?;
    Some((u32::try_from(start).ok()?, u32::try_from(p.len()).ok()?))
}

/// Recipient names (`to`, `cc`): up to two names held inline (most
/// messages have one `to` and no `cc`), more in one allocation. Reads as a
/// slice of [`Name`]s. 16 bytes: the longer list is behind a thin pointer,
/// where a `Box<[Name]>` inline made every record 8 bytes longer for the
/// few messages that need it (issue 16).
#[derive(Clone)]
pub struct Names(NamesRepr);

#[derive(Clone)]
enum NamesRepr {
    /// The first `len` of `names` (the rest [`Name::EMPTY`]).
    Few {
        len: u8,
        names: [Name; 2],
    },
    Many(Box<Box<[Name]>>),
}

/// Equal when they list the same names.
impl PartialEq for Names {
    fn eq(&self, other: &Names) -> bool {
        **self == **other
    }
}

impl Eq for Names {}

impl Names {
    /// `names`, each interned.
    pub fn of<S: AsRef<str>>(names: &[S]) -> Names {
        let few = |len: u8, a: Option<&S>, b: Option<&S>| {
            let name = |n: Option<&S>| n.map_or(Name::EMPTY, |n| intern(n.as_ref()));
            Names(NamesRepr::Few {
                len,
                names: [name(a), name(b)],
            })
        };
        match names {
            [] => few(0, None, None),
            [a] => few(1, Some(a), None),
            [a, b] => few(2, Some(a), Some(b)),
            _ => Names(NamesRepr::Many(Box::new(
                names.iter().map(|n| intern(n.as_ref())).collect(),
            ))),
        }
    }
}

impl Default for Names {
    fn default() -> Names {
        Names::of::<&str>(&[])
    }
}

impl Deref for Names {
    type Target = [Name];

    fn deref(&self) -> &[Name] {
        match &self.0 {
            NamesRepr::Few { len, names } => names.get(..usize::from(*len)).unwrap_or_default(),
            NamesRepr::Many(all) => all,
        }
    }
}

/// `message.to == ["BlueLake"]`, as with the `Vec` it replaced.
impl<const N: usize> PartialEq<[&str; N]> for Names {
    fn eq(&self, other: &[&str; N]) -> bool {
        **self == *other
    }
}

impl fmt::Debug for Names {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// One copy per process of a name that repeats across messages (agents,
/// thread ids, beads, projects, importance, type words), and its number.
/// The copies are never freed: they are bounded by the distinct names a
/// process sees, a few bytes per agent and bead, where owning them cost
/// one allocation per message. Each thread first asks its own cache, so
/// the parse workers do not contend for the lock. Not for text unique to
/// a message (ids, keys, subjects): that would be kept for the life of
/// the process.
pub fn intern(s: &str) -> Name {
    thread_local! {
        // hashbrown's foldhash: SipHash was most of this lookup, made
        // several times for every message parsed.
        static NEAR: std::cell::RefCell<names::ByText> = Default::default();
    }
    if s.is_empty() {
        return Name::EMPTY;
    }
    if let Some(name) = NEAR.with(|near| near.borrow().get(s)) {
        return name;
    }
    let name = names::add(s);
    NEAR.with(|near| near.borrow_mut().insert(name));
    name
}

/// The interner's table: each name's text by its number, read without a
/// lock (a name is read far more often than one is added). Numbers from
/// 2 up are placed in buckets of doubling size (bucket `b` holds
/// `2^b..2^(b+1)`), each made once when its first name comes, so the
/// table never moves what a reader may be reading.
mod names {
    use std::hash::BuildHasher;
    use std::num::NonZeroU32;
    use std::sync::{Mutex, OnceLock};

    use super::Name;

    type Bucket = Box<[OnceLock<&'static str>]>;

    /// Numbers up to `2^31` (a bucket of `2^31` would not be made).
    const BUCKETS: usize = 31;

    static TABLE: [OnceLock<Bucket>; BUCKETS] = [const { OnceLock::new() }; BUCKETS];

    /// The names given so far, found by text; the lock is taken only to
    /// add.
    static BY_TEXT: OnceLock<Mutex<ByText>> = OnceLock::new();

    /// Names found by their text, 4 bytes each: hashed by the text here
    /// (a [`Name`] itself hashes as its number).
    #[derive(Default)]
    pub(super) struct ByText {
        hasher: hashbrown::DefaultHashBuilder,
        table: hashbrown::HashTable<Name>,
    }

    impl ByText {
        pub(super) fn get(&self, s: &str) -> Option<Name> {
            let hash = self.hasher.hash_one(s);
            self.table.find(hash, |n| n.as_str() == s).copied()
        }

        pub(super) fn insert(&mut self, name: Name) {
            let hasher = &self.hasher;
            let hash = hasher.hash_one(name.as_str());
            self.table
                .insert_unique(hash, name, |n| hasher.hash_one(n.as_str()));
        }

        fn len(&self) -> usize {
            self.table.len()
        }
    }

    fn place(n: u32) -> (usize, usize) {
        let bucket = 31 - n.leading_zeros();
        (bucket as usize, (n - (1 << bucket)) as usize)
    }

    /// The text of the name numbered `n` (the empty text for 1, or for a
    /// number the table does not hold: none is made but by [`add`]).
    pub(super) fn text(n: u32) -> &'static str {
        held(n).unwrap_or("")
    }

    fn held(n: u32) -> Option<&'static str> {
        let (bucket, at) = place(n);
        TABLE
            .get(bucket)?
            .get()
            .and_then(|b| b.get(at))
            .and_then(OnceLock::get)
            .copied()
    }

    /// `s`'s name: the one it has, or a new number for a copy of it.
    pub(super) fn add(s: &str) -> Name {
        let all = BY_TEXT.get_or_init(Default::default);
        let mut all = all.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(name) = all.get(s) {
            return name;
        }
        // Numbers 2.. (1 is the empty name). Past `2^31` names (tens of
        // gigabytes of them) a new text would have no number: it reads
        // as the empty name rather than as another's.
        let n = all.len() + 2;
        let Some((n, (bucket, at))) = u32::try_from(n)
            .ok()
            .map(|n| (n, place(n)))
            .filter(|&(_, (bucket, _))| bucket < BUCKETS)
        else {
            return Name::EMPTY;
        };
        let text: &'static str = Box::leak(s.into());
        let slots =
            TABLE[bucket].get_or_init(|| (0..1usize << bucket).map(|_| OnceLock::new()).collect());
        let _ = slots[at].set(text);
        let Some(name) = NonZeroU32::new(n).map(Name) else {
            return Name::EMPTY;
        };
        all.insert(name);
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::inbox::reparse::tests::parses;
    use amail_parser::ParseOptions;

    fn parse(text: &str) -> Vec<OwnedMessage> {
        amail_parser::parse(text, &ParseOptions::default())
            .unwrap()
            .into_iter()
            .map(Message::into_owned)
            .collect()
    }

    #[test]
    fn a_record_under_another_envelope_puts_it_back_over_the_parse() {
        let text = Text::from(
            "Subject: [ol-1.1] PROGRESS\nFrom: GreenCastle\nTo: BlueLake\n\n\
             Body:\nBead: ol-1.1\nStatus: drafting SQL\n",
        );
        let parsed = amail_parser::parse(&text, &ParseOptions::default()).unwrap();
        // A database row's columns over what its rendered file says.
        let mut m = parsed[0].clone();
        m.id = Some(Cow::Owned("42".into()));
        m.from = Some(Cow::Borrowed("RedStone"));
        m.to = vec![Cow::Borrowed("Chiron"), Cow::Borrowed("SilverFox")].into();
        m.cc = vec![Cow::Borrowed("BlueLake")].into();
        m.thread_id = Some(Cow::Borrowed("ol-1"));
        m.timestamp = Some(DateTime::<Utc>::UNIX_EPOCH);
        m.ack_required = true;
        m.importance = Cow::Borrowed("urgent");
        m.project = Some(Cow::Borrowed("backend"));
        let want = m.clone().into_owned();

        let record = CompactMessage::from_text_under(&m, &text, 0);
        assert_eq!(record.full_if_held(), None, "nothing parsed again yet");
        assert_eq!(
            *record.full(),
            want,
            "the row's envelope, the text's fields"
        );
        assert_eq!(record.full().parsed.status.as_deref(), Some("drafting SQL"));
        assert_eq!(record.body_text(), want.body);
        // Without the flag the parse's own envelope is the full message's:
        // a file's record holds what its parse gave.
        let plain = CompactMessage::from_text(&parsed[0], &text, 0);
        assert_eq!(plain.full().from.as_deref(), Some("GreenCastle"));
    }

    #[test]
    fn a_parse_let_go_is_made_again_the_same_and_a_given_message_is_kept() {
        let text =
            Text::from("Subject: [ol-1.1] PROGRESS\n\nBody:\nBead: ol-1.1\nStatus: drafting\n");
        let parsed = amail_parser::parse(&text, &ParseOptions::default()).unwrap();
        let mut record = CompactMessage::from_text(&parsed[0], &text, 0);
        assert!(!record.let_go(), "nothing parsed again yet");
        let before = parsed_again();
        let want = record.full().clone();
        assert!(parsed_again() > before, "the parse is counted");
        assert!(record.let_go());
        assert_eq!(record.full_if_held(), None);
        assert_eq!(*record.full(), want);
        // A record made from a full message has no text to parse it from.
        let mut given = CompactMessage::from(parsed[0].clone().into_owned());
        assert!(!given.let_go());
        assert_eq!(*given.full(), want);
    }

    #[test]
    fn a_record_from_text_gives_the_parsed_message_back() {
        let text = Text::from(
            "Subject: [ol-1.1] PROGRESS\nFrom: GreenCastle\nTo: BlueLake\nCc: Chiron\n\
             Thread: ol-1.1\nImportance: high\n\nBody:\nBead: ol-1.1\nStep: 2\n\
             Status: drafting SQL\nContext usage: 30%\n",
        );
        let parsed = amail_parser::parse(&text, &ParseOptions::default()).unwrap();
        let record = CompactMessage::from_text(&parsed[0], &text, 0);
        let want = parse(&text).remove(0);
        assert_eq!(record.full_if_held(), None, "nothing parsed again yet");
        assert_eq!(*record.subject, *want.subject);
        assert!(
            Arc::ptr_eq(&record.subject.buf, &text.buf),
            "the subject is a range of the kept text, not a copy"
        );
        assert_eq!(record.from.as_deref(), want.from.as_deref());
        assert!(record
            .to
            .iter()
            .copied()
            .eq(want.to.iter().map(|n| intern(n))));
        assert!(record
            .cc
            .iter()
            .copied()
            .eq(want.cc.iter().map(|n| intern(n))));
        assert_eq!(record.bead().as_deref(), Some("ol-1.1"));
        assert_eq!(record.status(), Some("drafting SQL"));
        assert!(
            record
                .status
                .as_ref()
                .is_some_and(|st| Arc::ptr_eq(&st.buf, &text.buf)),
            "the status is a range of the kept text, not a copy"
        );
        assert_eq!(record.body_text(), want.body);
        assert_eq!(record.context_usage(), Some(30));
        assert_eq!(
            record.full_if_held(),
            None,
            "the body and the context reading came without a parse"
        );
        assert_eq!(*record.full(), want);
        assert_eq!(record.parsed.context_usage, Some(30), "through Deref");
    }

    #[test]
    fn a_chunks_files_share_its_one_buffer_and_read_as_each_file_alone() {
        use crate::stores::read::records_of_text;
        let files = [
            "Subject: [ol-1.1] PROGRESS\nId: a-1\nFrom: A\n\nBody:\nStatus: one\nContext usage: 30%\n",
            "Subject: Hello\nId: b-2\nFrom: B\n\nBody:\nhi\n",
        ];
        let mut chunk = TextChunk::default();
        chunk.push("the chunk before").unwrap();
        chunk.clear();
        let ranges: Vec<_> = files.iter().map(|f| chunk.push(f).unwrap()).collect();
        assert_eq!(ranges[0].start, 0, "a cleared chunk starts again");
        let text = chunk.to_text();
        assert_eq!(&*text, files.concat());
        for (file, range) in files.iter().zip(ranges) {
            let part = text.sub(range).unwrap();
            assert_eq!(&*part, *file);
            let (records, _) = records_of_text(&part).unwrap();
            let (alone, _) = records_of_text(&Text::new(file)).unwrap();
            assert!(
                Arc::ptr_eq(&records[0].subject.buf, &text.buf),
                "the subject is a range of the chunk's one buffer"
            );
            assert_eq!(records[0].subject, alone[0].subject);
            assert_eq!(records[0].status(), alone[0].status());
            assert_eq!(records[0].body_text(), alone[0].body_text());
            // Parsed again from its range of the chunk: the same message.
            assert_eq!(records, alone);
        }
    }

    #[test]
    fn a_part_off_a_character_boundary_or_past_the_end_is_none() {
        let text = Text::new("é and more");
        assert_eq!(text.sub(0..1).map(|t| t.to_string()), None);
        assert_eq!(text.sub(0..2).map(|t| t.to_string()), Some("é".to_string()));
        assert_eq!(text.sub(3..40).map(|t| t.to_string()), None);
    }

    #[test]
    fn an_id_is_a_range_of_the_kept_text_and_reads_as_a_str() {
        let text = Text::from("Subject: Hello\nId: m-17\nFrom: A\n\nBody:\nhi\n");
        let parsed = amail_parser::parse(&text, &ParseOptions::default()).unwrap();
        let record = CompactMessage::from_text(&parsed[0], &text, 0);
        let id = record.id.as_ref().unwrap();
        assert_eq!(id, "m-17");
        assert!(Arc::ptr_eq(&id.buf, &text.buf));
        assert_eq!(id.to_string(), "m-17");
        assert_eq!(format!("{id:?}"), "\"m-17\"");
        assert_eq!(serde_json::to_string(id).unwrap(), "\"m-17\"");
        // Made from anything else: its own copy, equal all the same.
        assert_eq!(*id, Text::from("m-17"));
        assert_eq!(Text::new(""), Text::default());
        assert_eq!(&*Text::default(), "");
    }

    #[test]
    fn the_nth_message_of_a_file_is_the_nth_parsed_again() {
        let text = Text::from(concat!(
            r#"{"subject":"[b-1] PROGRESS","from":"A","body_md":"Bead: b-1\nStatus: one"}"#,
            "\n",
            r#"{"subject":"[b-2] DONE","from":"B","body_md":"Bead: b-2\nStatus: DONE"}"#,
            "\n"
        ));
        let parsed = amail_parser::parse(&text, &ParseOptions::default()).unwrap();
        assert_eq!(parsed.len(), 2);
        let want = parse(&text);
        for (i, m) in parsed.iter().enumerate() {
            let record = CompactMessage::from_text(m, &text, i);
            assert_eq!(record.body_text(), want[i].body);
            assert_eq!(*record.full(), want[i]);
        }
    }

    /// A file of many messages (a JSON Lines export) is parsed again once
    /// for all of them, not once a message: `amail threads` over one
    /// 20,000-line export took 4 minutes, each message's first read
    /// parsing the whole file again. In any order, over two files in turn,
    /// after a let-go, and with a database row's envelope over its file.
    #[test]
    fn a_files_messages_are_parsed_again_once_for_all_of_them() {
        let file = |bead: &str, n: usize| {
            let line = |i: usize| {
                format!(
                    r#"{{"subject":"[{bead}-{i}] PROGRESS","from":"A","body_md":"Bead: {bead}-{i}\nStep: {i}"}}"#
                )
            };
            Text::from((0..n).map(|i| line(i) + "\n").collect::<String>().as_str())
        };
        let (a, b) = (file("a", 300), file("b", 300));
        let records = |text: &Text| -> Vec<CompactMessage> {
            let parsed = amail_parser::parse(text, &ParseOptions::default()).unwrap();
            assert_eq!(parsed.len(), 300);
            parsed
                .iter()
                .enumerate()
                .map(|(i, m)| CompactMessage::from_text(m, text, i))
                .collect()
        };
        let (mut ra, rb) = (records(&a), records(&b));
        let (wa, wb) = (parse(&a), parse(&b));
        let before = parses();
        // The two files in turn, each from its end.
        for i in (0..300).rev() {
            assert_eq!(*ra[i].full(), wa[i]);
            assert_eq!(*rb[i].full(), wb[i]);
        }
        assert!(
            parses() - before <= 2,
            "{} parses for 600 messages of two files",
            parses() - before
        );
        // Let go of and read again: once more for the file, not a message.
        ra.iter_mut().for_each(|r| {
            r.let_go();
        });
        let before = parses();
        for (r, w) in ra.iter().zip(&wa) {
            assert_eq!(*r.full(), *w);
        }
        assert!(parses() - before <= 1, "{} parses", parses() - before);
        // A holder letting go of its parses lets go of the kept ones too.
        ra.iter_mut().for_each(|r| {
            r.let_go();
        });
        let _ = ra[0].full();
        assert_eq!(crate::inbox::reparse::let_go(), 299);
        assert_eq!(crate::inbox::reparse::let_go(), 0);
        // A row's envelope set over what its file gives is put back.
        let parsed = amail_parser::parse(&b, &ParseOptions::default()).unwrap();
        let mut row = parsed[7].clone();
        row.from = Some(Cow::Borrowed("FromTheRow"));
        let under = CompactMessage::from_text_under(&row, &b, 7);
        assert_eq!(under.full().from.as_deref(), Some("FromTheRow"));
        assert_eq!(under.full().parsed, wb[7].parsed);
    }

    #[test]
    fn a_record_from_a_full_message_keeps_it() {
        let m =
            parse("Subject: [b] HELP_REQUEST\nFrom: A\n\nBody:\nBead: b\n\n## Question\nWhy?\n")
                .remove(0);
        let record = CompactMessage::from(m.clone());
        assert_eq!(record.full_if_held(), Some(&m));
        assert_eq!(record.body_text(), m.body);
        assert_eq!(record, CompactMessage::from(m));
    }

    #[test]
    fn a_names_list_reads_as_the_names_given() {
        for names in [
            &[][..],
            &["BlueLake"][..],
            &["BlueLake", "Chiron", "BlueLake"][..],
        ] {
            let list = Names::of(names);
            assert_eq!(*list, *names);
            let owned: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            assert_eq!(list, Names::of(&owned), "the same names, interned");
        }
        assert_eq!(Names::default(), Names::of::<&str>(&[]));
        assert_eq!(Names::of(&["A"]), ["A"]);
        // One or two names are held inline: no allocation for the usual
        // `to`.
        assert!(matches!(Names::of(&["A"]).0, NamesRepr::Few { len: 1, .. }));
        assert!(matches!(
            Names::of(&["A", "B"]).0,
            NamesRepr::Few { len: 2, .. }
        ));
        assert_eq!(size_of::<Names>(), 16);
    }

    #[test]
    fn names_are_shared() {
        let (a, b) = (intern("GreenCastle"), intern(&String::from("GreenCastle")));
        assert!(std::ptr::eq(a.as_str().as_ptr(), b.as_str().as_ptr()));
        assert_eq!(a, b);
        assert_eq!(a, "GreenCastle");
        assert_eq!(size_of::<Option<Name>>(), 4);
        assert_eq!(intern(""), Name::EMPTY);
        assert_eq!(Name::default().as_str(), "");
        // Sorted and printed as their texts, whatever their numbers.
        let (z, y) = (intern("zz-names-test"), intern("yy-names-test"));
        assert!(y < z && y < a.max(z));
        assert_eq!(format!("{z} {z:?}"), "zz-names-test \"zz-names-test\"");
    }
}
