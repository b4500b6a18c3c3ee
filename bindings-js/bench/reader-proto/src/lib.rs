//! Issue 21, item 3: how should the core read a JavaScript envelope? Three readers of the same
//! envelope `{outputs: [{audience, format, structuredContent}], ...}`, each doing the core's
//! limits walk (core/src/limits.rs `fits_in`/`cost`: depth cap, array and object lengths, a byte
//! estimate) over every node once, and reading `audience`/`format` as the envelope checks would:
//!
//! - `walk_js`: the caller's JsValue tree, read through js-sys (typeof checks, Array get,
//!   Object::keys, Reflect::get or the own-property descriptor);
//! - `walk_tape`: a tape one JS pass wrote into this module's memory (bench.mjs `tape`);
//! - `walk_text`: today's baseline, JSON text parsed into serde_json::Value, then walked.
//!
//! Each returns the number of nodes it read (a guard that every reader read the same value),
//! or -1 when the value is over a limit or not JSON data. A prototype: no error paths, no paths.

use js_sys::{Array, JsString, Object, Reflect};
use serde_json::Value;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

const MAX_DEPTH: usize = 128;
const MAX_BYTES: usize = 16 * 1024 * 1024;
const MAX_ARRAY_LEN: usize = 100_000;
const MAX_OBJECT_LEN: usize = 100_000;

#[inline(always)]
fn take(left: &mut usize, cost: usize) -> bool {
    match left.checked_sub(cost) {
        Some(rest) => {
            *left = rest;
            true
        }
        None => false,
    }
}

struct Walk {
    left: usize,
    nodes: u32,
    /// What the envelope checks read: the selectors of the outputs (kept so they are not
    /// optimised away).
    selectors: u32,
}

impl Walk {
    fn new() -> Self {
        Walk { left: MAX_BYTES, nodes: 0, selectors: 0 }
    }
    fn answer(&self, fits: bool) -> f64 {
        if fits {
            f64::from(self.nodes) + f64::from(self.selectors) * 0.0
        } else {
            -1.0
        }
    }
    fn selector(&mut self, s: &str) {
        if matches!(s, "programmatic" | "assistant" | "user" | "structured" | "content") {
            self.selectors += 1;
        }
    }
}

// ---- (A) js-sys over the caller's JsValues ---------------------------------------------------

/// How `walk_js` reads a member: `Get` is Reflect::get (runs getters, sees Proxies); `Desc` is the
/// payload guarantee's read (the own data property's descriptor: a getter has no `writable`;
/// a container's prototype must be the plain one).
#[derive(Clone, Copy, PartialEq)]
enum Read {
    Get,
    Desc,
}

struct JsNames {
    value: JsValue,
    writable: JsValue,
    object_proto: JsValue,
    array_proto: JsValue,
}

thread_local! {
    static NAMES: JsNames = JsNames {
        value: JsValue::from_str("value"),
        writable: JsValue::from_str("writable"),
        object_proto: Object::get_prototype_of(&Object::new()).into(),
        array_proto: Object::get_prototype_of(&Array::new()).into(),
    };
}

/// The member `key` of `obj` under `read`; None when the descriptor read finds no data property.
#[inline(always)]
fn member(obj: &JsValue, key: &JsValue, read: Read, names: &JsNames) -> Option<JsValue> {
    match read {
        Read::Get => Reflect::get(obj, key).ok(),
        Read::Desc => {
            let desc = Object::get_own_property_descriptor(obj.unchecked_ref::<Object>(), key);
            if desc.is_undefined() || !Reflect::has(&desc, &names.writable).unwrap_or(false) {
                return None;
            }
            Reflect::get(&desc, &names.value).ok()
        }
    }
}

