//! The message model: what a parsed Agent Mail message holds.
//!
//! Every string borrows from the input where it can (`Cow::Borrowed`) and is
//! owned only where the input had to be unescaped (JSON) or normalised.
//! [`Message::into_owned`] detaches a message from its input for storage.
//!
//! The serde form is the JSON that `amail parse` prints: a superset of the
//! agentops Go parser's keys, with `null` for every absent value.

use std::borrow::Cow;
use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The ten protocol message types, plus `Unknown` for anything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MessageType {
    BeadAccepted,
    Progress,
    HelpRequest,
    HelpResponse,
    OfferingReady,
    Done,
    Failed,
    Checkpoint,
    SpawnRequest,
    SpawnAck,
    Unknown,
}

impl MessageType {
    /// Every known type, in the order the protocol document lists them.
    pub const KNOWN: [MessageType; 10] = [
        MessageType::BeadAccepted,
        MessageType::Progress,
        MessageType::HelpRequest,
        MessageType::HelpResponse,
        MessageType::OfferingReady,
        MessageType::Done,
        MessageType::Failed,
        MessageType::Checkpoint,
        MessageType::SpawnRequest,
        MessageType::SpawnAck,
    ];

    /// The canonical token, as written in a subject line.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageType::BeadAccepted => "BEAD_ACCEPTED",
            MessageType::Progress => "PROGRESS",
            MessageType::HelpRequest => "HELP_REQUEST",
            MessageType::HelpResponse => "HELP_RESPONSE",
            MessageType::OfferingReady => "OFFERING_READY",
            MessageType::Done => "DONE",
            MessageType::Failed => "FAILED",
            MessageType::Checkpoint => "CHECKPOINT",
            MessageType::SpawnRequest => "SPAWN_REQUEST",
            MessageType::SpawnAck => "SPAWN_ACK",
            MessageType::Unknown => "UNKNOWN",
        }
    }

    /// Looks a token up case-insensitively, with `_`, `-` or a space between
    /// its words (`help-request`, `Help Request`, `HELP_REQUEST`).
    pub fn from_token(token: &str) -> Option<MessageType> {
        use crate::words::{find, name as n, Name};
        use MessageType as T;
        // Compared as words by length (see `words`), each name in its
        // three spellings: comparing each name in turn, byte by byte,
        // cost about 140 instructions a subject, and this runs for
        // several words of every subject.
        const FOUR: [Name<T>; 1] = [n(b"done", T::Done)];
        const SIX: [Name<T>; 1] = [n(b"failed", T::Failed)];
        const EIGHT: [Name<T>; 1] = [n(b"progress", T::Progress)];
        const NINE: [Name<T>; 3] = [
            n(b"spawn_ack", T::SpawnAck),
            n(b"spawn-ack", T::SpawnAck),
            n(b"spawn ack", T::SpawnAck),
        ];
        const TEN: [Name<T>; 1] = [n(b"checkpoint", T::Checkpoint)];
        const TWELVE: [Name<T>; 3] = [
            n(b"help_request", T::HelpRequest),
            n(b"help-request", T::HelpRequest),
            n(b"help request", T::HelpRequest),
        ];
        const THIRTEEN: [Name<T>; 9] = [
            n(b"bead_accepted", T::BeadAccepted),
            n(b"bead-accepted", T::BeadAccepted),
            n(b"bead accepted", T::BeadAccepted),
            n(b"help_response", T::HelpResponse),
            n(b"help-response", T::HelpResponse),
            n(b"help response", T::HelpResponse),
            n(b"spawn_request", T::SpawnRequest),
            n(b"spawn-request", T::SpawnRequest),
            n(b"spawn request", T::SpawnRequest),
        ];
        const FOURTEEN: [Name<T>; 3] = [
            n(b"offering_ready", T::OfferingReady),
            n(b"offering-ready", T::OfferingReady),
            n(b"offering ready", T::OfferingReady),
        ];
        let names: &[Name<T>] = match token.len() {
            4 => &FOUR,
            6 => &SIX,
            8 => &EIGHT,
            9 => &NINE,
            10 => &TEN,
            12 => &TWELVE,
            13 => &THIRTEEN,
            14 => &FOURTEEN,
            _ => return None,
        };
        find(names, token.as_bytes())
    }

    /// The known type a token that names none is nearest, for a hint
    /// (`PROGRES`: `PROGRESS`; the rule is [`crate::near`]'s), spelled as
    /// [`MessageType::from_token`] reads types (any case, `-` or a space
    /// between words). Nothing is guessed from it: the message stays
    /// [`MessageType::Unknown`].
    pub(crate) fn nearest(token: &str) -> Option<MessageType> {
        let names = MessageType::KNOWN.map(MessageType::as_str);
        let name = crate::near::nearest(&token.replace(['-', ' '], "_"), &names)?;
        MessageType::KNOWN.into_iter().find(|k| k.as_str() == name)
    }

    /// Whether `s` ends with a token [`MessageType::from_token`] knows,
    /// compared the same way. A cheap exact pre-check: a line whose type
    /// token must end it can be ruled out before the subject parser runs.
    pub(crate) fn ends_with_token(s: &[u8]) -> bool {
        use MessageType as M;
        // The names that end in the last byte's letter, one to three: most
        // lines are ruled out by it, and a line that ends in one of these
        // letters (`Here is my update`, prose before a message) is
        // compared with those names only, not all ten (~200 instructions).
        // A test holds the lists to the names.
        let names: &[MessageType] = match s.last().map(u8::to_ascii_uppercase) {
            Some(b'D') => &[M::BeadAccepted, M::Failed],
            Some(b'E') => &[M::HelpResponse, M::Done],
            Some(b'K') => &[M::SpawnAck],
            Some(b'S') => &[M::Progress],
            Some(b'T') => &[M::HelpRequest, M::Checkpoint, M::SpawnRequest],
            Some(b'Y') => &[M::OfferingReady],
            _ => return false,
        };
        names.iter().any(|&t| t.ends(s))
    }

    /// Whether `s` ends with this type's name as a token spells it (any
    /// case, `-` or a blank for `_`).
    fn ends(self, s: &[u8]) -> bool {
        let name = self.as_str().as_bytes();
        s.len() >= name.len()
            && name.iter().zip(&s[s.len() - name.len()..]).all(|(&n, &t)| {
                n == match t {
                    b'-' | b' ' => b'_',
                    _ => t.to_ascii_uppercase(),
                }
            })
    }

    /// OFFERING_READY, DONE, FAILED and CHECKPOINT end a worker's turn on a bead.
    pub fn is_completion(self) -> bool {
        matches!(
            self,
            MessageType::OfferingReady
                | MessageType::Done
                | MessageType::Failed
                | MessageType::Checkpoint
        )
    }

    /// The protocol's acknowledgement table: what a sender of this type
    /// expects when the envelope does not say.
    pub fn ack_required_by_spec(self) -> bool {
        matches!(
            self,
            MessageType::HelpRequest | MessageType::OfferingReady | MessageType::SpawnRequest
        )
    }
}

