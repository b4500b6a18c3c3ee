//! An answer of the per-call path (a check, a route, a responded result) as a tape, for a
//! binding that reads it back into its own objects without JSON text: the JavaScript binding's
//! tape calls (docs/boundary.md). The format is [`crate::tape`]'s, with one more kind:
//!
//! | kind | words | |
//! |---|---|---|
//! | `7` held | `[7, slot, cost, flags]` | a payload the caller's binding holds (copied from the read tape) |
//! | `8` index | `[8, i]` | the caller's own output `i` of `result.outputs` |
//! | `9` name | `[9, id]` | the string [`NAMES`]`[id]` (a member name or word of the protocol) |
//!
//! A name node saves the reader decoding the same few strings on every call: it decodes
//! [`NAMES`] once.
//! The core decides what each position is ([`Out`] names the caller's nodes; a route's
//! [`Routed::Output`] is its index); the binding only puts its own objects at held and index
//! nodes. Containers carry their extents as in a read tape, so a reader may skip one.

use crate::node::{Array as _, Node as _, Object as _, Out};
use crate::routing::{Route, Routed};
use crate::tape::{kind, TapeJson, TapeNode, CONTAINER_WORDS, HELD_IS_OBJECT};
use jsonschema_value::{JsonNumber as _, NodeIdentity};
use serde_json::Value;
use std::cell::RefCell;

/// `[8, i]`: output `i` of the checked result's `outputs`, handed back as the caller's own.
pub const INDEX: u32 = 8;

/// `[9, id]`: the string `NAMES[id]`.
pub const NAME: u32 = 9;

/// The strings an answer writes as name nodes: the member names of the answers, and the
/// protocol's words among their values (audiences, formats, a result type, finding fields).
pub const NAMES: &[&str] = &[
    "model",
    "user",
    "programmatic",
    "extensions",
    "view",
    "dropped",
    "diagnostics",
    "isError",
    "audience",
    "format",
    "content",
    "structuredContent",
    "resultType",
    "_meta",
    "assistant",
    "structured",
    "input_required",
    "complete",
    "outputs",
    "warnings",
    "code",
    "path",
    "meta",
    "legacy",
    "type",
    "text",
    crate::APPS_EXTENSION,
];

/// An answer's three streams, reused from call to call (cleared, not freed).
#[derive(Debug, Default)]
pub struct AnswerTape {
    words: Vec<u32>,
    numbers: Vec<f64>,
    bytes: Vec<u8>,
}

