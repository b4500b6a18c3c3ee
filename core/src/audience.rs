//! Audiences, formats, selectors (AUD-*, FMT-*) and the extension audience registry (EXT-1).

use crate::error::{pointer_index, pointer_push, Error, ErrorCode, Result};
use serde_json::{json, Map, Value};
use std::fmt;
use std::sync::Arc;

/// The Apps extension identifier, which is also its audience.
pub const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// Who an output is for.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Audience {
    /// Eligible for model context (ROUTE-1).
    Assistant,
    /// User presentation only (ROUTE-2).
    User,
    /// Client program logic only (ROUTE-3).
    Programmatic,
    /// An extension audience, named by its extension identifier (ROUTE-4).
    Extension(String),
}

impl Audience {
    /// Parses an audience string: a core audience or a well-formed extension identifier.
    /// Whether the extension is registered or negotiated is checked elsewhere.
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "assistant" => Ok(Audience::Assistant),
            "user" => Ok(Audience::User),
            "programmatic" => Ok(Audience::Programmatic),
            _ if is_extension_id(text) => Ok(Audience::Extension(text.to_owned())),
            _ => Err(Error::new(
                ErrorCode::InvalidAudience,
                "",
                format!(
                    "audience {text:?} is neither a core audience (assistant, user, programmatic) \
                     nor an extension identifier of the form <prefix>/<name>"
                ),
            )),
        }
    }

    /// The wire form.
    pub fn as_str(&self) -> &str {
        match self {
            Audience::Assistant => "assistant",
            Audience::User => "user",
            Audience::Programmatic => "programmatic",
            Audience::Extension(id) => id,
        }
    }

    /// The extension identifier, for an extension audience.
    pub fn extension(&self) -> Option<&str> {
        match self {
            Audience::Extension(id) => Some(id),
            _ => None,
        }
    }
}

/// How a payload is encoded (FMT-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// `ContentBlock[]` in the field `content`.
    Content,
    /// Any JSON value in the field `structuredContent`.
    Structured,
}

impl Format {
    /// Parses a format string; an unknown one is `invalid-combination` (no such pair exists).
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "content" => Ok(Format::Content),
            "structured" => Ok(Format::Structured),
            _ => Err(Error::new(
                ErrorCode::InvalidCombination,
                "",
                format!("format {text:?} is neither \"content\" nor \"structured\""),
            )),
        }
    }

    /// The wire form.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Content => "content",
            Format::Structured => "structured",
        }
    }

    /// The name of the payload field this format uses.
    pub fn payload_field(self) -> &'static str {
        match self {
            Format::Content => "content",
            Format::Structured => "structuredContent",
        }
    }
}

/// An audience and a format: what a variant declares, a request selects and an output carries.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Selector {
    /// Who the output is for.
    pub audience: Audience,
    /// How it is encoded.
    pub format: Format,
}

impl Selector {
    /// A selector from its parts.
    pub fn new(audience: Audience, format: Format) -> Self {
        Selector { audience, format }
    }

    /// The fixed fallback, `assistant/content` (SEL-8).
    pub fn fallback() -> Self {
        Selector::new(Audience::Assistant, Format::Content)
    }

    /// Reads `audience` and `format` of a selector-shaped object (a selector, a variant or an
    /// output): `malformed` for a wrong JSON type, `invalid-audience` / `invalid-combination`
    /// for values no registry could accept. `path` is the object's JSON Pointer.
    pub fn read(value: &Value, path: &str) -> Result<Self> {
        let obj =
            value.as_object().ok_or_else(|| Error::malformed(path, format!("expected an object at {}", show(path))))?;
        let audience = match obj.get("audience") {
            Some(Value::String(s)) => s,
            Some(_) => return Err(Error::malformed(pointer_push(path, "audience"), "audience must be a string")),
            None => return Err(Error::malformed(path, "missing audience")),
        };
        let format = match obj.get("format") {
            Some(Value::String(s)) => s,
            Some(_) => return Err(Error::malformed(pointer_push(path, "format"), "format must be a string")),
            None => return Err(Error::malformed(path, "missing format")),
        };
        let audience = Audience::parse(audience).map_err(|e| e.under(&pointer_push(path, "audience")))?;
        let format = Format::parse(format).map_err(|e| e.under(&pointer_push(path, "format")))?;
        let selector = Selector { audience, format };
        if selector == Selector::new(Audience::Programmatic, Format::Content) {
            return Err(Error::new(
                ErrorCode::InvalidCombination,
                path,
                "programmatic/content is not a valid combination: programmatic output is structured only",
            ));
        }
        Ok(selector)
    }