impl fmt::Display for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How bad a diagnostic is. Errors are what strict mode refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

/// Something the lenient parser had to guess, skip or repair.
///
/// `line` and `column` are 1-based and count from the start of the document
/// the message came from (not of its body); `column` counts characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic<'a> {
    pub severity: Severity,
    pub line: u32,
    pub column: u32,
    pub code: Cow<'static, str>,
    pub message: Note<'a>,
}

impl Diagnostic<'_> {
    /// Detaches the message from the input it quotes.
    pub fn into_owned(self) -> Diagnostic<'static> {
        Diagnostic {
            severity: self.severity,
            line: self.line,
            column: self.column,
            code: self.code,
            message: self.message.into_owned(),
        }
    }
}

/// A diagnostic's text: static words and slices of the input it quotes,
/// joined only where it is read (`Display`, serialized, [`Note::text`]),
/// or text of its own.
///
/// A decorated message carries a note or more for each decoration read
/// through; made as a `String` each, allocating and freeing them was about
/// a tenth of parsing the decorated agents corpus (`docs/parser.md`, "The
/// decorated ratio"). Equality, `Debug` and the serde form are the joined
/// text's: the pieces are not part of what a note says.
#[derive(Clone)]
pub struct Note<'a>(NoteRepr<'a>);

#[derive(Clone)]
enum NoteRepr<'a> {
    Pieces {
        pieces: [&'a str; Note::MAX_PIECES],
        len: u8,
    },
    Owned(String),
}

impl<'a> Note<'a> {
    /// The most pieces a note holds without joining them: every note the
    /// parser makes but two rare ones fits (prose before a type line, and
    /// a note on a JSON body, which names its position in the body).
    /// Five, not six: a `Diagnostic` is then 128 bytes, not 144, and
    /// LLVM moves it into the list with a few stores, where at 144 each
    /// push called `memcpy` (notes that were six pieces give a static
    /// piece and the one after it as one, e.g. `decor::cut_then`).
    pub const MAX_PIECES: usize = 5;

