//! The Chakra execution-trace schema as prost messages, written by hand from `et_def.proto` beside
//! this file (mlcommons/chakra `schema/protobuf/et_def.proto`, Apache-2.0), and the stream they
//! come in: each rank's `.et` file is a sequence of messages, each preceded by its length as a
//! protobuf varint (chakra's `protolib.encodeMessage`): one `GlobalMetadata`, then `Node`s.
//!
//! Only the fields the reader uses are declared; prost skips the others (`inputs`, `outputs`,
//! `start_time_micros`, `doc_string`), so traces written by newer schema versions still decode.

use crate::error::{Error, Result};
use std::io::BufRead;

/// `GlobalMetadata`: the trace's schema version and attributes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GlobalMetadata {
    /// Schema version (`0.0.4` in ASTRA-sim's microbenchmarks).
    #[prost(string, tag = "1")]
    pub version: String,
    /// Free-form attributes.
    #[prost(message, repeated, tag = "2")]
    pub attr: Vec<AttributeProto>,
}

/// `Node`: one operation of a rank's execution trace.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Node {
    /// Identifier, unique within the rank's file; dependencies name it.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// Operator name, for messages.
    #[prost(string, tag = "2")]
    pub name: String,
    /// A [`NodeType`] value.
    #[prost(int32, tag = "3")]
    pub r#type: i32,
    /// Nodes that must complete first (control dependencies).
    #[prost(uint64, repeated, tag = "4")]
    pub ctrl_deps: Vec<u64>,
    /// Nodes whose outputs this one reads (data dependencies).
    #[prost(uint64, repeated, tag = "5")]
    pub data_deps: Vec<u64>,
    /// Measured duration, the time a compute node takes.
    #[prost(uint64, tag = "7")]
    pub duration_micros: u64,
    /// Attributes: `comm_type`, `comm_size`, `comm_src`, `comm_dst`, `comm_tag`, `pg_name`...
    #[prost(message, repeated, tag = "10")]
    pub attr: Vec<AttributeProto>,
}

/// `NodeType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum NodeType {
    /// Unset.
    InvalidNode = 0,
    /// Metadata only.
    MetadataNode = 1,
    /// A memory load (not modelled).
    MemLoadNode = 2,
    /// A memory store (not modelled).
    MemStoreNode = 3,
    /// Computation.
    CompNode = 4,
    /// A point-to-point send.
    CommSendNode = 5,
    /// A point-to-point receive.
    CommRecvNode = 6,
    /// A collective.
    CommCollNode = 7,
}

/// `CollectiveCommType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum CollectiveCommType {
    /// All-reduce.
    AllReduce = 0,
    /// Reduce to a root.
    Reduce = 1,
    /// All-gather.
    AllGather = 2,
    /// Gather to a root.
    Gather = 3,
    /// Scatter from a root.
    Scatter = 4,
    /// Broadcast from a root.
    Broadcast = 5,
    /// All-to-all.
    AllToAll = 6,
    /// Reduce-scatter.
    ReduceScatter = 7,
    /// Reduce-scatter in equal blocks.
    ReduceScatterBlock = 8,
    /// Barrier.
    Barrier = 9,
}

/// `AttributeProto`: a named value.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    /// The attribute's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its value.
    #[prost(
        oneof = "Value",
        tags = "3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29"
    )]
    pub value: Option<Value>,
}

/// The scalar values of `AttributeProto`'s `value` oneof (the list kinds are skipped).
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Value {
    /// `double_val`.
    #[prost(double, tag = "3")]
    Double(f64),
    /// `float_val`.
    #[prost(float, tag = "5")]
    Float(f32),
    /// `int32_val`.
    #[prost(int32, tag = "7")]
    Int32(i32),
    /// `int64_val`.
    #[prost(int64, tag = "9")]
    Int64(i64),
    /// `uint32_val`.
    #[prost(uint32, tag = "11")]
    Uint32(u32),
    /// `uint64_val`.
    #[prost(uint64, tag = "13")]
    Uint64(u64),
    /// `sint32_val`.
    #[prost(sint32, tag = "15")]
    Sint32(i32),
    /// `sint64_val`.
    #[prost(sint64, tag = "17")]
    Sint64(i64),
    /// `fixed32_val`.
    #[prost(fixed32, tag = "19")]
    Fixed32(u32),
    /// `fixed64_val`.
    #[prost(fixed64, tag = "21")]
    Fixed64(u64),
    /// `sfixed32_val`.
    #[prost(sfixed32, tag = "23")]
    Sfixed32(i32),
    /// `sfixed64_val`.
    #[prost(sfixed64, tag = "25")]
    Sfixed64(i64),
    /// `bool_val`.
    #[prost(bool, tag = "27")]
    Bool(bool),
    /// `string_val`.
    #[prost(string, tag = "29")]
    String(String),
}

