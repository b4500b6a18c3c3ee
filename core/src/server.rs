//! The server side: declare a tool once, then per connection advertise it, select the
//! requested outputs and assemble the result on the wire (new or legacy shape).

use crate::audience::Selector;
use crate::connection::{Config, Connection};
use crate::content::project_blocks_in;
use crate::declaration::{check_tool_basics, Declaration, Judge, Warning};
use crate::error::{Error, ErrorCode, Result, ServerArgument};
use crate::fields::Field;
use crate::legacy::{legacy_tool, validate_source, LegacyOptions, Projection};
use crate::node::{Array as _, Node as _, NodeOf, Object as _, ObjectOf, Out, SerdeJson, Source};
use crate::output::{read_raw, RawOutput};
use crate::payload::{InPlace, PayloadsIn};
use crate::selection;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::Arc;

/// A tool declaration validated and compiled once (every schema compiled a single time),
/// ready to serve any number of connections and calls.
#[derive(Clone, Debug)]
pub struct ServerTool {
    tool: Map<String, Value>,
    declaration: Declaration,
    legacy: LegacyOptions,
    warnings: Vec<Warning>,
    config: Arc<Config>,
}

/// What a tool produced for one call: every output it computed, `isError` and `_meta`.
/// Outputs nobody requested are left out of the result, unvalidated.
#[derive(Clone, Copy, Debug)]
pub struct Produced<'v> {
    value: &'v Value,
}

impl<'v> Produced<'v> {
    /// Wraps `{ "outputs": [...], "isError"?, "_meta"? }`.
    pub fn new(value: &'v Value) -> Self {
        Produced { value }
    }
}

impl ServerTool {
    /// Validates and compiles a full 2026-12-01 declaration (`declare`), with optional legacy
    /// options. Never looks at negotiation. Errors carry JSON-RPC -32603: a bad declaration is
    /// the server's own fault.
    pub fn declare(tool: &Value, legacy: Option<&Value>, config: &Arc<Config>) -> Result<Self> {
        ServerTool::declare_inner(tool, legacy, config).map_err(|e| ServerArgument::Tool.fault(e))
    }

    fn declare_inner(tool: &Value, legacy: Option<&Value>, config: &Arc<Config>) -> Result<Self> {
        config.limits.check_value(tool, "")?;
        if let Some(legacy) = legacy {
            config.limits.check_value(legacy, "")?;
        }
        let obj = check_tool_basics(tool)?;
        // A legacy-shaped Tool (no outputVariants) is reported as such (VER-2), even when it
        // carries the legacy outputSchema.
        if obj.contains_key("outputSchema") && obj.contains_key("outputVariants") {
            return Err(Error::malformed(
                "/outputSchema",
                "a 2026-12-01 declaration has no top-level outputSchema: put an established legacy schema in the legacy options",
            ));
        }
        let (declaration, warnings) = Declaration::read(obj, Judge::Server(config))?;
        // The legacy options are a second argument: their paths say so.
        let legacy = LegacyOptions::from_json(legacy, &declaration)
            .and_then(|options| options.check_possible_source(&declaration, &config.registry).map(|()| options))
            .map_err(|e| e.under("/legacy"))?;
        Ok(ServerTool { tool: obj.clone(), declaration, legacy, warnings, config: Arc::clone(config) })
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        self.tool.field("name").and_then(Value::as_str).unwrap_or_default()
    }

    /// Warnings found when declaring (`missing-schema`).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The validated variants.
    pub fn declaration(&self) -> &Declaration {
        &self.declaration
    }

    /// The library configuration the tool was declared with.
    pub fn config(&self) -> &Arc<Config> {
        &self.config
    }

