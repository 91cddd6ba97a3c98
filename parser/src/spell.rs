//! Names as the protocol spells them, decided by a line's first byte and
//! one compare of a constant: the one generator of
//! `body::Label::spec_spelling` and `framing::spec_spelling`.
//!
//! A macro, not a shared table walked by a function: each arm must
//! compare its own constant, which the compiler does in registers. A name
//! read from a table is no constant, and `starts_with` then became a
//! `bcmp` library call: `From:` and `To:` chosen that way cost the plain
//! message 5,465 -> 5,540 instructions (docs/parser.md, "The one-pass
//! round"). The macro writes the match that was written by hand before,
//! arm for arm, and takes the colon's offset from the literal, so no
//! offset is counted by hand.

/// Where the colon of `name` (a label as the protocol spells it, colon
/// and all) is, checked when it is built (a `cargo check` may not
/// evaluate it): `name` opens with `first` (the byte its arm is chosen
/// by), ends with its only colon, and holds no blank before it. That is what makes the spelling's reading the
/// general one's (a line that opens with a letter has its label end at
/// its first colon, and the label is cut before the blanks ahead of it).
pub(crate) const fn colon_of(name: &[u8], first: u8) -> usize {
    assert!(
        name.len() >= 2 && name[0] == first,
        "a spelling opens with the byte its arm is chosen by"
    );
    let colon = name.len() - 1;
    assert!(name[colon] == b':', "a spelling ends with its colon");
    assert!(
        name[colon - 1] != b' ' && name[colon - 1] != b'\t',
        "no blank before the colon"
    );
    let mut i = 0;
    while i < colon {
        assert!(name[i] != b':', "a spelling holds one colon, at its end");
        i += 1;
    }
    colon
}

/// The body of a function `fn(b: &[u8]) -> Option<(K, usize)>`: the
/// kind of the name `b` opens with and where its colon is, or `None`.
/// Each arm is `FIRST_BYTE NAME => KIND`, in the order they are tried
/// (arms of one first byte in turn); the offset is `NAME`'s colon
/// ([`colon_of`], a constant).
macro_rules! spelling {
    ($b:expr; $($first:literal $name:literal => $kind:expr),+ $(,)?) => {{
        let b: &[u8] = $b;
        let (kind, colon) = match b.first()? {
            $($first if b.starts_with($name) => {
                ($kind, const { $crate::spell::colon_of($name, $first) })
            })+
            _ => return None,
        };
        Some((kind, colon))
    }};
}
pub(crate) use spelling;