    /// `pieces` joined; not joined until read when there are at most
    /// [`Note::MAX_PIECES`] of them.
    // Inline, the pieces' copy out of line: every caller gives its pieces
    // as an array of known length, whose copy is then a few stores (the
    // call and its `memcpy` of the pieces were ~70 instructions a note).
    #[inline]
    pub fn join(pieces: &[&'a str]) -> Note<'a> {
        let n = pieces.len();
        if n > Self::MAX_PIECES {
            return Self::concat(pieces);
        }
        let mut kept = [""; Self::MAX_PIECES];
        kept[..n].copy_from_slice(pieces);
        Note(NoteRepr::Pieces {
            pieces: kept,
            len: n as u8,
        })
    }

    /// [`Note::join`] of more pieces than a note keeps.
    #[cold]
    #[inline(never)]
    fn concat(pieces: &[&'a str]) -> Note<'a> {
        Note(NoteRepr::Owned(pieces.concat()))
    }

    /// The pieces whose concatenation is the text, in order.
    pub fn pieces(&self) -> impl Iterator<Item = &str> {
        let (pieces, owned): (&[&str], Option<&str>) = match &self.0 {
            NoteRepr::Pieces { pieces, len } => (&pieces[..usize::from(*len)], None),
            NoteRepr::Owned(s) => (&[], Some(s)),
        };
        pieces.iter().copied().chain(owned)
    }

    /// The text, borrowed when it is one piece.
    pub fn text(&self) -> Cow<'_, str> {
        match self.whole() {
            Some(t) => Cow::Borrowed(t),
            None => Cow::Owned(self.pieces().collect()),
        }
    }

    /// The text when it is in one piece (or none).
    fn whole(&self) -> Option<&str> {
        match &self.0 {
            NoteRepr::Owned(s) => Some(s),
            NoteRepr::Pieces { pieces, len: 0 | 1 } => Some(pieces[0]),
            NoteRepr::Pieces { .. } => None,
        }
    }

    /// The text's length in bytes.
    pub fn len(&self) -> usize {
        self.pieces().map(str::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Copies the pieces so the note outlives the input it quotes.
    pub fn into_owned(self) -> Note<'static> {
        Note(NoteRepr::Owned(match self.0 {
            NoteRepr::Owned(s) => s,
            NoteRepr::Pieces { .. } => self.pieces().collect(),
        }))
    }
}

impl<'a> From<&'a str> for Note<'a> {
    fn from(s: &'a str) -> Self {
        Note::join(&[s])
    }
}

impl From<String> for Note<'_> {
    fn from(s: String) -> Self {
        Note(NoteRepr::Owned(s))
    }
}

impl fmt::Display for Note<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pieces().try_for_each(|p| f.write_str(p))
    }
}

impl fmt::Debug for Note<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.text(), f)
    }
}

impl PartialEq for Note<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .pieces()
                .flat_map(str::bytes)
                .eq(other.pieces().flat_map(str::bytes))
    }
}

impl Eq for Note<'_> {}

impl PartialEq<str> for Note<'_> {
    fn eq(&self, other: &str) -> bool {
        self.len() == other.len() && self.pieces().flat_map(str::bytes).eq(other.bytes())
    }
}

impl PartialEq<&str> for Note<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl Serialize for Note<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.whole() {
            Some(t) => s.serialize_str(t),
            // Joined by the serializer as it writes (serde_json escapes
            // each piece as it comes), not in a string of its own.
            None => s.collect_str(self),
        }
    }
}

impl<'de> Deserialize<'de> for Note<'_> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Note::from)
    }
}

/// Fields pulled from the body. One flat struct for every type, as in the
/// Go parser, so consumers need no per-type dispatch; `None` is "absent".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parsed<'a> {
    pub bead_id: Option<Cow<'a, str>>,
    pub title: Option<Cow<'a, str>>,
    /// BEAD_ACCEPTED `Starting implementation at:`, as written.
    pub started_at: Option<Cow<'a, str>>,
    pub status: Option<Cow<'a, str>>,
    pub step: Option<Cow<'a, str>>,
    /// 0..=100.
    pub context_usage: Option<u8>,
    pub files_touched: Option<Vec<Cow<'a, str>>>,
    /// STUCK | SPEC_UNCLEAR | BLOCKED | TECHNICAL (upper-cased as written).
    pub issue_type: Option<Cow<'a, str>>,
    pub problem: Option<Cow<'a, str>>,
    pub what_tried: Option<Cow<'a, str>>,
    pub question: Option<Cow<'a, str>>,
    /// HELP_RESPONSE: the guidance text.
    pub guidance: Option<Cow<'a, str>>,
    pub commit_sha: Option<Cow<'a, str>>,
    pub files: Option<Vec<Cow<'a, str>>>,
    pub tests_pass: Option<bool>,
    pub lint_pass: Option<bool>,
    pub build_pass: Option<bool>,
    pub summary: Option<Cow<'a, str>>,
    /// TESTS_FAIL | BUILD_FAIL | SPEC_IMPOSSIBLE | CONTEXT_HIGH | ERROR.
    pub failure_type: Option<Cow<'a, str>>,
    pub reason: Option<Cow<'a, str>>,
    pub internal_attempts: Option<u32>,
    pub recommendation: Option<Cow<'a, str>>,
    /// CONTEXT_HIGH | MANUAL | TIMEOUT.
    pub checkpoint_reason: Option<Cow<'a, str>>,
    pub partial_commit_sha: Option<Cow<'a, str>>,
    pub progress: Option<Cow<'a, str>>,
    pub next_steps: Option<Cow<'a, str>>,
    /// SPAWN_REQUEST / SPAWN_ACK `Issue:`.
    pub issue_id: Option<Cow<'a, str>>,
    pub resume: Option<bool>,
    pub orchestrator: Option<Cow<'a, str>>,
    /// SPAWN_ACK `Session:`.
    pub session: Option<Cow<'a, str>>,
}