/// A length as a word: an answer is far below `u32::MAX` in every stream (it is built from a
/// value within the limits).
fn len32(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

impl AnswerTape {
    /// The three streams: words, numbers, bytes.
    pub fn streams(&self) -> (&[u32], &[f64], &[u8]) {
        (&self.words, &self.numbers, &self.bytes)
    }

    fn clear(&mut self) {
        self.words.clear();
        self.numbers.clear();
        self.bytes.clear();
    }

    /// `value` (an answer the core built whole: a check's).
    pub fn write_value(&mut self, value: &Value) {
        self.clear();
        self.value(value);
    }

    /// A responded result: the caller's nodes copied, each held payload as a held node.
    pub fn write_out(&mut self, out: &Out<'_, TapeJson>) {
        self.clear();
        self.out(out, &[]);
    }

    /// A route: each routed output of `result.outputs` as an index node, each held payload it
    /// names (the View, a legacy structured output) as a held node.
    pub fn write_route(&mut self, route: &Route<'_, TapeJson>) {
        // The outputs the route names, by the identity of their node (what `Out::Node` keeps).
        let outputs: RefCell<Vec<(Option<NodeIdentity>, usize)>> = RefCell::new(Vec::new());
        let out = route.to_out_with(&|routed| {
            if let Routed::Output { index, value } = routed {
                outputs.borrow_mut().push((value.identity(), *index));
            }
            routed.to_out()
        });
        self.clear();
        self.out(&out, &outputs.borrow());
    }

    fn open(&mut self, found: u32, len: usize) -> [usize; 3] {
        let header = [self.words.len(), self.numbers.len(), self.bytes.len()];
        self.words.extend([found, len32(len), 0, 0, 0]);
        header
    }

    fn close(&mut self, header: [usize; 3]) {
        let [word, num, byte] = header;
        let extents = [
            self.words.len().saturating_sub(word + CONTAINER_WORDS),
            self.numbers.len().saturating_sub(num),
            self.bytes.len().saturating_sub(byte),
        ];
        if let Some(slots) = self.words.get_mut(word + 2..word + CONTAINER_WORDS) {
            for (slot, extent) in slots.iter_mut().zip(extents) {
                *slot = len32(extent);
            }
        }
    }

    fn string(&mut self, text: &str) {
        match NAMES.iter().position(|name| *name == text) {
            Some(id) => self.words.extend([NAME, len32(id)]),
            None => {
                self.words.extend([kind::STRING, len32(text.len())]);
                self.bytes.extend_from_slice(text.as_bytes());
            }
        }
    }

    fn number(&mut self, value: f64) {
        self.words.push(kind::NUMBER);
        self.numbers.push(value);
    }

    // Recursive, as deep as the answer nests: within the limits' depth (at most
    // `MAX_DEPTH_CEILING`), as the readers of the read tape allow.
    fn out(&mut self, out: &Out<'_, TapeJson>, outputs: &[(Option<NodeIdentity>, usize)]) {
        match out {
            Out::Node(node) => {
                let id = node.identity();
                match outputs.iter().find(|(o, _)| id.is_some() && *o == id) {
                    Some((_, index)) => self.words.extend([INDEX, len32(*index)]),
                    None => self.node(node),
                }
            }
            Out::Value(value) => self.value(value),
            Out::Object(members) => {
                let header = self.open(kind::OBJECT, members.len());
                for (name, value) in members {
                    self.string(name);
                    self.out(value, outputs);
                }
                self.close(header);
            }
            Out::Array(items) => {
                let header = self.open(kind::ARRAY, items.len());
                for item in items {
                    self.out(item, outputs);
                }
                self.close(header);
            }
        }
    }

    /// A node of the read tape, copied; a held node as it is (its slot is the binding's).
    fn node(&mut self, node: &TapeNode<'_>) {
        if let Some(held) = node.held() {
            let flags = if held.is_object { HELD_IS_OBJECT } else { 0 };
            self.words.extend([kind::HELD, held.slot, held.cost, flags]);
        } else if let Some(text) = node.as_str() {
            self.string(text);
        } else if let Some(number) = node.as_number() {
            self.number(number.as_f64().unwrap_or(0.0));
        } else if let Some(flag) = node.as_boolean() {
            self.words.push(if flag { kind::TRUE } else { kind::FALSE });
        } else if let Some(items) = node.as_array() {
            let header = self.open(kind::ARRAY, items.len());
            for item in items.elements() {
                self.node(&item);
            }
            self.close(header);
        } else if let Some(members) = node.as_object() {
            let header = self.open(kind::OBJECT, members.len());
            for (name, value) in members.members() {
                self.string(name);
                self.node(&value);
            }
            self.close(header);
        } else {
            self.words.push(kind::NULL);
        }
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.words.push(kind::NULL),
            Value::Bool(flag) => self.words.push(if *flag { kind::TRUE } else { kind::FALSE }),
            // Every `Number` has an `f64` without `arbitrary_precision`.
            Value::Number(number) => self.number(number.as_f64().unwrap_or(0.0)),
            Value::String(text) => self.string(text),
            Value::Array(items) => {
                let header = self.open(kind::ARRAY, items.len());
                for item in items {
                    self.value(item);
                }
                self.close(header);
            }
            Value::Object(members) => {
                let header = self.open(kind::OBJECT, members.len());
                for (name, item) in members {
                    self.string(name);
                    self.value(item);
                }
                self.close(header);
            }
        }
    }
}