/// `fits_in` over a JsValue, at `depth` (containers around it, this one included).
fn fits_js(v: &JsValue, depth: usize, w: &mut Walk, read: Read, names: &JsNames) -> bool {
    w.nodes += 1;
    if let Some(s) = v.dyn_ref::<JsString>() {
        // The byte estimate from the UTF-16 length (a bound would be 3x; only lengths cross).
        return take(&mut w.left, s.length() as usize + 2);
    }
    if v.as_f64().is_some() || v.as_bool().is_some() || v.is_null() {
        return take(&mut w.left, 8);
    }
    if !v.is_object() || v.is_function() || depth > MAX_DEPTH {
        return false;
    }
    if Array::is_array(v) {
        let a = v.unchecked_ref::<Array>();
        if read == Read::Desc && JsValue::from(Object::get_prototype_of(v)) != names.array_proto {
            return false;
        }
        let n = a.length() as usize;
        if n > MAX_ARRAY_LEN || !take(&mut w.left, n + 2) {
            return false;
        }
        for i in 0..n as u32 {
            let item = match read {
                Read::Get => a.get(i),
                Read::Desc => match member(v, &JsValue::from(i), read, names) {
                    Some(item) => item,
                    None => return false,
                },
            };
            if !fits_js(&item, depth + 1, w, read, names) {
                return false;
            }
        }
        true
    } else {
        if read == Read::Desc {
            let proto = JsValue::from(Object::get_prototype_of(v));
            if proto != names.object_proto && !proto.is_null() {
                return false;
            }
        }
        let keys = Object::keys(v.unchecked_ref::<Object>());
        let n = keys.length() as usize;
        if n > MAX_OBJECT_LEN || !take(&mut w.left, n * 4 + 2) {
            return false;
        }
        for i in 0..n as u32 {
            let key = keys.get(i);
            let klen = key.unchecked_ref::<JsString>().length() as usize;
            let Some(item) = member(v, &key, read, names) else { return false };
            if !take(&mut w.left, klen) || !fits_js(&item, depth + 1, w, read, names) {
                return false;
            }
        }
        true
    }
}

/// The envelope read through js-sys: its members walked as `fits_js`, except that each output's
/// `audience`/`format` are read as Rust strings, and its `structuredContent` is walked only with
/// `payloads` (otherwise JS measures it: `payload_cost` is what that measurement found, summed).
fn envelope_js(root: &JsValue, payloads: bool, read: Read, payload_cost: usize, names: &JsNames) -> f64 {
    let mut w = Walk::new();
    let fits = (|| {
        if !take(&mut w.left, payload_cost) || !root.is_object() || Array::is_array(root) {
            return false;
        }
        w.nodes += 1;
        let keys = Object::keys(root.unchecked_ref::<Object>());
        let n = keys.length() as usize;
        if n > MAX_OBJECT_LEN || !take(&mut w.left, n * 4 + 2) {
            return false;
        }
        for i in 0..n as u32 {
            let key = keys.get(i);
            let Some(item) = member(root, &key, read, names) else { return false };
            let name = key.as_string().unwrap_or_default();
            if !take(&mut w.left, name.len()) {
                return false;
            }
            if name != "outputs" {
                if !fits_js(&item, 2, &mut w, read, names) {
                    return false;
                }
                continue;
            }
            if !Array::is_array(&item) {
                return false;
            }
            w.nodes += 1;
            let outputs = item.unchecked_ref::<Array>();
            let m = outputs.length() as usize;
            if m > 64 || !take(&mut w.left, m + 2) {
                return false;
            }
            for j in 0..m as u32 {
                let output = outputs.get(j);
                if !output.is_object() || Array::is_array(&output) {
                    return false;
                }
                w.nodes += 1;
                let okeys = Object::keys(output.unchecked_ref::<Object>());
                let k = okeys.length() as usize;
                if !take(&mut w.left, k * 4 + 2) {
                    return false;
                }
                for l in 0..k as u32 {
                    let key = okeys.get(l);
                    let name = key.as_string().unwrap_or_default();
                    let Some(value) = member(&output, &key, read, names) else { return false };
                    if !take(&mut w.left, name.len()) {
                        return false;
                    }
                    match name.as_str() {
                        "audience" | "format" => {
                            w.nodes += 1;
                            let Some(s) = value.as_string() else { return false };
                            w.selector(&s);
                            if !take(&mut w.left, s.len() + 2) {
                                return false;
                            }
                        }
                        "structuredContent" if !payloads => {}
                        _ => {
                            if !fits_js(&value, 4, &mut w, read, names) {
                                return false;
                            }
                        }
                    }
                }
            }
        }
        true
    })();
    w.answer(fits)
}