/// One parsed message: the envelope (from whichever framing carried it),
/// the detected type, the raw body, the parsed fields and the diagnostics.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message<'a> {
    /// The message id as the framing gave it (mcp_agent_mail's integer ids
    /// are kept as their decimal text).
    pub id: Option<Cow<'a, str>>,
    #[serde(rename = "type")]
    pub kind: MessageType,
    /// The type token as found (canonical for known types, the original
    /// text for unknown ones); `None` when nothing looked like a type.
    pub raw_type: Option<Cow<'a, str>>,
    /// The subject began with a `Re:`/`Fwd:` chain.
    pub is_reply: bool,
    pub subject: Cow<'a, str>,
    pub from: Option<Cow<'a, str>>,
    pub to: Names<'a>,
    pub cc: Names<'a>,
    pub thread_id: Option<Cow<'a, str>>,
    #[serde(serialize_with = "rfc3339::serialize")]
    pub timestamp: Option<DateTime<Utc>>,
    pub ack_required: bool,
    pub importance: Cow<'a, str>,
    pub body: Cow<'a, str>,
    pub parsed: Parsed<'a>,
    pub diagnostics: Vec<Diagnostic<'a>>,
    /// mcp_agent_mail project slug, when the framing carried one. Not part of
    /// the JSON output contract.
    #[serde(skip)]
    pub project: Option<Cow<'a, str>>,
    /// 1-based line in the document where this message starts (JSON Lines
    /// and arrays hold several). Not part of the JSON output contract.
    #[serde(skip)]
    pub line: u32,
}

/// A message's `To:` or `Cc:` names, read as a slice (`Deref`), written
/// and compared as a list (the JSON and `{:?}` of a `Vec`). Nearly every
/// message names one recipient, held inline: a `Vec` of one cost an
/// allocation and a free (~130 instructions of a ~7,700-instruction
/// decorated message). As large as the `Vec` it replaces (24 bytes: the
/// other kinds fit in the niche of the name's `String`), since a larger
/// message costs every message its moves. Not a `SmallVec`, which is
/// invariant in its items and would make `Message<'a>` invariant in `'a`.
#[derive(Clone)]
pub struct Names<'a>(NamesRepr<'a>);

// Held at 128 bytes: see `Note::MAX_PIECES`.
const _: () = assert!(std::mem::size_of::<Diagnostic<'_>>() == 128);
const _: () = assert!(std::mem::size_of::<Names<'_>>() == std::mem::size_of::<Vec<Cow<'_, str>>>());

#[derive(Clone)]
enum NamesRepr<'a> {
    None,
    One(Cow<'a, str>),
    /// Two or more.
    List(Box<[Cow<'a, str>]>),
}

impl<'a> Names<'a> {
    /// No names (no allocation).
    pub const fn new() -> Self {
        Names(NamesRepr::None)
    }

    /// One name, held inline.
    pub const fn one(name: Cow<'a, str>) -> Self {
        Names(NamesRepr::One(name))
    }

    pub fn as_slice(&self) -> &[Cow<'a, str>] {
        match &self.0 {
            NamesRepr::None => &[],
            NamesRepr::One(n) => std::slice::from_ref(n),
            NamesRepr::List(v) => v,
        }
    }

    pub fn as_mut_slice(&mut self) -> &mut [Cow<'a, str>] {
        match &mut self.0 {
            NamesRepr::None => &mut [],
            NamesRepr::One(n) => std::slice::from_mut(n),
            NamesRepr::List(v) => v,
        }
    }

    pub fn push(&mut self, name: Cow<'a, str>) {
        let mut v = std::mem::take(self).into_vec();
        v.push(name);
        *self = Names::from(v);
    }

    /// The names as a `Vec` (allocated for one name).
    pub fn into_vec(self) -> Vec<Cow<'a, str>> {
        match self.0 {
            NamesRepr::None => Vec::new(),
            NamesRepr::One(n) => vec![n],
            NamesRepr::List(v) => v.into_vec(),
        }
    }
}

impl Default for Names<'_> {
    fn default() -> Self {
        Names::new()
    }
}

impl<'a> std::ops::Deref for Names<'a> {
    type Target = [Cow<'a, str>];
    fn deref(&self) -> &Self::Target {
        self.as_slice()
    }
}

impl std::ops::DerefMut for Names<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.as_mut_slice()
    }
}

