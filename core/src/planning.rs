//! Client planning (SEL-1, SEL-2, SEL-6, SEL-7, DECL-7): from the host's execution mode or
//! active consumers to the `requestedOutputs` it sends, and the schema it shows a model for
//! each requested structured variant. `requestedOutputs` is control data chosen here, by the
//! host, never taken from model-generated `arguments`.

use crate::audience::{Audience, Format, Selector, APPS_EXTENSION};
use crate::client::ReceivedTool;
use crate::declaration::has_app_resource;
use crate::error::{Error, ErrorCode, Result};
use crate::selection;
use serde_json::Value;

/// A host execution mode: a shorthand for a list of consumers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// assistant/content.
    Conversational,
    /// programmatic/structured.
    Code,
    /// assistant/structured.
    StructuredModel,
    /// user/content.
    UserMedia,
    /// user/structured.
    HostTable,
    /// assistant/content + io.modelcontextprotocol/ui/structured.
    Apps,
    /// io.modelcontextprotocol/ui/structured.
    AppOnly,
}

impl Mode {
    /// Every mode.
    pub const ALL: [Mode; 7] = [
        Mode::Conversational,
        Mode::Code,
        Mode::StructuredModel,
        Mode::UserMedia,
        Mode::HostTable,
        Mode::Apps,
        Mode::AppOnly,
    ];

    /// Parses the kebab-case name; an unknown one is `malformed`.
    pub fn parse(text: &str) -> Result<Self> {
        Mode::ALL.into_iter().find(|m| m.as_str() == text).ok_or_else(|| {
            let modes: Vec<&str> = Mode::ALL.iter().map(|m| m.as_str()).collect();
            Error::malformed("/mode", format!("unknown execution mode {text:?} (modes: {})", modes.join(", ")))
        })
    }

    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Conversational => "conversational",
            Mode::Code => "code",
            Mode::StructuredModel => "structured-model",
            Mode::UserMedia => "user-media",
            Mode::HostTable => "host-table",
            Mode::Apps => "apps",
            Mode::AppOnly => "app-only",
        }
    }

    /// The consumers the mode stands for.
    pub fn consumers(self) -> Vec<Selector> {
        let ui = || Selector::new(Audience::Extension(APPS_EXTENSION.to_owned()), Format::Structured);
        match self {
            Mode::Conversational => vec![Selector::fallback()],
            Mode::Code => vec![Selector::new(Audience::Programmatic, Format::Structured)],
            Mode::StructuredModel => vec![Selector::new(Audience::Assistant, Format::Structured)],
            Mode::UserMedia => vec![Selector::new(Audience::User, Format::Content)],
            Mode::HostTable => vec![Selector::new(Audience::User, Format::Structured)],
            Mode::Apps => vec![Selector::fallback(), ui()],
            Mode::AppOnly => vec![ui()],
        }
    }
}

/// What the plan asks for.
#[derive(Clone, Debug, Default)]
pub struct PlanOptions {
    /// DECL-7: refuse to request a structured variant that declares no schema.
    pub require_schema: bool,
}

/// The outcome of planning one call.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The selectors the call asks for (the fallback when the field is omitted).
    pub selectors: Vec<Selector>,
    /// Whether the request omits `requestedOutputs` (it asks for exactly the fallback, or
    /// the revision predates the field).
    pub omit: bool,
    /// For each requested structured variant, in request order, the schema to show a model
    /// (SEL-7): the declared one, or `None`. Under an earlier revision, the legacy
    /// `outputSchema` for the consumer of `legacy_structured`, if any.
    pub schemas: Vec<(Selector, Option<Value>)>,
    /// Under an earlier revision, the local rule for legacy `structuredContent` (LEG-8): the
    /// consumer that gets it (`route`'s `legacyStructured`). Never part of the request.
    pub legacy_structured: Option<Audience>,
}

impl Plan {
    /// `requestedOutputs` as sent, or `None` when omitted.
    pub fn requested_outputs(&self) -> Option<Value> {
        (!self.omit).then(|| selection::to_json(&self.selectors))
    }

