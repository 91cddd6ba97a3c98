//! Reading a rendered screen (`TestApp::render`, which quotes each row)
//! as a person reads it: the rows' words in order, a wrapped sentence
//! whole again.

/// The words of `screen`'s rows, in order, one space between them.
pub(crate) fn words(screen: &str) -> String {
    squeeze(&rows(screen).collect::<Vec<_>>().join(" "))
}

/// Each row's text, without the quotes the render puts around it.
fn rows(screen: &str) -> impl Iterator<Item = &str> {
    screen.lines().filter_map(|l| {
        l.strip_prefix('"')
            .and_then(|l| l.rfind('"').map(|i| &l[..i]))
    })
}

/// `text` with each run of whitespace one space: as [`words`] reads it.
pub(crate) fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// [`words`] of what an overlay's box shows (the help): each row's widest
/// stretch between heavy borders, which is the box's inside where the
/// box covers most of the row, without the panes' edges beside it.
pub(crate) fn boxed_words(screen: &str) -> String {
    let rows: Vec<&str> = rows(screen)
        .map(|row| {
            row.split('┃')
                .max_by_key(|part| part.chars().count())
                .unwrap_or("")
        })
        .collect();
    squeeze(&rows.join(" "))
}
