//! Compact JSON for `amail parse --format jsonl`, byte for byte what
//! `serde_json::to_writer` prints, with a faster string escaper.
//!
//! Almost all of a message's JSON is its body, printed twice (as `body`
//! and usually again inside `parsed`), and serde_json escapes a string one
//! byte at a time through a table: on a 10.8 MB body that loop was two
//! thirds of the whole process. Here strings are scanned eight bytes at a
//! time for the three things JSON must escape (control characters, `"`
//! and `\`), and the runs between are copied whole. Everything else
//! mirrors serde_json's compact output; numbers other than integers are
//! handed to serde_json itself, so they cannot drift.
//!
//! The output is checked against serde_json on every message of the test
//! corpora (`tests` below, and the `tests/cli/parse.rs` tests through the binary).

use std::fmt;
use std::io;

use serde::ser::{self, Serialize};

type Error = serde_json::Error;
type Result<T> = std::result::Result<T, Error>;

/// Writes `value` as compact JSON to `out`, exactly as
/// `serde_json::to_writer` would.
pub fn to_writer<W: io::Write, T: ?Sized + Serialize>(out: &mut W, value: &T) -> Result<()> {
    value.serialize(&mut Serializer { out })
}

struct Serializer<'w, W> {
    out: &'w mut W,
}

impl<W: io::Write> Serializer<'_, W> {
    fn raw(&mut self, b: &[u8]) -> Result<()> {
        self.out.write_all(b).map_err(Error::io)
    }

    fn string(&mut self, s: &str) -> Result<()> {
        self.raw(b"\"")?;
        write_escaped(self.out, s).map_err(Error::io)?;
        self.raw(b"\"")
    }

    /// Integers as serde_json prints them: through `itoa`, as it does.
    fn integer(&mut self, v: impl itoa::Integer) -> Result<()> {
        self.raw(itoa::Buffer::new().format(v).as_bytes())
    }

    /// Floats, through serde_json: its shortest round-trip formatting
    /// (and `null` for NaN and infinities) is the contract.
    fn delegate<T: Serialize>(&mut self, v: T) -> Result<()> {
        serde_json::to_writer(&mut *self.out, &v)
    }
}