    /// Reads a plan as [`ReceivedTool::plan_json`] writes it, `{"requestedOutputs"?,
    /// "schemas"?}`, e.g. handed back by a binding's caller to build the tools/call params.
    /// `legacyStructured` is not read either: it is the host's own rule, not part of a request.
    /// `requestedOutputs` (absent or `null`: omitted) is checked for shape
    /// ([`selection::check_shape`]) and each selector read, so a bad one is `malformed`,
    /// `invalid-audience` or `invalid-combination` under `/requestedOutputs`; the server rules
    /// on the rest. `schemas` is not read: a request carries no schema.
    pub fn from_json(plan: &Value, limits: &crate::Limits) -> Result<Plan> {
        let obj = plan.as_object().ok_or_else(|| Error::malformed("", "a plan must be an object"))?;
        let Some(requested) = obj.get("requestedOutputs").filter(|v| !v.is_null()) else {
            return Ok(Plan {
                selectors: vec![Selector::fallback()],
                omit: true,
                schemas: Vec::new(),
                legacy_structured: None,
            });
        };
        selection::check_shape(requested, limits)?;
        let selectors = requested
            .as_array()
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .enumerate()
            .map(|(i, item)| Selector::read(item, &crate::error::pointer_index(selection::REQUESTED_OUTPUTS, i)))
            .collect::<Result<Vec<_>>>()?;
        // Kept as given, even exactly the fallback: the caller chose to send the field.
        Ok(Plan { selectors, omit: false, schemas: Vec::new(), legacy_structured: None })
    }

    /// `legacyStructured` as `plan` answers it, when the plan names a legacy rule.
    pub fn legacy_structured_json(&self) -> Option<Value> {
        self.legacy_structured.as_ref().map(|a| Value::from(a.as_str()))
    }

    /// The schemas as `[{audience, format, schema}]`.
    pub fn schemas_json(&self) -> Value {
        Value::Array(
            self.schemas
                .iter()
                .map(|(s, schema)| {
                    crate::fields::object(vec![
                        ("audience", Value::from(s.audience.as_str())),
                        ("format", Value::from("structured")),
                        ("schema", schema.clone().unwrap_or(Value::Null)),
                    ])
                })
                .collect(),
        )
    }
}

impl ReceivedTool {
    /// Plans `requestedOutputs` for the consumers given as JSON selectors.
    pub fn plan_consumers(&self, consumers: &Value, options: &PlanOptions) -> Result<Plan> {
        self.connection().limits().check_value(consumers, "/consumers")?;
        let items = consumers
            .as_array()
            .ok_or_else(|| Error::malformed("/consumers", "consumers must be an array of selectors"))?;
        // The consumers become the request: the request's own rules apply to them.
        let wrapped = Value::Array(items.clone());
        self.plan_from(Some(&wrapped), options)
    }

    /// Plans `requestedOutputs` for an execution mode. Under an earlier revision no
    /// `requestedOutputs` is sent and the mode names a local rule instead (LEG-8, SEL-2).
    pub fn plan_mode(&self, mode: Mode, options: &PlanOptions) -> Result<Plan> {
        if self.connection().version().is_legacy() {
            return self.plan_legacy_mode(mode, options);
        }
        self.plan_from(Some(&selection::to_json(&mode.consumers())), options)
    }

    /// LEG-8: the legacy `content` already carries the model's text (and the mirror of any
    /// structured value), so `conversational` and `structured-model` need nothing; a legacy
    /// Apps client sends no `requestedOutputs` and its View gets the whole result, so `apps`
    /// and `app-only` need nothing when Apps is negotiated and the tool is an Apps tool; `code`
    /// and `host-table` name the consumer of `structuredContent`. No legacy field carries user
    /// content or, without Apps, View data: those modes are refused.
    fn plan_legacy_mode(&self, mode: Mode, options: &PlanOptions) -> Result<Plan> {
        let conn = self.connection();
        let apps = conn.negotiated_extension(APPS_EXTENSION).is_some() && has_app_resource(self.tool());
        let legacy_structured = match mode {
            Mode::Conversational | Mode::StructuredModel => None,
            Mode::Apps | Mode::AppOnly if apps => None,
            Mode::Code => Some(Audience::Programmatic),
            Mode::HostTable => Some(Audience::User),
            Mode::UserMedia | Mode::Apps | Mode::AppOnly => {
                return Err(Error::new(
                    ErrorCode::RequestedOutputsOnLegacyVersion,
                    "/mode",
                    format!(
                        "protocol version {} has no requestedOutputs, and no legacy field carries what mode {} needs",
                        conn.version(),
                        mode.as_str()
                    ),
                ))
            }
        };
        let mut schemas = Vec::new();
        if let Some(consumer) = &legacy_structured {
            let schema = self.legacy_output_schema().map(|s| s.source().clone());
            if schema.is_none() && options.require_schema {
                return Err(Error::new(
                    ErrorCode::MissingSchema,
                    "/mode",
                    "the legacy Tool declares no outputSchema, and the plan requires one (DECL-7)",
                ));
            }
            schemas.push((Selector::new(consumer.clone(), Format::Structured), schema));
        }
        Ok(Plan { selectors: vec![Selector::fallback()], omit: true, schemas, legacy_structured })
    }

