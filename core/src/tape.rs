//! A tape: one JSON value as three flat streams, read in place through the validator's trait
//! family (`jsonschema_value::{Json, Node, Object, Array, JsonNumber}`, as [`TapeJson`]).
//!
//! The JavaScript binding writes a tape into wasm memory in one JS pass (docs/boundary.md,
//! "JavaScript reader: js-sys or tape (measured)"), and the core reads it where it lies. Rust
//! callers, tests and fuzzing build one with [`encode`]. A tape is untrusted memory:
//! [`Tape::new`] checks all of it once, in one linear pass, before any node is read.
//!
//! # Format
//!
//! Three streams:
//! - `words: &[u32]`: one *kind* word per node, then what that kind carries;
//! - `numbers: &[f64]`: the value of each number node, in tape order;
//! - `bytes: &[u8]`: the UTF-8 text of each string (member names included), in tape order.
//!
//! A node is a position in each stream. Nodes, in their words:
//!
//! | kind | words | other streams |
//! |---|---|---|
//! | `0` null | `[0]` | |
//! | `1` false | `[1]` | |
//! | `2` true | `[2]` | |
//! | `3` number | `[3]` | its value: the next `f64`, finite |
//! | `4` string | `[4, n]` | its text: the next `n` bytes |
//! | `5` array | `[5, len, w, f, b]`, then its `len` elements | |
//! | `6` object | `[6, len, w, f, b]`, then its `len` members | |
//! | `7` held | `[7, slot, cost, flags]` | |
//!
//! - A container's `w`, `f` and `b` are its *extents*: the words, numbers and bytes of its content
//!   (everything after its five header words), so that a reader skips it in O(1).
//! - A member is its name, a string node (`[4, n]` and `n` bytes), then its value. Names are
//!   distinct within an object, and compared by bytes (UTF-8: the same as by code points).
//! - A *held* node stands for a payload the JavaScript side keeps itself: `slot` is its index in
//!   the caller's array, `cost` the byte cost JS measured, `flags` bit 0 whether it is an
//!   object, bit 1 whether it has a string or a member name (what a schema's patterns match);
//!   the other bits are zero.
//! - A tape is exactly one node (the root) and uses every word, number and byte of its streams.
//! - Containers nest at most [`MAX_DEPTH_CEILING`] deep (the outermost is at depth 1).
//! - Lengths and extents are `u32`: a tape has at most `u32::MAX` words, numbers and bytes per
//!   container, and a string at most `u32::MAX` bytes.
//! - Words carry no version: a writer and this reader are built together. (A JavaScript writer
//!   views the words as a `Uint32Array`, the numbers as a `Float64Array`.)
//! - A depth past the ceiling is `limit-exceeded`; every other fault is `malformed`.
//!
//! `{"a": [1, "xy"], "b": null}` is words `[6, 2, 13, 1, 4, 4, 1, 5, 2, 3, 1, 2, 3, 4, 2, 4, 1,
//! 0]`, numbers `[1.0]`, bytes `"axyb"`.
//!
//! # Numbers
//!
//! A number is the `f64` JavaScript holds; NaN and the infinities are refused (`JSON.stringify`
//! writes `null` for them, and so must a writer). A node answers as `serde_json` answers for the
//! number it parses from what `JSON.stringify` writes of that double, under the workspace's
//! `serde_json` features (`preserve_order`, `unbounded_depth`, and `float_roundtrip` through
//! `jsonschema-value`; no `arbitrary_precision`): a whole number below 10^21 is written as
//! digits, so it is an integer (`3.0` answers `as_u64` 3, `-0.0` is `0`); any other number is
//! a float (`1e21`, `0.5`). A whole double above 2^53 is written as its shortest round-trip
//! digits padded with zeros (`2^60` is `1152921504606847000`), and answers that integer, as
//! `serde_json` does. [`Node::to_value`] therefore gives exactly the `Value` of
//! `serde_json::from_str(JSON.stringify(x))`.
//!
//! A tape read from JSON text ([`parse_text`]) or made from a `Value` by [`encode_exact`] is an
//! [`ExactTape`]: each number also answers as `serde_json` parsed it (`1.0`, `-0.0`, an integer
//! past 2^53), so that it reads as that `Value` does.
//!
//! # Held nodes
//!
//! A held node has no content in the core: `as_object`, `as_array`, `as_string`, `as_number`
//! and `as_boolean` answer `None`, `is_null` false, and [`TapeNode::held`] tells it apart.
//! `json_type` must answer some type. It answers [`JsonType::Null`], deliberately:
//! - the derived `is_string`/`is_number` then agree with the accessors (false), and a held
//!   node is no container (`container_identity` is `None`);
//! - a schema that constrains the type refuses it, instead of `object` letting `properties` or
//!   `required` pass over members nobody read.
//!
//! Even so, a verdict on a tape with held nodes says nothing about their payloads. A caller
//! checks [`Tape::held_count`] (or `held()` on a node) before validating, and validates held
//! payloads where they are: without the `validator` feature, `payload::InPlace` asks the
//! binding's `schema::SchemaHost` to validate each by its slot (`node::Source::held`). [`Node::to_value`] writes a held node as `null` (so a container
//! holding one compares, in `const`/`enum`, as if it held `null`; a held node itself equals
//! nothing), and the core's generic writer ([`crate::jsontext`]'s `stringify_node`) refuses
//! the node, as it refuses any node of no JSON type. The core's limits walk
//! (`Limits::check_node`) charges it as a scalar: the cost JavaScript measured is the caller's
//! to add.

use std::borrow::Cow;
use std::ops::ControlFlow;

use jsonschema_value::types::JsonType;
use jsonschema_value::{Array, Json, JsonNumber, Node, NodeIdentity, Object};
use serde_json::{Map, Number, Value};

use crate::error::{Error, ErrorCode, Result};
use crate::limits::{Totals, MAX_DEPTH_CEILING};

/// The kind words.
pub mod kind {
    /// `null`: `[0]`.
    pub const NULL: u32 = 0;
    /// `false`: `[1]`.
    pub const FALSE: u32 = 1;
    /// `true`: `[2]`.
    pub const TRUE: u32 = 2;
    /// A number: `[3]`, its value the next `f64` of the number stream.
    pub const NUMBER: u32 = 3;
    /// A string: `[4, n]`, its text the next `n` bytes of the byte stream.
    pub const STRING: u32 = 4;
    /// An array: `[5, len, w, f, b]`, then its elements.
    pub const ARRAY: u32 = 5;
    /// An object: `[6, len, w, f, b]`, then per member its name (a string node) and its value.
    pub const OBJECT: u32 = 6;
    /// A payload JavaScript keeps: `[7, slot, cost, flags]`.
    pub const HELD: u32 = 7;
}

/// Words of a container's header: kind, length, and its extents in the three streams.
pub const CONTAINER_WORDS: usize = 5;
/// Words of a string node: kind and byte length.
pub const STRING_WORDS: usize = 2;
/// Words of a held node: kind, slot, cost, flags.
pub const HELD_WORDS: usize = 4;
/// Bit of a held node's flags: the payload is an object.
pub const HELD_IS_OBJECT: u32 = 1;
/// Bit of a held node's flags: the payload has a string or a member name, at any depth (the
/// regex budget's question, `CompiledSchema::validate_by`, which the core cannot answer by
/// reading a payload it does not have).
pub const HELD_HAS_SUBJECTS: u32 = 2;

/// A position in the three streams.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Pos {
    word: usize,
    num: usize,
    byte: usize,
}

impl Pos {
    /// The start of a container's content.
    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn content(self) -> Pos {
        Pos { word: self.word.saturating_add(CONTAINER_WORDS), ..self }
    }
}

/// A checked tape, borrowed from its three streams.
#[derive(Clone, Copy, Debug)]
pub struct Tape<'a> {
    words: &'a [u32],
    numbers: &'a [f64],
    text: &'a str,
    depth: usize,
    held: usize,
    /// What the limits walk charges the whole tape, found by [`Tape::new`]'s pass; `None` for
    /// a tape made without it (`TapeBuf::tape`, a name's one-node tape).
    totals: Option<Totals>,
    /// Each number as `serde_json` parsed it, for a tape read from JSON text ([`ExactTape`]):
    /// empty for any other tape, whose numbers are JavaScript's doubles.
    exact: &'a [Number],
    /// Whether an object names a member twice, which only [`Tape::new_snapshot`] lets through
    /// (for [`snapshot`] to refuse, after what the text would refuse first).
    names_twice: bool,
}

/// What a held node carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    /// Its index in the caller's array of payloads.
    pub slot: u32,
    /// The byte cost JavaScript measured.
    pub cost: u32,
    /// Whether the payload is an object.
    pub is_object: bool,
    /// Whether the payload has a string or a member name ([`HELD_HAS_SUBJECTS`]).
    pub has_subjects: bool,
}

fn corrupt(word: usize, what: impl std::fmt::Display) -> Error {
    Error::malformed("", format!("corrupt tape at word {word}: {what}"))
}

/// One open container of the checking pass.
struct Frame {
    object: bool,
    /// Elements or members still to read.
    left: usize,
    /// Where its content ends, by its extents.
    end: Pos,
    /// Where its names start in the pass's name list.
    names: usize,
}

/// The word at `at`, which must lie before `limit` (the end of the enclosing container).
#[cfg_attr(feature = "validator", inline(always))]
#[cfg_attr(not(feature = "validator"), inline)]
fn word_within(words: &[u32], at: usize, limit: usize) -> Result<u32> {
    if at < limit {
        if let Some(word) = words.get(at) {
            return Ok(*word);
        }
    }
    Err(corrupt(at, "past the end of its container or of the word stream"))
}

/// The end of a string of `len` bytes at `start`: within `limit`, on character boundaries.
#[cfg_attr(feature = "validator", inline(always))]
#[cfg_attr(not(feature = "validator"), inline)]
fn string_end(text: &str, start: usize, len: u32, limit: usize) -> Option<usize> {
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    (end <= limit && text.get(start..end).is_some()).then_some(end)
}

/// Whether the names are distinct: pairwise for a few, sorted (a copy in `sorted`) for more.
fn distinct<'t>(names: &[&'t str], sorted: &mut Vec<&'t str>) -> bool {
    if names.len() <= 8 {
        return names
            .iter()
            .enumerate()
            // The first byte before the length and the rest: most distinct names differ there.
            .all(|(index, first)| {
                names
                    .iter()
                    .skip(index + 1)
                    .all(|second| first.as_bytes().first() != second.as_bytes().first() || first != second)
            });
    }
    // Sorted rather than hashed: the core's one sort, where a set of names was a hash table's
    // code of its own in the wasm (P-JS-4), and O(n log n) still bounds a large object.
    sorted.clear();
    sorted.extend_from_slice(names);
    crate::validation_work::heap_sort(sorted);
    sorted.windows(2).all(|pair| pair.first() != pair.last())
}

/// A node is complete: count it in its container, or end the pass at the root.
fn completed(frames: &mut [Frame], root_done: &mut bool) {
    match frames.last_mut() {
        Some(top) => {
            top.left = top.left.saturating_sub(1);
        }
        None => *root_done = true,
    }
}

/// What the limits walk charges a held node of cost word `cost` (`Source::held_cost`: the
/// cost, 8 where it is no `usize`).
fn held_charge(cost: u32) -> u64 {
    usize::try_from(cost).map_or(8, |cost| cost as u64)
}