    /// The selector as a JSON object.
    pub fn to_json(&self) -> Value {
        json!({ "audience": self.audience.as_str(), "format": self.format.as_str() })
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.audience.as_str(), self.format.as_str())
    }
}

pub(crate) fn show(path: &str) -> &str {
    if path.is_empty() {
        "the top level"
    } else {
        path
    }
}

/// Whether `text` is a well-formed extension identifier `{prefix}/{name}`: the prefix is one or
/// more dot-separated labels (letter first, letter or digit last, letters, digits or `-`
/// inside); the name starts and ends with a letter or digit and may hold `-`, `_`, `.` inside.
pub fn is_extension_id(text: &str) -> bool {
    let Some((prefix, name)) = text.split_once('/') else {
        return false;
    };
    let label_ok = |label: &str| {
        let b = label.as_bytes();
        match (b.first(), b.last()) {
            (Some(first), Some(last)) => {
                first.is_ascii_alphabetic()
                    && last.is_ascii_alphanumeric()
                    && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
            }
            _ => false,
        }
    };
    let name_ok = {
        let b = name.as_bytes();
        match (b.first(), b.last()) {
            (Some(first), Some(last)) => {
                first.is_ascii_alphanumeric()
                    && last.is_ascii_alphanumeric()
                    && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
            }
            _ => false,
        }
    };
    prefix.split('.').all(label_ok) && name_ok
}

/// How an extension's tools advertise the schema of their structured variants (EXT-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaAdvertisement {
    /// In each variant's `schema`, like core variants: a missing one is a `missing-schema`
    /// warning (DECL-4).
    PerVariant,
    /// The extension defines the payload contract elsewhere: a variant may omit `schema`
    /// without a warning (the SEP's "a negotiated extension defines the contract elsewhere").
    DefinedByExtension,
}

/// An extension audience definition: the eight things EXT-1 says an extension states.
///
/// 1. `id`: the audience's full identifier (the extension identifier).
/// 2. `formats`: the permitted formats.
/// 3. `schemas`: how tools advertise schemas for it.
/// 4. Routing: its outputs go to `extensions[id]` of the route, and nowhere else, unless
///    `model_context` says otherwise (fixed by the library for every extension).
/// 5. `model_context`: whether its outputs may also enter model context.
/// 6. `meta_key`: the namespaced result `_meta` entry forwarded with its outputs (all other
///    entries are dropped, META-1).
/// 7. Fallback when not negotiated: its variants are neither advertised nor accepted (DECL-5,
///    SEL-4; fixed by the library for every extension).
/// 8. `legacy_projection`: version compatibility — whether, under revisions before 2026-12-01,
///    its structured output may be sent as legacy `structuredContent` (APP-7 for Apps).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtensionDefinition {
    /// The extension identifier, which is the audience.
    pub id: String,
    /// The permitted formats.
    pub formats: Vec<Format>,
    /// How schemas are advertised.
    pub schemas: SchemaAdvertisement,
    /// Whether outputs may enter model context besides the extension's consumer.
    pub model_context: bool,
    /// The result `_meta` key forwarded to the extension's consumer, if any.
    pub meta_key: Option<String>,
    /// Whether the extension defines a legacy `structuredContent` projection.
    pub legacy_projection: bool,
    /// Further audience identifiers the extension defines besides `id` (EXT-5): each takes
    /// the formats and model-context rule, never `meta_key` or `legacy_projection`.
    pub audiences: Vec<String>,
    /// For one of those further audiences: the extension that defines it, whose negotiation
    /// it shares. `None` for an extension's own `id`.
    pub extension: Option<String>,
}

impl ExtensionDefinition {
    /// The built-in MCP Apps definition.
    pub fn apps() -> Self {
        ExtensionDefinition {
            id: APPS_EXTENSION.to_owned(),
            formats: vec![Format::Structured],
            schemas: SchemaAdvertisement::PerVariant,
            model_context: false,
            meta_key: Some(APPS_EXTENSION.to_owned()),
            legacy_projection: true,
            audiences: Vec::new(),
            extension: None,
        }
    }

