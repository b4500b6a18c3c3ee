//! Host-side routing (ROUTE-*, META-1, APP-2, APP-5, APP-6, AUD-2): every output of a checked
//! result goes to the consumer its audience names, and nowhere else. What reaches no consumer
//! is listed in `dropped`, so a host (and the tests) can prove nothing leaked.

use crate::audience::{Audience, Format, APPS_EXTENSION};
use crate::client::{CheckedResult, ReceivedTool, ResultKind};
use crate::content::annotation_conflicts_in;
use crate::declaration::has_app_resource;
use crate::error::Result;
use crate::node::{Array as _, Node as _, NodeOf, Object as _, Out, SerdeJson, Source};
use serde_json::{json, Value};
use std::borrow::Cow;

/// Where each output of one result goes. The outputs are the result's own nodes (`crate::node`:
/// a `serde_json::Value`'s, or a binding's objects), named by their position, so a binding hands
/// back its caller's own objects.
pub struct Route<'r, F: Source = SerdeJson> {
    /// Outputs for model context (ROUTE-1), as received.
    pub model: Vec<Routed<'r, F>>,
    /// Outputs for user presentation only (ROUTE-2).
    pub user: Vec<Routed<'r, F>>,
    /// Outputs for client program logic only (ROUTE-3).
    pub programmatic: Vec<Routed<'r, F>>,
    /// Outputs of each extension audience, in order of first appearance (ROUTE-4).
    pub extensions: Vec<(Cow<'r, str>, Vec<Routed<'r, F>>)>,
    /// The Apps View payload, if the View gets one (APP-5, APP-6).
    pub view: Option<View<'r, F>>,
    /// What reached no consumer (META-1, PLAN-15).
    pub dropped: Vec<Dropped<'r>>,
    /// Findings that changed nothing (AUD-2).
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the tool reported a failure (`isError: true`): the host must tell the model a
    /// failed call from an empty success, even when nothing was routed (ERR-5).
    pub is_error: bool,
    /// Whether the answer was a multi-round-trip `input_required` (MRTR-1): nothing is routed,
    /// and the host retries the call with the same `requestedOutputs` once it has fulfilled
    /// the requests.
    pub input_required: bool,
    /// The `resultType` of an answer of another kind (RT-1): nothing is routed, and the host
    /// hands the answer to the extension that defined it.
    pub result_type: Option<Cow<'r, str>>,
}

impl<F: Source> std::fmt::Debug for Route<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Route")
            .field("model", &self.model.len())
            .field("user", &self.user.len())
            .field("programmatic", &self.programmatic.len())
            .field("extensions", &self.extensions.iter().map(|(k, v)| (k, v.len())).collect::<Vec<_>>())
            .field("view", &self.view.is_some())
            .field("dropped", &self.dropped)
            .field("diagnostics", &self.diagnostics)
            .field("is_error", &self.is_error)
            .finish_non_exhaustive()
    }
}

/// One routed output.
pub enum Routed<'r, F: Source = SerdeJson> {
    /// The element `index` of the result's `outputs`, as received.
    Output {
        /// Its position in `outputs`.
        index: usize,
        /// The output object.
        value: NodeOf<'r, F>,
    },
    /// Earlier revisions: the result's `content` for the model, as an assistant/content output
    /// (`content` absent: an empty list).
    LegacyContent(Option<NodeOf<'r, F>>),
    /// Earlier revisions: the result's `structuredContent` for the consumer the host's local
    /// rule names (LEG-8), as a structured output of its audience.
    LegacyStructured {
        /// The consumer's audience.
        audience: Cow<'r, str>,
        /// The result's `structuredContent`.
        value: NodeOf<'r, F>,
    },
}

impl<'r, F: Source> Routed<'r, F> {
    /// The output as JSON: the output itself, or the one the route builds around the result's
    /// own value.
    pub fn to_value(&self) -> Cow<'r, Value> {
        match self {
            Routed::Output { value, .. } => value.to_value(),
            built => Cow::Owned(built.to_out().into_value()),
        }
    }
}

