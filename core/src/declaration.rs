//! Tool declarations (`Tool.outputVariants`, DECL-*): validation shared by the server
//! (`declare`) and the client (`accept`), compiled once into a [`Declaration`].

use crate::audience::{Audience, Format, SchemaAdvertisement, Selector};
use crate::connection::{Config, Connection};
use crate::error::{pointer_index, pointer_push, Error, ErrorCode, Result};
use crate::schema::CompiledSchema;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A non-fatal finding about a declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// The stable warning code (`missing-schema`).
    pub code: WarningCode,
    /// JSON Pointer of the variant concerned.
    pub path: String,
}

/// Warning codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WarningCode {
    /// A structured variant without a schema (DECL-4 SHOULD).
    MissingSchema,
    /// A 2026-12-01 Tool received with a top-level `outputSchema`, which was ignored (VER-1).
    IgnoredOutputSchema,
    /// A received result with `isError: true` and no output, kept as the tool's failure (ERR-5).
    EmptyErrorOutputs,
    /// `migrate` could not keep the legacy `outputSchema` for old clients (MIG-2).
    LegacyOutputSchemaDropped,
    /// A received tools/list without `ttlMs`, read as `0` (CACHE-1).
    TtlMissing,
    /// A received tools/list with a negative `ttlMs`, read as `0` (CACHE-1).
    TtlNegative,
    /// A received tools/list without `cacheScope`, read as `"private"` (CACHE-1).
    CacheScopeMissing,
    /// A received tools/list with a `cacheScope` other than `"public"` / `"private"`, read as
    /// `"private"`, the safer scope (CACHE-1).
    CacheScopeUnknown,
    /// An answer whose `resultType` another extension defines (RT-1).
    UnrecognizedResultType,
    /// Legacy `content` / `structuredContent` beside `outputs` in a 2026-12-01 result,
    /// delivered to no consumer (RES-8).
    LegacyFieldsIgnored,
}

impl WarningCode {
    /// Every warning code, in declaration order (the bindings' type tests compare against this).
    pub const ALL: &'static [WarningCode] = &[
        WarningCode::MissingSchema,
        WarningCode::IgnoredOutputSchema,
        WarningCode::EmptyErrorOutputs,
        WarningCode::LegacyOutputSchemaDropped,
        WarningCode::TtlMissing,
        WarningCode::TtlNegative,
        WarningCode::CacheScopeMissing,
        WarningCode::CacheScopeUnknown,
        WarningCode::UnrecognizedResultType,
        WarningCode::LegacyFieldsIgnored,
    ];

    /// The kebab-case form.
    pub fn as_str(self) -> &'static str {
        match self {
            WarningCode::MissingSchema => "missing-schema",
            WarningCode::IgnoredOutputSchema => "ignored-output-schema",
            WarningCode::EmptyErrorOutputs => "empty-error-outputs",
            WarningCode::LegacyOutputSchemaDropped => "legacy-output-schema-dropped",
            WarningCode::TtlMissing => "ttl-missing",
            WarningCode::TtlNegative => "ttl-negative",
            WarningCode::CacheScopeMissing => "cache-scope-missing",
            WarningCode::CacheScopeUnknown => "cache-scope-unknown",
            WarningCode::UnrecognizedResultType => "unrecognized-result-type",
            WarningCode::LegacyFieldsIgnored => "legacy-fields-ignored",
        }
    }
}

/// One declared variant with its compiled schema.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The audience/format pair.
    pub selector: Selector,
    /// The compiled schema of a structured variant that declares one.
    pub schema: Option<Arc<CompiledSchema>>,
    /// The variant object as declared (unknown fields pass through).
    pub raw: Value,
}

