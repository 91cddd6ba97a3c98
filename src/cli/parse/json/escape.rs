//! JSON string escaping, byte for byte as serde_json escapes, in about
//! 0.85 instructions a byte on prose with an escape every line.
//!
//! JSON must escape three kinds of byte: control characters, `"` and `\`.
//! Text is scanned sixteen bytes at a time for them with one byte mask per
//! block ([`Scan::mask16`]: on x86_64 SSE2's compares and `pmovmskb`, its
//! baseline, through `safe_arch`'s safe wrappers, as the crate forbids
//! `unsafe`; elsewhere the portable [`Portable`] form), so a clean block
//! costs a handful of instructions and an escape's position is one
//! `trailing_zeros`. Escapes are written from one table of 8-byte entries
//! (the escape padded, its length in the last byte): one fixed-size store.
//!
//! Four paths, by length:
//! - under 16 bytes (most strings of a small message: names, ids, types):
//!   one block padded with spaces, copied whole and cut to length when
//!   clean, inlined into the caller;
//! - up to [`BULK_MIN`]: clean runs between escapes copied as they are
//!   found ([`blocks`]);
//! - longer ([`bulk`]): 32 bytes at a time, each block stored whole before
//!   its mask is looked at and, at an escape, the rest of the block stored
//!   again behind the escape. The stores go to a buffer of fixed size, not
//!   to the output `Vec`: a `Vec`'s length and capacity live in memory
//!   that any byte store may alias, so writing into it directly made the
//!   compiler reload and check them at every block (28 instructions a
//!   clean 16-byte block against 14 here). Each block reads a 64-byte
//!   window of the input and writes a [`BLOCK_ROOM`] window of the buffer
//!   at places masked into them, so no index is checked: 31 instructions
//!   a clean 32-byte block, 21 an escape. The buffer (1.5 KiB on the
//!   stack) is copied out each time it fills;
//! - with a sink, over 64 KiB (a big body, `json::SEGMENT`): [`stream`],
//!   the same [`bulk`] through a 256 KiB buffer per thread written
//!   straight to the sink, without the copy into the output `Vec`.
//!
//! [`bulk`] takes each 32-byte block's mask from AVX2 where the CPU has it
//! ([`Avx2`]: asked at run time, once per long string, since x86_64's
//! baseline is SSE2; the build stays one binary for any x86_64): one
//! load, five vector instructions and a `vpmovmskb` instead of two SSE2
//! sets with their register copies. A clean block is then 17
//! instructions (31 with SSE2), an escape 17 (21). The AVX2 code is safe
//! Rust inside a `#[target_feature(enable = "avx2")]` function (the
//! block becomes a vector through `bytemuck`); calling it is the one
//! `unsafe` here, after the check. Escaping alone (callgrind, the whole
//! `amail parse --format jsonl` run): log shape 13.96 M -> 9.28 M,
//! summary shape 36.26 M -> 26.11 M; the whole process 25.98 M -> 21.30 M
//! and 49.76 M -> 39.61 M. (json-escape-simd, sonic-rs's escaper with
//! runtime dispatch, was looked at and not measured: it appends a quoted
//! string to a `Vec`, where [`bulk`] writes fixed windows straight to the
//! sink's buffer, the thing that took the last tenth off.)
//!
//! Figures (callgrind, escaping alone, inclusive, in the whole `amail
//! parse --format jsonl` run): the 10.8 MB log shape of `bench/run.sh`
//! 30.96 M (the plain-code scan) -> 18.18 M (the byte mask) -> 13.97 M
//! (the windows and [`stream`]), the summary shape (its body and its
//! `## Summary`, 21.6 MB escaped) 86.10 M -> 48.77 M -> 36.28 M, the
//! 10,000 small files 23.68 M -> 18.24 M (then the short path inlined:
//! the whole run 192.7 M -> 190.2 M); the output is the same to the
//! byte. Tried and dropped (measured on the same inputs): a 64-byte
//! all-clean pre-check (worse on the log shape, whose lines are 74 bytes:
//! most 64-byte windows hold a newline); each 16-byte block stored
//! straight into the output `Vec` (25.3 M on the log shape, the length
//! and capacity reloaded at every block); a buffer per thread instead of
//! the stack's for every long string (its lookup cost more than zeroing
//! 1.5 KiB: [`stream`] looks it up once per huge string); the output grown
//! by `resize` and written as a slice (the zeroing is `rep stosb`, and the
//! loop was no shorter); the bulk path for strings from 64 or 128 bytes
//! (the small files' strings got slower); a 256-entry table holding each
//! escape's growth, to save the index mask and a decrement (no change:
//! LLVM had folded both); [`bulk`] over a slice of any length, or inlined
//! into [`stream`] (the scan's constants reloaded and both indexes
//! checked at every block: 18.3 M against 14.0 M on the log shape).
//! What is left is the scan itself, about 0.7 instructions a byte (SSE2
//! has no three-operand forms: a third of it is register copies), and the
//! escapes, one every 74 bytes in the log shape and 3.7 in every 94 in
//! the summary's.