impl<F: Source> std::fmt::Debug for Routed<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Routed::Output { index, .. } => write!(f, "Output({index})"),
            Routed::LegacyContent(_) => f.write_str("LegacyContent"),
            Routed::LegacyStructured { audience, .. } => write!(f, "LegacyStructured({audience})"),
        }
    }
}

/// The payload of `ui/notifications/tool-result` for the App View.
pub enum View<'r, F: Source = SerdeJson> {
    /// 2026-12-01: a reduced CallToolResult built from the ui output and the ui `_meta` entry
    /// alone, so existing App SDKs keep working (the project's answer to the SEP's third open
    /// question).
    Projected {
        /// The ui output's `structuredContent`.
        structured: Option<NodeOf<'r, F>>,
        /// `_meta["io.modelcontextprotocol/ui"]` of the result, if any.
        meta: Option<NodeOf<'r, F>>,
        /// Whether the result was an error.
        is_error: bool,
    },
    /// Earlier revisions: the legacy Apps flow forwards the whole result (APP-6).
    Legacy(NodeOf<'r, F>),
}

impl<F: Source> std::fmt::Debug for View<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            View::Projected { is_error, .. } => write!(f, "View::Projected(is_error: {is_error})"),
            View::Legacy(_) => f.write_str("View::Legacy"),
        }
    }
}

impl<F: Source> View<'_, F> {
    /// The JSON `params` of `ui/notifications/tool-result`.
    pub fn to_json(&self) -> Value {
        self.to_out().into_value()
    }
}

/// Something of the result that went to no consumer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dropped<'r> {
    /// A result `_meta` entry no negotiated extension forwards (META-1).
    Meta(Cow<'r, str>),
    /// A legacy `structuredContent` with no consumer under this host's defaults (LEG-5), or
    /// beside `outputs` in a 2026-12-01 result (RES-8).
    LegacyStructuredContent,
    /// A legacy `content` beside `outputs` in a 2026-12-01 result (RES-8).
    LegacyContent,
}

impl Dropped<'_> {
    /// `{ "meta": key }` or `{ "legacy": "structuredContent" }`.
    pub fn to_json(&self) -> Value {
        match self {
            Dropped::Meta(key) => json!({ "meta": key }),
            Dropped::LegacyStructuredContent => json!({ "legacy": "structuredContent" }),
            Dropped::LegacyContent => json!({ "legacy": "content" }),
        }
    }
}

/// A finding reported, never obeyed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Diagnostic {
    /// A block's `annotations.audience` does not include its output's audience (AUD-2).
    AnnotationAudienceConflict {
        /// JSON Pointer of the block in the result.
        path: String,
    },
    /// An error result with no output, kept as the tool's failure (ERR-5).
    EmptyErrorOutputs,
    /// A legacy field beside `outputs` in a 2026-12-01 result, delivered to no consumer (RES-8).
    LegacyFieldsIgnored {
        /// JSON Pointer of the field in the result.
        path: String,
    },
}

impl Diagnostic {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        match self {
            Diagnostic::AnnotationAudienceConflict { .. } => "annotation-audience-conflict",
            Diagnostic::EmptyErrorOutputs => crate::WarningCode::EmptyErrorOutputs.as_str(),
            Diagnostic::LegacyFieldsIgnored { .. } => crate::WarningCode::LegacyFieldsIgnored.as_str(),
        }
    }

    /// The JSON Pointer of the place in the result it concerns (`""`: the whole result).
    pub fn path(&self) -> &str {
        match self {
            Diagnostic::AnnotationAudienceConflict { path } | Diagnostic::LegacyFieldsIgnored { path } => path,
            Diagnostic::EmptyErrorOutputs => "",
        }
    }
}

