//! Content blocks: shape checks (protocol-facts: block types and required fields) and the
//! per-revision projection of blocks a legacy revision cannot carry (LEG-6).

use crate::error::{pointer_index, pointer_push, Error, Result};
use crate::node::{
    field, string_member, Array as _, ArrayOf, Member, Node as _, NodeOf, Object as _, Out, SerdeJson, Source,
};
use crate::version::ProtocolVersion;
use serde_json::Value;
use std::borrow::Cow;

/// Checks a `ContentBlock[]` value of a `version` result; `path` is the JSON Pointer of the
/// array. A block type the revision does not define is `malformed` (CONT-2).
pub fn check_blocks(value: &Value, path: &str, version: ProtocolVersion) -> Result<()> {
    check_blocks_in::<SerdeJson>(&value, path, version)
}

/// [`check_blocks`] of a node of any representation (`crate::node`).
pub fn check_blocks_in<'v, F: Source>(value: &NodeOf<'v, F>, path: &str, version: ProtocolVersion) -> Result<()> {
    let blocks =
        value.as_array().ok_or_else(|| Error::malformed(path, "content must be an array of content blocks"))?;
    for (i, block) in blocks.elements().enumerate() {
        check_block_in::<F>(&block, "", version).map_err(|e| e.under(&pointer_index(path, i)))?;
    }
    Ok(())
}

/// Checks one content block of a `version` result.
pub fn check_block(block: &Value, path: &str, version: ProtocolVersion) -> Result<()> {
    check_block_in::<SerdeJson>(&block, path, version)
}

/// [`check_block`] of a node of any representation.
pub fn check_block_in<'v, F: Source>(block: &NodeOf<'v, F>, path: &str, version: ProtocolVersion) -> Result<()> {
    let names = F::names();
    let obj = block.as_object().ok_or_else(|| Error::malformed(path, "a content block must be an object"))?;
    let kind = match string_member::<F>(&obj, &names.kind) {
        Member::String(s) => s,
        _ => return Err(Error::malformed(pointer_push(path, "type"), "a content block needs a string type")),
    };
    let need_string = |key: &F::PreparedKey, name: &str| -> Result<()> {
        match string_member::<F>(&obj, key) {
            Member::String(_) => Ok(()),
            Member::Other(_) => {
                Err(Error::malformed(pointer_push(path, name), format!("{kind} block: {name} must be a string")))
            }
            Member::Absent => Err(Error::malformed(path, format!("{kind} block without {name}"))),
        }
    };
    let defined = match kind.as_ref() {
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
    match kind.as_ref() {
        "text" => need_string(&names.text, "text")?,
        "image" | "audio" => {
            need_string(&names.data, "data")?;
            need_string(&names.mime_type, "mimeType")?;
        }
        "resource_link" => {
            need_string(&names.uri, "uri")?;
            need_string(&names.name, "name")?;
        }
        "resource" => {
            let rpath = || pointer_push(path, "resource");
            let resource = obj
                .get(&names.resource)
                .and_then(|r| r.as_object())
                .ok_or_else(|| Error::malformed(rpath(), "resource block: resource must be an object"))?;
            if !matches!(string_member::<F>(&resource, &names.uri), Member::String(_)) {
                return Err(Error::malformed(rpath(), "embedded resource without a string uri"));
            }
            let text = matches!(string_member::<F>(&resource, &names.text), Member::String(_));
            let blob = matches!(string_member::<F>(&resource, &names.blob), Member::String(_));
            if !(text || blob) {
                return Err(Error::malformed(rpath(), "embedded resource needs a string text or blob"));
            }
        }
        other => {
            return Err(Error::malformed(pointer_push(path, "type"), format!("unknown content block type {other:?}")))
        }
    }
    if let Some(annotations) = obj.get(&names.annotations) {
        let apath = || pointer_push(path, "annotations");
        let ann = annotations.as_object().ok_or_else(|| Error::malformed(apath(), "annotations must be an object"))?;
        if let Some(audience) = ann.get(&names.audience) {
            let ok = audience.as_array().is_some_and(|a| a.elements().all(|item| item.is_string()));
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
    annotation_conflicts_in::<SerdeJson>(&block, audience)
}

/// [`annotation_conflicts`] of a node of any representation.
pub fn annotation_conflicts_in<'v, F: Source>(block: &NodeOf<'v, F>, audience: &str) -> bool {
    let names = F::names();
    let list = field::<F>(block, &names.annotations).and_then(|a| field::<F>(&a, &names.audience));
    match list.as_ref().and_then(|l| l.as_array()) {
        Some(list) => !list.elements().any(|a| a.as_string().is_some_and(|s| s == audience)),
        None => false,
    }
}

/// Projects blocks to what `version` can carry: a block the revision lacks becomes a text
/// block that keeps the original's annotations; revisions before 2025-06-18 lose
/// `annotations.lastModified`.
pub fn project_blocks(blocks: &[Value], version: ProtocolVersion) -> Vec<Value> {
    blocks.iter().map(|b| project_block::<SerdeJson>(&b, version).into_value()).collect()
}

/// [`project_blocks`] of a node of any representation: a block the revision carries as it is
/// stays the caller's own node.
pub fn project_blocks_in<'v, F: Source>(blocks: &ArrayOf<'v, F>, version: ProtocolVersion) -> Vec<Out<'v, F>> {
    blocks.elements().map(|b| project_block::<F>(&b, version)).collect()
}