    /// Reads a definition in its JSON form:
    /// `{ "id", "formats", "modelContext", "metaKey", "legacyProjection", "schemas"?,
    /// "audiences"? }` (`schemas` is `"perVariant"` (default) or `"extension"`; `audiences`
    /// further identifiers with `id`'s prefix, EXT-5).
    pub fn from_json(value: &Value, path: &str) -> Result<Self> {
        let obj =
            value.as_object().ok_or_else(|| Error::malformed(path, "an extension definition must be an object"))?;
        let id = match obj.get("id") {
            Some(Value::String(s)) => s.clone(),
            _ => return Err(Error::malformed(pointer_push(path, "id"), "extension id must be a string")),
        };
        if matches!(id.as_str(), "assistant" | "user" | "programmatic") || !is_extension_id(&id) {
            return Err(Error::new(
                ErrorCode::InvalidAudience,
                pointer_push(path, "id"),
                format!(
                    "{id:?} is not a well-formed extension identifier (extensions must not redefine core audiences)"
                ),
            ));
        }
        let formats_path = pointer_push(path, "formats");
        let formats = match obj.get("formats") {
            Some(Value::Array(items)) if !items.is_empty() => {
                let mut formats = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let f = match item.as_str() {
                        Some("content") => Format::Content,
                        Some("structured") => Format::Structured,
                        _ => {
                            return Err(Error::malformed(
                                pointer_index(&formats_path, i),
                                "formats must hold \"content\" and/or \"structured\"",
                            ))
                        }
                    };
                    if !formats.contains(&f) {
                        formats.push(f);
                    }
                }
                formats
            }
            _ => return Err(Error::malformed(formats_path, "formats must be a non-empty array")),
        };
        let flag = |key: &str| -> Result<bool> {
            match obj.get(key) {
                None => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(_) => Err(Error::malformed(pointer_push(path, key), format!("{key} must be a boolean"))),
            }
        };
        let meta_key = match obj.get("metaKey") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(Error::malformed(pointer_push(path, "metaKey"), "metaKey must be a string or null")),
        };
        let schemas = match obj.get("schemas") {
            None => SchemaAdvertisement::PerVariant,
            Some(Value::String(s)) if s == "perVariant" => SchemaAdvertisement::PerVariant,
            Some(Value::String(s)) if s == "extension" => SchemaAdvertisement::DefinedByExtension,
            Some(_) => {
                return Err(Error::malformed(
                    pointer_push(path, "schemas"),
                    "schemas must be \"perVariant\" or \"extension\"",
                ))
            }
        };
        let audiences = match obj.get("audiences") {
            None => Vec::new(),
            Some(Value::Array(items)) => {
                let audiences_path = pointer_push(path, "audiences");
                // The prefix, up to and including the `/`: `id` is well-formed, so it has one.
                let prefix = id.find('/').map_or(id.as_str(), |slash| id.get(..=slash).unwrap_or(&id));
                let mut audiences: Vec<String> = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let at = pointer_index(&audiences_path, i);
                    let audience =
                        item.as_str().ok_or_else(|| Error::malformed(&at, "an audience must be a string"))?;
                    let fault = if !is_extension_id(audience) {
                        Some("is not a well-formed extension identifier")
                    } else if !audience.starts_with(prefix) {
                        Some("does not share the extension's prefix")
                    } else if audience == id || audiences.iter().any(|a| a == audience) {
                        Some("is named twice")
                    } else {
                        None
                    };
                    if let Some(fault) = fault {
                        return Err(Error::malformed(at, format!("audience {audience:?} of extension {id} {fault}")));
                    }
                    audiences.push(audience.to_owned());
                }
                audiences
            }
            Some(_) => {
                return Err(Error::malformed(
                    pointer_push(path, "audiences"),
                    "audiences must be an array of identifiers",
                ))
            }
        };
        Ok(ExtensionDefinition {
            id,
            formats,
            schemas,
            model_context: flag("modelContext")?,
            meta_key,
            legacy_projection: flag("legacyProjection")?,
            audiences,
            extension: None,
        })
    }

    /// The JSON form read by [`ExtensionDefinition::from_json`].
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("id".into(), Value::from(self.id.clone()));
        map.insert("formats".into(), self.formats.iter().map(|f| Value::from(f.as_str())).collect());
        map.insert("modelContext".into(), Value::from(self.model_context));
        map.insert("metaKey".into(), self.meta_key.clone().map_or(Value::Null, Value::from));
        map.insert("legacyProjection".into(), Value::from(self.legacy_projection));
        if !self.audiences.is_empty() {
            map.insert("audiences".into(), self.audiences.iter().map(|a| Value::from(a.as_str())).collect());
        }
        map.insert(
            "schemas".into(),
            Value::from(match self.schemas {
                SchemaAdvertisement::PerVariant => "perVariant",
                SchemaAdvertisement::DefinedByExtension => "extension",
            }),
        );
        Value::Object(map)
    }
}

