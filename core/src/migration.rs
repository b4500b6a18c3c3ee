//! Migration helpers (MIG-1, MIG-2): from a 2026-07-28 Tool to a 2026-12-01 declaration, inferring
//! only what the SEP allows. One legacy `outputSchema` is never assumed to fit every audience.

use crate::audience::{Audience, Format, Selector, APPS_EXTENSION};
use crate::declaration::{check_tool_basics, has_app_resource, Warning, WarningCode};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::schema::CompiledSchema;
use serde_json::{Map, Value};

/// What the author opts into.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MigrateOptions {
    /// Declare `programmatic/structured` with the legacy `outputSchema`: only on explicit
    /// opt-in, when the implementation produces that data without client-side inference.
    pub programmatic_from_output_schema: bool,
    /// Declare `assistant/structured` with the legacy `outputSchema`: the author says the
    /// structured data suits the model (the SEP's second migration inference, MIG-3); it then
    /// stays the legacy source even when `programmatic_from_output_schema` is set too.
    pub assistant_from_output_schema: bool,
    /// Declare `io.modelcontextprotocol/ui/structured` for an Apps tool, with the legacy
    /// `outputSchema` as its schema (the Apps extension makes `structuredContent` the View's
    /// data); `programmatic_from_output_schema` is then ignored.
    pub apps: bool,
}

impl MigrateOptions {
    /// Reads `{ "programmaticFromOutputSchema"?: bool, "assistantFromOutputSchema"?: bool,
    /// "apps"?: bool }`.
    pub fn from_json(value: Option<&Value>) -> Result<Self> {
        let Some(value) = value else {
            return Ok(MigrateOptions::default());
        };
        let obj = value.as_object().ok_or_else(|| Error::malformed("", "migrate options must be an object"))?;
        let flag = |key: &str| match obj.get(key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(Error::malformed(format!("/{key}"), format!("{key} must be a boolean"))),
        };
        Ok(MigrateOptions {
            programmatic_from_output_schema: flag("programmaticFromOutputSchema")?,
            assistant_from_output_schema: flag("assistantFromOutputSchema")?,
            apps: flag("apps")?,
        })
    }
}

/// The outcome of [`migrate`]: the 2026-12-01 declaration, the legacy options that keep the
/// tool's established legacy behaviour (MIG-2), and what could not be kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Migrated {
    /// The declaration, without the top-level `outputSchema`.
    pub tool: Value,
    /// `{ "outputSchema", "structuredFrom" }` when a variant took the legacy `outputSchema`
    /// and it can be projected again; `None` otherwise.
    pub legacy: Option<Value>,
    /// `legacy-output-schema-dropped` when the legacy `outputSchema` is not kept for old
    /// clients.
    pub warnings: Vec<Warning>,
}

impl Migrated {
    /// `{ "tool", "legacy"?, "warnings"? }`, as the corpus `migrate` op answers.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("tool".into(), self.tool.clone());
        if let Some(legacy) = &self.legacy {
            out.insert("legacy".into(), legacy.clone());
        }
        if !self.warnings.is_empty() {
            out.insert("warnings".into(), crate::json::warnings(&self.warnings));
        }
        Value::Object(out)
    }
}

/// Migrates a legacy Tool: legacy `content` becomes `assistant/content`; with `apps` an Apps
/// tool gains the ui variant, which takes the legacy `outputSchema` as its schema (the Apps
/// extension defines `structuredContent` as the View's data, so that schema is the View's
/// contract); otherwise the legacy `outputSchema` becomes `programmatic/structured` only on
/// opt-in, and `assistant/structured` on its own opt-in (MIG-3). The variant that takes the schema is named in the returned legacy options together
/// with the original schema, so that advertising the declaration under the tool's own
/// revision reproduces it (MIG-2). A schema no variant takes, or a ui schema whose root is not
/// an object (never projected), is dropped with a warning. The top-level `outputSchema` is
/// removed (a 2026-12-01 declaration has none); every other field is unchanged.
pub fn migrate(legacy_tool: &Value, options: MigrateOptions, limits: &Limits) -> Result<Migrated> {
    limits.check_value(legacy_tool, "")?;
    let obj = check_tool_basics(legacy_tool)?;
    let output_schema = match obj.get("outputSchema") {
        None => None,
        Some(schema @ Value::Object(_)) => Some((schema, CompiledSchema::compile(schema, "/outputSchema")?)),
        // The SEP types a schema as an object: `true` or `"x"` is the wrong shape.
        Some(_) => return Err(Error::malformed("/outputSchema", "outputSchema must be a JSON object")),
    };
    let ui = Selector::new(Audience::Extension(APPS_EXTENSION.to_owned()), Format::Structured);
    let apps_tool = options.apps && has_app_resource(obj);
    let mut variants = vec![Selector::fallback().to_json()];
    // The variant that takes the legacy schema, and whether it can ever be projected again.
    let mut taken: Option<(&str, bool)> = None;
    match &output_schema {
        Some((schema, compiled)) if apps_tool => {
            variants.push(structured_variant(APPS_EXTENSION, schema));
            taken = Some(("io.modelcontextprotocol/ui/structured", compiled.is_object_rooted()));
        }
        None if apps_tool => variants.push(ui.to_json()),
        Some((schema, _)) if options.assistant_from_output_schema => {
            variants.push(structured_variant("assistant", schema));
            if options.programmatic_from_output_schema {
                variants.push(structured_variant("programmatic", schema));
            }
            taken = Some(("assistant/structured", true));
        }
        Some((schema, _)) if options.programmatic_from_output_schema => {
            variants.push(structured_variant("programmatic", schema));
            taken = Some(("programmatic/structured", true));
        }
        _ => {}
    }
    let mut legacy = None;
    let mut warnings = Vec::new();
    match (&output_schema, taken) {
        (Some((schema, _)), Some((structured_from, true))) => {
            legacy = Some(crate::fields::object(vec![
                ("outputSchema", Value::clone(schema)),
                ("structuredFrom", Value::from(structured_from)),
            ]));
        }
        (Some(_), _) => {
            warnings.push(Warning { code: WarningCode::LegacyOutputSchemaDropped, path: "/outputSchema".to_owned() })
        }
        (None, _) => {}
    }
    let mut out = obj.clone();
    out.remove("outputSchema");
    out.insert("outputVariants".into(), Value::Array(variants));
    Ok(Migrated { tool: Value::Object(out), legacy, warnings })
}

/// A structured variant of `audience` whose schema is `schema`.
fn structured_variant(audience: &str, schema: &Value) -> Value {
    crate::fields::object(vec![
        ("audience", Value::from(audience)),
        ("format", Value::from("structured")),
        ("schema", schema.clone()),
    ])
}