/// The checking pass: one loop over the words, with an explicit stack of open containers (at
/// most [`MAX_DEPTH_CEILING`]). Each turn reads at least one word or closes a container, so it
/// ends after at most twice as many turns as there are words. Answers the limits walk's
/// [`Totals`] (the cost of each node as `crate::limits` charges it, the depth, the longest
/// array and the largest object), the number of held nodes, and whether an object names a
/// member twice: refused, unless `twice_ok`.
fn check(words: &[u32], numbers: &[f64], text: &str, twice_ok: bool) -> Result<(Totals, usize, bool)> {
    let whole = Pos { word: words.len(), num: numbers.len(), byte: text.len() };
    let mut frames: Vec<Frame> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let mut sorted: Vec<&str> = Vec::new();
    let mut pos = Pos::default();
    let mut totals = Totals::default();
    let mut held = 0;
    let mut twice = false;
    let mut root_done = false;
    loop {
        let limit = match frames.last_mut() {
            None if root_done => break,
            None => whole,
            Some(top) if top.left == 0 => {
                if pos != top.end {
                    return Err(corrupt(pos.word, "a container's extents do not match its content"));
                }
                if top.object {
                    let own = names.get(top.names..).unwrap_or(&[]);
                    if !distinct(own, &mut sorted) {
                        if !twice_ok {
                            return Err(corrupt(pos.word, "an object has a member name twice"));
                        }
                        twice = true;
                    }
                    names.truncate(top.names);
                }
                frames.pop();
                completed(&mut frames, &mut root_done);
                continue;
            }
            Some(top) => {
                // A member: its name first, read here, then its value below.
                if top.object {
                    if word_within(words, pos.word, top.end.word)? != kind::STRING {
                        return Err(corrupt(pos.word, "a member name that is not a string"));
                    }
                    let len = word_within(words, pos.word + 1, top.end.word)?;
                    let name = string_end(text, pos.byte, len, top.end.byte)
                        .and_then(|end| text.get(pos.byte..end))
                        .ok_or_else(|| {
                            corrupt(pos.word, "a member name past its container or the byte stream, or not UTF-8")
                        })?;
                    names.push(name);
                    pos.word += STRING_WORDS;
                    pos.byte += name.len();
                }
                top.end
            }
        };
        let at = pos.word;
        match word_within(words, at, limit.word)? {
            kind::NULL | kind::FALSE | kind::TRUE => {
                pos.word += 1;
                totals.cost = totals.cost.saturating_add(8);
            }
            kind::NUMBER => {
                let value = numbers.get(pos.num).copied().filter(|_| pos.num < limit.num);
                match value {
                    Some(value) if value.is_finite() => {}
                    Some(_) => return Err(corrupt(at, "a number that is not finite")),
                    None => return Err(corrupt(at, "a number past its container or the number stream")),
                }
                pos.word += 1;
                pos.num += 1;
            }
            kind::STRING => {
                let len = word_within(words, at + 1, limit.word)?;
                pos.byte = string_end(text, pos.byte, len, limit.byte)
                    .ok_or_else(|| corrupt(at, "a string past its container or the byte stream, or not UTF-8"))?;
                pos.word += STRING_WORDS;
                totals.cost = totals.cost.saturating_add(2);
            }
            found @ (kind::ARRAY | kind::OBJECT) => {
                let object = found == kind::OBJECT;
                let len = word_within(words, at + 1, limit.word)? as usize;
                let extent =
                    |offset: usize| -> Result<usize> { Ok(word_within(words, at + offset, limit.word)? as usize) };
                let (w, f, b) = (extent(2)?, extent(3)?, extent(4)?);
                let start = Pos { word: at + CONTAINER_WORDS, ..pos };
                let end = Pos {
                    word: start.word.saturating_add(w),
                    num: start.num.saturating_add(f),
                    byte: start.byte.saturating_add(b),
                };
                if end.word > limit.word || end.num > limit.num || end.byte > limit.byte {
                    return Err(corrupt(at, "a container past its parent or its streams"));
                }
                // Every element takes a word at least, every member three.
                let least = len.checked_mul(if object { STRING_WORDS + 1 } else { 1 });
                if least.is_none_or(|least| least > w) {
                    return Err(corrupt(at, "a container longer than its words"));
                }
                if frames.len() >= MAX_DEPTH_CEILING {
                    return Err(Error::new(
                        ErrorCode::LimitExceeded,
                        "",
                        format!("corrupt tape at word {at}: nested deeper than {MAX_DEPTH_CEILING}"),
                    ));
                }
                frames.push(Frame { object, left: len, end, names: names.len() });
                totals.depth = totals.depth.max(frames.len());
                // Charged as the walk charges it, in `usize`.
                let own = if object {
                    totals.largest_object = totals.largest_object.max(len);
                    len.saturating_mul(4).saturating_add(2)
                } else {
                    totals.longest_array = totals.longest_array.max(len);
                    len.saturating_add(2)
                };
                totals.cost = totals.cost.saturating_add(own as u64);
                pos = start;
                continue;
            }
            kind::HELD => {
                let flags = word_within(words, at + 3, limit.word)?;
                if flags & !(HELD_IS_OBJECT | HELD_HAS_SUBJECTS) != 0 {
                    return Err(corrupt(at, "a held node with unknown flags"));
                }
                // Within its container: the flags word after it is.
                let cost = word_within(words, at + 2, limit.word)?;
                totals.cost = totals.cost.saturating_add(held_charge(cost));
                pos.word += HELD_WORDS;
                held += 1;
            }
            other => return Err(corrupt(at, format_args!("unknown kind {other}"))),
        }
        completed(&mut frames, &mut root_done);
    }
    if pos != whole {
        return Err(corrupt(pos.word, "data after the root value"));
    }
    // Every byte is a string's or a name's, every number costs 8, each read once: what the
    // walk charges for them, added here at once.
    totals.cost =
        totals.cost.saturating_add(text.len() as u64).saturating_add((numbers.len() as u64).saturating_mul(8));
    Ok((totals, held, twice))
}

// Inlining, with the validator (the npm package's full build, whose jsonschema reads every
// payload node through this reader): the reader's primitives (`word`, `count`, `skip`, `kind`,
// `str_at`, …), the `Node` methods that test a kind and the checking pass's `word_within` and
// `string_end` are `#[inline(always)]`. The npm builds
// are optimised for size (opt-level "z"), where `#[inline]` is a hint the inliner declines:
// each of these was a call per node read. Measured on 5bda703's code (full build, same-process
// A/B, 15 rounds): the object route 0.76-0.87 of the time before, the wasm 958,470 bytes gzip
// instead of 948,316; the checking pass's two, on 0ab9baf's, 0.86-0.95 again for 19 bytes. Forcing the iterators' `next` too was a little faster again (0.71-0.87)
// for 16 KB more. Without the validator (the default build, where the caller's validator reads
// the payloads) the attributes are the plain `#[inline]`, so its wasm is unchanged, byte for byte.
impl<'a> Tape<'a> {
    /// Checks the three streams once (O(n), no recursion) and keeps them: kinds, lengths and
    /// extents consistent, every stream used exactly, UTF-8 text split on character
    /// boundaries, numbers finite, member names distinct, nesting within
    /// [`MAX_DEPTH_CEILING`]. `malformed` otherwise (`limit-exceeded` for the depth), with the
    /// word where the pass stopped.
    pub fn new(words: &'a [u32], numbers: &'a [f64], bytes: &'a [u8]) -> Result<Self> {
        Self::checked(words, numbers, bytes, false)
    }

    /// [`Tape::new`] for a snapshot's tape (see [`snapshot`]), which may name a member of an
    /// object twice: JavaScript writes a lone surrogate as U+FFFD, so the keys `"a\ud800"` and
    /// `"a\ufffd"` of one object are one name on the tape. The text the snapshot stands for
    /// is refused for the lone surrogate, and [`snapshot`] answers that first.
    pub fn new_snapshot(words: &'a [u32], numbers: &'a [f64], bytes: &'a [u8]) -> Result<Self> {
        Self::checked(words, numbers, bytes, true)
    }

    fn checked(words: &'a [u32], numbers: &'a [f64], bytes: &'a [u8], twice_ok: bool) -> Result<Self> {
        let text = std::str::from_utf8(bytes).map_err(|fault| {
            Error::malformed(
                "",
                format!("corrupt tape: the byte stream is not UTF-8 (at byte {})", fault.valid_up_to()),
            )
        })?;
        let (totals, held, names_twice) = check(words, numbers, text, twice_ok)?;
        Ok(Tape { words, numbers, text, depth: totals.depth, held, totals: Some(totals), exact: &[], names_twice })
    }

    /// The root node.
    #[inline]
    pub fn root(&self) -> TapeNode<'_> {
        TapeNode { tape: self, at: Pos::default() }
    }

    /// The deepest nesting of containers (0 for a scalar root; the outermost is at depth 1).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// How many held nodes the tape has: a validation of the tape says nothing of them.
    pub fn held_count(&self) -> usize {
        self.held
    }

    /// The stream lengths: words, numbers, bytes.
    pub fn sizes(&self) -> (usize, usize, usize) {
        (self.words.len(), self.numbers.len(), self.text.len())
    }

    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn word(&self, at: usize) -> Option<u32> {
        self.words.get(at).copied()
    }

    /// A length word, 0 where there is none (never on a checked tape).
    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn count(&self, at: usize) -> usize {
        // A match, not `map_or`: at opt-level "z" the generic is a call of its own.
        match self.words.get(at) {
            Some(word) => *word as usize,
            None => 0,
        }
    }

    /// The position right after the node at `at`, in O(1).
    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn skip(&self, at: Pos) -> Pos {
        match self.word(at.word) {
            Some(kind::NULL | kind::FALSE | kind::TRUE) => Pos { word: at.word + 1, ..at },
            Some(kind::NUMBER) => Pos { word: at.word + 1, num: at.num.saturating_add(1), ..at },
            Some(kind::STRING) => {
                Pos { word: at.word + STRING_WORDS, byte: at.byte.saturating_add(self.count(at.word + 1)), ..at }
            }
            Some(kind::ARRAY | kind::OBJECT) => Pos {
                word: at.word.saturating_add(CONTAINER_WORDS).saturating_add(self.count(at.word + 2)),
                num: at.num.saturating_add(self.count(at.word + 3)),
                byte: at.byte.saturating_add(self.count(at.word + 4)),
            },
            Some(kind::HELD) => Pos { word: at.word + HELD_WORDS, ..at },
            // Not on a checked tape: the end, where every read finds nothing.
            _ => Pos { word: self.words.len(), ..at },
        }
    }

    /// The text of the string node at `at`.
    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn str_at(&self, at: Pos) -> Option<&'a str> {
        if self.word(at.word)? != kind::STRING {
            return None;
        }
        let len = self.count(at.word + 1);
        self.text.get(at.byte..at.byte.saturating_add(len))
    }

    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn number_at(&self, at: Pos) -> Option<TapeNumber<'a>> {
        if self.word(at.word)? != kind::NUMBER {
            return None;
        }
        self.numbers.get(at.num).map(|value| TapeNumber(*value, self.exact.get(at.num)))
    }
}