/// (A) The envelope `root` read through js-sys. `payloads`: walk the payload nodes here too
/// (otherwise JS measured them, `payload_cost`); `desc`: read members by descriptor.
#[wasm_bindgen]
pub fn walk_js(root: &JsValue, payloads: bool, desc: bool, payload_cost: u32) -> f64 {
    let read = if desc { Read::Desc } else { Read::Get };
    NAMES.with(|names| envelope_js(root, payloads, read, payload_cost as usize, names))
}

// ---- (B) a tape written by one JS pass ---------------------------------------------------------

/// Tape words (Int32): kinds, then what each kind carries.
///   0 null, 1 false, 2 true,
///   3 number (its value is the next Float64 of the number stream),
///   4 string, its UTF-16 length only (a payload string the walk needs only the length of),
///   9 string with text: its UTF-8 length, its bytes next in the byte stream,
///   5 array, its length, then its items,
///   6 object, its length, then per member: the key (4, 9 or 8), then the value,
///   7 payload held in JS: its slot in the caller's array, then the cost JS measured,
///   8 an envelope name the JS pass recognised (as a key): its id (0 outputs, 1 audience,
///     2 format, 3 structuredContent), then its length (no bytes).
const NULL: i32 = 0;
const FALSE: i32 = 1;
const TRUE: i32 = 2;
const NUMBER: i32 = 3;
const STRING: i32 = 4;
const ARRAY: i32 = 5;
const OBJECT: i32 = 6;
const HELD: i32 = 7;
const NAME: i32 = 8;
const TEXT: i32 = 9;

struct Tape {
    words: Vec<i32>,
    numbers: Vec<f64>,
    bytes: Vec<u8>,
}

thread_local! {
    static TAPE: RefCell<Tape> = RefCell::new(Tape {
        words: vec![0; 1 << 20],
        numbers: vec![0.0; 1 << 18],
        bytes: vec![0; 1 << 22],
    });
}

/// Where JS writes the tape: [words ptr, words len, numbers ptr, numbers len, bytes ptr, bytes len]
/// (allocated once; JS views them through the module's memory).
#[wasm_bindgen]
pub fn tape_areas() -> Vec<u32> {
    TAPE.with(|t| {
        let t = t.borrow();
        vec![
            t.words.as_ptr() as u32,
            t.words.len() as u32,
            t.numbers.as_ptr() as u32,
            t.numbers.len() as u32,
            t.bytes.as_ptr() as u32,
            t.bytes.len() as u32,
        ]
    })
}

struct Cursor<'t> {
    t: &'t Tape,
    at: usize,
    num: usize,
    byte: usize,
    sum: f64,
}

impl<'t> Cursor<'t> {
    #[inline(always)]
    fn word(&mut self) -> Option<i32> {
        let w = self.t.words.get(self.at).copied();
        self.at += 1;
        w
    }
    #[inline(always)]
    fn len(&mut self) -> Option<usize> {
        self.word().and_then(|n| usize::try_from(n).ok())
    }
    /// The bytes of a TEXT string whose length word is next.
    #[inline(always)]
    fn text(&mut self) -> Option<&'t [u8]> {
        let len = self.len()?;
        let s = self.t.bytes.get(self.byte..self.byte + len)?;
        self.byte += len;
        Some(s)
    }
}

