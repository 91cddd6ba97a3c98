//! A serde serializer over [`Serializer`]'s strings and integers, byte
//! for byte serde_json's compact output: built for the tests only, which
//! hold the escaper, the shared body slices and the flushing to
//! serde_json on arbitrary values. `amail parse` writes its messages
//! member by member ([`super::message`]) and never comes here.

use std::fmt;

use serde::ser::{self, Serialize};

use super::escape::{escape_into, mask16, short_block};
use super::{Error, Result, Serializer};

impl Serializer<'_, '_> {
    /// `,"key":` (the comma if `comma`), the start of every object member.
    /// A key (nearly always a field name: short, nothing to escape) goes
    /// out as one fixed-size block with its closing quote and colon, not
    /// through [`Serializer::string`]: keys are most of the strings of a
    /// small message.
    fn key(&mut self, key: &str, comma: bool) -> Result<()> {
        let k = key.as_bytes();
        let n = k.len();
        if n < 30 {
            // The key at the start of a block of spaces (fixed offsets:
            // LLVM vectorizes the checks only then).
            let mut block = [b' '; 32];
            if n >= 16 {
                block[..16].copy_from_slice(&k[..16]);
                block[n - 16..n].copy_from_slice(&k[n - 16..]);
            } else {
                block[..16].copy_from_slice(&short_block(k));
            }
            let (lo, hi) = block.split_at(16);
            if let (Ok(lo), Ok(hi)) = (<&[u8; 16]>::try_from(lo), <&[u8; 16]>::try_from(hi)) {
                // (Tested apart: OR-ing the two flag words made LLVM
                // combine them byte by byte.)
                if mask16(lo) == 0 && (n <= 16 || mask16(hi) == 0) {
                    block[n] = b'"';
                    block[n + 1] = b':';
                    if comma {
                        self.out.push(b',');
                    }
                    self.out.push(b'"');
                    let at = self.out.len();
                    self.out.extend_from_slice(&block);
                    self.out.truncate(at + n + 2);
                    return Ok(());
                }
            }
        }
        if comma {
            self.raw(b",")?;
        }
        self.string(key)?;
        self.raw(b":")
    }

    /// Floats, through serde_json: its shortest round-trip formatting
    /// (and `null` for NaN and infinities) is the contract.
    fn delegate<T: Serialize>(&mut self, v: T) -> Result<()> {
        serde_json::to_writer(&mut *self.out, &v)
    }
}

/// `collect_str` without building the string: each piece the `Display`
/// impl writes is escaped as it comes, as serde_json does.
struct EscapingAdapter<'a> {
    out: &'a mut Vec<u8>,
}

impl fmt::Write for EscapingAdapter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        escape_into(self.out, s);
        Ok(())
    }
}

impl<'a, 'w, 's> ser::Serializer for &'a mut Serializer<'w, 's> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, 'w, 's>;
    type SerializeTuple = Compound<'a, 'w, 's>;
    type SerializeTupleStruct = Compound<'a, 'w, 's>;
    type SerializeTupleVariant = Compound<'a, 'w, 's>;
    type SerializeMap = Compound<'a, 'w, 's>;
    type SerializeStruct = Compound<'a, 'w, 's>;
    type SerializeStructVariant = Compound<'a, 'w, 's>;

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
        };
        if fmt::write(&mut adapter, format_args!("{value}")).is_err() {
            return Err(ser::Error::custom(
                "a Display implementation returned an error",
            ));
        }
        self.raw(b"\"")
    }
}

/// A sequence, map or struct being written: commas between the items,
/// `close` at the end.
pub struct Compound<'a, 'w, 's> {
    ser: &'a mut Serializer<'w, 's>,
    first: bool,
    close: &'static [u8],
}

impl Compound<'_, '_, '_> {
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
        let comma = !std::mem::replace(&mut self.first, false);
        self.ser.key(key, comma)?;
        value.serialize(&mut *self.ser)
    }

    fn finish(self) -> Result<()> {
        self.ser.raw(self.close)
    }
}

impl ser::SerializeSeq for Compound<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeTuple for Compound<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for Compound<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for Compound<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeMap for Compound<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        let comma = !std::mem::replace(&mut self.first, false);
        key.serialize(MapKey {
            ser: &mut *self.ser,
            comma,
        })
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.ser)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeStruct for Compound<'_, '_, '_> {
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

impl ser::SerializeStructVariant for Compound<'_, '_, '_> {
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

/// A map key, written with the comma before it (if `comma`) and the colon
/// after: strings as they are; integers, booleans and chars quoted, as
/// serde_json does; anything else is refused as serde_json refuses it.
struct MapKey<'a, 'w, 's> {
    ser: &'a mut Serializer<'w, 's>,
    comma: bool,
}

impl MapKey<'_, '_, '_> {
    /// The key `write` writes, between the comma and the colon.
    fn member(self, write: impl FnOnce(&mut Serializer) -> Result<()>) -> Result<()> {
        if self.comma {
            self.ser.raw(b",")?;
        }
        write(self.ser)?;
        self.ser.raw(b":")
    }

    fn quoted(self, v: impl itoa::Integer) -> Result<()> {
        self.member(|ser| {
            ser.raw(b"\"")?;
            ser.integer(v)?;
            ser.raw(b"\"")
        })
    }
}

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

impl ser::Serializer for MapKey<'_, '_, '_> {
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
        self.ser.key(v, self.comma)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.ser.key(v.encode_utf8(&mut [0; 4]), self.comma)
    }
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.member(|ser| ser.raw(if v { b"\"true\"" } else { b"\"false\"" }))
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
        self.ser.key(variant, self.comma)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn collect_str<T: ?Sized + fmt::Display>(self, value: &T) -> Result<()> {
        self.member(|ser| ser::Serializer::collect_str(ser, value))
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