/// The two-character escapes; the other control characters are `\u00XX`.
fn short_escape(b: u8) -> Option<&'static [u8]> {
    Some(match b {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        0x08 => b"\\b",
        0x0c => b"\\f",
        _ => return None,
    })
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` that must be escaped; exact for the
/// lowest such byte (higher ones may be false alarms, which the caller
/// never looks at).
#[inline]
fn escape_bits(w: u64) -> u64 {
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let s = w ^ (ONES * u64::from(b'\\'));
    let slash = s.wrapping_sub(ONES) & !s;
    (control | quote | slash) & HIGHS
}

/// The index of the first byte at or after `start` that must be escaped.
#[inline]
fn next_escape(bytes: &[u8], start: usize) -> Option<usize> {
    let rest = &bytes[start..];
    // Sixteen bytes a step (two words, one test): escapes are rare.
    let mut blocks = rest.chunks_exact(16);
    for (k, block) in (&mut blocks).enumerate() {
        let (a, b) = block.split_at(8);
        let (a, b) = (escape_bits(word(a)), escape_bits(word(b)));
        if a | b != 0 {
            let (at, bits) = if a != 0 { (0, a) } else { (8, b) };
            return Some(start + k * 16 + at + first_byte(bits));
        }
    }
    let tail = blocks.remainder();
    tail_escape(tail).map(|i| bytes.len() - tail.len() + i)
}

/// [`next_escape`] on fewer than 16 bytes (most keys and values): two
/// overlapping loads rather than a loop. Where they overlap the first one
/// found nothing, so the second one's first hit is the first hit.
#[inline]
fn tail_escape(t: &[u8]) -> Option<usize> {
    let n = t.len();
    if n >= 8 {
        let a = escape_bits(word(&t[..8]));
        if a != 0 {
            return Some(first_byte(a));
        }
        let b = escape_bits(word(&t[n - 8..]));
        (b != 0).then(|| n - 8 + first_byte(b))
    } else if n >= 4 {
        let lo = u64::from(half(&t[..4]));
        let hi = u64::from(half(&t[n - 4..]));
        let bits = escape_bits(lo | hi << 32);
        (bits != 0).then(|| match first_byte(bits) {
            i @ 0..=3 => i,
            i => i + n - 8,
        })
    } else {
        t.iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\')
    }
}

/// Eight bytes as a word, first byte lowest whatever the machine.
#[inline]
fn word(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().unwrap_or_default())
}

#[inline]
fn half(b: &[u8]) -> u32 {
    u32::from_le_bytes(b.try_into().unwrap_or_default())
}

/// The byte of the lowest flagged bit.
#[inline]
fn first_byte(bits: u64) -> usize {
    (bits.trailing_zeros() / 8) as usize
}

/// The contents of a JSON string (without the quotes), escaped as
/// serde_json escapes them.
pub fn write_escaped(out: &mut impl io::Write, s: &str) -> io::Result<()> {
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(i) = next_escape(bytes, start) {
        out.write_all(&bytes[start..i])?;
        let b = bytes[i];
        match short_escape(b) {
            Some(short) => out.write_all(short)?,
            None => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.write_all(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ])?
            }
        }
        start = i + 1;
    }
    out.write_all(&bytes[start..])
}

/// `collect_str` without building the string: each piece the `Display`
/// impl writes is escaped as it comes, as serde_json does.
struct EscapingAdapter<'a, W> {
    out: &'a mut W,
    error: Option<io::Error>,
}

impl<W: io::Write> fmt::Write for EscapingAdapter<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        write_escaped(self.out, s).map_err(|e| {
            self.error = Some(e);
            fmt::Error
        })
    }
}

impl<'a, 'w, W: io::Write> ser::Serializer for &'a mut Serializer<'w, W> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, 'w, W>;
    type SerializeTuple = Compound<'a, 'w, W>;
    type SerializeTupleStruct = Compound<'a, 'w, W>;
    type SerializeTupleVariant = Compound<'a, 'w, W>;
    type SerializeMap = Compound<'a, 'w, W>;
    type SerializeStruct = Compound<'a, 'w, W>;
    type SerializeStructVariant = Compound<'a, 'w, W>;

    fn serialize_bool(self, v: bool) -> Result<()> {
        self.raw(if v { b"true" } else { b"false" })
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.integer(v)
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.integer(v)
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.integer(v)
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.integer(v)
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        self.integer(v)
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.integer(v)
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.integer(v)
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.integer(v)
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.integer(v)
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        self.integer(v)
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.delegate(v)
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.delegate(v)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        self.string(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result<()> {
        self.raw(b"null")
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        self.raw(b"null")
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.raw(b"null")
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        self.string(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.raw(b"{")?;
        self.string(variant)?;
        self.raw(b":")?;
        value.serialize(&mut *self)?;
        self.raw(b"}")
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        self.raw(b"[")?;
        Ok(Compound {
            ser: self,
            first: true,
            close: b"]",
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        self.raw(b"{")?;
        self.string(variant)?;
        self.raw(b":[")?;
        Ok(Compound {
            ser: self,
            first: true,
            close: b"]}",
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        self.raw(b"{")?;
        Ok(Compound {
            ser: self,
            first: true,
            close: b"}",
        })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Self::SerializeStruct> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        self.raw(b"{")?;
        self.string(variant)?;
        self.raw(b":{")?;
        Ok(Compound {
            ser: self,
            first: true,
            close: b"}}",
        })
    }
    fn collect_str<T: ?Sized + fmt::Display>(self, value: &T) -> Result<()> {
        self.raw(b"\"")?;
        let mut adapter = EscapingAdapter {
            out: &mut *self.out,
            error: None,
        };
        if fmt::write(&mut adapter, format_args!("{value}")).is_err() {
            return Err(match adapter.error {
                Some(e) => Error::io(e),
                None => ser::Error::custom("a Display implementation returned an error"),
            });
        }
        self.raw(b"\"")
    }
}

/// A sequence, map or struct being written: commas between the items,
/// `close` at the end.
pub struct Compound<'a, 'w, W> {
    ser: &'a mut Serializer<'w, W>,
    first: bool,
    close: &'static [u8],
}

impl<W: io::Write> Compound<'_, '_, W> {
    fn comma(&mut self) -> Result<()> {
        if self.first {
            self.first = false;
            Ok(())
        } else {
            self.ser.raw(b",")
        }
    }

    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.comma()?;
        value.serialize(&mut *self.ser)
    }

    fn field<T: ?Sized + Serialize>(&mut self, key: &str, value: &T) -> Result<()> {
        self.comma()?;
        self.ser.string(key)?;
        self.ser.raw(b":")?;
        value.serialize(&mut *self.ser)
    }

    fn finish(self) -> Result<()> {
        self.ser.raw(self.close)
    }
}

impl<W: io::Write> ser::SerializeSeq for Compound<'_, '_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<W: io::Write> ser::SerializeTuple for Compound<'_, '_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<W: io::Write> ser::SerializeTupleStruct for Compound<'_, '_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<W: io::Write> ser::SerializeTupleVariant for Compound<'_, '_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<W: io::Write> ser::SerializeMap for Compound<'_, '_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.comma()?;
        key.serialize(MapKey {
            ser: &mut *self.ser,
        })?;
        self.ser.raw(b":")
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.ser)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<W: io::Write> ser::SerializeStruct for Compound<'_, '_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.field(key, value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<W: io::Write> ser::SerializeStructVariant for Compound<'_, '_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.field(key, value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

/// A map key: strings as they are; integers, booleans and chars quoted,
/// as serde_json does; anything else is refused as serde_json refuses it.
struct MapKey<'a, 'w, W> {
    ser: &'a mut Serializer<'w, W>,
}

impl<W: io::Write> MapKey<'_, '_, W> {
    fn quoted(self, v: impl itoa::Integer) -> Result<()> {
        self.ser.raw(b"\"")?;
        self.ser.integer(v)?;
        self.ser.raw(b"\"")
    }
}

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

impl<W: io::Write> ser::Serializer for MapKey<'_, '_, W> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result<()> {
        self.ser.string(v)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.ser.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.ser.raw(if v { b"\"true\"" } else { b"\"false\"" })
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.quoted(v)
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.quoted(v)
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.quoted(v)
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.quoted(v)
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        self.quoted(v)
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.quoted(v)
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.quoted(v)
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.quoted(v)
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.quoted(v)
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        self.quoted(v)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        self.ser.string(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn collect_str<T: ?Sized + fmt::Display>(self, value: &T) -> Result<()> {
        ser::Serializer::collect_str(&mut *self.ser, value)
    }

    fn serialize_f32(self, _: f32) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_f64(self, _: f64) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn ours<T: Serialize>(v: &T) -> String {
        let mut out = Vec::new();
        to_writer(&mut out, v).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn same<T: Serialize>(v: &T) {
        assert_eq!(ours(v), serde_json::to_string(v).unwrap());
    }

    #[test]
    fn every_byte_escapes_as_serde_json_does() {
        let all: String = (0u8..=0x7f).map(char::from).collect();
        same(&all);
        // At every offset and length, so the word scan, the tail scan and
        // the lowest-byte logic all meet each escape.
        let text = "ab\"c\\d\u{1}e\u{1f}f\tg\nh\u{7f}i é😀 j\u{0}k  ";
        for start in 0..text.len() {
            for end in start..=text.len() {
                if let Some(s) = text.get(start..end) {
                    same(&s);
                }
            }
        }
        // High bytes next to escapes: the borrow tricks must not misfire.
        same(&"\u{a0}\u{ff}\u{100}\"\u{1}\u{80}\\ÿ\u{9f}\u{1f}");
    }

    #[test]
    fn escapes_in_long_strings_match_serde_json() {
        // Every escape kind at every position of strings long enough for
        // the sixteen-byte steps and the tail, one escape or two.
        for esc in ['"', '\\', '\n', '\u{1}', '\u{1f}'] {
            for len in [15, 16, 17, 31, 32, 33, 47, 64, 65, 100] {
                for at in 0..len {
                    let mut s: String = "a".repeat(len);
                    s.replace_range(at..at + 1, &esc.to_string());
                    same(&s);
                    s.push_str(&"é".repeat(at));
                    s.push(esc);
                    same(&s);
                }
            }
        }
        let long: String = (0..2000)
            .map(|i| if i % 97 == 0 { '\n' } else { 'x' })
            .collect();
        same(&long);
    }

    #[test]
    fn values_and_containers_match_serde_json() {
        #[derive(serde::Serialize)]
        enum E {
            Unit,
            New(u8),
            Tuple(u8, &'static str),
            Struct { a: Option<u8>, b: f64 },
        }
        #[derive(serde::Serialize)]
        struct Inner {
            x: Vec<u8>,
            y: Option<bool>,
            z: (),
        }
        #[derive(serde::Serialize)]
        struct Outer {
            s: String,
            #[serde(flatten)]
            inner: Inner,
            e: Vec<E>,
            f: [f64; 4],
            m: BTreeMap<u32, char>,
            n: i64,
            c: char,
            empty: Vec<String>,
        }
        same(&Outer {
            s: "line\nnext".into(),
            inner: Inner {
                x: vec![1, 2, 255],
                y: None,
                z: (),
            },
            e: vec![
                E::Unit,
                E::New(7),
                E::Tuple(1, "t"),
                E::Struct { a: None, b: 0.1 },
            ],
            f: [1e300, -0.0, f64::NAN, 45.0],
            m: [(1, 'a'), (20, '"')].into_iter().collect(),
            n: i64::MIN,
            c: '\n',
            empty: vec![],
        });
        same(&chrono::DateTime::<chrono::Utc>::from_timestamp(1_700_000_000, 5).unwrap());
    }

    #[test]
    fn integers_and_map_keys_match_serde_json() {
        same(&(
            i8::MIN,
            i16::MIN,
            i32::MIN,
            i64::MIN,
            i128::MIN,
            -1i64,
            0i64,
        ));
        same(&(
            u8::MAX,
            u16::MAX,
            u32::MAX,
            u64::MAX,
            u128::MAX,
            0u64,
            10u64,
        ));
        same(&[(i128::MIN, 1u8)].into_iter().collect::<BTreeMap<_, _>>());
        same(&[(u64::MAX, 1u8)].into_iter().collect::<BTreeMap<_, _>>());
        same(
            &[(true, 1u8), (false, 0)]
                .into_iter()
                .collect::<BTreeMap<_, _>>(),
        );
    }
}
