//! The client side: accept a tool received in tools/list (checking its schemas; each is
//! compiled once, on first use), then per call check the result against what was requested.
//! Planning and routing build on the [`ReceivedTool`] too (see `planning` and `routing`).

use crate::audience::{Audience, Selector};
use crate::connection::Connection;
use crate::declaration::{check_tool_basics, Declaration, Judge, Warning, WarningCode};
use crate::error::{Error, ErrorCode, Result};
use crate::fields::Field;
use crate::limits::Limits;
use crate::node::{Array as _, JsonType, Member, Node as _, NodeOf, Object as _, ObjectOf, SerdeJson, Source};
use crate::output::{read_raw, RawOutput};
use crate::payload::{InPlace, PayloadsIn};
use crate::schema::CompiledSchema;
use crate::selection;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::Arc;

/// A tool as received in tools/list on one connection, validated (`accept`); each schema is
/// compiled once, by the first call that validates against it.
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

/// A result that passed [`ReceivedTool::check`], borrowing from it: a `serde_json::Value`, or a
/// caller's value in another representation `F` (`crate::node`).
pub struct CheckedResult<'r, F: Source = SerdeJson> {
    /// The result as received.
    pub(crate) root: NodeOf<'r, F>,
    pub(crate) result: ObjectOf<'r, F>,
    pub(crate) outputs: Vec<RawOutput<'r, F>>,
    pub(crate) is_error: bool,
    pub(crate) meta: Option<ObjectOf<'r, F>>,
    pub(crate) kind: ResultKind,
    /// The `resultType` of an [`ResultKind::Unrecognized`] answer.
    pub(crate) result_type: Option<Cow<'r, str>>,
    /// Legacy fields beside `outputs` in a 2026-12-01 result, which reach no consumer (RES-8).
    pub(crate) stray: Vec<&'static str>,
}

/// What a checked answer to a tools/call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultKind {
    /// A tool result with at least one output (or a successful one).
    Complete,
    /// A tool result with `isError: true` and no output: the tool's failure, kept (ERR-5).
    EmptyError,
    /// A multi-round-trip answer (`resultType: "input_required"`, 2026-07-28 on): neither a
    /// tool result nor an error; the host fulfils the requests and retries the call with the
    /// same `requestedOutputs` (MRTR-1).
    InputRequired,
    /// An answer of a kind an extension defines (`resultType` another string, from 2026-07-28
    /// on, e.g. the Tasks extension's `"task"`): not a tool result, routed nowhere, handed to
    /// the extension that defined it (RT-1).
    Unrecognized,
}

impl<F: Source> std::fmt::Debug for CheckedResult<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckedResult")
            .field("outputs", &self.outputs)
            .field("is_error", &self.is_error)
            .field("kind", &self.kind)
            .field("result_type", &self.result_type)
            .field("stray", &self.stray)
            .finish_non_exhaustive()
    }
}

impl<F: Source> CheckedResult<'_, F> {
    /// What the answer is.
    pub fn kind(&self) -> ResultKind {
        self.kind
    }

    /// Whether the tool reported a failure.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// The `resultType` of an answer of another kind (RT-1).
    pub fn result_type(&self) -> Option<&str> {
        self.result_type.as_deref()
    }

    /// What `check` reports, each with the JSON Pointer it concerns: `empty-error-outputs`
    /// (ERR-5), `unrecognized-result-type` (RT-1), `legacy-fields-ignored` (RES-8).
    pub fn warnings(&self) -> Vec<Warning> {
        let mut warnings = Vec::new();
        match self.kind {
            ResultKind::EmptyError => {
                warnings.push(Warning { code: WarningCode::EmptyErrorOutputs, path: String::new() })
            }
            ResultKind::Unrecognized => {
                warnings.push(Warning { code: WarningCode::UnrecognizedResultType, path: "/resultType".into() })
            }
            ResultKind::Complete | ResultKind::InputRequired => {}
        }
        warnings.extend(
            self.stray
                .iter()
                .map(|field| Warning { code: WarningCode::LegacyFieldsIgnored, path: format!("/{field}") }),
        );
        warnings
    }

    /// `check`'s answer as JSON: `{}`, with `warnings` (`{code, path}` each) when any, and
    /// `resultType` for an `input_required` answer (MRTR-1) or one of another kind (RT-1).
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        match self.kind {
            ResultKind::InputRequired => {
                out.insert("resultType".into(), Value::from(INPUT_REQUIRED));
            }
            ResultKind::Unrecognized => {
                out.insert("resultType".into(), Value::from(self.result_type.as_deref().unwrap_or_default()));
            }
            ResultKind::Complete | ResultKind::EmptyError => {}
        }
        let warnings = self.warnings();
        if !warnings.is_empty() {
            out.insert("warnings".into(), crate::json::warnings(&warnings));
        }
        Value::Object(out)
    }
}