impl ReceivedTool {
    /// Checks `result` (see [`ReceivedTool::check`]) and routes it. An invalid result is that
    /// error, and nothing is routed.
    pub fn route<'r>(&self, requested: Option<&Value>, result: &'r Value) -> Result<Route<'r>> {
        let checked = self.check(requested, result)?;
        Ok(self.route_checked(&checked, result))
    }

    /// [`ReceivedTool::route`] for selectors already resolved (a [`crate::Plan`]'s, or
    /// [`ReceivedTool::selection`]'s).
    pub fn route_selected<'r>(&self, selectors: &[crate::Selector], result: &'r Value) -> Result<Route<'r>> {
        let checked = self.check_selected(selectors, result)?;
        Ok(self.route_checked(&checked, result))
    }

    /// [`ReceivedTool::route`] with a local selection rule for an older server (LEG-8): under
    /// an earlier revision a present `structuredContent` goes to `legacy_structured` (see
    /// [`ReceivedTool::legacy_consumer`]) instead of `dropped`. Ignored under 2026-12-01.
    pub fn route_with<'r>(
        &self,
        requested: Option<&Value>,
        legacy_structured: Option<&Audience>,
        result: &'r Value,
    ) -> Result<Route<'r>> {
        let checked = self.check(requested, result)?;
        Ok(self.route_checked_with(&checked, result, legacy_structured))
    }

    /// [`ReceivedTool::route_with`] for selectors already resolved (see
    /// [`ReceivedTool::selection`]): a caller that sees the same requested outputs call after
    /// call resolves them once.
    pub fn route_selected_with<'r>(
        &self,
        selectors: &[crate::Selector],
        legacy_structured: Option<&Audience>,
        result: &'r Value,
    ) -> Result<Route<'r>> {
        let checked = self.check_selected(selectors, result)?;
        Ok(self.route_checked_with(&checked, result, legacy_structured))
    }

    /// Routes a result that passed [`ReceivedTool::check`].
    pub fn route_checked<'r>(&self, checked: &CheckedResult<'r>, _result: &'r Value) -> Route<'r> {
        self.route_node(checked, None)
    }

    /// [`ReceivedTool::route_checked`] with a local selection rule for an older server (LEG-8).
    pub fn route_checked_with<'r>(
        &self,
        checked: &CheckedResult<'r>,
        _result: &'r Value,
        legacy_structured: Option<&Audience>,
    ) -> Route<'r> {
        self.route_node(checked, legacy_structured)
    }

    /// Routes a result of any representation that passed [`ReceivedTool::check_node`], with a
    /// local selection rule for an older server (LEG-8).
    pub fn route_node<'r, F: Source>(
        &self,
        checked: &CheckedResult<'r, F>,
        legacy_structured: Option<&Audience>,
    ) -> Route<'r, F> {
        let mut route = Route {
            model: Vec::new(),
            user: Vec::new(),
            programmatic: Vec::new(),
            extensions: Vec::new(),
            view: None,
            dropped: Vec::new(),
            diagnostics: Vec::new(),
            is_error: checked.is_error,
            input_required: false,
            result_type: None,
        };
        match checked.kind {
            ResultKind::InputRequired => {
                route.input_required = true;
                return route;
            }
            ResultKind::Unrecognized => {
                route.result_type = checked.result_type.clone();
                return route;
            }
            ResultKind::EmptyError => route.diagnostics.push(Diagnostic::EmptyErrorOutputs),
            ResultKind::Complete => {}
        }
        if self.connection().version().is_legacy() {
            self.route_legacy(checked, legacy_structured, &mut route);
            return route;
        }
        let conn = self.connection();
        let Some(declaration) = self.declaration() else {
            return route;
        };
        let names = F::names();
        for field in &checked.stray {
            route.dropped.push(if *field == "content" {
                Dropped::LegacyContent
            } else {
                Dropped::LegacyStructuredContent
            });
            route.diagnostics.push(Diagnostic::LegacyFieldsIgnored { path: format!("/{field}") });
        }
        for output in &checked.outputs {
            let Some(variant) = declaration.variants().get(output.variant) else {
                continue;
            };
            let selector = &variant.selector;
            let value = &output.value;
            let routed = || Routed::Output { index: output.index, value: value.clone() };
            // AUD-2 compares a block's annotation roles with the output's: only the core
            // audiences that are roles (assistant, user) can conflict.
            let role = matches!(selector.audience, Audience::Assistant | Audience::User);
            if role && selector.format == Format::Content {
                if let Some(blocks) = output.blocks() {
                    for (b, block) in blocks.elements().enumerate() {
                        if annotation_conflicts_in::<F>(&block, &output.audience) {
                            route.diagnostics.push(Diagnostic::AnnotationAudienceConflict {
                                path: format!("/outputs/{}/content/{b}", output.index),
                            });
                        }
                    }
                }
            }
            match &selector.audience {
                Audience::Assistant => route.model.push(routed()),
                Audience::User => route.user.push(routed()),
                Audience::Programmatic => route.programmatic.push(routed()),
                Audience::Extension(id) => {
                    route.push_extension(output.audience.clone(), routed());
                    if conn.negotiated_extension(id).is_some_and(|d| d.model_context) {
                        route.model.push(routed());
                    }
                    if id == APPS_EXTENSION && selector.format == Format::Structured {
                        route.view = Some(View::Projected {
                            structured: output.structured(),
                            meta: checked.meta.as_ref().and_then(|m| m.get(&names.apps)),
                            is_error: checked.is_error,
                        });
                    }
                }
            }
        }
        if let Some(meta) = &checked.meta {
            // META-1: an entry reaches a consumer only when a negotiated extension whose
            // output is in this result defines it.
            // Only an extension audience has a definition (a registered id is never a core
            // audience), so a core output is not looked up.
            let forwarded = |key: &str| {
                checked.outputs.iter().any(|o| {
                    matches!(
                        declaration.variants().get(o.variant).map(|v| &v.selector.audience),
                        Some(Audience::Extension(_))
                    ) && conn.negotiated_extension(&o.audience).and_then(|d| d.meta_key.as_deref()) == Some(key)
                })
            };
            for (key, _) in meta.members() {
                if !forwarded(key.as_ref()) {
                    route.dropped.push(Dropped::Meta(key.into()));
                }
            }
        }
        route
    }

    fn route_legacy<'r, F: Source>(
        &self,
        checked: &CheckedResult<'r, F>,
        legacy_structured: Option<&Audience>,
        route: &mut Route<'r, F>,
    ) {
        let names = F::names();
        // The SEP's migration mapping and today's host convention: legacy content is for the
        // model. A host default, not a claim about the server's intent (LEG-5).
        // An error with no content block carries nothing for the model (ERR-5).
        if checked.kind != ResultKind::EmptyError {
            route.model.push(Routed::LegacyContent(checked.result.get(&names.content)));
        }
        let apps = self.connection().negotiated_extension(APPS_EXTENSION).is_some() && has_app_resource(self.tool());
        if apps {
            route.view = Some(View::Legacy(checked.root.clone()));
            return;
        }
        if let Some(meta) = &checked.meta {
            route.dropped.extend(meta.members().map(|(k, _)| Dropped::Meta(k.into())));
        }
        let Some(value) = checked.result.get(&names.structured_content) else {
            return;
        };
        // LEG-8: the host's local rule names the consumer; without one the value reaches none.
        let Some(consumer) = legacy_structured else {
            route.dropped.push(Dropped::LegacyStructuredContent);
            return;
        };
        let output = Routed::LegacyStructured { audience: Cow::Owned(consumer.as_str().to_owned()), value };
        match consumer {
            Audience::Assistant => route.model.push(output),
            Audience::User => route.user.push(output),
            Audience::Programmatic => route.programmatic.push(output),
            Audience::Extension(id) => route.push_extension(Cow::Owned(id.clone()), output),
        }
    }
}

