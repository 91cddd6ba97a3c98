//! The file `v` shows and the message view's rows, kept with what they
//! were made of: presentation memory the view fills, apart from the state
//! `update` reasons about.

/// A mail file as `v` shows it, read through the backend on demand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileText {
    pub path: std::path::PathBuf,
    pub text: Result<String, String>,
}

/// The message view's rows and what they were made for
/// (`view::message::detail_rows`).
#[derive(Debug)]
pub(crate) struct DetailRows {
    pub key: RowsKey,
    pub rows: std::rc::Rc<[ratatui::text::Line<'static>]>,
}

/// Everything the message view's rows are made of but the inbox (whose
/// every change clears the kept rows): the message, the width, the view,
/// the ages it shows, whether the load is partial, and the file `v` shows.
#[derive(Debug)]
pub(crate) struct RowsKey {
    /// The message's key (a shared text: a count, not a copy, a frame).
    pub message: Option<amail_core::inbox::Text>,
    pub inner: usize,
    pub raw: bool,
    /// The ages the view shows (when it was sent, when each recipient
    /// acked), not the clock: they change a minute at a time, the clock
    /// every second, and a long message's rows took a tenth of a second
    /// to make again.
    pub ages: Vec<String>,
    pub partial: bool,
    /// The file `v` shows, the very one (a file read again is a new one).
    pub file: Option<std::rc::Rc<FileText>>,
}

impl PartialEq for RowsKey {
    fn eq(&self, other: &Self) -> bool {
        let same_file = match (&self.file, &other.file) {
            (Some(a), Some(b)) => std::rc::Rc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        same_file
            && self.message == other.message
            && self.inner == other.inner
            && self.raw == other.raw
            && self.partial == other.partial
            && self.ages == other.ages
    }
}