/// The `resultType` of a multi-round-trip answer.
pub(crate) const INPUT_REQUIRED: &str = "input_required";

/// A whole tools/list result as received (`discover`, LIST-2, LIST-3): the usable tools, and
/// every entry excluded on its own, with why.
#[derive(Clone, Debug)]
pub struct Discovered {
    /// Every Tool accepted for the connection, in the order received.
    pub tools: Vec<ReceivedTool>,
    /// The index in `tools` of the result of each accepted Tool.
    pub accepted: Vec<usize>,
    /// Every entry excluded, in array order (LIST-3).
    pub excluded: Vec<Excluded>,
    /// The cache fields as the client should use them, from 2026-07-28 on (CACHE-1).
    pub cache: Option<crate::wire::ListCache>,
    /// The page's `nextCursor`, as received (LIST-4).
    pub next_cursor: Option<String>,
    /// The cache repairs (CACHE-1) and the union of the accepted tools' warnings, paths under
    /// `/tools/<i>`.
    pub warnings: Vec<Warning>,
}

/// One tools/list entry a client cannot use, excluded on its own (LIST-3).
#[derive(Clone, Debug)]
pub struct Excluded {
    /// Its index in `tools`.
    pub index: usize,
    /// Its `name`, when a string.
    pub name: Option<String>,
    /// Why: what `accept` answered (code, message, and a path under `/tools/<index>`), or
    /// `duplicate-tool-name`.
    pub error: Error,
}

impl Excluded {
    /// `{ "index", "name", "code", "path", "message" }`.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("index".into(), Value::from(self.index));
        out.insert("name".into(), self.name.clone().map_or(Value::Null, Value::from));
        out.insert("code".into(), Value::from(self.error.code().as_str()));
        out.insert("path".into(), Value::from(self.error.path()));
        out.insert("message".into(), Value::from(self.error.message()));
        Value::Object(out)
    }
}

impl Discovered {
    /// `discover`'s answer as JSON: `{ "tools": [names in order], "excluded": [...],
    /// "cache"?: { "ttlMs", "cacheScope" }, "nextCursor"?, "warnings"?: [{code, path}] }`.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("tools".into(), Value::Array(self.tools.iter().map(|t| Value::from(t.name())).collect()));
        out.insert("excluded".into(), Value::Array(self.excluded.iter().map(Excluded::to_json).collect()));
        if let Some(cache) = &self.cache {
            let mut c = Map::new();
            c.insert("ttlMs".into(), Value::from(cache.ttl_ms));
            c.insert("cacheScope".into(), Value::from(cache.scope.as_str()));
            out.insert("cache".into(), Value::Object(c));
        }
        if let Some(cursor) = &self.next_cursor {
            out.insert("nextCursor".into(), Value::from(cursor.as_str()));
        }
        if !self.warnings.is_empty() {
            out.insert("warnings".into(), crate::json::warnings(&self.warnings));
        }
        Value::Object(out)
    }
}

