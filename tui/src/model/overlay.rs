//! The overlays drawn over the panes (help, the choosers, the editors, a
//! rejection's reason) and the editors' modes: while one is open keys go
//! to it, not to the lists under it.

/// What a recipient choice is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChoiceFor {
    Ack {
        keys: Vec<String>,
    },
    /// Who the person is, asked before a reply; the answer is remembered.
    Reply {
        external_editor: bool,
    },
    MarkRead {
        keys: Vec<String>,
    },
    /// `c`: who the new message is from.
    ComposeFrom,
    /// `c`: which protocol type it is.
    ComposeKind {
        from: String,
        to: Vec<String>,
    },
}

impl ChoiceFor {
    /// The chooser's first line: what it asks.
    pub(crate) fn prompt(&self) -> &'static str {
        match self {
            ChoiceFor::Ack { .. } | ChoiceFor::Reply { .. } | ChoiceFor::MarkRead { .. } => {
                "Several recipients apply:"
            }
            ChoiceFor::ComposeFrom => "Who is sending:",
            ChoiceFor::ComposeKind { .. } => "Which type:",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    Help {
        scroll: u16,
    },
    /// One of several: which agent acts (several recipients apply), who
    /// sends, which type ([`ChoiceFor`] says which, and its prompt).
    Choose {
        title: String,
        options: Vec<String>,
        index: usize,
        /// The number typed so far while more digits could still name an
        /// option (`1` of a list of twelve: `10`-`12` may follow); 0 when
        /// the next digit starts a number.
        typed: usize,
        purpose: ChoiceFor,
    },
    /// Several choices at once (`c`'s recipients): Space marks, Enter takes
    /// the marked ones (or the one under the cursor).
    Pick {
        title: String,
        options: Vec<String>,
        marked: Vec<bool>,
        index: usize,
        /// Who the message is from.
        from: String,
    },
    /// `c`: a new message. The first line of `text` is the subject, the
    /// rest the body.
    Compose {
        from: String,
        to: Vec<String>,
        kind: Option<String>,
        bead: Option<String>,
        thread: Option<String>,
        text: String,
        cursor: usize,
        mode: EditMode,
    },
    /// `X` on a task in review: the one-line reason it goes back to work
    /// (asked in the footer; empty is refused, Esc cancels).
    Reason {
        task: String,
        text: String,
        cursor: usize,
    },
    /// The inline reply editor. `cursor` is a byte offset into `text`.
    Editor {
        key: String,
        agent: String,
        /// Every recipient, comma-separated.
        to: String,
        kind: amail_core::stores::reply_rule::ReplyKind,
        text: String,
        cursor: usize,
        mode: EditMode,
    },
}

impl Overlay {
    /// A chooser with its first option under the cursor.
    pub(crate) fn choose(
        title: impl Into<String>,
        options: Vec<String>,
        purpose: ChoiceFor,
    ) -> Self {
        Overlay::Choose {
            title: title.into(),
            options,
            index: 0,
            typed: 0,
            purpose,
        }
    }

    /// The overlays keys type text into (the editors, a reject's reason):
    /// they bind no Alt chord and no key of the keymap.
    pub(crate) fn takes_text(&self) -> bool {
        matches!(
            self,
            Overlay::Editor { .. } | Overlay::Compose { .. } | Overlay::Reason { .. }
        )
    }
}

/// What keys in the reply editor do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum EditMode {
    /// Keys type into the text.
    #[default]
    Typing,
    /// Esc was pressed with text typed: `y` discards, `k` keeps the draft
    /// for this message (the next reply to it starts from it), anything
    /// else goes back to typing.
    ConfirmDiscard,
    /// Back from `$EDITOR` (as in aerc): `y` sends, `e` edits again, `d`
    /// discards, Esc edits inline.
    Review,
}