use std::sync::atomic::{AtomicBool, Ordering};

/// How a 16-byte block's bytes that JSON must escape are found.
pub(super) trait Scan: Sized {
    /// Bit `i` set where byte `i` of `block` must be escaped.
    fn mask16(block: &[u8; 16]) -> u32;

    /// [`bulk`] with this scan: the long strings' loop.
    // Apart from its callers, so that its loop keeps the scan's constants
    // in registers (inlined beside a `Write` call, they were reloaded at
    // each block).
    #[inline(never)]
    fn bulk<const N: usize>(buf: &mut [u8; N], bytes: &[u8], at: usize) -> (usize, usize) {
        bulk(buf, bytes, at, mask32::<Self>)
    }
}

/// SSE2: three compares and a `pmovmskb`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(super) struct Sse2;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
impl Scan for Sse2 {
    #[inline(always)]
    fn mask16(block: &[u8; 16]) -> u32 {
        use safe_arch::{
            cmp_eq_mask_i8_m128i, m128i, min_u8_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
        };
        let v = m128i::from(*block);
        // Control characters and `"` (0x22) are the bytes whose xor with 2
        // is at most 0x20 (unsigned: the min with 0x20 is itself), so one
        // test finds both; `\` has its own.
        let t = v ^ set_splat_i8_m128i(2);
        let low = cmp_eq_mask_i8_m128i(min_u8_m128i(t, set_splat_i8_m128i(0x20)), t);
        let backslash = cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'\\' as i8));
        // The mask has sixteen bits: the sign is never set.
        move_mask_i8_m128i(low | backslash) as u32
    }
}

/// AVX2 where the CPU has it, else [`Sse2`]: the long strings' loop
/// ([`Scan::bulk`]) takes a 32-byte block's mask from one AVX2 compare
/// set instead of two SSE2 ones (x86_64's baseline is SSE2 only, so AVX2
/// is asked for at run time, once per long string; the short paths stay
/// SSE2).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(super) struct Avx2;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
impl Scan for Avx2 {
    #[inline(always)]
    fn mask16(block: &[u8; 16]) -> u32 {
        Sse2::mask16(block)
    }

    #[inline(always)]
    fn bulk<const N: usize>(buf: &mut [u8; N], bytes: &[u8], at: usize) -> (usize, usize) {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the one requirement of calling a function compiled
            // with `#[target_feature(enable = "avx2")]` is that the CPU
            // running it has AVX2, which was checked just above.
            unsafe { avx2::bulk(buf, bytes, at) }
        } else {
            Sse2::bulk(buf, bytes, at)
        }
    }
}

