//! Request-time selection (`requestedOutputs`, SEL-*): which outputs a call asks for.

use crate::audience::{Audience, Format, Selector};
use crate::connection::Connection;
use crate::declaration::Declaration;
use crate::error::{pointer_index, pointer_push, Error, ErrorCode, Result};
use serde_json::Value;

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
    let Some(requested) = requested else {
        return Ok(vec![Selector::fallback()]);
    };
    let items = requested
        .as_array()
        .ok_or_else(|| Error::malformed(REQUESTED_OUTPUTS, "requestedOutputs must be an array of selectors"))?;
    let limits = conn.limits();
    limits.check_count(items.len(), limits.max_variants, REQUESTED_OUTPUTS, "requested outputs")?;
    // Shape errors win over everything else.
    let mut raw_pairs = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        raw_pairs.push(raw_pair(item, &pointer_index(REQUESTED_OUTPUTS, i))?);
    }
    if conn.version().is_legacy() {
        return Err(Error::new(
            ErrorCode::RequestedOutputsOnLegacyVersion,
            REQUESTED_OUTPUTS,
            format!("requestedOutputs does not exist under protocol version {}", conn.version()),
        ));
    }
    if items.is_empty() {
        return Err(Error::new(
            ErrorCode::EmptySelection,
            REQUESTED_OUTPUTS,
            "requestedOutputs must not be empty: omit it to receive the assistant/content fallback",
        ));
    }
    for (i, pair) in raw_pairs.iter().enumerate() {
        if raw_pairs.get(..i).is_some_and(|before| before.contains(pair)) {
            return Err(Error::new(
                ErrorCode::DuplicateSelector,
                pointer_index(REQUESTED_OUTPUTS, i),
                format!("{}/{} is requested twice", pair.0, pair.1),
            ));
        }
    }
    let selectors = resolve(items, conn, REQUESTED_OUTPUTS)?;
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
    let items = requested
        .as_array()
        .ok_or_else(|| Error::malformed(REQUESTED_OUTPUTS, "requestedOutputs must be an array of selectors"))?;
    limits.check_count(items.len(), limits.max_variants, REQUESTED_OUTPUTS, "requested outputs")?;
    for (i, item) in items.iter().enumerate() {
        raw_pair(item, &pointer_index(REQUESTED_OUTPUTS, i))?;
    }
    Ok(())
}

/// Reads selector objects and checks them for validity, then for negotiation, over all items.
pub(crate) fn resolve(items: &[Value], conn: &Connection, base: &str) -> Result<Vec<Selector>> {
    let mut selectors = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = pointer_index(base, i);
        let selector = Selector::read(item, &path)?;
        if let Audience::Extension(id) = &selector.audience {
            if let Some(def) = conn.config().registry.get(id) {
                if !def.formats.contains(&selector.format) {
                    return Err(Error::new(
                        ErrorCode::InvalidCombination,
                        path,
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
                pointer_push(&pointer_index(base, i), "audience"),
                format!("{} was not negotiated for this request", selector.audience.as_str()),
            ));
        }
    }
    Ok(selectors)
}

/// The `(audience, format)` strings of a selector-shaped object, or `malformed`.
pub(crate) fn raw_pair<'v>(item: &'v Value, path: &str) -> Result<(&'v str, &'v str)> {
    let obj = item.as_object().ok_or_else(|| Error::malformed(path, "a selector must be an object"))?;
    let field = |key: &str| -> Result<&'v str> {
        match obj.get(key) {
            Some(Value::String(s)) => Ok(s.as_str()),
            Some(_) => Err(Error::malformed(pointer_push(path, key), format!("{key} must be a string"))),
            None => Err(Error::malformed(path, format!("missing {key}"))),
        }
    };
    Ok((field("audience")?, field("format")?))
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