    /// The Tool object to send in tools/list on `conn` (DECL-5, LEG-1): under 2026-12-01 the
    /// declaration with `outputVariants` filtered to the audiences the connection negotiated;
    /// under an earlier revision the legacy shape.
    pub fn advertise(&self, conn: &Connection) -> Value {
        if conn.version().is_legacy() {
            let projection = Projection::new(&self.declaration, &self.legacy, conn);
            return legacy_tool(&self.tool, &projection);
        }
        let mut out = self.tool.clone();
        let visible: Vec<Value> = self
            .declaration
            .variants()
            .iter()
            .filter(|v| conn.allows(&v.selector.audience))
            .map(|v| v.raw.clone())
            .collect();
        out.insert("outputVariants".into(), Value::Array(visible));
        Value::Object(out)
    }

    /// Resolves a request's `requestedOutputs` (SEL-*). Errors carry JSON-RPC -32602.
    pub fn select(&self, conn: &Connection, requested: Option<&Value>) -> Result<Vec<Selector>> {
        self.select_inner(conn, requested).map_err(|e| ServerArgument::Request.fault(e))
    }

    fn select_inner(&self, conn: &Connection, requested: Option<&Value>) -> Result<Vec<Selector>> {
        selection::select(Some(&self.declaration), conn, requested)
    }

    /// [`ServerTool::select`] of a request in any representation (`crate::node`), read where it
    /// lives (the limits walk included), with the same errors and code.
    pub fn select_node<F: Source>(
        &self,
        conn: &Connection,
        requested: Option<&NodeOf<'_, F>>,
    ) -> Result<Vec<Selector>> {
        selection::select_node::<F>(Some(&self.declaration), conn, requested)
            .map_err(|e| ServerArgument::Request.fault(e))
    }

    /// Assembles the CallToolResult for the wire (RES-*, ERR-*, LEG-2..7): selection errors
    /// are -32602, faults of the produced outputs -32603 (ERR-4: never an empty `outputs`).
    pub fn respond(&self, conn: &Connection, requested: Option<&Value>, produced: Produced<'_>) -> Result<Value> {
        let selectors = self.select(conn, requested)?;
        self.assemble(conn, &selectors, produced).map_err(|e| ServerArgument::Tool.fault(e))
    }