/// One node of a [`Tape`]: a position, `Copy`.
#[derive(Clone, Copy, Debug)]
pub struct TapeNode<'a> {
    tape: &'a Tape<'a>,
    at: Pos,
}

impl<'a> TapeNode<'a> {
    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn kind(&self) -> Option<u32> {
        self.tape.word(self.at.word)
    }

    /// The limits walk's [`Totals`] of the node, when its tape's checking pass found them: the
    /// root of a tape [`Tape::new`] checked.
    #[inline]
    pub fn totals(&self) -> Option<Totals> {
        if self.at == Pos::default() {
            self.tape.totals
        } else {
            None
        }
    }

    /// What a held node carries; `None` for any other node.
    #[inline]
    pub fn held(&self) -> Option<Held> {
        if self.kind()? != kind::HELD {
            return None;
        }
        let word = self.at.word;
        let flags = self.tape.word(word + 3)?;
        Some(Held {
            slot: self.tape.word(word + 1)?,
            cost: self.tape.word(word + 2)?,
            is_object: flags & HELD_IS_OBJECT != 0,
            has_subjects: flags & HELD_HAS_SUBJECTS != 0,
        })
    }

    /// The string's text, borrowed from the tape.
    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    pub fn as_str(&self) -> Option<&'a str> {
        self.tape.str_at(self.at)
    }
}

/// The [`Json`] representation of a [`Tape`], for the validator and the core's generic readers.
#[derive(Debug)]
pub struct TapeJson;

impl Json for TapeJson {
    type Node<'a> = TapeNode<'a>;
    type PreparedKey = Box<str>;
    type StringBuffer = ();

    // A lookup scans the names (skipping each value in O(1)): one members pass is never dearer
    // than two lookups.
    const KEYS_PER_LOOKUP: usize = 4096;
    // A node is a position that only grows towards its descendants.
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> Box<str> {
        key.into()
    }

    fn with_string_node<T>((): &mut (), string: &str, f: impl FnOnce(TapeNode<'_>) -> T) -> T {
        // The string itself is the byte stream of a one-node tape: nothing to copy. (A name over
        // 4 GiB has no length word: the node then answers no text.)
        let words = [kind::STRING, u32::try_from(string.len()).unwrap_or(u32::MAX)];
        let tape = Tape {
            words: &words,
            numbers: &[],
            text: string,
            depth: 0,
            held: 0,
            totals: None,
            exact: &[],
            names_twice: false,
        };
        f(tape.root())
    }
}

impl<'a> Node<'a, TapeJson> for TapeNode<'a> {
    type Object = TapeObject<'a>;
    type Array = TapeArray<'a>;
    type Number = TapeNumber<'a>;

    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn as_object(&self) -> Option<TapeObject<'a>> {
        (self.kind()? == kind::OBJECT).then_some(TapeObject { tape: self.tape, at: self.at })
    }

    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn as_array(&self) -> Option<TapeArray<'a>> {
        (self.kind()? == kind::ARRAY).then_some(TapeArray { tape: self.tape, at: self.at })
    }

    #[inline]
    fn as_string(&self) -> Option<Cow<'a, str>> {
        self.as_str().map(Cow::Borrowed)
    }

    #[inline]
    fn as_number(&self) -> Option<TapeNumber<'a>> {
        self.tape.number_at(self.at)
    }

    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn as_boolean(&self) -> Option<bool> {
        match self.kind()? {
            kind::FALSE => Some(false),
            kind::TRUE => Some(true),
            _ => None,
        }
    }

    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn is_null(&self) -> bool {
        self.kind() == Some(kind::NULL)
    }

    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn is_number(&self) -> bool {
        self.kind() == Some(kind::NUMBER)
    }

    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn is_string(&self) -> bool {
        self.kind() == Some(kind::STRING)
    }

    /// A held node reports `Null` (see the module's "Held nodes").
    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn json_type(&self) -> JsonType {
        match self.kind() {
            Some(kind::FALSE | kind::TRUE) => JsonType::Boolean,
            Some(kind::NUMBER) => JsonType::Number,
            Some(kind::STRING) => JsonType::String,
            Some(kind::ARRAY) => JsonType::Array,
            Some(kind::OBJECT) => JsonType::Object,
            _ => JsonType::Null,
        }
    }

    #[inline]
    fn string_length(&self) -> Option<u64> {
        self.as_str().map(|text| text.chars().count() as u64)
    }

    #[inline]
    fn string_length_within(&self, min: u64, max: u64) -> Option<bool> {
        let text = self.as_str()?;
        // A code point takes one to four bytes: the count lies in `ceil(bytes / 4)..=bytes`.
        let bytes = text.len() as u64;
        let fewest = bytes.div_ceil(4);
        if bytes < min || fewest > max {
            return Some(false);
        }
        if min <= fewest && bytes <= max {
            return Some(true);
        }
        Some((min..=max).contains(&(text.chars().count() as u64)))
    }

    /// Scalars compare in place; containers through [`Node::to_value`]. A held node equals
    /// nothing.
    fn equals_value(&self, expected: &Value) -> bool {
        match (self.kind(), expected) {
            (Some(kind::NULL), Value::Null)
            | (Some(kind::FALSE), Value::Bool(false))
            | (Some(kind::TRUE), Value::Bool(true)) => true,
            (Some(kind::STRING), Value::String(text)) => self.as_str() == Some(text.as_str()),
            (Some(kind::NUMBER), Value::Number(number)) => {
                self.as_number().is_some_and(|own| jsonschema_value::cmp::equal_numbers(&own, number))
            }
            (Some(kind::ARRAY), Value::Array(_)) | (Some(kind::OBJECT), Value::Object(_)) => {
                jsonschema_value::cmp::equal(&self.to_value(), expected)
            }
            _ => false,
        }
    }

    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(to_value(self.tape, self.at))
    }

    #[inline]
    fn identity(&self) -> Option<NodeIdentity> {
        // The address of the node's kind word: each node has its own.
        let word = self.tape.words.get(self.at.word)?;
        Some(NodeIdentity::new(std::ptr::from_ref(word) as usize))
    }
}

/// One container being rebuilt by [`to_value`].
enum Open {
    Array(Vec<Value>),
    Object(Map<String, Value>, String),
}

/// The `Value` of the node at `at`, without recursion. A held node is `null`.
fn to_value(tape: &Tape<'_>, at: Pos) -> Value {
    let mut stack: Vec<(Open, usize)> = Vec::new();
    let mut pos = at;
    loop {
        let value = if let Some((_, 0)) = stack.last() {
            match stack.pop() {
                Some((Open::Array(items), _)) => Value::Array(items),
                Some((Open::Object(members, _), _)) => Value::Object(members),
                None => Value::Null,
            }
        } else {
            if let Some((Open::Object(_, name), _)) = stack.last_mut() {
                let Some(text) = tape.str_at(pos) else {
                    return Value::Null;
                };
                text.clone_into(name);
                pos = tape.skip(pos);
            }
            let here = pos;
            let value = match tape.word(here.word) {
                Some(kind::NULL | kind::HELD) => Value::Null,
                Some(kind::FALSE) => Value::Bool(false),
                Some(kind::TRUE) => Value::Bool(true),
                Some(kind::NUMBER) => match tape.number_at(here) {
                    Some(number) => Value::Number(number.number()),
                    None => return Value::Null,
                },
                Some(kind::STRING) => match tape.str_at(here) {
                    Some(text) => Value::String(text.to_owned()),
                    None => return Value::Null,
                },
                Some(found @ (kind::ARRAY | kind::OBJECT)) => {
                    let len = tape.count(here.word + 1);
                    // Never more room than the tape has words for.
                    let room = len.min(tape.words.len().saturating_sub(here.word));
                    let open = if found == kind::ARRAY {
                        Open::Array(Vec::with_capacity(room))
                    } else {
                        Open::Object(Map::with_capacity(room), String::new())
                    };
                    stack.push((open, len));
                    pos = here.content();
                    continue;
                }
                // Not on a checked tape.
                _ => return Value::Null,
            };
            pos = tape.skip(here);
            value
        };
        match stack.last_mut() {
            None => return value,
            Some((Open::Array(items), left)) => {
                items.push(value);
                *left -= 1;
            }
            Some((Open::Object(members, name), left)) => {
                members.insert(std::mem::take(name), value);
                *left -= 1;
            }
        }
    }
}

/// A number of a tape: the `f64` JavaScript held.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TapeNumber<'a>(f64, Option<&'a Number>);

/// 2^53: every whole double up to it is written by `JSON.stringify` as its exact digits.
const EXACT: f64 = 9_007_199_254_740_992.0;
/// 10^21: from there `JSON.stringify` writes an exponent.
const DIGITS_BELOW: f64 = 1e21;

impl TapeNumber<'_> {
    /// The `f64`.
    #[inline]
    pub fn value(self) -> f64 {
        self.0
    }

    /// The exact integer, for a whole number within ±2^53 (`-0.0` is 0).
    #[inline]
    fn small(self) -> Option<i64> {
        let value = self.0;
        (value.fract() == 0.0 && value.abs() <= EXACT).then_some(value as i64)
    }

    /// A whole number past 2^53 that `JSON.stringify` writes as digits.
    #[inline]
    fn large(self) -> bool {
        let value = self.0;
        value.fract() == 0.0 && value.abs() > EXACT && value.abs() < DIGITS_BELOW
    }

    /// The number `serde_json` parses from what `JSON.stringify` writes of this double; on a
    /// tape read from JSON text, the number `serde_json` parsed from that text.
    pub fn number(self) -> Number {
        if let Some(exact) = self.1 {
            return exact.clone();
        }
        if let Some(integer) = self.small() {
            return match u64::try_from(integer) {
                Ok(positive) => Number::from(positive),
                Err(_) => Number::from(integer),
            };
        }
        if self.large() {
            let digits = crate::jsontext::js_number(self.0);
            if let Ok(positive) = digits.parse::<u64>() {
                return Number::from(positive);
            }
            if let Ok(negative) = digits.parse::<i64>() {
                return Number::from(negative);
            }
        }
        // Finite on a checked tape; 0 never stands in for anything there.
        Number::from_f64(self.0).unwrap_or_else(|| Number::from(0_u64))
    }
}

// On a tape read from JSON text, each answer is `serde_json`'s for the number it parsed.
impl JsonNumber for TapeNumber<'_> {
    #[inline]
    fn as_u64(&self) -> Option<u64> {
        if let Some(exact) = self.1 {
            return exact.as_u64();
        }
        match self.small() {
            Some(integer) => u64::try_from(integer).ok(),
            None if self.large() => self.number().as_u64(),
            None => None,
        }
    }

    #[inline]
    fn as_i64(&self) -> Option<i64> {
        if let Some(exact) = self.1 {
            return exact.as_i64();
        }
        match self.small() {
            Some(integer) => Some(integer),
            None if self.large() => self.number().as_i64(),
            None => None,
        }
    }

    #[inline]
    fn as_f64(&self) -> Option<f64> {
        if let Some(exact) = self.1 {
            return exact.as_f64();
        }
        // `-0.0` is written `0`, which parses as the integer 0.
        Some(if self.0 == 0.0 { 0.0 } else { self.0 })
    }

    fn as_str(&self) -> Cow<'_, str> {
        Cow::Owned(self.number().to_string())
    }

    fn to_number(&self) -> Cow<'_, Number> {
        Cow::Owned(self.number())
    }

    #[inline]
    fn is_integer(&self) -> bool {
        match self.1 {
            Some(exact) => JsonNumber::is_integer(exact),
            None => self.0.fract() == 0.0,
        }
    }

    fn is_written_as_integer(&self) -> bool {
        match self.1 {
            Some(exact) => JsonNumber::is_written_as_integer(exact),
            None => self.small().is_some() || JsonNumber::is_written_as_integer(&self.number()),
        }
    }
}

