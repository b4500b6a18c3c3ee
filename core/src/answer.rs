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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::InPlace;
    use crate::tape::encode;
    use crate::{Config, Connection, ProtocolVersion, ReceivedTool};
    use serde_json::json;

    /// An answer tape as a value, an index node as `{"$index": i}`, a held node as
    /// `{"$held": slot}`; the rest of the stream must be used exactly.
    fn decode(answer: &AnswerTape) -> Value {
        fn node(t: &AnswerTape, at: &mut [usize; 3]) -> Value {
            let word = |i: usize| t.words.get(i).copied().unwrap_or(u32::MAX);
            let kind = word(at[0]);
            match kind {
                kind::NULL | kind::FALSE | kind::TRUE => {
                    at[0] += 1;
                    [Value::Null, Value::Bool(false), Value::Bool(true)].get(kind as usize).cloned().unwrap_or_default()
                }
                kind::NUMBER => {
                    at[0] += 1;
                    at[1] += 1;
                    json!(t.numbers.get(at[1] - 1).copied().unwrap_or(f64::NAN))
                }
                kind::STRING | NAME => {
                    let n = word(at[0] + 1) as usize;
                    at[0] += 2;
                    if kind == NAME {
                        return json!(NAMES.get(n).copied().unwrap_or("?"));
                    }
                    at[2] += n;
                    json!(String::from_utf8_lossy(t.bytes.get(at[2] - n..at[2]).unwrap_or_default()))
                }
                kind::ARRAY | kind::OBJECT => {
                    let (len, extent) = (word(at[0] + 1) as usize, word(at[0] + 2) as usize);
                    at[0] += CONTAINER_WORDS;
                    let start = at[0];
                    let value = if kind == kind::ARRAY {
                        Value::Array((0..len).map(|_| node(t, at)).collect())
                    } else {
                        Value::Object(
                            (0..len).map(|_| (node(t, at).as_str().unwrap_or("?").to_owned(), node(t, at))).collect(),
                        )
                    };
                    assert_eq!(at[0] - start, extent, "a container's word extent");
                    value
                }
                kind::HELD => {
                    at[0] += 4;
                    json!({"$held": word(at[0] - 3)})
                }
                INDEX => {
                    at[0] += 2;
                    json!({"$index": word(at[0] - 1)})
                }
                other => panic!("kind {other}"),
            }
        }
        let mut at = [0; 3];
        let value = node(answer, &mut at);
        assert_eq!(at, [answer.words.len(), answer.numbers.len(), answer.bytes.len()]);
        value
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
        assert_eq!(decode(&answer), json!({"resultType": "input_required", "other": "é", "n": [1.0, 2.5, null, true]}));
        assert_eq!(answer.words.iter().filter(|w| **w == NAME).count(), 2);
    }
}