fn project_block<'v, F: Source>(block: &NodeOf<'v, F>, version: ProtocolVersion) -> Out<'v, F> {
    let Some(obj) = block.as_object() else {
        return Out::Node(block.clone());
    };
    let names = F::names();
    let kind = obj.get(&names.kind).and_then(|k| k.as_string()).unwrap_or_default();
    let text = |s: String| -> Out<'v, F> {
        let mut out = vec![Out::member("type", "text"), Out::member("text", s)];
        if let Some(ann) = obj.get(&names.annotations) {
            out.push((Cow::Borrowed("annotations"), without_last_modified::<F>(ann, version)));
        }
        Out::Object(out)
    };
    let str_of = |key: &F::PreparedKey| obj.get(key).and_then(|v| v.as_string()).unwrap_or_default().into_owned();
    match kind.as_ref() {
        "resource_link" if !version.has_resource_link() => {
            text(format!("{}: {}", str_of(&names.name), str_of(&names.uri)))
        }
        "audio" if !version.has_audio() => text(format!("[audio: {}]", str_of(&names.mime_type))),
        _ => match obj.get(&names.annotations) {
            Some(ann) if !version.has_last_modified() && has_last_modified::<F>(&ann) => Out::Object(
                obj.members()
                    .map(|(k, v)| {
                        let k: Cow<'v, str> = k.into();
                        let v = if k == "annotations" { without_last_modified::<F>(v, version) } else { Out::Node(v) };
                        (k, v)
                    })
                    .collect(),
            ),
            _ => Out::Node(block.clone()),
        },
    }
}

fn has_last_modified<'v, F: Source>(annotations: &NodeOf<'v, F>) -> bool {
    annotations.as_object().is_some_and(|a| a.members().any(|(k, _)| k.as_ref() == "lastModified"))
}

/// `annotations` as `version` carries it: without `lastModified` before 2025-06-18.
fn without_last_modified<'v, F: Source>(annotations: NodeOf<'v, F>, version: ProtocolVersion) -> Out<'v, F> {
    match annotations.as_object() {
        Some(a) if !version.has_last_modified() && has_last_modified::<F>(&annotations) => Out::Object(
            a.members().filter(|(k, _)| k.as_ref() != "lastModified").map(|(k, v)| (k.into(), Out::Node(v))).collect(),
        ),
        _ => Out::Node(annotations),
    }
}