impl fmt::Debug for Names<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl PartialEq for Names<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Names<'_> {}

impl std::hash::Hash for Names<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl<'a, T> PartialEq<Vec<T>> for Names<'a>
where
    Cow<'a, str>: PartialEq<T>,
{
    fn eq(&self, other: &Vec<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<'a, T, const N: usize> PartialEq<[T; N]> for Names<'a>
where
    Cow<'a, str>: PartialEq<T>,
{
    fn eq(&self, other: &[T; N]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

/// A list of two or more is kept (shrunk to its length); one name is
/// taken out of it, and the list freed.
impl<'a> From<Vec<Cow<'a, str>>> for Names<'a> {
    fn from(mut v: Vec<Cow<'a, str>>) -> Self {
        match v.len() {
            0 => Names::new(),
            1 => Names::one(v.pop().expect("one name")),
            _ => Names(NamesRepr::List(v.into_boxed_slice())),
        }
    }
}

impl<'a> From<Names<'a>> for Vec<Cow<'a, str>> {
    fn from(n: Names<'a>) -> Self {
        n.into_vec()
    }
}

impl<'a> FromIterator<Cow<'a, str>> for Names<'a> {
    fn from_iter<I: IntoIterator<Item = Cow<'a, str>>>(iter: I) -> Self {
        let mut iter = iter.into_iter();
        let Some(first) = iter.next() else {
            return Names::new();
        };
        match iter.next() {
            None => Names::one(first),
            Some(second) => {
                let mut v = Vec::with_capacity(2 + iter.size_hint().0);
                v.push(first);
                v.push(second);
                v.extend(iter);
                Names::from(v)
            }
        }
    }
}

impl<'a> Extend<Cow<'a, str>> for Names<'a> {
    fn extend<I: IntoIterator<Item = Cow<'a, str>>>(&mut self, iter: I) {
        let mut v = std::mem::take(self).into_vec();
        v.extend(iter);
        *self = Names::from(v);
    }
}

impl<'a> IntoIterator for Names<'a> {
    type Item = Cow<'a, str>;
    type IntoIter =
        std::iter::Chain<std::option::IntoIter<Cow<'a, str>>, std::vec::IntoIter<Cow<'a, str>>>;
    fn into_iter(self) -> Self::IntoIter {
        match self.0 {
            NamesRepr::None => None.into_iter().chain(Vec::new()),
            NamesRepr::One(n) => Some(n).into_iter().chain(Vec::new()),
            NamesRepr::List(v) => None.into_iter().chain(v.into_vec()),
        }
    }
}

impl<'n, 'a> IntoIterator for &'n Names<'a> {
    type Item = &'n Cow<'a, str>;
    type IntoIter = std::slice::Iter<'n, Cow<'a, str>>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<'n, 'a> IntoIterator for &'n mut Names<'a> {
    type Item = &'n mut Cow<'a, str>;
    type IntoIter = std::slice::IterMut<'n, Cow<'a, str>>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_mut_slice().iter_mut()
    }
}

impl Serialize for Names<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

impl<'de, 'a> Deserialize<'de> for Names<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<Cow<'a, str>>::deserialize(d).map(Names::from)
    }
}

/// A message detached from its input.
pub type OwnedMessage = Message<'static>;

impl<'a> Message<'a> {
    /// The bead this message is about: the parsed bead id, else a spawn
    /// message's issue id.
    pub fn bead(&self) -> Option<&str> {
        self.parsed
            .bead_id
            .as_deref()
            .or(self.parsed.issue_id.as_deref())
    }

    /// Warnings and errors (not infos) the lenient parse produced.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic<'a>> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity >= Severity::Warning)
    }

    /// A message with nothing in it: what the parser fills in place, and
    /// the base a store's stand-in message is made from
    /// (`Message { body, ..Message::empty() }`).
    #[inline]
    pub fn empty() -> Self {
        Message {
            id: None,
            kind: MessageType::Unknown,
            raw_type: None,
            is_reply: false,
            subject: Cow::Borrowed(""),
            from: None,
            to: Names::new(),
            cc: Names::new(),
            thread_id: None,
            timestamp: None,
            ack_required: false,
            importance: Cow::Borrowed(""),
            body: Cow::Borrowed(""),
            parsed: Parsed::default(),
            diagnostics: Vec::new(),
            project: None,
            line: 0,
        }
    }

    /// Copies every borrowed string so the message outlives its input.
    pub fn into_owned(self) -> OwnedMessage {
        Message {
            id: own_opt(self.id),
            kind: self.kind,
            raw_type: own_opt(self.raw_type),
            is_reply: self.is_reply,
            subject: own(self.subject),
            from: own_opt(self.from),
            to: own_names(self.to),
            cc: own_names(self.cc),
            thread_id: own_opt(self.thread_id),
            timestamp: self.timestamp,
            ack_required: self.ack_required,
            importance: own(self.importance),
            body: own(self.body),
            parsed: self.parsed.into_owned(),
            diagnostics: own_diagnostics(self.diagnostics),
            project: own_opt(self.project),
            line: self.line,
        }
    }
}