    fn plan_from(&self, consumers: Option<&Value>, options: &PlanOptions) -> Result<Plan> {
        let conn = self.connection();
        if conn.version().is_legacy() {
            // SEL-2: nothing but the fallback may be asked for, and the field is never sent.
            // Choosing between legacy content and structuredContent stays an explicit host
            // policy outside the plan.
            let fallback_only = match consumers.and_then(Value::as_array) {
                Some(items) => {
                    let mut pairs = Vec::with_capacity(items.len());
                    for (i, item) in items.iter().enumerate() {
                        pairs.push(selection::raw_pair_node::<crate::node::SerdeJson>(&item, || {
                            crate::error::pointer_index("/consumers", i)
                        })?);
                    }
                    matches!(pairs.as_slice(), [(audience, format)] if audience == "assistant" && format == "content")
                }
                None => true,
            };
            let selectors = vec![Selector::fallback()];
            if !fallback_only {
                return Err(Error::new(
                    ErrorCode::RequestedOutputsOnLegacyVersion,
                    "/consumers",
                    format!(
                        "protocol version {} has no requestedOutputs: only the assistant/content fallback can be planned",
                        conn.version()
                    ),
                ));
            }
            return Ok(Plan { selectors, omit: true, schemas: Vec::new(), legacy_structured: None });
        }
        let selectors = selection::select(self.declaration(), conn, consumers)
            .map_err(|e| rebase(e, selection::REQUESTED_OUTPUTS, "/consumers"))?;
        let mut schemas = Vec::new();
        for selector in selectors.iter().filter(|s| s.format == Format::Structured) {
            let schema = self
                .declaration()
                .and_then(|d| d.get(selector))
                .and_then(|v| v.schema.as_ref())
                .map(|s| s.source().clone());
            if schema.is_none() && options.require_schema {
                return Err(Error::new(
                    ErrorCode::MissingSchema,
                    "/consumers",
                    format!("{selector} declares no schema, and the plan requires one (DECL-7)"),
                ));
            }
            schemas.push((selector.clone(), schema));
        }
        let omit = selection::is_fallback(&selectors);
        Ok(Plan { selectors, omit, schemas, legacy_structured: None })
    }
}

fn rebase(error: Error, from: &str, to: &str) -> Error {
    match error.path().strip_prefix(from) {
        Some(rest) => Error::new(error.code(), format!("{to}{rest}"), error.message().to_owned()),
        None => error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;
    use serde_json::json;

    #[test]
    fn plans_are_read_back_from_json() {
        let limits = Limits::default();
        let omitted = Plan::from_json(&json!({"schemas": []}), &limits).expect("a plan");
        assert_eq!((omitted.requested_outputs(), omitted.selectors), (None, vec![Selector::fallback()]));
        assert_eq!(
            Plan::from_json(&json!({"requestedOutputs": null}), &limits).expect("a plan").requested_outputs(),
            None
        );
        let requested = json!([{"audience": "programmatic", "format": "structured"}]);
        let plan = Plan::from_json(&json!({"requestedOutputs": requested}), &limits).expect("a plan");
        assert_eq!(plan.requested_outputs(), Some(requested));
        let fallback = json!([{"audience": "assistant", "format": "content"}]);
        let kept = Plan::from_json(&json!({"requestedOutputs": fallback}), &limits).expect("a plan");
        assert_eq!(kept.requested_outputs(), Some(fallback), "sent as given");

        let error = |plan: Value| Plan::from_json(&plan, &limits).map(|_| ()).expect_err("a bad plan");
        let cases = [
            (json!([]), ErrorCode::Malformed, ""),
            (json!({"requestedOutputs": {}}), ErrorCode::Malformed, "/requestedOutputs"),
            (json!({"requestedOutputs": [{"audience": "user"}]}), ErrorCode::Malformed, "/requestedOutputs/0"),
            (
                json!({"requestedOutputs": [{"audience": 1, "format": "content"}]}),
                ErrorCode::Malformed,
                "/requestedOutputs/0/audience",
            ),
            (
                json!({"requestedOutputs": [{"audience": "model", "format": "content"}]}),
                ErrorCode::InvalidAudience,
                "/requestedOutputs/0/audience",
            ),
            (
                json!({"requestedOutputs": [{"audience": "user", "format": "html"}]}),
                ErrorCode::InvalidCombination,
                "/requestedOutputs/0/format",
            ),
        ];
        for (plan, code, path) in cases {
            let err = error(plan);
            assert_eq!((err.code(), err.path(), err.jsonrpc_code()), (code, path, None));
        }
        let many = Value::Array(vec![json!({"audience": "user", "format": "content"}); 65]);
        assert_eq!(error(json!({"requestedOutputs": many})).code(), ErrorCode::LimitExceeded);
    }
}
