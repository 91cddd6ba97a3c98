//! Finding an ASCII byte (or one of two) in a short text, eight bytes at a
//! time in a `u64`: a label's colon, a value's comma or blank, a line's
//! `[`.
//!
//! The texts searched here are a line's head or a field's value, a few to
//! a few dozen bytes. Both std searches cost more there than the search
//! itself: `memchr` picks its SIMD searcher through a function pointer on
//! every call (about 75 instructions on a 49-byte head against 40 here),
//! and core's `contains` and `position` test a byte at a time below 16
//! bytes (about 5 instructions a byte: a 14-byte line's `[` test was ~70).

/// The bytes of a word with the high bit set exactly where `w` holds
/// `needle` (a byte of `w ^ splat(needle)` is zero there; no carries
/// between bytes, each sum is of 7 bits). `needle` is ASCII.
#[inline(always)]
fn hits(w: u64, needle: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = w ^ (u64::from(needle) * 0x0101_0101_0101_0101);
    !((x & LOW7).wrapping_add(LOW7) | x | LOW7)
}

/// Where the first byte of `b` for which `is` holds is: `b` eight bytes
/// at a time (`word` marks the hits of a word as [`hits`] does); a text
/// shorter than a word byte by byte, and the bytes after the last whole
/// word in one more word that ends with `b` (overlapping the last one
/// read, which held no hit).
#[inline(always)]
fn first(b: &[u8], word: impl Fn(u64) -> u64, is: impl Fn(u8) -> bool) -> Option<usize> {
    let load = |w: &[u8]| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
    let at = |m: u64| (m.trailing_zeros() / 8) as usize;
    let mut words = b.chunks_exact(8);
    let mut start = 0;
    for w in words.by_ref() {
        let m = word(load(w));
        if m != 0 {
            return Some(start + at(m));
        }
        start += 8;
    }
    match words.remainder() {
        [] => None,
        rest if start == 0 => rest.iter().position(|&c| is(c)),
        _ => {
            let last = b.len() - 8;
            let m = word(load(&b[last..]));
            (m != 0).then(|| last + at(m))
        }
    }
}

/// Where the first `needle` (ASCII) of `b` is.
#[inline]
pub(crate) fn byte(b: &[u8], needle: u8) -> Option<usize> {
    first(b, |w| hits(w, needle), |c| c == needle)
}

/// Whether `b` holds `needle` (ASCII): [`byte`] for the short texts where
/// std's `contains` called `memchr_aligned` (~100 instructions a call on
/// a field's value; 31 calls a round of the agents corpus).
#[inline]
pub(crate) fn has(b: &[u8], needle: u8) -> bool {
    byte(b, needle).is_some()
}

/// Where the first `x` or `y` (both ASCII) of `b` is.
#[inline]
pub(crate) fn either(b: &[u8], x: u8, y: u8) -> Option<usize> {
    first(b, |w| hits(w, x) | hits(w, y), |c| c == x || c == y)
}

/// The bytes of a word with the high bit set where `w` holds a control
/// character (below 0x20), and maybe on bytes after the first such one
/// (a borrow runs on from it): the first hit is exact, which is all
/// [`first`] reads. A byte of 0x80 or more is no hit.
#[inline(always)]
fn controls(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    w.wrapping_sub(ONES * 0x20) & !w & (ONES * 0x80)
}

/// Where the first byte of `b` that ends a JSON string's plain text is:
/// `"`, `\` or a control character.
#[inline]
pub(crate) fn string_stop(b: &[u8]) -> Option<usize> {
    first(
        b,
        |w| hits(w, b'"') | hits(w, b'\\') | controls(w),
        |c| c == b'"' || c == b'\\' || c < 0x20,
    )
}

/// Where the first space or tab of `b` is.
#[inline]
pub(crate) fn blank(b: &[u8]) -> Option<usize> {
    either(b, b' ', b'\t')
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        #[test]
        fn finds_as_position_does(b in proptest::collection::vec(
            proptest::sample::select(vec![
                b'a', b':', b',', b' ', b'\t', b'[', b']', 0x80, 0xff, 0x3a ^ 0x80, b'"', b'\\', 0, 0x1f,
                0x20, 0x21, 0x9f, 0xa0, 0x7f, b'\n',
            ]),
            0..40,
        )) {
            for needle in [b':', b',', b'['] {
                proptest::prop_assert_eq!(super::byte(&b, needle), b.iter().position(|&c| c == needle));
            }
            proptest::prop_assert_eq!(
                super::either(&b, b'[', b']'),
                b.iter().position(|&c| c == b'[' || c == b']')
            );
            proptest::prop_assert_eq!(
                super::string_stop(&b),
                b.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20)
            );
            proptest::prop_assert_eq!(
                super::blank(&b),
                b.iter().position(|&c| c == b' ' || c == b'\t')
            );
        }
    }
}
