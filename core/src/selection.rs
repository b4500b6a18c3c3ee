//! Request-time selection (`requestedOutputs`, SEL-*): which outputs a call asks for.
//!
//! The selection reads the request where it lives, through the one reader of the per-call path
//! (`crate::node`): a `serde_json::Value` is one representation, a binding's own objects another
//! (issue 21), with the same errors in the same order.

use crate::audience::{Audience, Format, Selector};
use crate::connection::Connection;
use crate::declaration::Declaration;
use crate::error::{pointer_index, pointer_push, Error, ErrorCode, Result};
use crate::node::{Array, Node, NodeOf, Object, SerdeJson, Source};
use serde_json::Value;
use std::borrow::Cow;

/// The JSON Pointer of `requestedOutputs` inside the request `params`.
pub const REQUESTED_OUTPUTS: &str = "/requestedOutputs";

/// Resolves the selectors of a request: the fallback when `requested` is absent (SEL-8), else
/// every selector checked in the contract's order of errors — `requested-outputs-on-legacy-version`,
/// `empty-selection`, `duplicate-selector`, each selector's own validity, `unnegotiated-extension`,
/// `undeclared-variant` — each kind over all selectors before the next kind.
/// `declaration` is `None` under a legacy revision.
pub fn select(
    declaration: Option<&Declaration>,
    conn: &Connection,
    requested: Option<&Value>,
) -> Result<Vec<Selector>> {
    select_node::<SerdeJson>(declaration, conn, requested.as_ref())
}

/// [`select`] of `requestedOutputs` in any representation (`crate::node`), read where it lives:
/// a binding need not make a `Value` of its caller's request on every call. The limits walk
/// comes first, at [`REQUESTED_OUTPUTS`], whatever holds the request; then [`select`]'s errors,
/// in its order.
pub fn select_node<'v, F: Source>(
    declaration: Option<&Declaration>,
    conn: &Connection,
    requested: Option<&NodeOf<'v, F>>,
) -> Result<Vec<Selector>> {
    let Some(requested) = requested else {
        return Ok(vec![Selector::fallback()]);
    };
    conn.limits().check_node::<F>(requested, 1, REQUESTED_OUTPUTS)?;
    let pairs = raw_pairs::<F>(requested, conn.limits())?;
    if conn.version().is_legacy() {
        return Err(Error::new(
            ErrorCode::RequestedOutputsOnLegacyVersion,
            REQUESTED_OUTPUTS,
            format!("requestedOutputs does not exist under protocol version {}", conn.version()),
        ));
    }
    if pairs.is_empty() {
        return Err(Error::new(
            ErrorCode::EmptySelection,
            REQUESTED_OUTPUTS,
            "requestedOutputs must not be empty: omit it to receive the assistant/content fallback",
        ));
    }
    for (i, pair) in pairs.iter().enumerate() {
        if pairs.get(..i).is_some_and(|before| before.contains(pair)) {
            return Err(Error::new(
                ErrorCode::DuplicateSelector,
                pointer_index(REQUESTED_OUTPUTS, i),
                format!("{}/{} is requested twice", pair.0, pair.1),
            ));
        }
    }
    let selectors = resolve(&pairs, conn)?;
    if let Some(declaration) = declaration {
        for (i, selector) in selectors.iter().enumerate() {
            if declaration.get(selector).is_none() {
                return Err(Error::new(
                    ErrorCode::UndeclaredVariant,
                    pointer_index(REQUESTED_OUTPUTS, i),
                    format!("the tool does not declare {selector}"),
                ));
            }
        }
    }
    Ok(selectors)
}

/// Checks only the JSON shape of `requestedOutputs` (limits, an array of objects with string
/// `audience` and `format`): the errors that outrank every other.
pub fn check_shape(requested: &Value, limits: &crate::Limits) -> Result<()> {
    limits.check_value(requested, REQUESTED_OUTPUTS)?;
    raw_pairs::<SerdeJson>(&requested, limits).map(drop)
}

/// The `(audience, format)` strings of every item of `requestedOutputs`, within the cap on
/// their number: the shape errors, which win over everything else.
fn raw_pairs<'v, F: Source>(
    requested: &NodeOf<'v, F>,
    limits: &crate::Limits,
) -> Result<Vec<(Cow<'v, str>, Cow<'v, str>)>> {
    let items = requested
        .as_array()
        .ok_or_else(|| Error::malformed(REQUESTED_OUTPUTS, "requestedOutputs must be an array of selectors"))?;
    limits.check_count(items.len(), limits.max_variants, REQUESTED_OUTPUTS, "requested outputs")?;
    let mut pairs = Vec::with_capacity(items.len());
    for (i, item) in items.elements().enumerate() {
        pairs.push(raw_pair_node::<F>(&item, || pointer_index(REQUESTED_OUTPUTS, i))?);
    }
    Ok(pairs)
}