impl Value {
    /// The value as an integer, if it is one (a whole float is not).
    pub fn integer(&self) -> Option<i128> {
        Some(match *self {
            Value::Int32(v) | Value::Sint32(v) | Value::Sfixed32(v) => i128::from(v),
            Value::Int64(v) | Value::Sint64(v) | Value::Sfixed64(v) => i128::from(v),
            Value::Uint32(v) | Value::Fixed32(v) => i128::from(v),
            Value::Uint64(v) | Value::Fixed64(v) => i128::from(v),
            Value::Bool(v) => i128::from(v),
            _ => return None,
        })
    }
}

/// The largest message the reader accepts: 64 MiB (a node is a few hundred bytes).
const MAX_MESSAGE: u64 = 1 << 26;

/// Reads the length-delimited stream of `input` (named `name`): the metadata, then each node
/// with its byte offset, passed to `each`. Errors give the byte offset of the message at fault.
pub fn read_stream(
    name: &str,
    mut input: impl BufRead,
    mut each: impl FnMut(u64, Node) -> Result<()>,
) -> Result<GlobalMetadata> {
    let mut offset = 0u64;
    let mut buf = Vec::new();
    let bad = |at: u64, m: String| Error::Invalid(format!("{name}: byte {at}: {m}"));
    let mut meta = None;
    while let Some(len) = varint(&mut input, name, offset)? {
        let (at, header) = (offset, varint_len(len));
        if len > MAX_MESSAGE {
            return Err(bad(
                at,
                format!("a message of {len} bytes; is this a Chakra execution trace?"),
            ));
        }
        buf.resize(len as usize, 0);
        std::io::Read::read_exact(&mut input, &mut buf).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                bad(at, format!("the file ends inside a message of {len} bytes"))
            } else {
                Error::io(name)(e)
            }
        })?;
        offset += header + len;
        if meta.is_none() {
            let m = <GlobalMetadata as prost::Message>::decode(buf.as_slice())
                .map_err(|e| bad(at, format!("not a Chakra GlobalMetadata message ({e})")))?;
            meta = Some(m);
            continue;
        }
        let node = <Node as prost::Message>::decode(buf.as_slice())
            .map_err(|e| bad(at, format!("not a Chakra Node message ({e})")))?;
        each(at, node)?;
    }
    meta.ok_or_else(|| bad(0, "an empty file: no GlobalMetadata message".into()))
}

/// How many bytes the varint of `v` takes.
fn varint_len(v: u64) -> u64 {
    u64::from((64 - (v | 1).leading_zeros()).div_ceil(7))
}

/// The next varint of `input`, or `None` at a clean end of file.
fn varint(input: &mut impl BufRead, name: &str, offset: u64) -> Result<Option<u64>> {
    let mut value = 0u64;
    for i in 0..10 {
        let mut byte = [0u8];
        let n = std::io::Read::read(input, &mut byte).map_err(Error::io(name))?;
        if n == 0 {
            if i == 0 {
                return Ok(None);
            }
            return Err(Error::Invalid(format!(
                "{name}: byte {offset}: the file ends inside a length prefix"
            )));
        }
        value |= u64::from(byte[0] & 0x7f) << (7 * i);
        if byte[0] & 0x80 == 0 {
            return Ok(Some(value));
        }
    }
    Err(Error::Invalid(format!(
        "{name}: byte {offset}: a length prefix longer than 10 bytes; is this a Chakra execution trace?"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    fn framed(messages: &[Vec<u8>]) -> Vec<u8> {
        let mut out = Vec::new();
        for m in messages {
            prost::encoding::encode_varint(m.len() as u64, &mut out);
            out.extend_from_slice(m);
        }
        out
    }

    #[test]
    fn a_stream_decodes_and_errors_name_the_byte() {
        let meta = GlobalMetadata {
            version: "0.0.4".into(),
            attr: vec![],
        };
        let node = Node {
            id: 3,
            name: "x".into(),
            r#type: NodeType::CompNode as i32,
            ctrl_deps: vec![1],
            data_deps: vec![2],
            duration_micros: 300,
            attr: vec![AttributeProto {
                name: "comm_size".into(),
                value: Some(Value::Int64(1 << 20)),
            }],
        };
        let bytes = framed(&[meta.encode_to_vec(), node.encode_to_vec()]);
        let mut seen = Vec::new();
        let m = read_stream("t", bytes.as_slice(), |at, n| {
            seen.push((at, n));
            Ok(())
        })
        .unwrap();
        assert_eq!(m.version, "0.0.4");
        assert_eq!(seen, vec![(8, node)]);
        assert_eq!(varint_len(127), 1);
        assert_eq!(varint_len(128), 2);
        assert_eq!(varint_len(0), 1);

        let cut = &bytes[..bytes.len() - 1];
        let e = read_stream("t", cut, |_, _| Ok(())).unwrap_err();
        assert!(
            e.to_string().contains("t: byte 8: the file ends inside"),
            "{e}"
        );
        let e = read_stream("t", &[][..], |_, _| Ok(())).unwrap_err();
        assert!(e.to_string().contains("no GlobalMetadata"), "{e}");
        let e = read_stream("t", &[0xff; 12][..], |_, _| Ok(())).unwrap_err();
        assert!(e.to_string().contains("longer than 10 bytes"), "{e}");
    }
}