/// The extension audiences a library instance knows: Apps built in, others registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registry {
    definitions: Vec<ExtensionDefinition>,
    /// The further audiences of those definitions (EXT-5), each as a definition of its own
    /// whose `extension` names its owner.
    audiences: Vec<ExtensionDefinition>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry { definitions: vec![ExtensionDefinition::apps()], audiences: Vec::new() }
    }
}

impl Registry {
    /// The built-in registry (Apps only).
    pub fn new() -> Self {
        Registry::default()
    }

    /// Registers a definition; an id or further audience registered already (as an id or as
    /// an audience of another extension) is `malformed`.
    pub fn register(&mut self, definition: ExtensionDefinition) -> Result<()> {
        if self.get(&definition.id).is_some() {
            return Err(Error::malformed("/id", format!("extension audience {} is registered already", definition.id)));
        }
        if let Some((i, taken)) = definition.audiences.iter().enumerate().find(|(_, a)| self.get(a).is_some()) {
            return Err(Error::malformed(
                pointer_index("/audiences", i),
                format!("audience {taken} is registered already, by another extension"),
            ));
        }
        for audience in &definition.audiences {
            self.audiences.push(ExtensionDefinition {
                id: audience.clone(),
                formats: definition.formats.clone(),
                schemas: definition.schemas,
                model_context: definition.model_context,
                meta_key: None,
                legacy_projection: false,
                audiences: Vec::new(),
                extension: Some(definition.id.clone()),
            });
        }
        self.definitions.push(definition);
        Ok(())
    }

    /// The built-in registry plus the definitions of a JSON array (the corpus `extensions`).
    pub fn from_json(extensions: Option<&Value>, max: usize) -> Result<Self> {
        let mut registry = Registry::new();
        let Some(value) = extensions else {
            return Ok(registry);
        };
        let items =
            value.as_array().ok_or_else(|| Error::malformed("", "extensions must be an array of definitions"))?;
        if items.len() > max {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                "",
                format!("{} extension definitions exceed the limit of {max}", items.len()),
            ));
        }
        for (i, item) in items.iter().enumerate() {
            let path = pointer_index("", i);
            let def = ExtensionDefinition::from_json(item, &path)?;
            registry.register(def).map_err(|e| Error::malformed(path, e.message().to_owned()))?;
        }
        Ok(registry)
    }

    /// The definition of an extension audience: an extension's own id, or one of its further
    /// audiences (EXT-5).
    pub fn get(&self, id: &str) -> Option<&ExtensionDefinition> {
        self.definitions.iter().chain(&self.audiences).find(|d| d.id == id)
    }

    /// Every definition, Apps first.
    pub fn definitions(&self) -> &[ExtensionDefinition] {
        &self.definitions
    }

    /// Shares the registry between tools.
    pub fn shared(self) -> Arc<Registry> {
        Arc::new(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_ids() {
        for ok in ["io.modelcontextprotocol/ui", "com.example/audit", "acme/x", "a1.b-2/n_a.m-e", "x/9"] {
            assert!(is_extension_id(ok), "{ok}");
        }
        for bad in ["host", "", "/ui", "io./ui", "1io/ui", "io-/ui", "io/-x", "io/x_", "a/b/c", "io/", "i o/x"] {
            assert!(!is_extension_id(bad), "{bad}");
        }
    }
}
