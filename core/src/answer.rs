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

    /// A route of a tape that holds nothing of the caller's (a snapshot: docs/boundary.md):
    /// every node it names, the routed outputs included, copied, so that everything handed back
    /// is what was checked.
    pub fn write_route_copied(&mut self, route: &Route<'_, TapeJson>) {
        self.clear();
        self.out(&route.to_out(), &[]);
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

/// An answer tape read back as a value: the Rust counterpart of the JavaScript reader
/// (`answerReader` in `npm/api.js`), for tests and fuzzing. An index node reads as
/// `{"$index": i}`, a held node as `{"$held": slot}`, a name node as its string, a number as the
/// value `serde_json` reads of the text `JSON.stringify` writes of it (JavaScript holds a double).
/// `None` unless the streams are exactly one answer: every kind known, every string UTF-8, every
/// container's extents what it holds, nothing left over, no deeper than the depth ceiling.
pub fn read_back(words: &[u32], numbers: &[f64], bytes: &[u8]) -> Option<Value> {
    struct Reader<'a> {
        words: &'a [u32],
        numbers: &'a [f64],
        bytes: &'a [u8],
        word_at: usize,
        number_at: usize,
        byte_at: usize,
    }
    impl Reader<'_> {
        fn word(&mut self) -> Option<u32> {
            let word = *self.words.get(self.word_at)?;
            self.word_at += 1;
            Some(word)
        }

        fn extent(&mut self) -> Option<usize> {
            usize::try_from(self.word()?).ok()
        }

        fn node(&mut self, depth: usize) -> Option<Value> {
            if depth > crate::limits::MAX_DEPTH_CEILING {
                return None;
            }
            let found = self.word()?;
            Some(match found {
                kind::NULL => Value::Null,
                kind::FALSE => Value::Bool(false),
                kind::TRUE => Value::Bool(true),
                kind::NUMBER => {
                    let number = *self.numbers.get(self.number_at)?;
                    self.number_at += 1;
                    serde_json::from_str(&crate::jsontext::js_number(number)).ok()?
                }
                kind::STRING => {
                    let end = self.byte_at.checked_add(self.extent()?)?;
                    let text = std::str::from_utf8(self.bytes.get(self.byte_at..end)?).ok()?;
                    self.byte_at = end;
                    Value::String(text.to_owned())
                }
                NAME => Value::String((*NAMES.get(self.extent()?)?).to_owned()),
                INDEX => serde_json::json!({ "$index": self.word()? }),
                kind::HELD => {
                    let slot = self.word()?;
                    let _cost_and_flags = (self.word()?, self.word()?);
                    serde_json::json!({ "$held": slot })
                }
                kind::ARRAY | kind::OBJECT => {
                    let len = self.word()?;
                    let extents = [self.extent()?, self.extent()?, self.extent()?];
                    let start = [self.word_at, self.number_at, self.byte_at];
                    let value = if found == kind::ARRAY {
                        Value::Array((0..len).map(|_| self.node(depth + 1)).collect::<Option<_>>()?)
                    } else {
                        let mut members = serde_json::Map::new();
                        for _ in 0..len {
                            let Value::String(name) = self.node(depth + 1)? else {
                                return None;
                            };
                            let member = self.node(depth + 1)?;
                            members.insert(name, member);
                        }
                        Value::Object(members)
                    };
                    let held = [self.word_at, self.number_at, self.byte_at];
                    let exact = held
                        .iter()
                        .zip(start)
                        .zip(extents)
                        .all(|((end, start), extent)| end.checked_sub(start) == Some(extent));
                    exact.then_some(value)?
                }
                _ => return None,
            })
        }
    }
    let mut reader = Reader { words, numbers, bytes, word_at: 0, number_at: 0, byte_at: 0 };
    let value = reader.node(1)?;
    let whole = reader.word_at == words.len() && reader.number_at == numbers.len() && reader.byte_at == bytes.len();
    whole.then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::InPlace;
    use crate::tape::encode;
    use crate::{Config, Connection, ProtocolVersion, ReceivedTool};
    use serde_json::json;

    /// An answer tape as a value (`read_back`), which must read it whole.
    fn decode(answer: &AnswerTape) -> Value {
        let (words, numbers, bytes) = answer.streams();
        read_back(words, numbers, bytes).expect("one answer, read whole")
    }

    #[test]
    fn a_route_names_each_output_by_its_index_and_copies_the_rest() {
        let tool = json!({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": [
            {"audience": "assistant", "format": "content"},
            {"audience": "user", "format": "content"},
            {"audience": "programmatic", "format": "structured", "schema": {"type": "object"}},
        ]});
        let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], Config::new());
        let host = ReceivedTool::accept(&tool, &conn).unwrap();
        let requested = json!([
            {"audience": "user", "format": "content"},
            {"audience": "programmatic", "format": "structured"},
            {"audience": "assistant", "format": "content"},
        ]);
        let selectors = host.selection(Some(&requested)).unwrap();
        let result = json!({"outputs": [
            {"audience": "user", "format": "content", "content": [{"type": "text", "text": "é"}]},
            {"audience": "programmatic", "format": "structured", "structuredContent": {"n": 1.5}},
            {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "a"}]},
        ], "_meta": {"x.y/z": 1}});
        let buf = encode(&result);
        let tape = buf.tape();
        let checked = host.check_node::<crate::tape::TapeJson, _>(&selectors, tape.root(), &InPlace).unwrap();
        let route = host.route_node(&checked, None);
        let mut answer = AnswerTape::default();
        answer.write_route(&route);
        let mut expected = route.to_json();
        for (list, index) in [("user", 0), ("programmatic", 1), ("model", 2)] {
            expected[list] = json!([{"$index": index}]);
        }
        assert_eq!(decode(&answer), expected);
        // Strings of the table are name nodes; any other string is written out.
        answer.write_value(&json!({"resultType": "input_required", "other": "é", "n": [1, 2.5, null, true]}));
        // A number reads as JavaScript holds it: `1` an integer, as `JSON.parse` gives it.
        assert_eq!(decode(&answer), json!({"resultType": "input_required", "other": "é", "n": [1, 2.5, null, true]}));
        // Anything but exactly one answer is refused: a byte short, a word left over.
        let (words, numbers, bytes) = answer.streams();
        assert!(read_back(words, numbers, bytes.get(..bytes.len() - 1).unwrap_or_default()).is_none());
        assert!(read_back(&[words, &[kind::NULL]].concat(), numbers, bytes).is_none());
        assert_eq!(answer.words.iter().filter(|w| **w == NAME).count(), 2);
    }
}