impl ReceivedTool {
    /// Reads a whole tools/list result as received on `conn` (`discover`). The result's own
    /// shape first (`tools` an array, `resultType`, `nextCursor`, typed cache fields: else
    /// `malformed`); then, under 2026-12-01, any entry without `outputVariants` makes the whole
    /// response invalid (`missing-output-variants`: the SEP's MUST, never a switch to legacy
    /// semantics); otherwise each entry [`ReceivedTool::accept`] rejects, and each entry whose
    /// name occurs twice in the page, is excluded on its own and the others stay usable
    /// (LIST-3, the base specification's rule for malformed tool definitions). Cache fields
    /// are read as the Caching page says (CACHE-1); `nextCursor` is reported (LIST-4).
    pub fn discover(result: &Value, conn: &Connection) -> Result<Discovered> {
        let limits = conn.limits();
        limits.check_value(result, "")?;
        let obj = result.as_object().ok_or_else(|| Error::malformed("", "a tools/list result must be an object"))?;
        let list = match obj.field("tools") {
            Some(Value::Array(list)) => list,
            Some(_) => return Err(Error::malformed("/tools", "tools must be an array")),
            None => return Err(Error::malformed("", "a tools/list result must carry tools")),
        };
        limits.check_count(list.len(), limits.max_tools, "/tools", "tools")?;
        match obj.field("resultType") {
            None => {}
            Some(Value::String(s)) if s == "complete" => {}
            Some(other) => {
                return Err(Error::malformed(
                    "/resultType",
                    format!("a tools/list resultType {} is not \"complete\"", crate::jsontext::compact(other)),
                ))
            }
        }
        let next_cursor = match obj.field("nextCursor") {
            None => None,
            Some(Value::String(cursor)) => Some(cursor.clone()),
            Some(_) => return Err(Error::malformed("/nextCursor", "nextCursor must be a string")),
        };
        let mut warnings = Vec::new();
        let cache = crate::wire::ListCache::from_received(obj, conn.version(), &mut warnings)?;
        if !conn.version().is_legacy() {
            if let Some(i) = list.iter().position(|t| t.as_object().is_some_and(|t| !t.contains_key("outputVariants")))
            {
                return Err(Error::new(
                    ErrorCode::MissingOutputVariants,
                    format!("{}/outputVariants", crate::error::pointer_index("/tools", i)),
                    "a Tool without outputVariants under 2026-12-01 makes the whole tools/list response invalid",
                ));
            }
        }
        let name_of = |tool: &Value| tool.get("name").and_then(Value::as_str).map(str::to_owned);
        // Owned names: the map type the schema analysis uses already (one instantiation fewer
        // in the wasm).
        let mut uses: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for name in list.iter().filter_map(|t| t.get("name").and_then(Value::as_str)) {
            *uses.entry(name.to_owned()).or_default() += 1;
        }
        let mut tools: Vec<ReceivedTool> = Vec::with_capacity(list.len());
        let mut excluded = Vec::new();
        let mut accepted = Vec::new();
        for (i, tool) in list.iter().enumerate() {
            let path = crate::error::pointer_index("/tools", i);
            let name = name_of(tool);
            let duplicated = name.as_deref().is_some_and(|name| uses.get(name).is_some_and(|n| *n > 1));
            match ReceivedTool::accept(tool, conn) {
                Err(e) => excluded.push(Excluded { index: i, name, error: e.under(&path) }),
                Ok(_) if duplicated => excluded.push(Excluded {
                    index: i,
                    error: Error::new(
                        ErrorCode::DuplicateToolName,
                        format!("{path}/name"),
                        format!(
                            "another tool of this page is named {:?}: a host could not tell them apart",
                            name.as_deref().unwrap_or_default()
                        ),
                    ),
                    name,
                }),
                Ok(received) => {
                    warnings.extend(
                        received.warnings.iter().map(|w| Warning { code: w.code, path: format!("{path}{}", w.path) }),
                    );
                    tools.push(received);
                    accepted.push(i);
                }
            }
        }
        Ok(Discovered { tools, accepted, excluded, cache, next_cursor, warnings })
    }

    /// The Tool's `name`.
    pub fn name(&self) -> &str {
        self.tool.field("name").and_then(Value::as_str).unwrap_or_default()
    }