impl<'r, F: Source> Route<'r, F> {
    fn push_extension(&mut self, id: Cow<'r, str>, output: Routed<'r, F>) {
        match self.extensions.iter_mut().find(|(k, _)| *k == id) {
            Some((_, list)) => list.push(output),
            None => self.extensions.push((id, vec![output])),
        }
    }
}

impl<'r, F: Source> Routed<'r, F> {
    /// The output as an answer in terms of the caller's value ([`Out`]): the output itself, or
    /// the one the route builds around the result's own value.
    pub fn to_out(&self) -> Out<'r, F> {
        match self {
            Routed::Output { value, .. } => Out::Node(value.clone()),
            Routed::LegacyContent(content) => Out::Object(vec![
                Out::member("audience", "assistant"),
                Out::member("format", "content"),
                (
                    Cow::Borrowed("content"),
                    content.as_ref().map_or(Out::Value(Value::Array(Vec::new())), |c| Out::Node(c.clone())),
                ),
            ]),
            Routed::LegacyStructured { audience, value } => Out::Object(vec![
                (Cow::Borrowed("audience"), Out::Value(Value::from(audience.as_ref()))),
                Out::member("format", "structured"),
                (Cow::Borrowed("structuredContent"), Out::Node(value.clone())),
            ]),
        }
    }
}