/// The AVX2 forms, called only where the CPU has AVX2 (see [`Avx2`]).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8, _mm256_xor_si256,
    };

    /// [`super::Sse2::mask16`]'s test on 32 bytes at once.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn mask32(block: &[u8; 32]) -> u32 {
        let v: __m256i = bytemuck::cast(*block);
        let t = _mm256_xor_si256(v, _mm256_set1_epi8(2));
        let low = _mm256_cmpeq_epi8(_mm256_min_epu8(t, _mm256_set1_epi8(0x20)), t);
        let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        _mm256_movemask_epi8(_mm256_or_si256(low, backslash)) as u32
    }

    /// [`super::bulk`] with [`mask32`].
    #[target_feature(enable = "avx2")]
    pub(super) fn bulk<const N: usize>(
        buf: &mut [u8; N],
        bytes: &[u8],
        at: usize,
    ) -> (usize, usize) {
        super::bulk(buf, bytes, at, |block| mask32(block))
    }
}

/// Plain code for other targets: a flag byte per input byte (LLVM makes
/// vector compares of the loop), packed into bits by one multiply per
/// eight bytes.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
pub(super) struct Portable;

#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
impl Scan for Portable {
    #[inline(always)]
    fn mask16(block: &[u8; 16]) -> u32 {
        let mut flags = [0u8; 16];
        for (f, &b) in flags.iter_mut().zip(block) {
            *f = u8::from(must_escape(b));
        }
        // Byte i of `x` (0 or 1) lands on bit 56 + i of the product, and
        // no two partial products share a bit, so nothing carries into it.
        let pack = |x: u64| (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
        let flags = u128::from_le_bytes(flags);
        pack(flags as u64) | pack((flags >> 64) as u64) << 8
    }
}

/// The scan `amail parse` uses on this target.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
type Native = Avx2;
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
type Native = Portable;

/// Whether JSON must escape `b`.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
#[inline(always)]
fn must_escape(b: u8) -> bool {
    (b < 0x20) | (b == b'"') | (b == b'\\')
}

/// [`Scan::mask16`] on this target (the tests' serializer checks its keys
/// with it).
#[cfg(test)]
#[inline(always)]
pub(super) fn mask16(block: &[u8; 16]) -> u32 {
    Native::mask16(block)
}

/// Appends the contents of a JSON string (without the quotes), escaped
/// as serde_json escapes them.
#[inline(always)]
pub fn escape_into(out: &mut Vec<u8>, s: &str) {
    escape_bytes(out, s.as_bytes());
}

/// [`escape_into`] on bytes: escaping is byte by byte (UTF-8 sequences
/// pass through whole), so any piece of a string escapes as the string's
/// escaped form cut at the same place.
///
/// The short path is inlined into the caller: most strings of a small
/// message are under sixteen bytes, and the call cost as much as their
/// escaping.
#[inline(always)]
pub(super) fn escape_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.len() < 16 {
        short::<Native>(out, bytes);
    } else {
        longer(out, bytes);
    }
}

/// [`escape_bytes`] from sixteen bytes on.
#[inline(never)]
fn longer(out: &mut Vec<u8>, bytes: &[u8]) {
    escape_with::<Native>(out, bytes);
}

/// How many bytes escaping `bytes` adds.
pub(super) fn growth(bytes: &[u8]) -> usize {
    growth_with::<Native>(bytes)
}

/// Strings at least this long go through [`bulk`]: below it the buffer's
/// zeroing and copying cost more than they save.
const BULK_MIN: usize = 256;

/// [`bulk`]'s buffer: small enough to zero at each call and to stay in L1.
const SCRATCH: usize = 1536;

/// The window of [`bulk`]'s buffer one 32-byte block writes into: a
/// place under 256 (32 escapes of six bytes are 192) and the 32-byte
/// store after it.
const BLOCK_ROOM: usize = 256 + 32;

/// Each escapable byte's escape as serde_json writes it (`\n`, `\"`, ...,
/// `\u001f`), padded to eight bytes, its length in the last byte.
static ESCAPES: [[u8; 8]; 128] = escapes();