    /// Validates a received Tool for the connection (`accept`): under 2026-12-01 the
    /// declaration rules (DECL-1, DECL-2, FMT-2, AUD-*) and that every extension variant was
    /// negotiated; under an earlier revision a declared `outputSchema` must be a valid schema.
    pub fn accept(tool: &Value, conn: &Connection) -> Result<Self> {
        conn.limits().check_value(tool, "")?;
        let obj = check_tool_basics(tool)?;
        let (shape, warnings) = if conn.version().is_legacy() {
            let schema = match obj.field("outputSchema") {
                // The MCP schema types outputSchema as an object: a boolean schema is a shape
                // error, not a schema to compile.
                Some(schema) if !schema.is_object() => {
                    return Err(Error::malformed("/outputSchema", "outputSchema must be a JSON object"))
                }
                Some(schema) => Some(Arc::new(CompiledSchema::received(schema, "/outputSchema")?)),
                None => None,
            };
            (ReceivedShape::Legacy(schema), Vec::new())
        } else {
            let (declaration, mut warnings) = Declaration::read(obj, Judge::Client(conn))?;
            // The revision, not a field, picks the shape (VER-1): a legacy outputSchema next to
            // outputVariants is ignored, and said so.
            if obj.contains_key("outputSchema") {
                warnings.push(Warning { code: WarningCode::IgnoredOutputSchema, path: "/outputSchema".into() });
            }
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

    /// Warnings (`missing-schema`, `ignored-output-schema`).
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
        selection::select(self.declaration(), &self.conn, requested)
    }

    /// [`ReceivedTool::selection`] of a request in any representation (`crate::node`), read
    /// where it lives (the limits walk included), with the same errors.
    pub fn selection_node<F: Source>(&self, requested: Option<&NodeOf<'_, F>>) -> Result<Vec<Selector>> {
        selection::select_node::<F>(self.declaration(), &self.conn, requested)
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
        self.check_node::<SerdeJson, _>(selectors, result, &InPlace)
    }

    /// [`ReceivedTool::check_selected`] of a result in any representation (`crate::node`),
    /// read where it lives: one limits walk, then the envelope checks and the validation of
    /// each payload (by `payloads`: [`crate::payload::InPlace`] for a representation that
    /// holds its payloads itself), with the same errors in the same order.
    pub fn check_node<'r, F: Source, P: PayloadsIn<F> + ?Sized>(
        &self,
        selectors: &[Selector],
        result: NodeOf<'r, F>,
        payloads: &P,
    ) -> Result<CheckedResult<'r, F>> {
        let obj = result.as_object().ok_or_else(|| Error::malformed("", "a CallToolResult must be an object"))?;
        self.conn.limits().check_node::<F>(&result, 1, "")?;
        self.check_walked(selectors, result, obj, payloads)
    }

    /// [`ReceivedTool::check_node`] of the requested outputs as given, in the text paths' order
    /// (`check_text`): the result's limits first, then the request's faults, then the result's
    /// own. A binding that reads its caller's value in place answers as it does for its text.
    pub fn check_node_requested<'r, F: Source, P: PayloadsIn<F> + ?Sized>(
        &self,
        requested: Option<&Value>,
        result: NodeOf<'r, F>,
        payloads: &P,
    ) -> Result<CheckedResult<'r, F>> {
        self.check_node_then(|| self.selection(requested), result, payloads)
    }

    /// [`ReceivedTool::check_node_requested`] with the selection made by `select`, once the
    /// result is within the limits (a binding that caches the selection of a request it sees
    /// call after call).
    pub fn check_node_then<'r, F: Source, P: PayloadsIn<F> + ?Sized, S: AsRef<[Selector]>>(
        &self,
        select: impl FnOnce() -> Result<S>,
        result: NodeOf<'r, F>,
        payloads: &P,
    ) -> Result<CheckedResult<'r, F>> {
        self.conn.limits().check_node::<F>(&result, 1, "")?;
        let selectors = select()?;
        let obj = result.as_object().ok_or_else(|| Error::malformed("", "a CallToolResult must be an object"))?;
        self.check_walked(selectors.as_ref(), result, obj, payloads)
    }

    /// The checks of a result within the limits.
    fn check_walked<'r, F: Source, P: PayloadsIn<F> + ?Sized>(
        &self,
        selectors: &[Selector],
        result: NodeOf<'r, F>,
        obj: ObjectOf<'r, F>,
        payloads: &P,
    ) -> Result<CheckedResult<'r, F>> {
        let names = F::names();
        let limits = self.conn.limits();
        // The members the checks read, found in one pass over the result's (`Source::pick`).
        let [result_type_node, is_error, meta, outputs, content, structured] = F::pick(
            &obj,
            [
                names.result_type(),
                names.is_error(),
                names.meta(),
                names.outputs(),
                names.content(),
                names.structured_content(),
            ],
        );
        let result_type: Member<'r, F> = match &result_type_node {
            None => Member::Absent,
            Some(node) => node.as_string().map_or_else(|| Member::Other(node.clone()), Member::String),
        };
        if let Member::String(kind) = &result_type {
            if kind == INPUT_REQUIRED {
                check_input_required::<F>(&obj, self.conn.version())?;
                return Ok(CheckedResult {
                    root: result.clone(),
                    result: obj,
                    outputs: Vec::new(),
                    is_error: false,
                    meta: None,
                    kind: ResultKind::InputRequired,
                    result_type: None,
                    stray: Vec::new(),
                });
            }
            // RT-1: `resultType` is an open string from 2026-07-28 on; another kind of answer
            // belongs to the extension that defined it.
            if kind != "complete" && self.conn.version().has_result_type() {
                return Ok(CheckedResult {
                    root: result.clone(),
                    result: obj,
                    outputs: Vec::new(),
                    is_error: false,
                    meta: None,
                    kind: ResultKind::Unrecognized,
                    result_type: Some(kind.clone()),
                    stray: Vec::new(),
                });
            }
        }
        let is_error = match is_error {
            None => false,
            Some(node) => node.as_boolean().ok_or_else(|| Error::malformed("/isError", "isError must be a boolean"))?,
        };
        let meta = match meta {
            None => None,
            Some(node) => Some(node.as_object().ok_or_else(|| Error::malformed("/_meta", "_meta must be an object"))?),
        };
        match result_type {
            Member::Absent => {}
            Member::String(s) if s == "complete" => {}
            Member::String(_) | Member::Other(_) => {
                let shown = result_type_node.map(|n| crate::jsontext::compact(&n.to_value())).unwrap_or_default();
                return Err(Error::malformed(
                    "/resultType",
                    format!("resultType {shown} is neither \"complete\" nor \"input_required\""),
                ));
            }
        }
        let (outputs, empty) = match &self.shape {
            ReceivedShape::Variants(declaration) => {
                let outputs = check_outputs::<F, P>(declaration, selectors, outputs, is_error, limits, payloads)?;
                let empty = outputs.is_empty();
                (outputs, empty)
            }
            ReceivedShape::Legacy(schema) => {
                (Vec::new(), check_legacy::<F, P>(schema.as_deref(), &obj, is_error, self.conn.version(), payloads)?)
            }
        };
        let kind = if is_error && empty { ResultKind::EmptyError } else { ResultKind::Complete };
        // RES-8: a mirror beside `outputs` is not the server's answer to this request; it is
        // reported, and reaches no consumer.
        let stray = match &self.shape {
            ReceivedShape::Variants(_) => [("content", content.is_some()), ("structuredContent", structured.is_some())]
                .into_iter()
                .filter(|(_, present)| *present)
                .map(|(field, _)| field)
                .collect(),
            ReceivedShape::Legacy(_) => Vec::new(),
        };
        Ok(CheckedResult { root: result.clone(), result: obj, outputs, is_error, meta, kind, result_type: None, stray })
    }
}

