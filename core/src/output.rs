//! Shape checks for one output object (`ToolResultOutput`, FMT-1, RES-3, DECL-3), shared by
//! the server assembling a result and the client checking one.

use crate::audience::{Audience, Format, Selector};
use crate::content::check_blocks_in;
use crate::declaration::Variant;
use crate::error::{pointer_index, pointer_push, Error, ErrorCode, Result};
use crate::node::{Array as _, ArrayOf, Node as _, NodeOf, SerdeJson, Source};
use crate::payload::PayloadsIn;
use std::borrow::Cow;

/// An output whose JSON types are right; its selector strings are not yet judged.
pub(crate) struct RawOutput<'v, F: Source = SerdeJson> {
    pub value: NodeOf<'v, F>,
    pub audience: Cow<'v, str>,
    pub format: Cow<'v, str>,
    /// Position in `outputs`: the JSON Pointer is only rendered for an error.
    pub index: usize,
    /// Its `content` and `structuredContent`, read with the selector in one pass over the
    /// output's members (`Source::pick`), for the shape and payload checks and the route.
    pub content: Option<NodeOf<'v, F>>,
    /// Its `structuredContent` (see `content`).
    pub structured: Option<NodeOf<'v, F>>,
    /// The index of its variant in the tool's declaration, once a client's check matched it
    /// (`usize::MAX` before).
    pub variant: usize,
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
    let [audience, format, content, structured] =
        F::pick(&object, [names.audience(), names.format(), names.content(), names.structured_content()]);
    let field = |node: Option<NodeOf<'v, F>>, name: &str| -> Result<Cow<'v, str>> {
        match node {
            Some(node) => node
                .as_string()
                .ok_or_else(|| Error::malformed(pointer_push(&path(), name), format!("{name} must be a string"))),
            None => Err(Error::malformed(path(), format!("an output needs {name}"))),
        }
    };
    let audience = field(audience, "audience")?;
    let format = field(format, "format")?;
    if format == "content" {
        if let Some(content) = &content {
            check_blocks_in::<F>(content, "", crate::ProtocolVersion::V2026_12_01)
                .map_err(|e| e.under(&pointer_push(&path(), "content")))?;
        }
    }
    Ok(RawOutput { value, audience, format, index, content, structured, variant: usize::MAX })
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
        let (own, other, own_name, other_name) = match format {
            Format::Content => (&self.content, &self.structured, "content", "structuredContent"),
            Format::Structured => (&self.structured, &self.content, "structuredContent", "content"),
        };
        if own.is_none() {
            return Err(Error::new(
                ErrorCode::OutputShapeMismatch,
                self.path(),
                format!("a {} output must carry {own_name}", format.as_str()),
            ));
        }
        if other.is_some() {
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
        self.content.as_ref().and_then(|content| content.as_array())
    }

    /// The payload of a structured output, as the argument holds it (the payload, or a
    /// binding's placeholder: ask `payloads` about it). Present once the shape is checked.
    pub fn structured(&self) -> Option<NodeOf<'v, F>> {
        self.structured.clone()
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