    /// [`ServerTool::respond`] of what a tool produced, in any representation (`crate::node`),
    /// read where it lives (see [`ServerTool::assemble_node`]), with `respond`'s codes.
    pub fn respond_node<'v, F: Source, P: PayloadsIn<F> + ?Sized>(
        &self,
        conn: &Connection,
        requested: Option<&Value>,
        produced: NodeOf<'v, F>,
        payloads: &P,
    ) -> Result<Out<'v, F>> {
        let selectors = self.select(conn, requested)?;
        self.respond_selected(conn, &selectors, produced, payloads)
    }

    /// [`ServerTool::respond_node`] for a request already selected ([`ServerTool::select`],
    /// [`ServerTool::select_node`]: its faults come first): the produced outputs' faults are the
    /// tool's (-32603).
    pub fn respond_selected<'v, F: Source, P: PayloadsIn<F> + ?Sized>(
        &self,
        conn: &Connection,
        selectors: &[Selector],
        produced: NodeOf<'v, F>,
        payloads: &P,
    ) -> Result<Out<'v, F>> {
        self.assemble_node(conn, selectors, produced, payloads).map_err(|e| ServerArgument::Tool.fault(e))
    }

    /// Assembles a result for selectors already resolved by [`ServerTool::select`].
    pub fn assemble(&self, conn: &Connection, selectors: &[Selector], produced: Produced<'_>) -> Result<Value> {
        Ok(self.assemble_node::<SerdeJson, _>(conn, selectors, produced.value, &InPlace)?.into_value())
    }

    /// [`ServerTool::assemble`] of what a tool produced, in any representation (`crate::node`),
    /// read where it lives: the result names the caller's own outputs, blocks and payloads
    /// ([`Out::Node`]) around what the core builds. Faults are the tool's, as `assemble`'s.
    pub fn assemble_node<'v, F: Source, P: PayloadsIn<F> + ?Sized>(
        &self,
        conn: &Connection,
        selectors: &[Selector],
        produced: NodeOf<'v, F>,
        payloads: &P,
    ) -> Result<Out<'v, F>> {
        let produced = ProducedParts::read(produced, conn)?;
        if conn.version().is_legacy() {
            self.assemble_legacy(conn, &produced, payloads)
        } else {
            self.assemble_outputs(selectors, &produced, payloads)
        }
    }

    fn assemble_outputs<'v, F: Source, P: PayloadsIn<F> + ?Sized>(
        &self,
        selectors: &[Selector],
        produced: &ProducedParts<'v, '_, F>,
        payloads: &P,
    ) -> Result<Out<'v, F>> {
        let mut outputs = Vec::with_capacity(selectors.len());
        let mut sent: Vec<&str> = Vec::with_capacity(selectors.len());
        for selector in selectors {
            let Some(output) = produced.find(selector)? else {
                if produced.is_error {
                    continue; // ERR-1: an error result may carry a subset.
                }
                return Err(Error::new(
                    ErrorCode::MissingOutput,
                    "/outputs",
                    format!("the tool produced no {selector} output, which the request asked for"),
                ));
            };
            output.check_shape(selector.format)?;
            if !produced.is_error {
                // ERR-2: error outputs are not held to the success schema.
                if let Some(variant) = self.declaration.get(selector) {
                    output.check_success(variant, payloads)?;
                }
            }
            outputs.push(Out::Node(output.value.clone()));
            sent.push(selector.audience.as_str());
        }
        if outputs.is_empty() {
            return Err(Error::new(
                ErrorCode::EmptyErrorOutputs,
                "/outputs",
                "the tool produced none of the requested error representations",
            ));
        }
        let mut result = vec![Out::member("resultType", "complete"), (Cow::Borrowed("outputs"), Out::Array(outputs))];
        produced.finish(&mut result, |extension| sent.contains(&extension));
        Ok(Out::Object(result))
    }

    fn assemble_legacy<'v, F: Source, P: PayloadsIn<F> + ?Sized>(
        &self,
        conn: &Connection,
        produced: &ProducedParts<'v, '_, F>,
        payloads: &P,
    ) -> Result<Out<'v, F>> {
        let fallback = Selector::fallback();
        let assistant = match produced.find(&fallback)? {
            Some(output) => output,
            None if produced.is_error => {
                return Err(Error::new(
                    ErrorCode::EmptyErrorOutputs,
                    "/outputs",
                    "an error result needs assistant/content to build legacy content",
                ))
            }
            None => {
                return Err(Error::new(
                    ErrorCode::MissingOutput,
                    "/outputs",
                    "legacy content is built from assistant/content, which the tool did not produce",
                ))
            }
        };
        assistant.check_shape(fallback.format)?;
        if !produced.is_error {
            if let Some(variant) = self.declaration.get(&fallback) {
                assistant.check_success(variant, payloads)?;
            }
        }
        let mut content = match assistant.blocks() {
            Some(blocks) => project_blocks_in::<F>(&blocks, conn.version()),
            None => Vec::new(),
        };
        let projection = Projection::new(&self.declaration, &self.legacy, conn);
        let mut structured = None;
        // Revisions without structured output neither send nor validate a structured value.
        let carried = projection.carriage != crate::version::LegacyStructured::None;
        // META-2: the source's `_meta` entry goes out when the source was produced, whether or
        // not this revision can carry its value.
        let source_produced = match projection.source {
            Some(variant) => produced.find(&variant.selector)?.is_some(),
            None => false,
        };
        if carried && (projection.output_schema().is_some() || projection.source.is_some()) {
            let source = match projection.source {
                Some(variant) => produced.find(&variant.selector)?,
                None => None,
            };
            match source {
                Some(output) => {
                    output.check_shape(crate::audience::Format::Structured)?;
                    if let Some(value) = output.structured() {
                        if !produced.is_error {
                            validate_source::<F, P>(&projection, &value, &output.path(), payloads)?;
                        }
                        let projected = projection.structured_in::<F, P>(&value, self.legacy.mirror, payloads)?;
                        if let Some((value, mirror)) = projected {
                            structured = Some(value);
                            content.extend(mirror.map(Out::Value));
                        }
                    }
                }
                // LEG-7: old clients fail hard on an advertised outputSchema without a value.
                None if projection.output_schema().is_some() && !produced.is_error => {
                    return Err(Error::new(
                        ErrorCode::MissingOutput,
                        "/outputs",
                        "the legacy Tool advertises outputSchema, but the tool produced no output to send as structuredContent",
                    ))
                }
                None => {}
            }
        }
        let mut result = Vec::new();
        if conn.version().has_result_type() {
            result.push(Out::member("resultType", "complete"));
        }
        result.push((Cow::Borrowed("content"), Out::Array(content)));
        if let Some(value) = structured {
            result.push((Cow::Borrowed("structuredContent"), value));
        }
        let source = projection.source.filter(|_| source_produced).and_then(|v| v.selector.audience.extension());
        produced.finish(&mut result, |extension| source == Some(extension));
        Ok(Out::Object(result))
    }
}