const fn escapes() -> [[u8; 8]; 128] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut table = [[0u8; 8]; 128];
    let mut b = 0;
    while b < table.len() {
        let short = match b as u8 {
            b'"' => b'"',
            b'\\' => b'\\',
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0x08 => b'b',
            0x0c => b'f',
            _ => 0,
        };
        if short != 0 {
            table[b] = [b'\\', short, 0, 0, 0, 0, 0, 2];
        } else if b < 0x20 {
            table[b] = [b'\\', b'u', b'0', b'0', HEX[b >> 4], HEX[b & 0xf], 0, 6];
        }
        b += 1;
    }
    table
}

/// The table entry of `b`, a byte JSON must escape (all are ASCII).
#[inline(always)]
fn escape_of(b: u8) -> &'static [u8; 8] {
    &ESCAPES[usize::from(b & 0x7f)]
}

/// Appends the escape of `b`: the whole entry, cut to its length.
#[inline(always)]
fn push_escape(out: &mut Vec<u8>, b: u8) {
    let e = escape_of(b);
    let at = out.len();
    out.extend_from_slice(e);
    out.truncate(at + usize::from(e[7]));
}

#[inline(always)]
fn escape_with<S: Scan>(out: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.len() < 16 {
        short::<S>(out, bytes);
    } else if bytes.len() < BULK_MIN {
        blocks::<S>(out, bytes);
    } else {
        long::<S>(out, bytes);
    }
}

/// `bytes`, fewer than sixteen, at the start of a block padded with
/// spaces (which need no escape), copied as two overlapping words rather
/// than by a `memcpy` call: most keys and values are this short, and the
/// call cost more than the copy.
#[inline(always)]
pub(super) fn short_block(bytes: &[u8]) -> [u8; 16] {
    let n = bytes.len();
    let mut block = [b' '; 16];
    if (8..16).contains(&n) {
        block[..8].copy_from_slice(&bytes[..8]);
        block[n - 8..n].copy_from_slice(&bytes[n - 8..]);
    } else if (4..8).contains(&n) {
        block[..4].copy_from_slice(&bytes[..4]);
        block[n - 4..n].copy_from_slice(&bytes[n - 4..]);
    } else {
        for (b, &c) in block.iter_mut().zip(bytes) {
            *b = c;
        }
    }
    block
}