/// An object node of a [`Tape`].
#[derive(Clone, Copy, Debug)]
pub struct TapeObject<'a> {
    tape: &'a Tape<'a>,
    at: Pos,
}

impl<'a> TapeObject<'a> {
    /// The member named `key`, scanning the names and skipping each value in O(1).
    #[inline]
    pub fn get_str(&self, key: &str) -> Option<TapeNode<'a>> {
        let tape = self.tape;
        let bytes = tape.text.as_bytes();
        let mut at = self.at.content();
        for _ in 0..self.len() {
            let len = tape.count(at.word + 1);
            let value = Pos { word: at.word + STRING_WORDS, byte: at.byte.saturating_add(len), ..at };
            if len == key.len() && bytes.get(at.byte..value.byte) == Some(key.as_bytes()) {
                return Some(TapeNode { tape, at: value });
            }
            at = tape.skip(value);
        }
        None
    }
}

/// The members of a [`TapeObject`], in tape order.
#[derive(Clone, Debug)]
pub struct Members<'a> {
    tape: &'a Tape<'a>,
    at: Pos,
    left: usize,
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, TapeNode<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        // The name's kind word is `STRING` on a checked tape: only its length is read.
        let at = self.at;
        let value = Pos {
            word: at.word.saturating_add(STRING_WORDS),
            byte: at.byte.saturating_add(self.tape.count(at.word + 1)),
            ..at
        };
        let Some(name) = self.tape.text.get(at.byte..value.byte) else {
            self.left = 0;
            return None;
        };
        self.at = self.tape.skip(value);
        self.left -= 1;
        Some((name, TapeNode { tape: self.tape, at: value }))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<'a> Object<'a, TapeJson> for TapeObject<'a> {
    type Node = TapeNode<'a>;
    type MemberName = &'a str;
    type MembersIter = Members<'a>;

    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn len(&self) -> usize {
        self.tape.count(self.at.word + 1)
    }

    #[inline]
    fn get(&self, key: &Box<str>) -> Option<TapeNode<'a>> {
        self.get_str(key)
    }

    #[inline]
    fn members(&self) -> Members<'a> {
        Members { tape: self.tape, at: self.at.content(), left: self.len() }
    }

    // The names are string nodes of the tape already.
    fn try_for_each_name_node<B>(
        &self,
        (): &mut (),
        mut f: impl FnMut(TapeNode<'_>) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let tape = self.tape;
        let mut at = self.at.content();
        for _ in 0..self.len() {
            f(TapeNode { tape, at })?;
            at = tape.skip(tape.skip(at));
        }
        ControlFlow::Continue(())
    }
}

/// An array node of a [`Tape`].
#[derive(Clone, Copy, Debug)]
pub struct TapeArray<'a> {
    tape: &'a Tape<'a>,
    at: Pos,
}

/// The elements of a [`TapeArray`], in order.
#[derive(Clone, Debug)]
pub struct Elements<'a> {
    tape: &'a Tape<'a>,
    at: Pos,
    left: usize,
}

impl<'a> Iterator for Elements<'a> {
    type Item = TapeNode<'a>;

    #[inline]
    fn next(&mut self) -> Option<TapeNode<'a>> {
        // Past the words only on a tape that is not well formed, which none is.
        if self.left == 0 || self.at.word >= self.tape.words.len() {
            return None;
        }
        let node = TapeNode { tape: self.tape, at: self.at };
        self.at = self.tape.skip(self.at);
        self.left -= 1;
        Some(node)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<'a> TapeArray<'a> {
    /// The element at `index`, skipping the ones before it in O(1) each.
    pub fn get(&self, index: usize) -> Option<TapeNode<'a>> {
        self.elements().nth(index)
    }
}

impl<'a> Array<'a, TapeJson> for TapeArray<'a> {
    type Node = TapeNode<'a>;
    type ElementsIter = Elements<'a>;

    #[cfg_attr(feature = "validator", inline(always))]
    #[cfg_attr(not(feature = "validator"), inline)]
    fn len(&self) -> usize {
        self.tape.count(self.at.word + 1)
    }

    #[inline]
    fn elements(&self) -> Elements<'a> {
        Elements { tape: self.tape, at: self.at.content(), left: self.len() }
    }
}

// ---- Writing a tape ----------------------------------------------------------------------------

/// A tape's three streams, owned: what [`encode`] writes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TapeBuf {
    // Private: a `TapeBuf` is only ever what `encode` or `encode_text` wrote, so that
    // `TapeBuf::tape` may skip the check.
    words: Vec<u32>,
    numbers: Vec<f64>,
    text: String,
    depth: usize,
}

impl TapeBuf {
    /// The three streams: words, numbers, bytes.
    pub fn streams(&self) -> (&[u32], &[f64], &[u8]) {
        (&self.words, &self.numbers, self.text.as_bytes())
    }

    /// The three streams, owned.
    pub fn into_streams(self) -> (Vec<u32>, Vec<f64>, Vec<u8>) {
        (self.words, self.numbers, self.text.into_bytes())
    }

    /// The tape, not checked again: [`encode`] writes a well-formed one. (Its depth is the
    /// value's, which may pass [`MAX_DEPTH_CEILING`]: see [`Tape::depth`].)
    pub fn tape(&self) -> Tape<'_> {
        Tape {
            words: &self.words,
            numbers: &self.numbers,
            text: &self.text,
            depth: self.depth,
            held: 0,
            totals: None,
            exact: &[],
            names_twice: false,
        }
    }

    fn len32(len: usize) -> u32 {
        // Past `u32::MAX` the format has no length; `Tape::new` refuses what this writes then.
        u32::try_from(len).unwrap_or(u32::MAX)
    }

    fn pos(&self) -> Pos {
        Pos { word: self.words.len(), num: self.numbers.len(), byte: self.text.len() }
    }

    fn string(&mut self, text: &str) {
        self.words.push(kind::STRING);
        self.words.push(Self::len32(text.len()));
        self.text.push_str(text);
    }

    fn number(&mut self, value: f64) {
        self.words.push(kind::NUMBER);
        self.numbers.push(value);
    }

    /// Opens a container; [`TapeBuf::close`] writes its extents.
    fn open(&mut self, found: u32, len: usize) -> Pos {
        let header = self.pos();
        self.words.extend([found, Self::len32(len), 0, 0, 0]);
        header
    }

    /// Closes a container whose length was not known when it opened.
    fn close_with(&mut self, header: Pos, len: usize) {
        if let Some(slot) = self.words.get_mut(header.word + 1) {
            *slot = Self::len32(len);
        }
        self.close(header);
    }

    fn close(&mut self, header: Pos) {
        let end = self.pos();
        let start = header.content();
        let extents = [
            end.word.saturating_sub(start.word),
            end.num.saturating_sub(start.num),
            end.byte.saturating_sub(start.byte),
        ];
        if let Some(slots) = self.words.get_mut(header.word + 2..header.word + CONTAINER_WORDS) {
            for (slot, extent) in slots.iter_mut().zip(extents) {
                *slot = Self::len32(extent);
            }
        }
    }
}

/// One container being written by [`encode`].
enum Writing<'v> {
    Array(std::slice::Iter<'v, Value>, Pos),
    Object(serde_json::map::Iter<'v>, Pos),
}

/// The tape of `value`, without recursion. Numbers become `f64`s, as in JavaScript: an integer
/// past ±2^53 reads back as `JSON.stringify` would write its double (see "Numbers").
pub fn encode(value: &Value) -> TapeBuf {
    let mut buf = TapeBuf::default();
    let mut stack: Vec<Writing<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        if let Some(value) = next.take() {
            match value {
                Value::Null => buf.words.push(kind::NULL),
                Value::Bool(false) => buf.words.push(kind::FALSE),
                Value::Bool(true) => buf.words.push(kind::TRUE),
                // Every `Number` has an `f64` without `arbitrary_precision`.
                Value::Number(number) => buf.number(number.as_f64().unwrap_or(0.0)),
                Value::String(text) => buf.string(text),
                Value::Array(items) => {
                    let header = buf.open(kind::ARRAY, items.len());
                    stack.push(Writing::Array(items.iter(), header));
                }
                Value::Object(members) => {
                    let header = buf.open(kind::OBJECT, members.len());
                    stack.push(Writing::Object(members.iter(), header));
                }
            }
            buf.depth = buf.depth.max(stack.len());
        }
        match stack.last_mut() {
            None => return buf,
            Some(Writing::Array(items, header)) => match items.next() {
                Some(item) => next = Some(item),
                None => {
                    let header = *header;
                    stack.pop();
                    buf.close(header);
                }
            },
            Some(Writing::Object(members, header)) => match members.next() {
                Some((name, item)) => {
                    buf.string(name);
                    next = Some(item);
                }
                None => {
                    let header = *header;
                    stack.pop();
                    buf.close(header);
                }
            },
        }
    }
}

// ---- JSON text straight to a tape --------------------------------------------------------------

/// The tape of JSON `text`, parsed straight into the streams by `serde_json` (no `Value` tree):
/// the same tape as `encode(&serde_json::from_str(text)?)`. An object that names a member twice
/// is rare enough to take that road instead (the last value at the first place, as `serde_json`
/// keeps it). `malformed` for text that is not JSON; `limit-exceeded` past
/// [`MAX_DEPTH_CEILING`], found by a scan before parsing. The parser recurses as deep as the
/// text nests, as [`crate::Limits::parse_text`] does.
pub fn encode_text(text: &str) -> Result<TapeBuf> {
    if crate::limits::max_nesting(text.as_bytes()) > MAX_DEPTH_CEILING {
        return Err(Error::new(
            ErrorCode::LimitExceeded,
            "",
            format!("JSON text nested deeper than {MAX_DEPTH_CEILING} levels"),
        ));
    }
    write_text(text).map(|exact| exact.buf).map_err(|fault| Error::malformed("", format!("not valid JSON: {fault}")))
}

/// [`crate::Limits::parse_text`] into a tape: the same checks in the same order, with the same
/// errors (the text's size and nesting before it is parsed, the limits walk after), each number
/// kept as `serde_json` parsed it ([`ExactTape`]). The JavaScript binding reads its JSON text
/// arguments with it, so that its wasm has one representation of a call to check, route and
/// respond (docs/performance.md, P-JS-4), and answers what the `Value` of the text answers.
pub fn parse_text(limits: &crate::Limits, text: &str, what: &str) -> Result<ExactTape> {
    // `Limits::parse_text`'s checks before parsing, with its messages.
    limits.check_text(text.len(), crate::limits::max_nesting(text.as_bytes()), what)?;
    let tape = write_text(text).map_err(|e| Error::malformed("", format!("{what}: not valid JSON: {e}")))?;
    limits.check_node::<TapeJson>(&tape.tape().root(), 1, "")?;
    Ok(tape)
}