/// The parts of a `produced` object, type-checked.
struct ProducedParts<'v, 'c, F: Source> {
    outputs: Vec<RawOutput<'v, F>>,
    is_error: bool,
    meta: Option<ObjectOf<'v, F>>,
    conn: &'c Connection,
}

impl<'v, 'c, F: Source> ProducedParts<'v, 'c, F> {
    fn read(value: NodeOf<'v, F>, conn: &'c Connection) -> Result<Self> {
        let names = F::names();
        let limits = conn.limits();
        limits.check_node::<F>(&value, 1, "")?;
        let obj = value.as_object().ok_or_else(|| Error::malformed("", "produced must be an object"))?;
        let list = obj
            .get(&names.outputs)
            .and_then(|list| list.as_array())
            .ok_or_else(|| Error::malformed("/outputs", "produced.outputs must be an array"))?;
        limits.check_count(list.len(), limits.max_variants, "/outputs", "produced outputs")?;
        let outputs = list.elements().enumerate().map(|(i, item)| read_raw::<F>(item, i)).collect::<Result<_>>()?;
        let is_error = match obj.get(&names.is_error) {
            None => false,
            Some(node) => node.as_boolean().ok_or_else(|| Error::malformed("/isError", "isError must be a boolean"))?,
        };
        let meta = match obj.get(&names.meta) {
            None => None,
            Some(node) => Some(node.as_object().ok_or_else(|| Error::malformed("/_meta", "_meta must be an object"))?),
        };
        Ok(ProducedParts { outputs, is_error, meta, conn })
    }

    /// The one produced output for `selector`; two for the same selector is `malformed`
    /// (the server cannot choose).
    fn find(&self, selector: &Selector) -> Result<Option<&RawOutput<'v, F>>> {
        let mut matches = self.outputs.iter().filter(|o| o.is(selector));
        let first = matches.next();
        if let Some(second) = matches.next() {
            return Err(Error::malformed(second.path(), format!("the tool produced two {selector} outputs")));
        }
        Ok(first)
    }

    /// Adds `isError` (only when true) and `_meta` to a result. `_meta` is minimised (META-2):
    /// a registered extension's `metaKey` entry is sent only when that extension is negotiated
    /// and `delivered(extension id)` says its data is in this response; every other key passes
    /// unchanged, and `_meta` is present exactly when the tool produced one (maybe `{}`).
    fn finish(&self, result: &mut Vec<(Cow<'v, str>, Out<'v, F>)>, delivered: impl Fn(&str) -> bool) {
        if self.is_error {
            result.push(Out::member("isError", true));
        }
        let Some(meta) = &self.meta else {
            return;
        };
        let definitions = self.conn.config().registry.definitions();
        let keep = |key: &str| {
            let mut owners = definitions.iter().filter(|d| d.meta_key.as_deref() == Some(key)).peekable();
            owners.peek().is_none()
                || owners.any(|d| self.conn.negotiated_extension(&d.id).is_some() && delivered(&d.id))
        };
        let sent = meta.members().filter(|(k, _)| keep(k.as_ref())).map(|(k, v)| (k.into(), Out::Node(v))).collect();
        result.push((Cow::Borrowed("_meta"), Out::Object(sent)));
    }
}