/// Reads selectors from the raw pairs and checks them for validity, then for negotiation, over
/// all items (the same checks as [`Selector::read`] of an object whose shape is checked).
fn resolve(pairs: &[(Cow<'_, str>, Cow<'_, str>)], conn: &Connection) -> Result<Vec<Selector>> {
    let path = |i: usize| pointer_index(REQUESTED_OUTPUTS, i);
    let mut selectors = Vec::with_capacity(pairs.len());
    for (i, (audience, format)) in pairs.iter().enumerate() {
        let selector = selector_of(audience, format, || path(i))?;
        if let Audience::Extension(id) = &selector.audience {
            if let Some(def) = conn.config().registry.get(id) {
                if !def.formats.contains(&selector.format) {
                    return Err(Error::new(
                        ErrorCode::InvalidCombination,
                        path(i),
                        format!("the {id} extension does not allow the {} format", selector.format.as_str()),
                    ));
                }
            }
        }
        selectors.push(selector);
    }
    for (i, selector) in selectors.iter().enumerate() {
        if !conn.allows(&selector.audience) {
            return Err(Error::new(
                ErrorCode::UnnegotiatedExtension,
                pointer_push(&path(i), "audience"),
                format!("{} was not negotiated for this request", selector.audience.as_str()),
            ));
        }
    }
    Ok(selectors)
}

/// The selector of an `audience` and a `format` string at `path` (made only for an error):
/// [`Selector::read`]'s checks after the shape, in its order.
fn selector_of(audience: &str, format: &str, path: impl Fn() -> String) -> Result<Selector> {
    let audience = Audience::parse(audience).map_err(|e| e.under(&pointer_push(&path(), "audience")))?;
    let format = Format::parse(format).map_err(|e| e.under(&pointer_push(&path(), "format")))?;
    let selector = Selector::new(audience, format);
    if selector == Selector::new(Audience::Programmatic, Format::Content) {
        return Err(Error::new(
            ErrorCode::InvalidCombination,
            path(),
            "programmatic/content is not a valid combination: programmatic output is structured only",
        ));
    }
    Ok(selector)
}

/// The `(audience, format)` strings of a selector-shaped object in any representation, or
/// `malformed`; the path (`path`) made only for an error.
pub(crate) fn raw_pair_node<'v, F: Source>(
    item: &NodeOf<'v, F>,
    path: impl Fn() -> String,
) -> Result<(Cow<'v, str>, Cow<'v, str>)> {
    let obj = item.as_object().ok_or_else(|| Error::malformed(path(), "a selector must be an object"))?;
    let names = F::names();
    let field = |key: &F::PreparedKey, name: &str| -> Result<Cow<'v, str>> {
        match obj.get(key) {
            Some(node) => node
                .as_string()
                .ok_or_else(|| Error::malformed(pointer_push(&path(), name), format!("{name} must be a string"))),
            None => Err(Error::malformed(path(), format!("missing {name}"))),
        }
    };
    Ok((field(&names.audience, "audience")?, field(&names.format, "format")?))
}

/// Whether `selectors` is exactly the fallback, in which case a client omits the field.
pub fn is_fallback(selectors: &[Selector]) -> bool {
    matches!(selectors, [only] if *only == Selector::fallback())
}

/// The selectors as the JSON array a client sends.
pub fn to_json(selectors: &[Selector]) -> Value {
    Value::Array(selectors.iter().map(Selector::to_json).collect())
}

