//! Shape checks for one output object (`ToolResultOutput`, FMT-1, RES-3, DECL-3), shared by
//! the server assembling a result and the client checking one.

use crate::audience::{Audience, Format, Selector};
use crate::content::check_blocks;
use crate::declaration::Variant;
use crate::error::{pointer_index, pointer_push, Error, ErrorCode, Result};
use crate::fields::Field;
use crate::payload::Payloads;
use serde_json::Value;

/// An output whose JSON types are right; its selector strings are not yet judged.
#[derive(Debug)]
pub(crate) struct RawOutput<'v> {
    pub value: &'v Value,
    pub audience: &'v str,
    pub format: &'v str,
    /// Position in `outputs`: the JSON Pointer is only rendered for an error.
    pub index: usize,
}

/// Checks JSON types only (`malformed`): an object with string `audience` and `format`, and
/// for the content format a `content` that, when present, is a valid block array.
pub(crate) fn read_raw(value: &Value, index: usize) -> Result<RawOutput<'_>> {
    let path = || pointer_index("/outputs", index);
    let obj = value.as_object().ok_or_else(|| Error::malformed(path(), "an output must be an object"))?;
    let field = |key: &str| -> Result<&str> {
        match obj.field(key) {
            Some(Value::String(s)) => Ok(s.as_str()),
            Some(_) => Err(Error::malformed(pointer_push(&path(), key), format!("{key} must be a string"))),
            None => Err(Error::malformed(path(), format!("an output needs {key}"))),
        }
    };
    let audience = field("audience")?;
    let format = field("format")?;
    if format == "content" {
        if let Some(content) = obj.field("content") {
            check_blocks(content, "", crate::ProtocolVersion::V2026_12_01)
                .map_err(|e| e.under(&pointer_push(&path(), "content")))?;
        }
    }
    Ok(RawOutput { value, audience, format, index })
}

impl RawOutput<'_> {
    /// The JSON Pointer of the output.
    pub fn path(&self) -> String {
        pointer_index("/outputs", self.index)
    }

    /// Whether this output carries the given selector.
    pub fn is(&self, selector: &Selector) -> bool {
        self.audience == selector.audience.as_str() && self.format == selector.format.as_str()
    }

    /// The payload field of the format is present and the other format's field absent
    /// (`output-shape-mismatch`).
    pub fn check_shape(&self, format: Format) -> Result<()> {
        let (own, other) = match format {
            Format::Content => ("content", "structuredContent"),
            Format::Structured => ("structuredContent", "content"),
        };
        if self.value.field(own).is_none() {
            return Err(Error::new(
                ErrorCode::OutputShapeMismatch,
                self.path(),
                format!("a {} output must carry {own}", format.as_str()),
            ));
        }
        if self.value.field(other).is_some() {
            return Err(Error::new(
                ErrorCode::OutputShapeMismatch,
                pointer_push(&self.path(), other),
                format!("a {} output must not carry {other}", format.as_str()),
            ));
        }
        Ok(())
    }

    /// The content blocks of a content output (shape already checked).
    pub fn blocks(&self) -> &[Value] {
        self.value.field("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
    }

    /// The payload of a structured output, as the argument holds it (the payload, or a
    /// binding's placeholder: ask `payloads` about it).
    pub fn structured(&self) -> &Value {
        self.value.field("structuredContent").unwrap_or(&Value::Null)
    }

    /// Success-only checks of the payload against the declared variant: a non-empty
    /// assistant/content (DECL-3) and a structured value valid against its own variant's
    /// schema (RES-4, SEC-2, DECL-8).
    pub fn check_success(&self, variant: &Variant, payloads: &dyn Payloads) -> Result<()> {
        match variant.selector.format {
            Format::Content => {
                if variant.selector.audience == Audience::Assistant && self.blocks().is_empty() {
                    return Err(Error::new(
                        ErrorCode::EmptyAssistantContent,
                        pointer_push(&self.path(), "content"),
                        "a successful assistant/content output needs at least one content block",
                    ));
                }
                Ok(())
            }
            Format::Structured => match &variant.schema {
                Some(schema) => {
                    let path = || pointer_push(&self.path(), "structuredContent");
                    payloads.validate(schema, self.structured(), "", "the value").map_err(|e| {
                        // A fault of the schema itself (first compiled here) keeps the schema's
                        // own path; a fault of the value is placed under the output.
                        if matches!(e.code(), ErrorCode::InvalidSchema | ErrorCode::ExternalRef) {
                            return e;
                        }
                        let message = format!("the {} output: {}", variant.selector, e.message());
                        Error::new(e.code(), format!("{}{}", path(), e.path()), message)
                    })
                }
                None => Ok(()),
            },
        }
    }
}
