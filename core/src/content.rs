//! Content blocks: shape checks (protocol-facts: block types and required fields) and the
//! per-revision projection of blocks a legacy revision cannot carry (LEG-6).

use crate::error::{pointer_index, pointer_push, Error, Result};
use crate::fields::Field;
use crate::version::ProtocolVersion;
use serde_json::{Map, Value};

/// Checks a `ContentBlock[]` value of a `version` result; `path` is the JSON Pointer of the
/// array. A block type the revision does not define is `malformed` (CONT-2).
pub fn check_blocks(value: &Value, path: &str, version: ProtocolVersion) -> Result<()> {
    let blocks =
        value.as_array().ok_or_else(|| Error::malformed(path, "content must be an array of content blocks"))?;
    for (i, block) in blocks.iter().enumerate() {
        check_block(block, "", version).map_err(|e| e.under(&pointer_index(path, i)))?;
    }
    Ok(())
}

/// Checks one content block of a `version` result.
pub fn check_block(block: &Value, path: &str, version: ProtocolVersion) -> Result<()> {
    let obj = block.as_object().ok_or_else(|| Error::malformed(path, "a content block must be an object"))?;
    let kind = match obj.field("type") {
        Some(Value::String(s)) => s.as_str(),
        _ => return Err(Error::malformed(pointer_push(path, "type"), "a content block needs a string type")),
    };
    let need_string = |key: &str| -> Result<()> {
        match obj.field(key) {
            Some(Value::String(_)) => Ok(()),
            Some(_) => Err(Error::malformed(pointer_push(path, key), format!("{kind} block: {key} must be a string"))),
            None => Err(Error::malformed(path, format!("{kind} block without {key}"))),
        }
    };
    let defined = match kind {
        "audio" => version.has_audio(),
        "resource_link" => version.has_resource_link(),
        _ => true,
    };
    if !defined {
        return Err(Error::malformed(
            pointer_push(path, "type"),
            format!("{kind} blocks do not exist in protocol version {version}"),
        ));
    }
    match kind {
        "text" => need_string("text")?,
        "image" | "audio" => {
            need_string("data")?;
            need_string("mimeType")?;
        }
        "resource_link" => {
            need_string("uri")?;
            need_string("name")?;
        }
        "resource" => {
            let rpath = || pointer_push(path, "resource");
            let resource = obj
                .field("resource")
                .and_then(Value::as_object)
                .ok_or_else(|| Error::malformed(rpath(), "resource block: resource must be an object"))?;
            if !matches!(resource.field("uri"), Some(Value::String(_))) {
                return Err(Error::malformed(rpath(), "embedded resource without a string uri"));
            }
            let text = matches!(resource.field("text"), Some(Value::String(_)));
            let blob = matches!(resource.field("blob"), Some(Value::String(_)));
            if !(text || blob) {
                return Err(Error::malformed(rpath(), "embedded resource needs a string text or blob"));
            }
        }
        other => {
            return Err(Error::malformed(pointer_push(path, "type"), format!("unknown content block type {other:?}")))
        }
    }
    if let Some(annotations) = obj.field("annotations") {
        let apath = || pointer_push(path, "annotations");
        let ann = annotations.as_object().ok_or_else(|| Error::malformed(apath(), "annotations must be an object"))?;
        if let Some(audience) = ann.field("audience") {
            let ok = audience.as_array().is_some_and(|a| a.iter().all(Value::is_string));
            if !ok {
                return Err(Error::malformed(
                    pointer_push(&apath(), "audience"),
                    "annotations.audience must be an array of strings",
                ));
            }
        }
    }
    Ok(())
}

/// Whether a block's `annotations.audience` names an audience other than `audience` without
/// naming `audience` itself (AUD-2: reported, never obeyed).
pub fn annotation_conflicts(block: &Value, audience: &str) -> bool {
    match block.field("annotations").and_then(|a| a.field("audience")).and_then(Value::as_array) {
        Some(list) => !list.iter().any(|a| a.as_str() == Some(audience)),
        None => false,
    }
}

/// Projects blocks to what `version` can carry: a block the revision lacks becomes a text
/// block that keeps the original's annotations; revisions before 2025-06-18 lose
/// `annotations.lastModified`.
pub fn project_blocks(blocks: &[Value], version: ProtocolVersion) -> Vec<Value> {
    blocks.iter().map(|b| project_block(b, version)).collect()
}

fn project_block(block: &Value, version: ProtocolVersion) -> Value {
    let Some(obj) = block.as_object() else {
        return block.clone();
    };
    let kind = obj.field("type").and_then(Value::as_str).unwrap_or_default();
    let text = |s: String| -> Value {
        let mut out = Map::new();
        out.insert("type".into(), Value::from("text"));
        out.insert("text".into(), Value::from(s));
        if let Some(ann) = obj.field("annotations") {
            out.insert("annotations".into(), ann.clone());
        }
        Value::Object(out)
    };
    let str_of = |key: &str| obj.field(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut projected = match kind {
        "resource_link" if !version.has_resource_link() => text(format!("{}: {}", str_of("name"), str_of("uri"))),
        "audio" if !version.has_audio() => text(format!("[audio: {}]", str_of("mimeType"))),
        _ => block.clone(),
    };
    if !version.has_last_modified() {
        if let Some(ann) = projected.get_mut("annotations").and_then(Value::as_object_mut) {
            ann.remove("lastModified");
        }
    }
    projected
}