fn fits_tape(c: &mut Cursor, depth: usize, w: &mut Walk) -> bool {
    w.nodes += 1;
    match c.word() {
        Some(NULL | FALSE | TRUE) => take(&mut w.left, 8),
        Some(NUMBER) => {
            // Read, as a validator would.
            c.sum += c.t.numbers.get(c.num).copied().unwrap_or(0.0);
            c.num += 1;
            take(&mut w.left, 8)
        }
        Some(STRING) => match c.len() {
            Some(len) => take(&mut w.left, len + 2),
            None => false,
        },
        Some(TEXT) => match c.text() {
            Some(s) => {
                // A validator reads the text; its first byte stands for that here.
                c.sum += f64::from(s.first().copied().unwrap_or(0));
                take(&mut w.left, s.len() + 2)
            }
            None => false,
        },
        Some(ARRAY) => {
            let Some(n) = c.len() else { return false };
            if depth > MAX_DEPTH || n > MAX_ARRAY_LEN || !take(&mut w.left, n + 2) {
                return false;
            }
            (0..n).all(|_| fits_tape(c, depth + 1, w))
        }
        Some(OBJECT) => {
            let Some(n) = c.len() else { return false };
            if depth > MAX_DEPTH || n > MAX_OBJECT_LEN || !take(&mut w.left, n * 4 + 2) {
                return false;
            }
            (0..n).all(|_| member_tape(c, depth, w))
        }
        Some(HELD) => {
            // Measured in JS: the slot, then the cost.
            let _slot = c.word();
            match c.len() {
                Some(cost) => take(&mut w.left, cost),
                None => false,
            }
        }
        _ => false,
    }
}

/// One member of an object at `depth`: its key, then its value. A selector (`audience`,
/// `format`) is read as text, as the envelope checks read it.
fn member_tape(c: &mut Cursor, depth: usize, w: &mut Walk) -> bool {
    let (klen, id) = match c.word() {
        Some(NAME) => match (c.word(), c.len()) {
            (Some(id), Some(len)) => (len, id),
            _ => return false,
        },
        Some(STRING) => match c.len() {
            Some(len) => (len, -1),
            None => return false,
        },
        Some(TEXT) => match c.text() {
            Some(s) => (s.len(), -1),
            None => return false,
        },
        _ => return false,
    };
    if !take(&mut w.left, klen) {
        return false;
    }
    if (id == 1 || id == 2) && c.t.words.get(c.at) == Some(&TEXT) {
        c.at += 1;
        w.nodes += 1;
        let Some(s) = c.text() else { return false };
        w.selector(std::str::from_utf8(s).unwrap_or(""));
        return take(&mut w.left, s.len() + 2);
    }
    fits_tape(c, depth + 1, w)
}

/// (B) Walks the tape JS wrote. The envelope's own names were written as NAME ids by the JS
/// pass, so the core finds `outputs`, `audience`, `format`, `structuredContent` without text.
#[wasm_bindgen]
pub fn walk_tape() -> f64 {
    TAPE.with(|t| {
        let t = t.borrow();
        let mut c = Cursor { t: &t, at: 0, num: 0, byte: 0, sum: 0.0 };
        let mut w = Walk::new();
        let fits = fits_tape(&mut c, 1, &mut w);
        let nodes = w.answer(fits);
        if c.sum.is_nan() {
            -2.0
        } else {
            nodes
        }
    })
}

// ---- (C) today's baseline: JSON text into serde_json::Value -----------------------------------

fn cost(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len() + 2,
        Value::Array(a) => a.len() + 2,
        Value::Object(o) => o.len() * 4 + 2,
        _ => 8,
    }
}

fn fits_value(value: &Value, depth: usize, w: &mut Walk) -> bool {
    w.nodes += 1;
    take(&mut w.left, cost(value))
        && match value {
            Value::Array(items) => {
                depth <= MAX_DEPTH
                    && items.len() <= MAX_ARRAY_LEN
                    && items.iter().all(|item| fits_value(item, depth + 1, w))
            }
            Value::Object(members) => {
                depth <= MAX_DEPTH
                    && members.len() <= MAX_OBJECT_LEN
                    && members.iter().all(|(key, item)| {
                        if matches!(key.as_str(), "audience" | "format") {
                            if let Value::String(s) = item {
                                w.selector(s);
                            }
                        }
                        take(&mut w.left, key.len()) && fits_value(item, depth + 1, w)
                    })
            }
            _ => true,
        }
}

/// (C) Parses `text` into serde_json::Value and walks it.
#[wasm_bindgen]
pub fn walk_text(text: &str) -> f64 {
    if text.len() > MAX_BYTES {
        return -1.0;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) => {
            let mut w = Walk::new();
            let fits = fits_value(&value, 1, &mut w);
            w.answer(fits)
        }
        Err(_) => -1.0,
    }
}

/// The module's memory, for the JS tape writer's views.
#[wasm_bindgen]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}
