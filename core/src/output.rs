//! Shape checks for one output object (`ToolResultOutput`, FMT-1, RES-3, DECL-3), shared by
//! the server assembling a result and the client checking one.

use crate::audience::{Audience, Format, Selector};
use crate::content::check_blocks_in;
use crate::declaration::Variant;
use crate::error::{pointer_index, pointer_push, Error, ErrorCode, Result};
use crate::node::{
    string_member, Array as _, ArrayOf, Member, Node as _, NodeOf, Object as _, ObjectOf, SerdeJson, Source,
};
use crate::payload::PayloadsIn;
use std::borrow::Cow;

/// An output whose JSON types are right; its selector strings are not yet judged.
pub(crate) struct RawOutput<'v, F: Source = SerdeJson> {
    pub value: NodeOf<'v, F>,
    pub object: ObjectOf<'v, F>,
    pub audience: Cow<'v, str>,
    pub format: Cow<'v, str>,
    /// Position in `outputs`: the JSON Pointer is only rendered for an error.
    pub index: usize,
}

impl<F: Source> std::fmt::Debug for RawOutput<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RawOutput({} {}/{})", self.index, self.audience, self.format)
    }
}

/// Checks JSON types only (`malformed`): an object with string `audience` and `format`, and
/// for the content format a `content` that, when present, is a valid block array.
pub(crate) fn read_raw<'v, F: Source>(value: NodeOf<'v, F>, index: usize) -> Result<RawOutput<'v, F>> {
    let names = F::names();
    let path = || pointer_index("/outputs", index);
    let object = value.as_object().ok_or_else(|| Error::malformed(path(), "an output must be an object"))?;
    let field = |key: &F::PreparedKey, name: &str| -> Result<Cow<'v, str>> {
        match string_member::<F>(&object, key) {
            Member::String(s) => Ok(s),
            Member::Other(_) => Err(Error::malformed(pointer_push(&path(), name), format!("{name} must be a string"))),
            Member::Absent => Err(Error::malformed(path(), format!("an output needs {name}"))),
        }
    };
    let audience = field(&names.audience, "audience")?;
    let format = field(&names.format, "format")?;
    if format == "content" {
        if let Some(content) = object.get(&names.content) {
            check_blocks_in::<F>(&content, "", crate::ProtocolVersion::V2026_12_01)
                .map_err(|e| e.under(&pointer_push(&path(), "content")))?;
        }
    }
    Ok(RawOutput { value, object, audience, format, index })
}

impl<'v, F: Source> RawOutput<'v, F> {
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
        let names = F::names();
        let (own, other, own_name, other_name) = match format {
            Format::Content => (&names.content, &names.structured_content, "content", "structuredContent"),
            Format::Structured => (&names.structured_content, &names.content, "structuredContent", "content"),
        };
        if self.object.get(own).is_none() {
            return Err(Error::new(
                ErrorCode::OutputShapeMismatch,
                self.path(),
                format!("a {} output must carry {own_name}", format.as_str()),
            ));
        }
        if self.object.get(other).is_some() {
            return Err(Error::new(
                ErrorCode::OutputShapeMismatch,
                pointer_push(&self.path(), other_name),
                format!("a {} output must not carry {other_name}", format.as_str()),
            ));
        }
        Ok(())
    }

    /// The content blocks of a content output (shape already checked).
    pub fn blocks(&self) -> Option<ArrayOf<'v, F>> {
        self.object.get(&F::names().content).and_then(|content| content.as_array())
    }

    /// The payload of a structured output, as the argument holds it (the payload, or a
    /// binding's placeholder: ask `payloads` about it). Present once the shape is checked.
    pub fn structured(&self) -> Option<NodeOf<'v, F>> {
        self.object.get(&F::names().structured_content)
    }

    /// Success-only checks of the payload against the declared variant: a non-empty
    /// assistant/content (DECL-3) and a structured value valid against its own variant's
    /// schema (RES-4, SEC-2, DECL-8).
    pub fn check_success<P: PayloadsIn<F> + ?Sized>(&self, variant: &Variant, payloads: &P) -> Result<()> {
        match variant.selector.format {
            Format::Content => {
                if variant.selector.audience == Audience::Assistant && self.blocks().is_none_or(|b| b.len() == 0) {
                    return Err(Error::new(
                        ErrorCode::EmptyAssistantContent,
                        pointer_push(&self.path(), "content"),
                        "a successful assistant/content output needs at least one content block",
                    ));
                }
                Ok(())
            }
            Format::Structured => match (&variant.schema, self.structured()) {
                (Some(schema), Some(structured)) => {
                    let path = || pointer_push(&self.path(), "structuredContent");
                    payloads.validate(schema, &structured, "", "the value").map_err(|e| {
                        // A fault of the schema itself (first compiled here) keeps the schema's
                        // own path; a fault of the value is placed under the output.
                        if matches!(e.code(), ErrorCode::InvalidSchema | ErrorCode::ExternalRef) {
                            return e;
                        }
                        let message = format!("the {} output: {}", variant.selector, e.message());
                        Error::new(e.code(), format!("{}{}", path(), e.path()), message)
                    })
                }
                _ => Ok(()),
            },
        }
    }
}