/// A multi-round-trip answer (MRTR-1): only from 2026-07-28 on, with `inputRequests` (an
/// object) or `requestState` (a string), or both.
fn check_input_required<'r, F: Source>(result: &ObjectOf<'r, F>, version: crate::ProtocolVersion) -> Result<()> {
    let names = F::names();
    if !version.has_result_type() {
        return Err(Error::malformed(
            "/resultType",
            format!("resultType \"input_required\" does not exist in protocol version {version}"),
        ));
    }
    let requests = match result.get(&names.input_requests) {
        None => false,
        Some(node) if node.json_type() == JsonType::Object => true,
        Some(_) => return Err(Error::malformed("/inputRequests", "inputRequests must be an object")),
    };
    let state = match result.get(&names.request_state) {
        None => false,
        Some(node) if node.json_type() == JsonType::String => true,
        Some(_) => return Err(Error::malformed("/requestState", "requestState must be a string")),
    };
    if !requests && !state {
        return Err(Error::malformed("", "an input_required answer needs inputRequests or requestState"));
    }
    Ok(())
}

fn check_outputs<'r, F: Source, P: PayloadsIn<F> + ?Sized>(
    declaration: &Declaration,
    selectors: &[Selector],
    outputs: Option<NodeOf<'r, F>>,
    is_error: bool,
    limits: &Limits,
    payloads: &P,
) -> Result<Vec<RawOutput<'r, F>>> {
    let list = match outputs {
        Some(node) => node.as_array().ok_or_else(|| Error::malformed("/outputs", "outputs must be an array"))?,
        None => return Err(Error::malformed("", "a 2026-12-01 result must carry outputs")),
    };
    limits.check_count(list.len(), limits.max_variants, "/outputs", "outputs")?;
    // JSON types of every output first (malformed), then meaning. The one vector read here is
    // the checked result's: each output's variant is written into it as it is matched, so a
    // call allocates once for its outputs (P-RS-1).
    let mut raws: Vec<RawOutput<'r, F>> = Vec::with_capacity(list.len());
    for (i, item) in list.elements().enumerate() {
        raws.push(read_raw::<F>(item, i)?);
    }
    let variants = declaration.variants();
    for at in 0..raws.len() {
        let Some(raw) = raws.get(at) else { break };
        // RES-6: matched by selector, never by position. The declared variant is found by its
        // strings, so that a well-formed output costs no allocation.
        let Some((index, variant)) = variants.iter().enumerate().find(|(_, v)| raw.is(&v.selector)) else {
            // Not declared: the error says why (an invalid audience or pair, or simply an
            // output nobody could have requested).
            let selector = Selector::read(&raw.value.to_value(), &raw.path())?;
            return Err(Error::new(
                ErrorCode::UnrequestedOutput,
                raw.path(),
                format!("a {selector} output, which the tool does not declare and the request did not ask for"),
            ));
        };
        let selector = &variant.selector;
        // The outputs before this one are matched; the rest still hold `usize::MAX`.
        let seen = raws.iter().take(at).any(|r| r.variant == index);
        if seen || !selectors.contains(selector) {
            return Err(Error::new(
                ErrorCode::UnrequestedOutput,
                raw.path(),
                if seen {
                    format!("a second {selector} output")
                } else {
                    let asked: Vec<String> = selectors.iter().map(ToString::to_string).collect();
                    // The common mistake: a call made without requestedOutputs asks for the
                    // fallback alone (SEL-1).
                    let fallback = if selectors == [Selector::fallback()] {
                        "; a request without requestedOutputs asks for assistant/content only"
                    } else {
                        ""
                    };
                    format!(
                        "a {selector} output, which the request did not ask for (it asked for {}{fallback})",
                        asked.join(", ")
                    )
                },
            ));
        }
        raw.check_shape(selector.format)?;
        if let Some(raw) = raws.get_mut(at) {
            raw.variant = index;
        }
    }
    let variant_of = |raw: &RawOutput<'r, F>| variants.get(raw.variant);
    // ERR-5: an error result with no output is the tool's failure, kept (the caller warns).
    if !is_error {
        if let Some(missing) =
            selectors.iter().find(|s| !raws.iter().any(|r| variant_of(r).is_some_and(|v| &v.selector == *s)))
        {
            return Err(Error::new(
                ErrorCode::MissingOutput,
                "/outputs",
                format!("the result has no {missing} output, which was requested"),
            ));
        }
        for raw in &raws {
            if let Some(variant) = variant_of(raw) {
                raw.check_success(variant, payloads)?;
            }
        }
    }
    Ok(raws)
}

/// Checks a legacy result; answers whether it carries no content block (ERR-5 when an error).
fn check_legacy<'r, F: Source, P: PayloadsIn<F> + ?Sized>(
    schema: Option<&CompiledSchema>,
    result: &ObjectOf<'r, F>,
    is_error: bool,
    version: crate::ProtocolVersion,
    payloads: &P,
) -> Result<bool> {
    let names = F::names();
    let empty = match result.get(&names.content) {
        Some(content) => {
            crate::content::check_blocks_in::<F>(&content, "/content", version)?;
            content.as_array().is_some_and(|blocks| blocks.len() == 0)
        }
        None => return Err(Error::malformed("", "a legacy result must carry content")),
    };
    match (schema, result.get(&names.structured_content)) {
        (Some(schema), Some(value)) if !is_error => {
            payloads.validate(schema, &value, "/structuredContent", "structuredContent")
        }
        (Some(_), None) if !is_error => Err(Error::new(
            ErrorCode::MissingOutput,
            "",
            "the tool declares outputSchema but the result has no structuredContent",
        )),
        _ => Ok(()),
    }
    .map(|()| empty)
}