/// A tape JavaScript wrote from its own walk of a value with `JSON.stringify`'s semantics (a
/// *snapshot*: npm/api.js, docs/boundary.md), checked as [`parse_text`] checks the text that
/// walk would have written, in its order and with its errors, so that a snapshot answers
/// exactly as that text did when it crossed as text:
/// - `text_bytes`: the text's UTF-8 length (the size check counts the text, not the tape);
/// - `lone`: the first string the text could not hold, a lone surrogate (`JSON.stringify`
///   writes it as an escape that `serde_json` refuses): the byte offset of its opening quote in
///   the text, and the string as `JSON.stringify` writes it. Its error is the parser's, at the
///   column it has in the whole text (the text has no line break: `JSON.stringify` escapes
///   them).
///
/// The tape has no held node (the writer holds nothing of a snapshot); nothing else differs
/// from the text's tape (numbers are doubles, which read as `serde_json` reads the digits
/// `JSON.stringify` writes: "Numbers"), so the limits walk that follows answers as there.
pub fn snapshot(
    limits: &crate::Limits,
    tape: &Tape<'_>,
    text_bytes: usize,
    lone: Option<(usize, &str)>,
    what: &str,
) -> Result<()> {
    limits.check_text(text_bytes, tape.depth(), what)?;
    if let Some((at, quoted)) = lone {
        // Read by the tape's own parser: `from_str::<String>` would link serde's messages for
        // unexpected types, and with them `f64`'s `Display` (about 12 KB gzip of the npm wasm,
        // P-JS-4); the lexer's fault and its words are the same.
        let fault = match write_text(quoted) {
            // The parser's words for the fault, its position moved from the string's own text to
            // the whole text's (one line, so only the column moves).
            Err(e) => {
                let said = e.to_string();
                let position = format!(" at line {} column {}", e.line(), e.column());
                let code = said.strip_suffix(&position).unwrap_or(&said);
                format!("{code} at line 1 column {}", at.saturating_add(e.column()))
            }
            Ok(_) => "a string JSON text cannot hold".to_owned(),
        };
        return Err(Error::malformed("", format!("{what}: not valid JSON: {fault}")));
    }
    // Only a lone surrogate makes two keys of an object one name (`Tape::new_snapshot`).
    if tape.names_twice {
        return Err(Error::malformed("", format!("{what}: an object names a member twice in a snapshot's tape")));
    }
    if tape.held_count() != 0 {
        return Err(Error::malformed("", format!("{what}: a held node in a snapshot's tape")));
    }
    limits.check_node::<TapeJson>(&tape.root(), 1, "")
}

/// The parse of `text` into a tape, its depth already bounded by a scan.
fn write_text(text: &str) -> std::result::Result<ExactTape, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    // The caller's scan bounds the depth.
    de.disable_recursion_limit();
    let mut buf = TapeBuf::default();
    let mut exact = Vec::new();
    let mut twice = false;
    let seed = Writer { buf: &mut buf, exact: &mut exact, depth: 0, twice: &mut twice };
    serde::de::DeserializeSeed::deserialize(seed, &mut de).and_then(|()| de.end())?;
    if twice {
        let mut de = serde_json::Deserializer::from_str(text);
        de.disable_recursion_limit();
        let value: Value = serde::Deserialize::deserialize(&mut de)?;
        return Ok(encode_exact(&value));
    }
    Ok(ExactTape::new(buf, exact))
}

/// A tape that keeps each number as `serde_json` parsed it (from JSON text: [`parse_text`]; from
/// a `Value`: [`encode_exact`]). Its nodes answer for numbers (`to_value`, the `JsonNumber`
/// accessors, the mirror text) exactly as that `Value` does (`1.0`, `-0.0`, an integer past
/// 2^53), where a tape JavaScript writes holds doubles ("Numbers").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExactTape {
    buf: TapeBuf,
    /// The numbers of `buf`, in its order.
    exact: Vec<Number>,
    /// The limits walk's totals of `buf`, found by the checking pass: the text paths' walks
    /// (`parse_text`'s, then the check's) answered without one.
    totals: Option<Totals>,
}

impl ExactTape {
    /// `buf` with its exact numbers, and its totals (`None` where the checking pass refuses
    /// what a writer wrote: a string past 4 GiB, which has no length word).
    fn new(buf: TapeBuf, exact: Vec<Number>) -> ExactTape {
        let totals = check(&buf.words, &buf.numbers, &buf.text, false).ok().map(|(totals, _, _)| totals);
        ExactTape { buf, exact, totals }
    }

    /// The tape, its numbers exact.
    pub fn tape(&self) -> Tape<'_> {
        Tape { exact: &self.exact, totals: self.totals, ..self.buf.tape() }
    }

    /// The tape's streams, as [`encode`] writes them.
    pub fn buf(&self) -> &TapeBuf {
        &self.buf
    }
}

/// [`encode`], each number kept as it is in `value` ([`ExactTape`]).
pub fn encode_exact(value: &Value) -> ExactTape {
    // Numbers in tape order: the value's own order, depth first.
    let mut exact = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Number(number) => exact.push(number.clone()),
            Value::Array(items) => stack.extend(items.iter().rev()),
            Value::Object(members) => stack.extend(members.values().rev()),
            _ => {}
        }
    }
    ExactTape::new(encode(value), exact)
}

/// Writes one value of the parser's into the tape.
struct Writer<'b> {
    buf: &'b mut TapeBuf,
    /// Each number as `serde_json` parsed it, in tape order ([`ExactTape`]).
    exact: &'b mut Vec<Number>,
    /// Containers open around the value.
    depth: usize,
    /// Set when an object names a member twice.
    twice: &'b mut bool,
}

impl Writer<'_> {
    fn inner(&mut self) -> Writer<'_> {
        Writer { buf: self.buf, exact: self.exact, depth: self.depth + 1, twice: self.twice }
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Writer<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> std::result::Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

/// Writes a member name into the tape, answering its byte range.
struct NameWriter<'b>(&'b mut TapeBuf);

impl<'de> serde::de::DeserializeSeed<'de> for NameWriter<'_> {
    type Value = (usize, usize);

    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> std::result::Result<(usize, usize), D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for NameWriter<'_> {
    type Value = (usize, usize);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E>(self, name: &str) -> std::result::Result<(usize, usize), E> {
        let start = self.0.text.len();
        self.0.string(name);
        Ok((start, self.0.text.len()))
    }
}