/// A structured selector's format, for callers filtering structured outputs.
pub fn is_structured(selector: &Selector) -> bool {
    selector.format == Format::Structured
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, ProtocolVersion, ServerTool};
    use proptest::prelude::*;
    use serde_json::json;

    type Outcome = std::result::Result<Vec<Selector>, (ErrorCode, String, String)>;

    fn outcome(result: Result<Vec<Selector>>) -> Outcome {
        result.map_err(|e| (e.code(), e.path().to_owned(), e.message().to_owned()))
    }

    /// A request's `requestedOutputs`: often of the protocol's shape, its parts arbitrary (every
    /// kind of selection error, and selections that resolve).
    fn arb_requested() -> impl Strategy<Value = Value> {
        let audience = prop_oneof![
            Just(json!("assistant")),
            Just(json!("user")),
            Just(json!("programmatic")),
            Just(json!(crate::audience::APPS_EXTENSION)),
            Just(json!("com.example/other")),
            Just(json!("nobody")),
            Just(json!(1)),
        ];
        let format =
            prop_oneof![Just(json!("content")), Just(json!("structured")), Just(json!("bogus")), Just(json!(null))];
        let item = prop_oneof![
            8 => (prop::option::of(audience), prop::option::of(format)).prop_map(|(a, f)| {
                let mut item = serde_json::Map::new();
                if let Some(a) = a {
                    item.insert("audience".into(), a);
                }
                if let Some(f) = f {
                    item.insert("format".into(), f);
                }
                Value::Object(item)
            }),
            1 => crate::testing::arb_json(),
        ];
        prop_oneof![
            8 => prop::collection::vec(item, 0..5).prop_map(Value::Array),
            1 => crate::testing::arb_json(),
        ]
    }

    fn tool() -> ServerTool {
        let tool = json!({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": [
            {"audience": "assistant", "format": "content"},
            {"audience": "programmatic", "format": "structured", "schema": {"type": "object"}},
            {"audience": crate::audience::APPS_EXTENSION, "format": "structured", "schema": {"type": "object"}},
        ]});
        ServerTool::declare(&tool, None, &Config::new()).expect("declares")
    }

    proptest! {
        /// The selection reads any representation as it reads a `Value`: a tape (the JavaScript
        /// binding's) answers as the `Value` it encodes, errors (codes, paths, messages) included.
        #[test]
        fn a_tape_selects_as_its_value(
            requested in arb_requested(),
            legacy in any::<bool>(),
            apps in any::<bool>(),
            declared in any::<bool>(),
        ) {
            let tool = tool();
            let version = if legacy { ProtocolVersion::V2025_11_25 } else { ProtocolVersion::V2026_12_01 };
            let negotiated = if apps { vec![crate::audience::APPS_EXTENSION.to_owned()] } else { vec![] };
            let conn = Connection::new(version, negotiated, Config::new());
            let declaration = declared.then(|| tool.declaration());
            let buf = crate::tape::encode(&requested);
            let tape = buf.tape();
            let by_tape = select_node::<crate::tape::TapeJson>(declaration, &conn, Some(&tape.root()));
            prop_assert_eq!(outcome(by_tape), outcome(select(declaration, &conn, Some(&requested))));
        }
    }

    /// The errors of one selection in the contract's order, each at its item's path, through the
    /// generic reader.
    #[test]
    fn errors_name_the_item() {
        let tool = tool();
        let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], Config::new());
        let cases = [
            (json!({}), ErrorCode::Malformed, "/requestedOutputs"),
            (json!([{"audience": "user", "format": "content"}, 3]), ErrorCode::Malformed, "/requestedOutputs/1"),
            (json!([{"format": "content"}]), ErrorCode::Malformed, "/requestedOutputs/0"),
            (json!([{"audience": "user", "format": 3}]), ErrorCode::Malformed, "/requestedOutputs/0/format"),
            (json!([]), ErrorCode::EmptySelection, "/requestedOutputs"),
            (
                json!([{"audience": "user", "format": "content"}, {"audience": "user", "format": "content"}]),
                ErrorCode::DuplicateSelector,
                "/requestedOutputs/1",
            ),
            (
                json!([{"audience": "user", "format": "content"}, {"audience": "nobody", "format": "content"}]),
                ErrorCode::InvalidAudience,
                "/requestedOutputs/1/audience",
            ),
            (
                json!([{"audience": "user", "format": "bogus"}]),
                ErrorCode::InvalidCombination,
                "/requestedOutputs/0/format",
            ),
            (
                json!([{"audience": "programmatic", "format": "content"}]),
                ErrorCode::InvalidCombination,
                "/requestedOutputs/0",
            ),
            (
                json!([{"audience": "user", "format": "content"}, {"audience": crate::audience::APPS_EXTENSION, "format": "structured"}]),
                ErrorCode::UnnegotiatedExtension,
                "/requestedOutputs/1/audience",
            ),
            (json!([{"audience": "user", "format": "content"}]), ErrorCode::UndeclaredVariant, "/requestedOutputs/0"),
        ];
        for (requested, code, path) in cases {
            let buf = crate::tape::encode(&requested);
            let tape = buf.tape();
            for result in [
                select(Some(tool.declaration()), &conn, Some(&requested)),
                select_node::<crate::tape::TapeJson>(Some(tool.declaration()), &conn, Some(&tape.root())),
            ] {
                let error = result.expect_err("refused");
                assert_eq!((error.code(), error.path()), (code, path), "{requested}");
            }
        }
        let ok = json!([{"audience": "programmatic", "format": "structured"}, {"audience": "assistant", "format": "content"}]);
        let selectors = select(Some(tool.declaration()), &conn, Some(&ok)).expect("selects");
        assert_eq!(to_json(&selectors), ok);
        assert!(is_fallback(&select(None, &conn, None).expect("the fallback")));
    }
}
