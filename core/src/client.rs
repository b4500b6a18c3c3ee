//! The client side: accept a tool received in tools/list (compiling its schemas once), then
//! per call check the result against what was requested. Planning and routing build on the
//! [`ReceivedTool`] too (see `planning` and `routing`).

use crate::audience::{Audience, Selector};
use crate::connection::Connection;
use crate::declaration::{check_tool_basics, Declaration, Judge, Variant, Warning};
use crate::error::{Error, ErrorCode, Result};
use crate::fields::Field;
use crate::limits::Limits;
use crate::output::{read_raw, RawOutput};
use crate::schema::CompiledSchema;
use crate::selection;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A tool as received in tools/list on one connection, validated (`accept`) and compiled once.
#[derive(Clone, Debug)]
pub struct ReceivedTool {
    tool: Map<String, Value>,
    conn: Connection,
    shape: ReceivedShape,
    warnings: Vec<Warning>,
}

#[derive(Clone, Debug)]
enum ReceivedShape {
    /// 2026-12-01: the declared variants.
    Variants(Declaration),
    /// An earlier revision: the legacy `outputSchema`, if declared (VER-3: any
    /// `outputVariants` is ignored).
    Legacy(Option<Arc<CompiledSchema>>),
}

/// A result that passed [`ReceivedTool::check`], borrowing from it.
#[derive(Debug)]
pub struct CheckedResult<'r> {
    pub(crate) result: &'r Map<String, Value>,
    pub(crate) outputs: Vec<CheckedOutput<'r>>,
    pub(crate) is_error: bool,
    pub(crate) meta: Option<&'r Map<String, Value>>,
}

/// One output of a checked 2026-12-01 result.
#[derive(Debug)]
pub struct CheckedOutput<'r> {
    /// The output object as received.
    pub value: &'r Value,
    /// Its audience string, as received.
    pub audience: &'r str,
    /// The index of its variant in the tool's declaration.
    pub variant: usize,
}

impl ReceivedTool {
    /// Validates a received Tool for the connection (`accept`): under 2026-12-01 the
    /// declaration rules (DECL-1, DECL-2, FMT-2, AUD-*) and that every extension variant was
    /// negotiated; under an earlier revision a declared `outputSchema` must be a valid schema.
    pub fn accept(tool: &Value, conn: &Connection) -> Result<Self> {
        conn.limits().check_value(tool, "")?;
        let obj = check_tool_basics(tool)?;
        let (shape, warnings) = if conn.version().is_legacy() {
            let schema = match obj.field("outputSchema") {
                Some(schema) => Some(Arc::new(CompiledSchema::compile(schema, "/outputSchema")?)),
                None => None,
            };
            (ReceivedShape::Legacy(schema), Vec::new())
        } else {
            if obj.contains_key("outputSchema") && obj.contains_key("outputVariants") {
                return Err(Error::malformed("/outputSchema", "a 2026-12-01 Tool has no top-level outputSchema"));
            }
            let (declaration, warnings) = Declaration::read(obj, Judge::Client(conn))?;
            (ReceivedShape::Variants(declaration), warnings)
        };
        Ok(ReceivedTool { tool: obj.clone(), conn: conn.clone(), shape, warnings })
    }

    /// The Tool object as received.
    pub fn tool(&self) -> &Map<String, Value> {
        &self.tool
    }

    /// The connection the tool was received on.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Warnings (`missing-schema`).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The declared variants (2026-12-01 only).
    pub fn declaration(&self) -> Option<&Declaration> {
        match &self.shape {
            ReceivedShape::Variants(d) => Some(d),
            ReceivedShape::Legacy(_) => None,
        }
    }

    /// The legacy `outputSchema` (earlier revisions only).
    pub fn legacy_output_schema(&self) -> Option<&CompiledSchema> {
        match &self.shape {
            ReceivedShape::Legacy(s) => s.as_deref(),
            ReceivedShape::Variants(_) => None,
        }
    }

    /// Reads a host's local selection rule for legacy `structuredContent` (LEG-8): the
    /// consumer `assistant`, `user`, `programmatic`, or an extension negotiated on this
    /// connection. Anything else is `malformed` at `/legacyStructured`, in every revision (the
    /// rule only takes effect under an earlier one).
    pub fn legacy_consumer(&self, value: &Value) -> Result<Audience> {
        const PATH: &str = "/legacyStructured";
        let text = value.as_str().ok_or_else(|| Error::malformed(PATH, "legacyStructured must be a string"))?;
        let refused = || {
            Error::malformed(
                PATH,
                format!(
                    "legacyStructured {text:?} is neither assistant, user, programmatic nor a negotiated extension"
                ),
            )
        };
        match Audience::parse(text).map_err(|_| refused())? {
            Audience::Extension(id) if self.conn.negotiated_extension(&id).is_none() => Err(refused()),
            audience => Ok(audience),
        }
    }

    /// Resolves the `requestedOutputs` the client sent (or will send), with `select`'s rules.
    pub fn selection(&self, requested: Option<&Value>) -> Result<Vec<Selector>> {
        if let Some(requested) = requested {
            self.conn.limits().check_value(requested, selection::REQUESTED_OUTPUTS)?;
        }
        selection::select(self.declaration(), &self.conn, requested)
    }