impl<'a> Parsed<'a> {
    /// Copies every borrowed string so the fields outlive their input.
    pub fn into_owned(self) -> Parsed<'static> {
        Parsed {
            bead_id: own_opt(self.bead_id),
            title: own_opt(self.title),
            started_at: own_opt(self.started_at),
            status: own_opt(self.status),
            step: own_opt(self.step),
            context_usage: self.context_usage,
            files_touched: self.files_touched.map(own_vec),
            issue_type: own_opt(self.issue_type),
            problem: own_opt(self.problem),
            what_tried: own_opt(self.what_tried),
            question: own_opt(self.question),
            guidance: own_opt(self.guidance),
            commit_sha: own_opt(self.commit_sha),
            files: self.files.map(own_vec),
            tests_pass: self.tests_pass,
            lint_pass: self.lint_pass,
            build_pass: self.build_pass,
            summary: own_opt(self.summary),
            failure_type: own_opt(self.failure_type),
            reason: own_opt(self.reason),
            internal_attempts: self.internal_attempts,
            recommendation: own_opt(self.recommendation),
            checkpoint_reason: own_opt(self.checkpoint_reason),
            partial_commit_sha: own_opt(self.partial_commit_sha),
            progress: own_opt(self.progress),
            next_steps: own_opt(self.next_steps),
            issue_id: own_opt(self.issue_id),
            resume: self.resume,
            orchestrator: own_opt(self.orchestrator),
            session: own_opt(self.session),
        }
    }
}

fn own(s: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(s.into_owned())
}