impl<'de> serde::de::Visitor<'de> for Writer<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> std::result::Result<(), E> {
        self.buf.words.push(kind::NULL);
        Ok(())
    }

    fn visit_bool<E>(self, value: bool) -> std::result::Result<(), E> {
        self.buf.words.push(if value { kind::TRUE } else { kind::FALSE });
        Ok(())
    }

    // As `Number::as_f64` reads what `serde_json` parsed.
    fn visit_i64<E>(self, value: i64) -> std::result::Result<(), E> {
        self.buf.number(value as f64);
        self.exact.push(Number::from(value));
        Ok(())
    }

    fn visit_u64<E>(self, value: u64) -> std::result::Result<(), E> {
        self.buf.number(value as f64);
        self.exact.push(Number::from(value));
        Ok(())
    }

    fn visit_f64<E>(self, value: f64) -> std::result::Result<(), E> {
        self.buf.number(value);
        // The parser gives finite numbers only.
        self.exact.push(Number::from_f64(value).unwrap_or_else(|| Number::from(0_u64)));
        Ok(())
    }

    fn visit_str<E>(self, value: &str) -> std::result::Result<(), E> {
        self.buf.string(value);
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(mut self, mut items: A) -> std::result::Result<(), A::Error> {
        let header = self.buf.open(kind::ARRAY, 0);
        self.buf.depth = self.buf.depth.max(self.depth + 1);
        let mut len = 0_usize;
        while items.next_element_seed(self.inner())?.is_some() {
            len += 1;
        }
        self.buf.close_with(header, len);
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(mut self, mut members: A) -> std::result::Result<(), A::Error> {
        let header = self.buf.open(kind::OBJECT, 0);
        self.buf.depth = self.buf.depth.max(self.depth + 1);
        let mut names = Vec::new();
        while let Some(name) = members.next_key_seed(NameWriter(self.buf))? {
            names.push(name);
            members.next_value_seed(self.inner())?;
        }
        let text = &self.buf.text;
        let slices: Vec<&str> = names.iter().map(|&(start, end)| text.get(start..end).unwrap_or("")).collect();
        if !distinct(&slices, &mut Vec::new()) {
            *self.twice = true;
        }
        self.buf.close_with(header, names.len());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonschema_value::SerdeJson;
    use proptest::prelude::*;
    use serde_json::json;
    use std::collections::HashSet;

    /// What `serde_json::from_str(JSON.stringify(x))` gives for the double `x`.
    fn js(x: f64) -> Value {
        serde_json::from_str(&crate::jsontext::js_number(x)).unwrap()
    }

    fn checked(buf: &TapeBuf) -> Tape<'_> {
        Tape::new(&buf.words, &buf.numbers, buf.text.as_bytes()).unwrap()
    }

    /// Every accessor of a node, recursively, as a value: equal traces mean equal answers.
    fn trace<'a, F: Json>(node: &F::Node<'a>, probes: &[&str]) -> Value {
        let mut out = Map::new();
        out.insert("type".into(), json!(node.json_type().as_str()));
        out.insert("null".into(), json!(node.is_null()));
        out.insert("bool".into(), json!(node.as_boolean()));
        out.insert("is_number".into(), json!(node.is_number()));
        out.insert("is_string".into(), json!(node.is_string()));
        out.insert("string".into(), json!(node.as_string().map(Cow::into_owned)));
        out.insert("chars".into(), json!(node.string_length()));
        let within: Vec<_> = [(0, 0), (0, 3), (2, 5), (4, 4), (6, u64::MAX)]
            .iter()
            .map(|&(min, max)| node.string_length_within(min, max))
            .collect();
        out.insert("within".into(), json!(within));
        if let Some(number) = node.as_number() {
            out.insert(
                "number".into(),
                json!([
                    number.as_u64(),
                    number.as_i64(),
                    number.as_f64().map(f64::to_bits),
                    number.as_str(),
                    number.to_number().into_owned(),
                    number.is_integer(),
                    number.is_written_as_integer(),
                ]),
            );
        }
        if let Some(items) = node.as_array() {
            let elements: Vec<Value> = items.elements().map(|item| trace::<F>(&item, probes)).collect();
            out.insert("len".into(), json!(items.len()));
            out.insert("elements".into(), Value::Array(elements));
            out.insert("unique".into(), json!(items.is_unique()));
        }
        if let Some(members) = node.as_object() {
            out.insert("len".into(), json!(members.len()));
            let listed: Vec<Value> = members
                .members()
                .map(|(name, value)| {
                    let found = members.get(&F::prepare_key(name.as_ref())).map(|hit| trace::<F>(&hit, probes));
                    json!([name.as_ref(), trace::<F>(&value, probes), found])
                })
                .collect();
            out.insert("members".into(), Value::Array(listed));
            let misses: Vec<bool> = probes.iter().map(|probe| members.get(&F::prepare_key(probe)).is_some()).collect();
            out.insert("probes".into(), json!(misses));
            let mut buffer = F::StringBuffer::default();
            let mut names = Vec::new();
            let _ = members.try_for_each_name_node::<()>(&mut buffer, |name| {
                names.push(trace::<F>(&name, &[]));
                ControlFlow::Continue(())
            });
            out.insert("name_nodes".into(), Value::Array(names));
        }
        let own = node.to_value().into_owned();
        let equal: Vec<bool> = [
            own.clone(),
            Value::Null,
            json!(true),
            json!(false),
            json!(0),
            json!(1),
            json!(1.5),
            json!(-3),
            json!(""),
            json!("a"),
            json!([]),
            json!({}),
            json!([1, "a"]),
            json!({"a": null}),
        ]
        .iter()
        .map(|expected| node.equals_value(expected))
        .collect();
        out.insert("equals".into(), json!(equal));
        out.insert("value".into(), own);
        out.insert("identity".into(), json!(node.identity().is_some()));
        out.insert("container_identity".into(), json!(node.container_identity().is_some()));
        Value::Object(out)
    }

    const PROBES: &[&str] = &["", "a", "b", "ab", "é", "missing", "0"];

    fn number() -> impl Strategy<Value = f64> {
        prop_oneof![
            -20.0..20.0f64,
            (-1000_i64..1000).prop_map(|n| n as f64),
            (-(1_i64 << 53)..=(1_i64 << 53)).prop_map(|n| n as f64),
            any::<f64>().prop_filter("finite", |x| x.is_finite()),
            Just(-0.0),
            Just(1e21),
            Just(1e20),
            Just(2f64.powi(60)),
            Just(-(2f64.powi(63))),
            Just(2f64.powi(64)),
            Just(0.1),
            Just(5e-324),
        ]
    }

    /// Values as `JSON.parse` hands them over: every number a double, written by `JSON.stringify`.
    pub(super) fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            number().prop_map(js),
            "\\PC{0,6}".prop_map(Value::String),
            "[aé🦀]{0,3}".prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec(("[ab0é]{0,2}|\\PC{0,4}", inner), 0..8)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    #[test]
    fn the_documented_example() {
        let buf = encode(&json!({"a": [1, "xy"], "b": null}));
        assert_eq!(buf.words, [6, 2, 13, 1, 4, 4, 1, 5, 2, 3, 1, 2, 3, 4, 2, 4, 1, 0]);
        assert_eq!(buf.numbers, [1.0]);
        assert_eq!(buf.text, "axyb");
        let tape = checked(&buf);
        assert_eq!((tape.depth(), tape.held_count()), (2, 0));
    }

    #[test]
    fn numbers_as_json_stringify_writes_them() {
        for (x, text) in [
            (3.0, "3"),
            (-0.0, "0"),
            (-5.0, "-5"),
            (0.5, "0.5"),
            (1e21, "1e+21"),
            (1e20, "1e+20"),
            (2f64.powi(53), "9007199254740992"),
            (2f64.powi(60), "1152921504606847000"),
            (-(2f64.powi(60)), "-1152921504606847000"),
            (-(2f64.powi(63)), "-9.223372036854776e+18"),
            (2f64.powi(64), "1.8446744073709552e+19"),
        ] {
            let number = TapeNumber(x, None);
            assert_eq!(number.number().to_string(), text, "{x:e}");
            assert_eq!(Value::Number(number.number()), js(x), "{x:e}");
        }
        assert_eq!(TapeNumber(3.0, None).as_u64(), Some(3));
        assert_eq!(TapeNumber(-0.0, None).as_u64(), Some(0));
        assert_eq!(TapeNumber(-0.0, None).as_f64().map(f64::to_bits), Some(0));
        assert_eq!(TapeNumber(-3.0, None).as_u64(), None);
        assert_eq!(TapeNumber(-3.0, None).as_i64(), Some(-3));
        assert_eq!(TapeNumber(1e21, None).as_u64(), None);
        assert_eq!(TapeNumber(2f64.powi(60), None).as_u64(), Some(1_152_921_504_606_847_000));
        // Numbers are doubles: a Rust integer past 2^53 reads back as JavaScript would write it.
        let tape_of = encode(&json!(u64::MAX));
        assert_eq!(checked(&tape_of).root().to_value().into_owned(), json!(1.8446744073709552e19));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn every_double_answers_as_serde_json_parses_its_text(x in number()) {
            let expected = js(x);
            let expected = expected.as_number().unwrap();
            let number = TapeNumber(x, None);
            prop_assert_eq!(&number.number(), expected);
            prop_assert_eq!(number.as_u64(), expected.as_u64());
            prop_assert_eq!(number.as_i64(), expected.as_i64());
            prop_assert_eq!(number.as_f64().map(f64::to_bits), expected.as_f64().map(f64::to_bits));
            prop_assert_eq!(number.is_integer(), JsonNumber::is_integer(expected));
            prop_assert_eq!(number.is_written_as_integer(), JsonNumber::is_written_as_integer(expected));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn round_trip(value in value()) {
            let buf = encode(&value);
            let tape = checked(&buf);
            let back = tape.root().to_value().into_owned();
            prop_assert_eq!(&back, &value);
            // Member order too (`Map`'s equality ignores it).
            prop_assert_eq!(back.to_string(), value.to_string());
            prop_assert_eq!(buf.tape().root().to_value().into_owned(), value);
        }

        #[test]
        fn every_accessor_agrees_with_serde_json(value in value()) {
            let buf = encode(&value);
            let tape = checked(&buf);
            prop_assert_eq!(trace::<TapeJson>(&tape.root(), PROBES), trace::<SerdeJson>(&&value, PROBES));
        }

        #[test]
        fn a_mutated_tape_is_refused_or_read_without_panic(
            value in value(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u32>(), 0..6u8), 1..4),
        ) {
            let mut buf = encode(&value);
            let mut bytes = buf.text.clone().into_bytes();
            for (index, word, how) in edits {
                match how {
                    0 | 1 if !buf.words.is_empty() => {
                        let at = index.index(buf.words.len());
                        buf.words[at] = if how == 0 { word } else { word % 9 };
                    }
                    2 => { let keep = index.index(buf.words.len() + 1); buf.words.truncate(keep); }
                    3 => { let keep = index.index(buf.numbers.len() + 1); buf.numbers.truncate(keep); }
                    4 if !bytes.is_empty() => { let at = index.index(bytes.len()); bytes[at] = word as u8; }
                    5 => { let keep = index.index(bytes.len() + 1); bytes.truncate(keep); }
                    _ => buf.numbers.push(f64::from(word)),
                }
            }
            if let Ok(tape) = Tape::new(&buf.words, &buf.numbers, &bytes) {
                // Whatever passed the check reads as a well-formed value, the same every way.
                let back = tape.root().to_value().into_owned();
                let again = encode(&back);
                let read = trace::<TapeJson>(&tape.root(), PROBES);
                // (A held node a mutation made reads back as `null`.)
                if tape.held_count() == 0 {
                    prop_assert_eq!(trace::<TapeJson>(&checked(&again).root(), PROBES), read);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn text_straight_to_a_tape(value in value(), pretty in any::<bool>()) {
            let text = if pretty { serde_json::to_string_pretty(&value).unwrap() } else { value.to_string() };
            let buf = encode_text(&text).unwrap();
            prop_assert_eq!(&buf, &encode(&value));
            prop_assert_eq!(checked(&buf).root().to_value().into_owned(), value);
        }
    }

    #[test]
    fn text_as_serde_json_reads_it() {
        for text in [
            "1.0",
            "-0",
            "-1e-400",
            "12345678901234567890123",
            "18446744073709551615",
            "-9223372036854775808",
            r#"{"a": 1, "b": [true, false, null, "\u00e9\ud83e\udd80"], "a": {"c": 2}}"#,
            r#"[{"x": 1, "x": 2}, {"y": []}]"#,
            r#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k3":"again"}"#,
            "  [ ]  ",
            "{}",
        ] {
            let value: Value = serde_json::from_str(text).unwrap();
            let buf = encode_text(text).unwrap();
            assert_eq!(buf, encode(&value), "{text}");
            assert!(Tape::new(&buf.words, &buf.numbers, buf.text.as_bytes()).is_ok(), "{text}");
        }
        for text in ["", "1e400", "[1,]", "{\"a\" 1}", "nul", "[1] 2", "\"\\ud800\"", "[\"a\"", "{\"a\": 1"] {
            assert_eq!(encode_text(text).unwrap_err().code(), ErrorCode::Malformed, "{text}");
        }
        let deep = "[".repeat(MAX_DEPTH_CEILING) + &"]".repeat(MAX_DEPTH_CEILING);
        assert_eq!(checked(&encode_text(&deep).unwrap()).depth(), MAX_DEPTH_CEILING);
        let deeper = "[".repeat(MAX_DEPTH_CEILING + 1) + &"]".repeat(MAX_DEPTH_CEILING + 1);
        assert_eq!(encode_text(&deeper).unwrap_err().code(), ErrorCode::LimitExceeded);
    }

    #[test]
    fn has_subjects_finds_strings_and_member_names() {
        for (text, subjects) in [
            ("1", false),
            ("null", false),
            ("[]", false),
            ("{}", false),
            ("[[1, true], [null, {}]]", false),
            ("\"\"", true),
            (r#"[[1], [[""]]]"#, true),
            (r#"[{}, {"a": 1}]"#, true),
        ] {
            let buf = encode_text(text).unwrap();
            assert_eq!(crate::node::has_subjects::<TapeJson>(&buf.tape().root()), subjects, "{text}");
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(crate::node::has_subjects::<crate::node::SerdeJson>(&&value), subjects, "{text}");
        }
    }

    /// `parse_text` answers as `Limits::parse_text` does: the same value (as a tape) or the same
    /// error (code, path, message), the size and nesting checked before the parse.
    #[test]
    fn parse_text_answers_as_limits_parse_text() {
        let limits = crate::Limits {
            max_bytes: 64,
            max_depth: 3,
            max_array_len: 4,
            max_object_len: 3,
            ..crate::Limits::default()
        };
        let long = format!("\"{}\"", "x".repeat(70));
        let wide = format!("[{}]", "\"yyyyyyyyyyyy\",".repeat(5).trim_end_matches(','));
        for text in [
            r#"{"a": [1, 2.5, "x"], "b": null}"#,
            r#"{"a": 1, "a": [true]}"#,
            "[[[1]]]",
            "[[[[1]]]]",
            "[1, 2, 3, 4, 5]",
            r#"{"a": 1, "b": 2, "c": 3, "d": 4}"#,
            r#"{"a": [{"b": [1, 2, 3, 4, 5]}]}"#,
            long.as_str(),
            wide.as_str(),
            "  {\"a\" 1}",
            r#"[1.0, -0, 1e2, 1.50, 12345678901234567890, -9223372036854775808, 9007199254740993, 1e21]"#,
            r#"{"a": 1.0, "b": {"c": -0}, "a": [2.0, 1e300]}"#,
            "[1,]",
            "",
            "1e400",
        ] {
            match (limits.parse_text(text, "result"), parse_text(&limits, text, "result")) {
                (Ok(value), Ok(exact)) => {
                    assert_eq!(exact.buf(), &encode(&value), "{text}");
                    let tape = exact.tape();
                    let root = tape.root();
                    assert_eq!(root.to_value().into_owned(), value, "{text}");
                    assert_eq!(crate::node::stringify::<TapeJson>(&root), crate::jsontext::stringify(&value), "{text}");
                }
                (Err(a), Err(b)) => assert_eq!(a.to_json(), b.to_json(), "{text}"),
                (a, b) => panic!("{text}: {a:?} against {b:?}"),
            }
        }
    }

    /// `snapshot` answers as `parse_text` of the text the snapshot stands for: the size counted
    /// on the text, a lone surrogate's error at its column in the whole text, the limits walk.
    #[test]
    fn a_snapshot_answers_as_its_text() {
        let limits = crate::Limits { max_bytes: 40, max_depth: 3, max_array_len: 4, ..crate::Limits::default() };
        // (the text, the value the snapshot's tape holds, the lone surrogate's string as text)
        let cases: &[(&str, Value, Option<&str>)] = &[
            (r#"{"a":[1,"x"]}"#, serde_json::json!({"a": [1, "x"]}), None),
            (r#"{"a":"é","b":[1,2,3,4,5]}"#, serde_json::json!({"a": "é", "b": [1, 2, 3, 4, 5]}), None),
            (
                r#"{"a":"\n\"éé","b":"0123456789012345678"}"#,
                serde_json::json!({"a": "\n\"éé", "b": "0123456789012345678"}),
                None,
            ),
            (r#"{"é":1,"k":"x\ud800y"}"#, serde_json::json!({"é": 1, "k": "x\u{fffd}y"}), Some(r#""x\ud800y""#)),
            (r#"["\udc00"]"#, serde_json::json!(["\u{fffd}"]), Some(r#""\udc00""#)),
            (r#"["ab\ud800\u0041"]"#, serde_json::json!(["ab\u{fffd}A"]), Some(r#""ab\ud800\u0041""#)),
            (r#"[[["\ud800"]]]"#, serde_json::json!([[["\u{fffd}"]]]), Some(r#""\ud800""#)),
            (r#"[[[[1]]]]"#, serde_json::json!([[[[1]]]]), None),
        ];
        for &(text, ref value, lone) in cases {
            let expected = parse_text(&limits, text, "result").map(|_| ());
            let buf = encode(value);
            let tape = buf.tape();
            let lone = lone.map(|quoted: &str| (text.find(quoted).unwrap(), quoted));
            let got = snapshot(&limits, &tape, text.len(), lone, "result");
            assert_eq!(got.map_err(|e| e.to_json()), expected.map_err(|e| e.to_json()), "{text}");
        }
    }

    /// Two keys of one JavaScript object that differ only in a lone surrogate are one name on
    /// a snapshot's tape (JavaScript writes U+FFFD for it): `snapshot` answers as the text
    /// does, for the lone surrogate, not for a tape that names a member twice; a tape that
    /// names one twice without a lone surrogate (no writer of ours makes one) is refused.
    #[test]
    fn a_snapshot_whose_keys_meet_answers_as_its_text() {
        let limits = crate::Limits::default();
        // {"a\ud800":1,"a\ufffd":2} as the snapshot's writer writes it.
        let name = "a\u{fffd}";
        let words = [6, 2, 6, 2, 8, 4, 4, 3, 4, 4, 3];
        let numbers = [1.0, 2.0];
        let bytes = format!("{name}{name}");
        assert!(Tape::new(&words, &numbers, bytes.as_bytes()).is_err(), "a name twice passed Tape::new");
        let tape = Tape::new_snapshot(&words, &numbers, bytes.as_bytes()).unwrap();
        let text = format!(r#"{{"a\ud800":1,"{name}":2}}"#);
        let expected = parse_text(&limits, &text, "result").map(|_| ()).map_err(|e| e.to_json());
        assert!(expected.is_err());
        let got = snapshot(&limits, &tape, text.len(), Some((1, r#""a\ud800""#)), "result");
        assert_eq!(got.map_err(|e| e.to_json()), expected);
        let alone = snapshot(&limits, &tape, text.len(), None, "result").unwrap_err();
        assert_eq!(alone.code(), ErrorCode::Malformed);
        assert!(alone.message().contains("twice"), "{alone:?}");
        // Over the size cap, the text's first fault is its size, and so is the snapshot's.
        let small = crate::Limits { max_bytes: 8, ..crate::Limits::default() };
        let expected = parse_text(&small, &text, "result").map(|_| ()).map_err(|e| e.to_json());
        let got = snapshot(&small, &tape, text.len(), Some((1, r#""a\ud800""#)), "result");
        assert_eq!(got.map_err(|e| e.to_json()), expected);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// The core's generic readers answer for a tape as for its value.
        #[test]
        fn the_core_reads_a_tape_as_its_value(
            value in value(),
            depth in 1..5usize,
            bytes in 1..200usize,
            array in 0..6usize,
            object in 0..6usize,
        ) {
            let buf = encode(&value);
            let tape = checked(&buf);
            let limits = crate::Limits {
                max_depth: depth,
                max_bytes: bytes,
                max_array_len: array,
                max_object_len: object,
                ..crate::Limits::default()
            };
            prop_assert_eq!(
                limits.check_node::<TapeJson>(&tape.root(), 1, "/x"),
                limits.check_value(&value, "/x")
            );
            let roomy = crate::Limits::default();
            prop_assert_eq!(roomy.check_node::<TapeJson>(&tape.root(), 1, ""), roomy.check_value(&value, ""));
            // The checking pass's totals decide as the walk's pass does, at any nesting.
            prop_assert!(tape.root().totals().is_some());
            prop_assert!(buf.tape().root().totals().is_none());
            for start in 1..4 {
                prop_assert_eq!(
                    limits.check_node::<TapeJson>(&tape.root(), start, "/x"),
                    limits.check_node::<TapeJson>(&buf.tape().root(), start, "/x")
                );
            }
            #[cfg(feature = "validator")]
            prop_assert_eq!(
                crate::jsontext::stringify_node::<TapeJson, _>(&tape.root()),
                Some(crate::jsontext::stringify(&value))
            );
        }
    }

    fn refused(words: &[u32], numbers: &[f64], bytes: &[u8]) -> Error {
        Tape::new(words, numbers, bytes).unwrap_err()
    }

    #[test]
    fn corrupt_tapes_are_refused() {
        use kind::*;
        let good = encode(&json!({"a": [1, "xy"], "b": null}));
        let (w, n, b) = (&good.words[..], &good.numbers[..], good.text.as_bytes());
        assert!(Tape::new(w, n, b).is_ok());
        // Empty, truncated streams, trailing data.
        assert_eq!(refused(&[], &[], b"").code(), ErrorCode::Malformed);
        for keep in 0..w.len() {
            refused(&w[..keep], n, b);
        }
        refused(w, &[], b);
        refused(w, n, &b[..3]);
        refused(w, &[1.0, 2.0], b);
        refused(w, n, b"axybc");
        refused(&[NULL, NULL], &[], b"");
        // A length past the stream, wrong extents, unknown kinds.
        for (at, word) in
            [(1, 3), (2, 12), (2, 14), (3, 0), (3, 2), (4, 3), (4, 5), (6, 2), (8, 3), (14, 9), (0, 8), (17, 99)]
        {
            let mut words = w.to_vec();
            words[at] = word;
            assert_eq!(refused(&words, n, b).code(), ErrorCode::Malformed, "word {at} = {word}");
        }
        // A string longer than its bytes, a huge container length.
        refused(&[STRING, 5], &[], b"abc");
        refused(&[ARRAY, u32::MAX, 0, 0, 0], &[], b"");
        refused(&[ARRAY, 1, u32::MAX, 0, 0, NULL], &[], b"");
        // Text that is not UTF-8, or split inside a character.
        refused(&[STRING, 2], &[], b"\xff\xfe");
        refused(&[ARRAY, 2, 4, 0, 2, STRING, 1, STRING, 1], &[], "é".as_bytes());
        assert!(Tape::new(&[ARRAY, 1, 2, 0, 2, STRING, 2], &[], "é".as_bytes()).is_ok());
        // Numbers that are not finite.
        refused(&[NUMBER], &[f64::NAN], b"");
        refused(&[NUMBER], &[f64::INFINITY], b"");
        // A member name that is not a string, twice the same name (small and large objects).
        refused(&[OBJECT, 1, 3, 0, 0, NULL, NULL, NULL], &[], b"");
        refused(&[OBJECT, 2, 6, 0, 2, STRING, 1, NULL, STRING, 1, NULL], &[], b"aa");
        let mut wide: Map<String, Value> = (0..20).map(|i| (format!("k{i}"), json!(i))).collect();
        let buf = encode(&Value::Object(wide.clone()));
        assert!(Tape::new(&buf.words, &buf.numbers, buf.text.as_bytes()).is_ok());
        let renamed = buf.text.replace("k19", "k10");
        refused(&buf.words, &buf.numbers, renamed.as_bytes());
        wide.clear();
    }

    fn nested(depth: usize) -> TapeBuf {
        let mut buf = TapeBuf::default();
        let headers: Vec<Pos> = (0..depth).map(|_| buf.open(kind::ARRAY, 1)).collect();
        buf.words.push(kind::NULL);
        for header in headers.into_iter().rev() {
            buf.close(header);
        }
        buf.depth = depth;
        buf
    }

    #[test]
    fn depth_is_held_to_the_ceiling() {
        let buf = nested(MAX_DEPTH_CEILING);
        assert_eq!(checked(&buf).depth(), MAX_DEPTH_CEILING);
        let deep = nested(MAX_DEPTH_CEILING + 1);
        let fault = Tape::new(&deep.words, &deep.numbers, deep.text.as_bytes()).unwrap_err();
        assert_eq!(fault.code(), ErrorCode::LimitExceeded);
        // Far deeper still: refused at the ceiling, never recursing.
        let deeper = nested(1_000_000);
        assert!(Tape::new(&deeper.words, &deeper.numbers, deeper.text.as_bytes()).is_err());
        // Reading the deepest accepted tape does not recurse either.
        let value = checked(&buf).root().to_value().into_owned();
        assert_eq!(encode(&value), buf);
        std::mem::forget(value); // dropping a Value 1000 deep recurses (serde_json's drop)
    }

    #[test]
    fn held_nodes() {
        use kind::*;
        let words = [OBJECT, 2, 12, 0, 2, STRING, 1, HELD, 7, 300, 1, STRING, 1, HELD, 8, 12, 2];
        let tape = Tape::new(&words, &[], b"ab").unwrap();
        assert_eq!(tape.held_count(), 2);
        let root = tape.root();
        let members = root.as_object().unwrap();
        let a = members.get_str("a").unwrap();
        assert_eq!(a.held(), Some(Held { slot: 7, cost: 300, is_object: true, has_subjects: false }));
        let b = members.get(&"b".into()).unwrap();
        assert_eq!(b.held(), Some(Held { slot: 8, cost: 12, is_object: false, has_subjects: true }));
        // What the tape tells of a held payload's subjects is its flag.
        assert!(!crate::node::has_subjects::<TapeJson>(&a) && crate::node::has_subjects::<TapeJson>(&b));
        for node in [a, b] {
            assert!(node.as_object().is_none() && node.as_array().is_none());
            assert!(node.as_string().is_none() && node.as_number().is_none());
            assert!(node.as_boolean().is_none() && !node.is_null());
            assert!(!node.is_string() && !node.is_number());
            assert_eq!(node.json_type(), JsonType::Null);
            assert!(!node.equals_value(&Value::Null));
            assert!(node.container_identity().is_none());
        }
        assert!(root.held().is_none());
        assert_eq!(root.to_value().into_owned(), json!({"a": null, "b": null}));
        // The checking pass charges each held node what JavaScript measured, as the walk does:
        // 2 * 4 + 2 for the object, 1 + 1 for the names, 300 + 12 for the payloads.
        let totals = root.totals().unwrap();
        assert_eq!((totals.cost, totals.depth, totals.largest_object, totals.longest_array), (324, 1, 2, 0));
        for max_bytes in [323, 324] {
            let limits = crate::Limits { max_bytes, ..crate::Limits::default() };
            let unchecked = Tape { totals: None, ..tape };
            assert_eq!(
                limits.check_node::<TapeJson>(&root, 1, ""),
                limits.check_node::<TapeJson>(&unchecked.root(), 1, ""),
                "{max_bytes}"
            );
            assert_eq!(limits.check_node::<TapeJson>(&root, 1, "").is_ok(), max_bytes == 324);
        }
        #[cfg(feature = "validator")]
        assert_eq!(crate::jsontext::stringify_node::<TapeJson, _>(&a), None);
        // Unknown flags, a held node cut short.
        refused(&[HELD, 0, 0, 4], &[], b"");
        refused(&[HELD, 0, 0], &[], b"");
    }

    #[test]
    fn identities_are_distinct_and_stable() {
        let value = json!({"a": [1, 1, {"b": "x"}], "c": "x"});
        let buf = encode(&value);
        let tape = checked(&buf);
        let mut seen = HashSet::new();
        let mut stack = vec![tape.root()];
        while let Some(node) = stack.pop() {
            assert_eq!(node.identity(), node.identity());
            assert!(seen.insert(node.identity().unwrap()));
            if let Some(items) = node.as_array() {
                stack.extend(items.elements());
            }
            if let Some(members) = node.as_object() {
                stack.extend(members.members().map(|(_, value)| value));
            }
        }
        assert_eq!(seen.len(), 7);
    }

    #[test]
    fn random_access() {
        let value = json!([{"x": [1, 2, {"y": "z"}]}, "é", 3.5, null, [[], {}]]);
        let buf = encode(&value);
        let tape = checked(&buf);
        let items = tape.root().as_array().unwrap();
        for (index, expected) in value.as_array().unwrap().iter().enumerate() {
            assert_eq!(items.get(index).unwrap().to_value().into_owned(), *expected);
        }
        assert!(items.get(5).is_none());
        let x = items.get(0).unwrap().as_object().unwrap().get_str("x").unwrap();
        assert_eq!(x.as_array().unwrap().get(2).unwrap().to_value().into_owned(), json!({"y": "z"}));
        assert_eq!(items.get(1).unwrap().as_str(), Some("é"));
    }

    #[test]
    fn string_nodes_for_names() {
        for name in ["", "a", "héllo", "🦀🦀"] {
            let got = TapeJson::with_string_node(&mut (), name, |node| trace::<TapeJson>(&node, &[]));
            let expected = trace::<SerdeJson>(&&json!(name), &[]);
            assert_eq!(got, expected);
        }
    }

    /// A record array of about 64 KB of JSON text, as the bench's `payload` records.
    fn records() -> Value {
        let items: Vec<Value> = (0..400)
            .map(|i| {
                json!({
                    "id": i, "name": format!("customer {i}"), "email": format!("c{i}@example.com"),
                    "score": f64::from(i) * 1.25, "active": i % 3 == 0, "tags": ["a", "bb", "ccc"],
                    "address": {"city": "Zürich", "zip": format!("{:05}", i * 7)}, "note": null
                })
            })
            .collect();
        json!({"items": items})
    }

    /// The generic full walk a validator's reading stands for: every node, every text.
    fn walk<'a, F: Json>(node: &F::Node<'a>) -> (usize, f64) {
        let mut nodes = 0;
        let mut sum = 0.0;
        let mut stack = vec![node.clone()];
        while let Some(node) = stack.pop() {
            nodes += 1;
            if let Some(number) = node.as_number() {
                sum += number.as_f64().unwrap_or(0.0);
            } else if let Some(text) = node.as_string() {
                sum += text.len() as f64;
            } else if let Some(items) = node.as_array() {
                stack.extend(items.elements());
            } else if let Some(members) = node.as_object() {
                for (name, value) in members.members() {
                    sum += name.as_ref().len() as f64;
                    stack.push(value);
                }
            }
        }
        (nodes, sum)
    }

    #[test]
    fn sanity_figures_64kb() {
        use std::time::Instant;
        let value = records();
        let size = value.to_string().len();
        let rounds = if cfg!(debug_assertions) { 3 } else { 200 };
        let best = |f: &mut dyn FnMut()| {
            (0..rounds)
                .map(|_| {
                    let start = Instant::now();
                    f();
                    start.elapsed()
                })
                .min()
                .unwrap()
        };
        let buf = encode(&value);
        let expected = walk::<SerdeJson>(&&value);
        assert_eq!(walk::<TapeJson>(&checked(&buf).root()), expected);
        let encode_time = best(&mut || {
            std::hint::black_box(encode(&value));
        });
        let check_time = best(&mut || {
            std::hint::black_box(checked(&buf).depth());
        });
        let tape_walk = best(&mut || {
            std::hint::black_box(walk::<TapeJson>(&checked(&buf).root()));
        });
        let text = value.to_string();
        let text_to_tape = best(&mut || {
            std::hint::black_box(encode_text(&text).unwrap());
        });
        let text_to_value = best(&mut || {
            std::hint::black_box(serde_json::from_str::<Value>(&text).unwrap());
        });
        println!(
            "tape sanity: text to tape (encode_text) {text_to_tape:?}, text to Value (serde_json) {text_to_value:?}"
        );
        let tape = checked(&buf);
        let walk_only = best(&mut || {
            std::hint::black_box(walk::<TapeJson>(&tape.root()));
        });
        let value_walk = best(&mut || {
            std::hint::black_box(walk::<SerdeJson>(&&value));
        });
        println!(
            "tape sanity ({size} B JSON, {} nodes, {} words, {} numbers, {} bytes): encode {encode_time:?}, \
             Tape::new {check_time:?}, Tape::new + walk {tape_walk:?} (walk alone {walk_only:?}), walk of &Value {value_walk:?}",
            expected.0,
            buf.words.len(),
            buf.numbers.len(),
            buf.text.len()
        );
    }
}

#[cfg(test)]
#[cfg(feature = "validator")]
mod validation {
    use super::*;
    use crate::schema::CompiledSchema;
    use jsonschema_value::SerdeJson;
    use proptest::prelude::*;
    use serde_json::json;

    fn schemas() -> Vec<Value> {
        vec![
            json!({"type": "object"}),
            json!({"type": ["integer", "string"]}),
            json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]}),
            json!({"type": "array", "items": {"type": "number", "minimum": 0}}),
            json!({"items": {"pattern": "^[a-c]+$"}}),
            json!({"properties": {"a": {"pattern": "é", "minLength": 2, "maxLength": 3}}}),
            json!({"minimum": -1.5, "maximum": 100, "multipleOf": 0.5}),
            json!({"exclusiveMinimum": 3, "type": "integer"}),
            json!({"enum": [1, "a", null, [1, 2], {"a": 1}]}),
            json!({"const": {"a": [1, 2.0]}}),
            json!({"uniqueItems": true}),
            json!({"type": "array", "uniqueItems": true, "maxItems": 3, "minItems": 1}),
            json!({"additionalProperties": false, "properties": {"a": {}}, "patternProperties": {"^b": {"type": "null"}}}),
            json!({"additionalProperties": {"type": "string"}, "minProperties": 1, "maxProperties": 2}),
            json!({"propertyNames": {"maxLength": 1, "pattern": "^[a-z]*$"}}),
            json!({"contains": {"type": "string"}, "minContains": 2}),
            json!({"prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false}),
            json!({"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"b": {"required": ["a"]}}}),
            json!({"oneOf": [{"type": "integer"}, {"minimum": 2}], "not": {"const": 5}}),
            json!({"if": {"type": "object"}, "then": {"required": ["a"]}, "else": {"type": "array"}}),
            json!({"unevaluatedProperties": false, "properties": {"a": true}, "allOf": [{"properties": {"b": true}}]}),
            json!({
                "$defs": {"tree": {"type": ["object", "array", "number", "string", "null", "boolean"],
                    "properties": {"a": {"$ref": "#/$defs/tree"}, "b": {"type": ["string", "array", "object", "null"]}},
                    "items": {"$ref": "#/$defs/tree"}, "maxProperties": 4}},
                "$ref": "#/$defs/tree"
            }),
            json!({"type": ["array", "object", "integer"], "items": {"$ref": "#"}, "additionalProperties": {"$ref": "#"}}),
        ]
    }

    fn check(schema: &Value, value: &Value) -> std::result::Result<(), TestCaseError> {
        let on_values = jsonschema::options_for::<SerdeJson>().build(schema).unwrap();
        let on_tapes = jsonschema::options_for::<TapeJson>().build(schema).unwrap();
        let buf = encode(value);
        let tape = Tape::new(&buf.words, &buf.numbers, buf.text.as_bytes()).unwrap();
        // The value as JavaScript hands it over (`1.0` is `1`).
        let value = &tape.root().to_value().into_owned();
        let paths = |errors: jsonschema::ErrorIterator<'_>| -> Vec<(String, String)> {
            errors.map(|error| (error.instance_path().to_string(), error.to_string())).collect()
        };
        prop_assert_eq!(on_tapes.is_valid(tape.root()), on_values.is_valid(value), "{} on {}", schema, value);
        prop_assert_eq!(
            paths(on_tapes.iter_errors(tape.root())),
            paths(on_values.iter_errors(value)),
            "{} on {}",
            schema,
            value
        );
        // The core's own path for a foreign representation: the same verdict and error.
        let compiled = CompiledSchema::compile(schema, "/schema").unwrap();
        if let Some(validator) = compiled.validator_in::<TapeJson>().unwrap() {
            prop_assert_eq!(
                compiled.validate_in(validator, tape.root(), "/payload", "payload"),
                compiled.validate(value, "/payload", "payload")
            );
        }
        Ok(())
    }

    #[test]
    fn fixed_instances() {
        let values = [
            json!({"a": 1, "b": "x"}),
            json!({"a": 1.5}),
            json!({"b": "x"}),
            json!({"a": {"a": {"a": [1, {"b": 2}]}}, "b": null}),
            json!([1, 2, 3]),
            json!([1, 1.0]),
            json!([[1, 2], [1, 2.0]]),
            json!([{"a": 1}, {"a": 1}]),
            json!([0, "x"]),
            json!([-1, "abc", "abd"]),
            json!({"a": "éé"}),
            json!({"a": "éééé"}),
            json!({"a": [1, 2.0]}),
            json!(5),
            json!(4.5),
            json!(3.0),
            json!(-2),
            json!("a"),
            json!(null),
            json!({"ab": 1, "b": null, "bc": null}),
            json!({"a": "x", "c": 2}),
        ];
        for schema in schemas() {
            for value in &values {
                check(&schema, value).unwrap();
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn random_instances(value in super::tests::value()) {
            for schema in schemas() {
                check(&schema, &value)?;
            }
        }
    }
}