    /// Checks a received result against the request (RES-*, ERR-*, SEC-1, SEC-2). Server
    /// output is untrusted: every field is type-checked before use.
    pub fn check<'r>(&self, requested: Option<&Value>, result: &'r Value) -> Result<CheckedResult<'r>> {
        let selectors = self.selection(requested)?;
        self.check_selected(&selectors, result)
    }

    /// [`ReceivedTool::check`] for selectors already resolved, e.g. by a [`crate::Plan`] or
    /// [`ReceivedTool::selection`]: a host that planned the call need not parse its own
    /// request again.
    pub fn check_selected<'r>(&self, selectors: &[Selector], result: &'r Value) -> Result<CheckedResult<'r>> {
        let limits = self.conn.limits();
        let obj = result.as_object().ok_or_else(|| Error::malformed("", "a CallToolResult must be an object"))?;
        limits.check_value(result, "")?;
        let is_error = match obj.field("isError") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(Error::malformed("/isError", "isError must be a boolean")),
        };
        let meta = match obj.field("_meta") {
            None => None,
            Some(Value::Object(m)) => Some(m),
            Some(_) => return Err(Error::malformed("/_meta", "_meta must be an object")),
        };
        match obj.field("resultType") {
            None => {}
            Some(Value::String(s)) if s == "complete" => {}
            Some(other) => {
                return Err(Error::malformed(
                    "/resultType",
                    format!(
                    "resultType {other} is not \"complete\": handle input_required and task results before checking"
                ),
                ))
            }
        }
        let outputs = match &self.shape {
            ReceivedShape::Variants(declaration) => check_outputs(declaration, selectors, obj, is_error, limits)?,
            ReceivedShape::Legacy(schema) => {
                check_legacy(schema.as_deref(), obj, is_error)?;
                Vec::new()
            }
        };
        Ok(CheckedResult { result: obj, outputs, is_error, meta })
    }
}

fn check_outputs<'r>(
    declaration: &Declaration,
    selectors: &[Selector],
    result: &'r Map<String, Value>,
    is_error: bool,
    limits: &Limits,
) -> Result<Vec<CheckedOutput<'r>>> {
    let list = match result.field("outputs") {
        Some(Value::Array(list)) => list,
        Some(_) => return Err(Error::malformed("/outputs", "outputs must be an array")),
        None => return Err(Error::malformed("", "a 2026-12-01 result must carry outputs")),
    };
    limits.check_count(list.len(), limits.max_variants, "/outputs", "outputs")?;
    // JSON types of every output first (malformed), then meaning.
    let raws: Vec<RawOutput<'r>> = list.iter().enumerate().map(|(i, item)| read_raw(item, i)).collect::<Result<_>>()?;
    let variants = declaration.variants();
    let mut checked: Vec<(&RawOutput<'r>, usize, &Variant)> = Vec::with_capacity(raws.len());
    for raw in &raws {
        // RES-6: matched by selector, never by position. The declared variant is found by its
        // strings, so that a well-formed output costs no allocation.
        let Some((index, variant)) = variants.iter().enumerate().find(|(_, v)| raw.is(&v.selector)) else {
            // Not declared: the error says why (an invalid audience or pair, or simply an
            // output nobody could have requested).
            let selector = Selector::read(raw.value, &raw.path())?;
            return Err(Error::new(
                ErrorCode::UnrequestedOutput,
                raw.path(),
                format!("a {selector} output, which the tool does not declare and the request did not ask for"),
            ));
        };
        let selector = &variant.selector;
        let seen = checked.iter().any(|(_, v, _)| *v == index);
        if seen || !selectors.contains(selector) {
            return Err(Error::new(
                ErrorCode::UnrequestedOutput,
                raw.path(),
                if seen {
                    format!("a second {selector} output")
                } else {
                    format!("a {selector} output, which the request did not ask for")
                },
            ));
        }
        raw.check_shape(selector.format)?;
        checked.push((raw, index, variant));
    }
    if checked.is_empty() && is_error {
        return Err(Error::new(ErrorCode::EmptyErrorOutputs, "/outputs", "an error result with no output (ERR-4)"));
    }
    if !is_error {
        if let Some(missing) = selectors.iter().find(|s| !checked.iter().any(|(_, _, v)| &v.selector == *s)) {
            return Err(Error::new(
                ErrorCode::MissingOutput,
                "/outputs",
                format!("the result has no {missing} output, which was requested"),
            ));
        }
        for (raw, _, variant) in &checked {
            raw.check_success(variant)?;
        }
    }
    Ok(checked
        .into_iter()
        .map(|(raw, variant, _)| CheckedOutput { value: raw.value, audience: raw.audience, variant })
        .collect())
}

fn check_legacy(schema: Option<&CompiledSchema>, result: &Map<String, Value>, is_error: bool) -> Result<()> {
    match result.field("content") {
        Some(content) => crate::content::check_blocks(content, "/content")?,
        None => return Err(Error::malformed("", "a legacy result must carry content")),
    }
    match (schema, result.field("structuredContent")) {
        (Some(schema), Some(value)) if !is_error => schema.validate(value, "/structuredContent", "structuredContent"),
        (Some(_), None) if !is_error => Err(Error::new(
            ErrorCode::MissingOutput,
            "",
            "the tool declares outputSchema but the result has no structuredContent",
        )),
        _ => Ok(()),
    }
}
