//! Migration helpers (MIG-1): from a 2026-07-28 Tool to a 2026-12-01 declaration, inferring
//! only what the SEP allows. One legacy `outputSchema` is never assumed to fit every audience.

use crate::audience::{Audience, Format, Selector, APPS_EXTENSION};
use crate::declaration::{check_tool_basics, has_app_resource};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::schema::CompiledSchema;
use serde_json::{json, Value};

/// What the author opts into.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MigrateOptions {
    /// Declare `programmatic/structured` with the legacy `outputSchema`: only on explicit
    /// opt-in, when the implementation produces that data without client-side inference.
    pub programmatic_from_output_schema: bool,
    /// Declare `io.modelcontextprotocol/ui/structured` for an Apps tool (without a schema:
    /// the legacy schema described `structuredContent`, not necessarily the View's data).
    pub apps: bool,
}

impl MigrateOptions {
    /// Reads `{ "programmaticFromOutputSchema"?: bool, "apps"?: bool }`.
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
            apps: flag("apps")?,
        })
    }
}

/// Migrates a legacy Tool: legacy `content` becomes `assistant/content`; the legacy
/// `outputSchema` becomes `programmatic/structured` only on opt-in; an Apps tool gains the ui
/// variant when asked. The top-level `outputSchema` is removed (a 2026-12-01 declaration has
/// none; keep it for old clients as the legacy option `outputSchema`). Every other field is
/// unchanged.
pub fn migrate(legacy_tool: &Value, options: MigrateOptions, limits: &Limits) -> Result<Value> {
    limits.check_value(legacy_tool, "")?;
    let obj = check_tool_basics(legacy_tool)?;
    let output_schema = obj.get("outputSchema");
    if let Some(schema) = output_schema {
        CompiledSchema::compile(schema, "/outputSchema")?;
    }
    let mut variants = vec![Selector::fallback().to_json()];
    if let (true, Some(schema)) = (options.programmatic_from_output_schema, output_schema) {
        variants.push(json!({ "audience": "programmatic", "format": "structured", "schema": schema }));
    }
    if options.apps && has_app_resource(obj) {
        variants.push(Selector::new(Audience::Extension(APPS_EXTENSION.to_owned()), Format::Structured).to_json());
    }
    let mut out = obj.clone();
    out.remove("outputSchema");
    out.insert("outputVariants".into(), Value::Array(variants));
    Ok(Value::Object(out))
}