impl<'r, F: Source> View<'r, F> {
    /// The View payload as an answer in terms of the caller's value ([`Out`]).
    pub fn to_out(&self) -> Out<'r, F> {
        match self {
            View::Legacy(result) => Out::Node(result.clone()),
            View::Projected { structured, meta, is_error } => {
                let mut members = vec![
                    Out::member("content", Value::Array(Vec::new())),
                    (Cow::Borrowed("structuredContent"), structured.clone().map_or(Out::Value(Value::Null), Out::Node)),
                ];
                if let Some(meta) = meta {
                    members.push((
                        Cow::Borrowed("_meta"),
                        Out::Object(vec![(Cow::Borrowed(APPS_EXTENSION), Out::Node(meta.clone()))]),
                    ));
                }
                if *is_error {
                    members.push(Out::member("isError", true));
                }
                Out::Object(members)
            }
        }
    }
}

impl<'r, F: Source> Route<'r, F> {
    /// The JSON form of [`Route::to_json`] in terms of the caller's value ([`Out`]): every
    /// routed output, payload and result is the caller's own node; a binding hands them back as
    /// its caller's objects.
    pub fn to_out(&self) -> Out<'r, F> {
        self.to_out_with(&Routed::to_out)
    }

    /// [`Route::to_out`] with each routed output written by `item` (a binding that hands back
    /// its caller's outputs by their index writes [`Routed::Output`] as that index).
    // `&dyn`: one copy of the function per representation, not per caller's closure.
    pub fn to_out_with(&self, item: &dyn Fn(&Routed<'r, F>) -> Out<'r, F>) -> Out<'r, F> {
        if self.input_required {
            // MRTR-1: a route without the eight keys.
            return Out::Value(json!({ "resultType": crate::client::INPUT_REQUIRED }));
        }
        if let Some(result_type) = &self.result_type {
            // RT-1: nothing routed; the answer is the defining extension's.
            return Out::Value(json!({ "resultType": result_type }));
        }
        let list = |items: &[Routed<'r, F>]| Out::Array(items.iter().map(item).collect());
        let extensions = self.extensions.iter().map(|(id, outputs)| (id.clone(), list(outputs))).collect();
        let diagnostics: Vec<Value> =
            self.diagnostics.iter().map(|d| crate::json::finding(d.code(), d.path())).collect();
        Out::Object(vec![
            (Cow::Borrowed("model"), list(&self.model)),
            (Cow::Borrowed("user"), list(&self.user)),
            (Cow::Borrowed("programmatic"), list(&self.programmatic)),
            (Cow::Borrowed("extensions"), Out::Object(extensions)),
            (Cow::Borrowed("view"), self.view.as_ref().map_or(Out::Value(Value::Null), View::to_out)),
            Out::member("dropped", self.dropped.iter().map(Dropped::to_json).collect::<Vec<_>>()),
            Out::member("diagnostics", diagnostics),
            Out::member("isError", self.is_error),
        ])
    }
}

impl<F: Source> Route<'_, F> {
    /// The JSON form: `{ model, user, programmatic, extensions, view, dropped, diagnostics,
    /// isError }`, every key always present; `{ "resultType": "input_required" }` for a
    /// multi-round-trip answer (MRTR-1).
    pub fn to_json(&self) -> Value {
        self.to_out().into_value()
    }

    /// The JSON form with each routed output written by `item` (a copy, or a reference the
    /// caller resolves; see `Route::to_json_indexed`).
    pub fn render(&self, item: &dyn Fn(&Routed<'_, F>) -> Value) -> Value {
        self.to_out_with(&|routed| Out::Value(item(routed))).into_value()
    }
}