fn own_opt(s: Option<Cow<'_, str>>) -> Option<Cow<'static, str>> {
    s.map(own)
}

fn own_vec(v: Vec<Cow<'_, str>>) -> Vec<Cow<'static, str>> {
    v.into_iter().map(own).collect()
}

fn own_names(v: Names<'_>) -> Names<'static> {
    v.into_iter().map(own).collect()
}

/// Kept for as long as the message: sized to the notes it holds (the
/// parser's list has room for a few more).
fn own_diagnostics(v: Vec<Diagnostic<'_>>) -> Vec<Diagnostic<'static>> {
    let mut v: Vec<Diagnostic<'static>> = v.into_iter().map(Diagnostic::into_owned).collect();
    v.shrink_to_fit();
    v
}

/// `t` as a message's JSON writes its `timestamp` (without the quotes),
/// for writers of that JSON that do not go through serde: `None` for the
/// years outside 0..=9999 and the leap seconds that chrono's serde form
/// writes instead (`t.serialize(..)`).
pub fn rfc3339_text<'b>(t: &DateTime<Utc>, buf: &'b mut [u8; 31]) -> Option<&'b str> {
    rfc3339::write(t, buf)
}

/// A timestamp as chrono's serde writes it (RFC 3339 with `Z`, and the
/// fraction of a second to the milli-, micro- or nanosecond as it needs),
/// written by hand: chrono's goes through `fmt` a piece at a time, which
/// was a tenth of the instructions of `amail parse` over 10,000 files.
/// Years outside 0..=9999 and leap seconds are left to chrono.
mod rfc3339 {
    use chrono::{DateTime, Datelike, Timelike, Utc};
    use serde::Serializer;

    pub(super) fn serialize<S: Serializer>(
        t: &Option<DateTime<Utc>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match t {
            None => s.serialize_none(),
            Some(t) => {
                let mut buf = [0u8; 31];
                match write(t, &mut buf) {
                    Some(text) => s.serialize_some(text),
                    None => s.serialize_some(t),
                }
            }
        }
    }

    /// `t` in `buf`, or `None` where chrono must write it.
    pub(super) fn write<'b>(t: &DateTime<Utc>, buf: &'b mut [u8; 31]) -> Option<&'b str> {
        // The fields read from the naive time once: each of `DateTime`'s
        // own accessors adds the (zero) offset again, a call apiece (about
        // 250 instructions of a timestamp's 626).
        let t = t.naive_utc();
        let (year, nano) = (t.year(), t.nanosecond());
        if !(0..=9999).contains(&year) || nano >= 1_000_000_000 {
            return None;
        }
        let mut len = 0;
        // Cut from the last digit by `% 10` (a multiply each): a power of
        // ten per digit was ~1,000 instructions a timestamp, a tenth of
        // the JSON of a small message.
        let mut digits = |mut v: u32, n: usize, sep: u8, buf: &mut [u8; 31]| {
            for slot in buf[len..len + n].iter_mut().rev() {
                *slot = b'0' + (v % 10) as u8;
                v /= 10;
            }
            len += n;
            buf[len] = sep;
            len += 1;
        };
        digits(year as u32, 4, b'-', buf);
        digits(t.month(), 2, b'-', buf);
        digits(t.day(), 2, b'T', buf);
        digits(t.hour(), 2, b':', buf);
        digits(t.minute(), 2, b':', buf);
        if nano == 0 {
            digits(t.second(), 2, b'Z', buf);
        } else {
            digits(t.second(), 2, b'.', buf);
            if nano % 1_000_000 == 0 {
                digits(nano / 1_000_000, 3, b'Z', buf);
            } else if nano % 1_000 == 0 {
                digits(nano / 1_000, 6, b'Z', buf);
            } else {
                digits(nano, 9, b'Z', buf);
            }
        }
        std::str::from_utf8(&buf[..len]).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names, however they are held (none, one inline, a list), read,
    /// compare, print, serialise and come back as the `Vec` they stand for.
    #[test]
    fn names_are_the_list_they_hold() {
        let all: Vec<Cow<'_, str>> = ["a", "b\"", "c", "é"].map(Cow::Borrowed).to_vec();
        for n in 0..=all.len() {
            let v = all[..n].to_vec();
            let made = [
                Names::from(v.clone()),
                v.iter().cloned().collect(),
                {
                    let mut p = Names::new();
                    v.iter().cloned().for_each(|x| p.push(x));
                    p
                },
                {
                    let mut e = Names::default();
                    e.extend(v.iter().cloned());
                    e
                },
            ];
            for names in made {
                assert_eq!(names.as_slice(), v.as_slice());
                assert_eq!(names, v);
                assert_eq!(names.len(), n);
                assert_eq!(names.is_empty(), n == 0);
                assert_eq!(format!("{names:?}"), format!("{v:?}"));
                assert_eq!(names.join(", "), v.join(", "));
                assert_eq!(
                    (&names).into_iter().collect::<Vec<_>>(),
                    v.iter().collect::<Vec<_>>()
                );
                let json = serde_json::to_string(&names).unwrap();
                assert_eq!(json, serde_json::to_string(&v).unwrap());
                assert_eq!(serde_json::from_str::<Names<'_>>(&json).unwrap(), names);
                assert_eq!(own_names(names.clone()), names);
                assert_eq!(names.clone().into_iter().collect::<Vec<_>>(), v);
                assert_eq!(Vec::from(names.clone()), v);
                let mut m = names.clone();
                m.as_mut_slice()
                    .iter_mut()
                    .for_each(|x| *x = Cow::Borrowed("z"));
                assert_eq!(m, vec!["z"; n]);
            }
        }
        assert_ne!(Names::one(Cow::Borrowed("a")), Names::new());
        assert_eq!(Names::one(Cow::Borrowed("a")), ["a"]);
    }

    /// A note reads as its pieces joined, however it holds them: text,
    /// `Display`, `Debug`, equality, length, the serde form both ways and
    /// the owned copy.
    #[test]
    fn a_note_is_its_pieces_joined() {
        let many: Vec<String> = (0..Note::MAX_PIECES + 3)
            .map(|i| format!("p{i}\""))
            .collect();
        for n in 0..many.len() {
            let pieces: Vec<&str> = many[..n].iter().map(String::as_str).collect();
            let joined = pieces.concat();
            let note = Note::join(&pieces);
            assert_eq!(note.text(), joined);
            assert_eq!(note.to_string(), joined);
            assert_eq!(format!("{note:?}"), format!("{joined:?}"));
            assert_eq!(note.len(), joined.len());
            assert_eq!(note.is_empty(), joined.is_empty());
            assert_eq!(note, *joined.as_str());
            assert_eq!(note, Note::from(joined.clone()));
            assert_eq!(note.clone().into_owned(), note);
            let json = serde_json::to_string(&note).unwrap();
            assert_eq!(json, serde_json::to_string(&joined).unwrap());
            assert_eq!(serde_json::from_str::<Note<'_>>(&json).unwrap(), note);
        }
        // Equal texts cut differently are equal; a different text is not.
        assert_eq!(Note::join(&["ab", "c"]), Note::join(&["a", "bc"]));
        assert_ne!(Note::join(&["ab", "c"]), Note::join(&["ab", "d"]));
        assert_ne!(Note::join(&["ab"]), Note::join(&["ab", "c"]));
    }

    /// [`MessageType::ends_with_token`] as first written: every name
    /// compared (the test holds the letters' lists to the names).
    fn ends_with_any_token(s: &[u8]) -> bool {
        MessageType::KNOWN.into_iter().any(|t| t.ends(s))
    }

    proptest::proptest! {
        /// The names by last letter find what comparing every name found.
        #[test]
        fn tokens_by_last_letter_are_every_token(
            s in "(x|é| |-|_|help|HELP|request|Response|done|Dones|failed|bead|accepted|progress|spawn|ack|req|offering|ready|checkpoint|update|[A-Za-z]){0,5}"
        ) {
            proptest::prop_assert_eq!(
                MessageType::ends_with_token(s.as_bytes()),
                ends_with_any_token(s.as_bytes())
            );
        }
    }

    #[test]
    fn every_type_reads_back_from_its_token() {
        for t in MessageType::KNOWN {
            assert_eq!(MessageType::from_token(t.as_str()), Some(t));
            let spaced = t.as_str().replace('_', " ").to_lowercase();
            assert_eq!(MessageType::from_token(&spaced), Some(t));
            // The shortcuts' tables (lengths, last letters) hold every name.
            assert!(MessageType::ends_with_token(spaced.as_bytes()));
            assert!(MessageType::ends_with_token(t.as_str().as_bytes()));
        }
        assert_eq!(MessageType::from_token("UNKNOWN"), None);
        assert_eq!(MessageType::from_token("DONES"), None);
    }

    /// [`MessageType::from_token`] as first written: each name compared
    /// in turn.
    fn from_token_by_compare(token: &str) -> Option<MessageType> {
        MessageType::KNOWN.into_iter().find(|t| {
            let name = t.as_str();
            name.len() == token.len()
                && name.bytes().zip(token.bytes()).all(|(n, t)| {
                    n == match t {
                        b'-' | b' ' => b'_',
                        _ => t.to_ascii_uppercase(),
                    }
                })
        })
    }

    /// Every type's token as the protocol writes it (`HELP_REQUEST`), and
    /// in small letters with dashes (`help-request`).
    fn token_spellings() -> Vec<String> {
        let plain = MessageType::KNOWN.map(|t| t.as_str().to_string());
        let lower = plain.clone().map(|t| t.replace('_', "-").to_lowercase());
        plain.into_iter().chain(lower).collect()
    }

    proptest::proptest! {
        /// The lookup by length and first letter finds what comparing every
        /// name found: on each name in any case and spacing, on near misses
        /// (one byte changed to any other) and on any text.
        #[test]
        fn tokens_read_as_comparing_every_name_read_them(
            s in crate::words::spellings(
                &token_spellings().iter().map(String::as_str).collect::<Vec<_>>(),
                15,
            ),
        ) {
            for t in s.all() {
                proptest::prop_assert_eq!(MessageType::from_token(t), from_token_by_compare(t));
            }
        }
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        /// The hand-written timestamp is chrono's, byte for byte, for every
        /// second from year 0 to 9999 and every kind of fraction.
        #[test]
        fn timestamps_serialize_as_chrono_does(
            secs in -62_167_219_200i64..253_402_300_800,
            nano in proptest::prop_oneof![
                proptest::strategy::Just(0u32),
                (0u32..1000).prop_map(|m| m * 1_000_000),
                (0u32..1_000_000).prop_map(|u| u * 1000),
                0u32..1_000_000_000,
            ],
        ) {
            let t = DateTime::<Utc>::from_timestamp(secs, nano).unwrap();
            let mut buf = [0u8; 31];
            let ours = rfc3339::write(&t, &mut buf).map(|s| format!("\"{s}\""));
            proptest::prop_assert_eq!(ours, Some(serde_json::to_string(&t).unwrap()));
        }
    }

    #[test]
    fn timestamps_outside_the_hand_written_range_go_to_chrono() {
        let mut buf = [0u8; 31];
        let far = DateTime::<Utc>::from_timestamp(300_000_000_000, 0).unwrap();
        assert_eq!(rfc3339::write(&far, &mut buf), None);
        let t = DateTime::<Utc>::from_timestamp(1_700_000_000, 5).unwrap();
        assert_eq!(
            rfc3339::write(&t, &mut buf),
            Some("2023-11-14T22:13:20.000000005Z")
        );
        // Through the field's serializer, both ways, as chrono writes.
        #[derive(Serialize)]
        struct Field {
            #[serde(serialize_with = "rfc3339::serialize")]
            timestamp: Option<DateTime<Utc>>,
        }
        for t in [Some(far), Some(t), None] {
            assert_eq!(
                serde_json::to_string(&Field { timestamp: t }).unwrap(),
                serde_json::to_string(&serde_json::json!({ "timestamp": t })).unwrap()
            );
        }
    }
}