/// How audiences of extensions are judged while reading a declaration.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Judge<'a> {
    /// The server's full declaration: an extension must be registered (`invalid-audience`
    /// otherwise); negotiation is not looked at.
    Server(&'a Config),
    /// A tool received on a connection: an extension must be negotiated
    /// (`unnegotiated-extension` otherwise, since the server was not allowed to send it).
    Client(&'a Connection),
}

/// A validated `outputVariants` list.
#[derive(Clone, Debug)]
pub struct Declaration {
    variants: Vec<Variant>,
}

impl Declaration {
    /// Reads the `outputVariants` of a tool object (already checked against the limits).
    /// Errors follow the contract's order: within a declaration the first offending variant
    /// in array order wins, `duplicate-variant` at the second occurrence, and
    /// `missing-assistant-content` is checked last.
    pub(crate) fn read(tool: &Map<String, Value>, judge: Judge<'_>) -> Result<(Self, Vec<Warning>)> {
        let limits = match judge {
            Judge::Server(config) => &config.limits,
            Judge::Client(conn) => conn.limits(),
        };
        let list = match tool.get("outputVariants") {
            None => {
                return Err(Error::new(
                    ErrorCode::MissingOutputVariants,
                    "/outputVariants",
                    "a 2026-12-01 Tool must declare outputVariants",
                ))
            }
            Some(Value::Array(list)) => list,
            Some(_) => return Err(Error::malformed("/outputVariants", "outputVariants must be an array")),
        };
        limits.check_count(list.len(), limits.max_variants, "/outputVariants", "output variants")?;
        let mut variants: Vec<Variant> = Vec::with_capacity(list.len());
        let mut warnings = Vec::new();
        for (i, raw) in list.iter().enumerate() {
            let path = pointer_index("/outputVariants", i);
            let variant = read_variant(raw, &path, judge, &mut warnings)?;
            if variants.iter().any(|v| v.selector == variant.selector) {
                return Err(Error::new(
                    ErrorCode::DuplicateVariant,
                    path,
                    format!("{} is declared twice", variant.selector),
                ));
            }
            variants.push(variant);
        }
        if !variants.iter().any(|v| v.selector == Selector::fallback()) {
            return Err(Error::new(
                ErrorCode::MissingAssistantContent,
                "/outputVariants",
                "every tool must declare the assistant/content variant",
            ));
        }
        Ok((Declaration { variants }, warnings))
    }

    /// Every declared variant, in declaration order.
    pub fn variants(&self) -> &[Variant] {
        &self.variants
    }

    /// The declared variant for a selector.
    pub fn get(&self, selector: &Selector) -> Option<&Variant> {
        self.variants.iter().find(|v| &v.selector == selector)
    }
}

fn read_variant(raw: &Value, path: &str, judge: Judge<'_>, warnings: &mut Vec<Warning>) -> Result<Variant> {
    let obj = raw.as_object().ok_or_else(|| Error::malformed(path, "an output variant must be an object"))?;
    // The SEP types a variant's schema as an object: a boolean or any other non-object is a
    // shape error of the variant, ranked before its other errors.
    if obj.get("schema").is_some_and(|schema| !schema.is_object()) {
        return Err(Error::malformed(pointer_push(path, "schema"), "a variant's schema must be a JSON object"));
    }
    // Shape first (malformed), then meaning: a content variant cannot carry a schema.
    if obj.get("format").and_then(Value::as_str) == Some("content") && obj.contains_key("schema") {
        return Err(Error::malformed(pointer_push(path, "schema"), "a content variant cannot declare a schema"));
    }
    let selector = Selector::read(raw, path)?;
    if let Audience::Extension(id) = &selector.audience {
        let registered = match judge {
            Judge::Server(config) => config.registry.get(id),
            Judge::Client(conn) => conn.config().registry.get(id),
        };
        if let Some(definition) = registered {
            if !definition.formats.contains(&selector.format) {
                return Err(Error::new(
                    ErrorCode::InvalidCombination,
                    path,
                    format!("the {id} extension does not allow the {} format", selector.format.as_str()),
                ));
            }
        }
        match judge {
            Judge::Server(_) if registered.is_none() => {
                return Err(Error::new(
                    ErrorCode::InvalidAudience,
                    pointer_push(path, "audience"),
                    format!("{id} is not a registered extension audience"),
                ))
            }
            Judge::Client(conn) if conn.negotiated_extension(id).is_none() => {
                return Err(Error::new(
                    ErrorCode::UnnegotiatedExtension,
                    pointer_push(path, "audience"),
                    format!("the server sent a variant for {id}, which was not negotiated for this request"),
                ))
            }
            _ => {}
        }
    }
    let schema = match obj.get("schema") {
        Some(schema) if selector.format == Format::Structured => {
            let path = pointer_push(path, "schema");
            // A server compiles at `declare`, where its author wants errors; a host only checks
            // what it received, with the same errors, and compiles on first use.
            Some(Arc::new(match judge {
                Judge::Server(_) => CompiledSchema::compile(schema, &path)?,
                Judge::Client(_) => CompiledSchema::received(schema, &path)?,
            }))
        }
        _ => None,
    };
    if selector.format == Format::Structured && schema.is_none() {
        let defined_elsewhere = match (&selector.audience, judge) {
            (Audience::Extension(id), Judge::Server(config)) => config.registry.get(id),
            (Audience::Extension(id), Judge::Client(conn)) => conn.config().registry.get(id),
            _ => None,
        }
        .is_some_and(|d| d.schemas == SchemaAdvertisement::DefinedByExtension);
        if !defined_elsewhere {
            warnings.push(Warning { code: WarningCode::MissingSchema, path: path.to_owned() });
        }
    }
    Ok(Variant { selector, schema, raw: raw.clone() })
}

/// Checks the fields every Tool has: an object with a string `name` and an object
/// `inputSchema`.
pub(crate) fn check_tool_basics(tool: &Value) -> Result<&Map<String, Value>> {
    let obj = tool.as_object().ok_or_else(|| Error::malformed("", "a Tool must be an object"))?;
    match obj.get("name") {
        Some(Value::String(_)) => {}
        Some(_) => return Err(Error::malformed("/name", "name must be a string")),
        None => return Err(Error::malformed("", "a Tool needs a name")),
    }
    match obj.get("inputSchema") {
        Some(Value::Object(_)) => {}
        Some(_) => return Err(Error::malformed("/inputSchema", "inputSchema must be an object")),
        None => return Err(Error::malformed("", "a Tool needs an inputSchema")),
    }
    if let Some(meta) = obj.get("_meta") {
        if !meta.is_object() {
            return Err(Error::malformed("/_meta", "_meta must be an object"));
        }
    }
    Ok(obj)
}

/// Whether a Tool is an MCP Apps tool: `_meta.ui.resourceUri`, or the deprecated flat
/// `_meta["ui/resourceUri"]`.
pub fn has_app_resource(tool: &Map<String, Value>) -> bool {
    let meta = tool.get("_meta");
    let nested = meta.and_then(|m| m.get("ui")).and_then(|ui| ui.get("resourceUri")).is_some_and(Value::is_string);
    let flat = meta.and_then(|m| m.get("ui/resourceUri")).is_some_and(Value::is_string);
    nested || flat
}