/// Fewer than sixteen bytes: one padded block.
#[inline(always)]
fn short<S: Scan>(out: &mut Vec<u8>, bytes: &[u8]) {
    let block = short_block(bytes);
    let mut bits = S::mask16(&block);
    if bits == 0 {
        // Clean (nearly always): the block, cut to length.
        let at = out.len();
        out.extend_from_slice(&block);
        out.truncate(at + bytes.len());
        return;
    }
    let mut start = 0;
    while bits != 0 {
        let i = bits.trailing_zeros() as usize;
        out.extend_from_slice(&bytes[start..i]);
        push_escape(out, bytes[i]);
        start = i + 1;
        bits &= bits - 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

/// The sixteen bytes at `at`.
#[inline(always)]
fn block_at(bytes: &[u8], at: usize) -> Option<&[u8; 16]> {
    bytes.get(at..)?.first_chunk()
}

/// Calls `f(i, byte)` for each byte of `bytes` JSON must escape, in order.
#[inline(always)]
fn for_each_escape<S: Scan>(bytes: &[u8], mut f: impl FnMut(usize, u8)) {
    let n = bytes.len();
    if n < 16 {
        let mut bits = S::mask16(&short_block(bytes));
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            f(i, bytes[i]);
            bits &= bits - 1;
        }
        return;
    }
    let mut at = 0;
    while at < n {
        let (base, mut bits) = match block_at(bytes, at) {
            Some(block) => (at, S::mask16(block)),
            None => {
                // The last sixteen bytes, overlapping some already
                // scanned, whose bits are dropped.
                let last = n - 16;
                let seen = at - last;
                let bits = block_at(bytes, last).map_or(0, S::mask16);
                (last, bits >> seen << seen)
            }
        };
        while bits != 0 {
            let i = base + bits.trailing_zeros() as usize;
            f(i, bytes[i]);
            bits &= bits - 1;
        }
        at += 16;
    }
}

fn growth_with<S: Scan>(bytes: &[u8]) -> usize {
    let mut n = 0;
    for_each_escape::<S>(bytes, |_, b| n += usize::from(escape_of(b)[7]) - 1);
    n
}

/// Appends `bytes[start..end]`, clean bytes. A short run (most of them,
/// in prose with quotes) is copied as a whole sixteen-byte block and the
/// excess cut off, a fixed-size copy rather than a `memcpy` call.
#[inline(always)]
fn copy_run(out: &mut Vec<u8>, bytes: &[u8], start: usize, end: usize) {
    let len = end - start;
    if len < 16 {
        if let Some(block) = block_at(bytes, start) {
            let at = out.len();
            out.extend_from_slice(block);
            out.truncate(at + len);
            return;
        }
    }
    out.extend_from_slice(&bytes[start..end]);
}

/// Sixteen bytes or more: the clean runs between escapes copied whole.
#[inline(always)]
fn blocks<S: Scan>(out: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.len() < 16 {
        return short::<S>(out, bytes);
    }
    let mut start = 0;
    for_each_escape::<S>(bytes, |i, b| {
        copy_run(out, bytes, start, i);
        push_escape(out, b);
        start = i + 1;
    });
    out.extend_from_slice(&bytes[start..]);
}

/// A long string: [`bulk`] through a buffer on the stack, then the last
/// few dozen bytes by [`blocks`]. Apart, so that the short paths carry
/// none of its frame.
#[inline(never)]
fn long<S: Scan>(out: &mut Vec<u8>, bytes: &[u8]) {
    let mut buf = [0u8; SCRATCH];
    let Ok(at) = bulk_pieces::<S, std::convert::Infallible, SCRATCH>(&mut buf, bytes, |piece| {
        out.extend_from_slice(piece);
        Ok(())
    });
    blocks::<S>(out, &bytes[at..]);
}

/// Escapes `bytes` by [`bulk`] through `buf`, handing each filled stretch
/// of it to `put`; returns where it stopped (the last few dozen bytes are
/// left).
#[inline(always)]
fn bulk_pieces<S: Scan, E, const N: usize>(
    buf: &mut [u8; N],
    bytes: &[u8],
    mut put: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<usize, E> {
    let mut at = 0;
    loop {
        let (written, to) = S::bulk::<N>(buf, bytes, at);
        put(&buf[..written])?;
        if to == at {
            return Ok(at);
        }
        at = to;
    }
}

/// How much of a huge string [`stream`] escapes between two writes.
const STREAM: usize = 256 * 1024;

/// Escapes a huge string straight to `sink`, a piece of about [`STREAM`]
/// bytes at a time from one buffer per thread, rather than through the
/// caller's output buffer: on the 10.8 MB shapes the copy into that
/// buffer was a tenth of escaping's time.
pub(super) fn stream(sink: &mut dyn std::io::Write, bytes: &[u8]) -> std::io::Result<()> {
    // A fixed-size buffer, made on first use: no length to check, so no
    // path that could return without writing.
    type Buf = Option<Box<[u8; STREAM]>>;
    thread_local! {
        static BUF: std::cell::RefCell<Buf> = const { std::cell::RefCell::new(None) };
    }
    BUF.with_borrow_mut(|slot| {
        let buf = slot.get_or_insert_with(|| Box::new([0; STREAM]));
        let at = bulk_pieces::<Native, _, STREAM>(buf, bytes, |piece| sink.write_all(piece))?;
        let mut tail = Vec::new();
        blocks::<Native>(&mut tail, &bytes[at..]);
        sink.write_all(&tail)
    })
}

/// [`escape_fill`]'s step: [`bulk`] writes into a window of the output
/// this long at a time.
pub(super) const FILL_WINDOW: usize = 64 * 1024;

/// Escapes `bytes` from `at` into `dst` until `dst` has no room for
/// another window, the bytes are done, or `stop` is set (looked at every
/// window); returns the escaped length and where in `bytes` it stopped.
/// [`bulk`] writes straight into `dst`, a window at a time (each window
/// starts where the last one's escaped bytes ended, so its stores past
/// them are written over), and [`blocks`] the last few dozen bytes.
pub(super) fn escape_fill(
    dst: &mut [u8],
    bytes: &[u8],
    mut at: usize,
    stop: &AtomicBool,
) -> (usize, usize) {
    let mut o = 0;
    while let Some(window) = dst
        .get_mut(o..)
        .and_then(|d| d.first_chunk_mut::<FILL_WINDOW>())
    {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let (written, to) = Native::bulk::<FILL_WINDOW>(window, bytes, at);
        o += written;
        if to == at {
            // Under 64 bytes left (at most 378 escaped: the window has
            // room).
            let mut tail = Vec::new();
            blocks::<Native>(&mut tail, &bytes[at..]);
            if let Some(d) = dst.get_mut(o..o + tail.len()) {
                d.copy_from_slice(&tail);
                o += tail.len();
                at = bytes.len();
            }
            break;
        }
        at = to;
    }
    (o, at)
}

/// The mask of a 32-byte block.
#[inline(always)]
fn mask32<S: Scan>(block: &[u8; 32]) -> u32 {
    let (lo, hi) = block.split_at(16);
    match (lo.first_chunk(), hi.first_chunk()) {
        (Some(lo), Some(hi)) => S::mask16(lo) | S::mask16(hi) << 16,
        _ => 0,
    }
}

/// Escapes `bytes` from `at` into `buf`, 32 bytes a step, while 64 are
/// left (so the 32 bytes after any byte of the block can be read) and
/// the buffer has room for one more block; returns how much it wrote and
/// where it stopped reading.
///
/// Each block is stored whole, then each escape in it is written over
/// the copy at its place and the 32 bytes after it stored again behind
/// it: a clean block is two loads, two stores and its mask; an escape a
/// table store and one more 32-byte copy. A block reads from a 64-byte
/// window of the input and writes into a [`BLOCK_ROOM`] window of the
/// buffer, at places masked into them, so that no index needs a check.
#[inline(always)]
fn bulk<const N: usize>(
    buf: &mut [u8; N],
    bytes: &[u8],
    mut at: usize,
    mask32: impl Fn(&[u8; 32]) -> u32,
) -> (usize, usize) {
    let mut o = 0;
    let Some(last) = bytes.len().checked_sub(64) else {
        return (0, at);
    };
    while o <= N - BLOCK_ROOM && at <= last {
        let (Some(window), Some(dst)) = (
            bytes.get(at..).and_then(|b| b.first_chunk::<64>()),
            buf[o..].first_chunk_mut::<BLOCK_ROOM>(),
        ) else {
            break;
        };
        let Some(block) = window.first_chunk::<32>() else {
            break;
        };
        let mut bits = mask32(block);
        dst[..32].copy_from_slice(block);
        // What the escapes so far added: input byte `i` of the block goes
        // to `dst[i + grown]`, at most 32 * 5 + 31 (under 256).
        let mut grown = 0;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize & 31;
            bits &= bits - 1;
            let e = escape_of(window[i]);
            let d = (i + grown) & 255;
            dst[d..d + 8].copy_from_slice(e);
            grown += usize::from(e[7]) - 1;
            let d = (i + 1 + grown) & 255;
            dst[d..d + 32].copy_from_slice(&window[i + 1..i + 33]);
        }
        at += 32;
        o += 32 + grown;
    }
    (o, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bytes` escaped by `S` on every path, each checked against
    /// serde_json.
    fn check<S: Scan>(s: &str) {
        let theirs = serde_json::to_string(s).unwrap();
        let theirs = &theirs.as_bytes()[1..theirs.len() - 1];
        let bytes = s.as_bytes();
        let mut ours = b"earlier".to_vec();
        escape_with::<S>(&mut ours, bytes);
        assert!(&ours[7..] == theirs, "{s:?}");
        // Each path on its own, where it applies.
        if bytes.len() < 16 {
            ours.clear();
            short::<S>(&mut ours, bytes);
            assert!(ours == theirs, "short {s:?}");
        }
        ours.clear();
        blocks::<S>(&mut ours, bytes);
        assert!(ours == theirs, "blocks {s:?}");
        ours.clear();
        long::<S>(&mut ours, bytes);
        assert!(ours == theirs, "long {s:?}");
        assert_eq!(growth_with::<S>(bytes), theirs.len() - bytes.len(), "{s:?}");
    }

    /// `s` through every scan this target has (the AVX2 loop where the
    /// CPU running the tests has AVX2) and through [`stream`].
    fn both(s: &str) {
        check::<Portable>(s);
        check::<Native>(s);
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        check::<Sse2>(s);
        let mut streamed = Vec::new();
        stream(&mut streamed, s.as_bytes()).unwrap();
        let theirs = serde_json::to_string(s).unwrap();
        let theirs = &theirs.as_bytes()[1..theirs.len() - 1];
        assert!(streamed == theirs, "stream {s:?}");
        // Filled into buffers of a few windows each, one after another.
        for windows in [1, 2, 7] {
            let (mut filled, mut at) = (Vec::new(), 0);
            let mut buf = vec![0; FILL_WINDOW * windows];
            while at < s.len() {
                let (len, to) = escape_fill(&mut buf, s.as_bytes(), at, &AtomicBool::new(false));
                assert!(to > at, "fill made no progress on {s:?}");
                filled.extend_from_slice(&buf[..len]);
                at = to;
            }
            assert!(filled == theirs, "fill {s:?}");
        }
    }

    #[test]
    fn filling_stops_when_asked_or_full() {
        let s = "x\"y\n".repeat(100_000);
        let mut buf = vec![0; FILL_WINDOW * 3];
        let stop = AtomicBool::new(true);
        assert_eq!(escape_fill(&mut buf, s.as_bytes(), 0, &stop), (0, 0));
        // Too small for a window: nothing.
        let mut small = vec![0; FILL_WINDOW - 1];
        assert_eq!(
            escape_fill(&mut small, s.as_bytes(), 0, &AtomicBool::new(false)),
            (0, 0)
        );
        // Full: at most the buffer, and what it holds is the escape of
        // what it took.
        let (len, to) = escape_fill(&mut buf, s.as_bytes(), 0, &AtomicBool::new(false));
        assert!(len <= buf.len() && len > FILL_WINDOW && to < s.len());
        let mut theirs = Vec::new();
        escape_bytes(&mut theirs, &s.as_bytes()[..to]);
        assert!(buf[..len] == theirs[..]);
    }

    #[test]
    fn strings_past_the_stream_buffer_match_serde_json() {
        // Several refills of the stream's buffer, the last one nearly
        // empty or full, with escapes across every edge.
        for extra in [0, 1, 63, 64, 65, 4000] {
            let s: String = (0..STREAM * 2 + extra)
                .map(|i| match i % 41 {
                    0 => '\n',
                    7 => '"',
                    8 => '\u{1f}',
                    _ => 'x',
                })
                .collect();
            both(&s);
        }
    }

    #[test]
    fn both_scans_mask_every_byte_alike() {
        for b in 0..=255u8 {
            for at in 0..16 {
                let mut block = [b'a'; 16];
                block[at] = b;
                let want = if must_escape(b) { 1 << at } else { 0 };
                assert_eq!(Portable::mask16(&block), want, "{b:#x} at {at}");
                assert_eq!(Native::mask16(&block), want, "{b:#x} at {at}");
            }
        }
        let mut all = [0u8; 16];
        for (i, b) in all.iter_mut().enumerate() {
            *b = i as u8 * 17;
        }
        assert_eq!(Portable::mask16(&all), Native::mask16(&all));
    }

    /// A 32-byte block's mask from each scan of this target: the plain
    /// code's, SSE2's two halves and, where the CPU has it, AVX2's.
    fn masks32(block: &[u8; 32]) -> Vec<u32> {
        let mut masks = vec![mask32::<Portable>(block)];
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            masks.push(mask32::<Sse2>(block));
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                masks.push(unsafe { avx2::mask32(block) });
            }
        }
        masks
    }

    #[test]
    #[allow(clippy::print_stderr)] // the test harness captures it
    fn every_scan_masks_every_byte_at_every_place_of_a_32_byte_block() {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("note: this CPU has no AVX2: its scan is not tested here");
        }
        for b in 0..=255u8 {
            for at in 0..32 {
                for fill in [b'a', 0xff, b' '] {
                    let mut block = [fill; 32];
                    block[at] = b;
                    let want = if must_escape(b) { 1 << at } else { 0 };
                    for m in masks32(&block) {
                        assert_eq!(m, want, "{b:#x} at {at} in {fill:#x}");
                    }
                }
            }
        }
        for seed in 0..64u8 {
            let block: [u8; 32] = std::array::from_fn(|i| (i as u8).wrapping_mul(seed | 1) ^ seed);
            let want = (0..32).fold(0, |m, i| m | u32::from(must_escape(block[i])) << i);
            for m in masks32(&block) {
                assert_eq!(m, want, "{block:?}");
            }
        }
    }

    #[test]
    fn every_escape_at_every_position_matches_serde_json() {
        // Every byte JSON escapes, beside the ones it does not (space,
        // `!`, `#`, DEL, non-ASCII), at every position of strings around
        // the block and bulk sizes: both halves of a 32-byte block, the
        // edges, the tail shorter than a block, one escape or two.
        let escapes: Vec<char> = (0u8..0x20).map(char::from).chain(['"', '\\']).collect();
        for len in [
            1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 95, 96, 97, 127, 128, 129, 130, 257,
        ] {
            for &esc in &escapes {
                for at in 0..len {
                    let mut s: String = "a".repeat(len);
                    s.replace_range(at..at + 1, &esc.to_string());
                    both(&s);
                    s.push_str(&"é".repeat(at % 7));
                    s.push(esc);
                    both(&s);
                }
            }
            for clean in [' ', '!', '#', '\u{7f}', 'é', '😀'] {
                both(&clean.to_string().repeat(len));
            }
        }
    }

    #[test]
    fn long_strings_match_serde_json() {
        // Through the bulk path and its buffer refills: clean stretches,
        // escapes every n bytes, all escapes (the buffer's worst case),
        // escapes across the 32-byte steps and the stop 64 bytes from the
        // end.
        for every in [1, 2, 5, 31, 32, 33, 74, 97, 4000] {
            for len in [BULK_MIN, 1000, SCRATCH * 3 + 7, 20_000] {
                let s: String = (0..len)
                    .map(|i| match i % every {
                        0 => '\n',
                        1 => '"',
                        2 => '\u{1}',
                        _ => 'x',
                    })
                    .collect();
                both(&s);
            }
        }
        let all: String = (0..3000).map(|i| char::from((i % 0x20) as u8)).collect();
        both(&all);
        // Six-byte escapes only, the most a block can grow, from every
        // place in a block.
        for lead in 0..33 {
            both(&format!("{}{}", "x".repeat(lead), "\u{1}".repeat(700)));
        }
        let prose: String = (0..500)
            .map(|i| format!("line {i}: \"quoted\"\t\\ é😀\u{7f}\u{1f}\n"))
            .collect();
        both(&prose);
    }

    proptest::proptest! {
        #[test]
        fn any_text_escapes_as_serde_json_does(
            s in "(?s)[a-z \"\\\\\\x00-\\x1f\\x7f-\\u{3ff}😀]{0,400}|.{0,600}"
        ) {
            both(&s);
        }
    }
}
