//! Projection of a 2026-12-01 tool to the legacy shapes of earlier revisions
//! (LEG-1..7, APP-7): which structured variant, if any, becomes `outputSchema` /
//! `structuredContent`, how each revision carries it, and the text mirror.

use crate::audience::{Audience, Format, Registry, Selector};
use crate::connection::Connection;
use crate::declaration::{Declaration, Variant};
use crate::error::{pointer_push, Error, Result};
use crate::node::{NodeOf, Out, Source};
use crate::payload::PayloadsIn;
use crate::schema::{wrap_schema, CompiledSchema};
use crate::version::LegacyStructured;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Per-tool legacy options (`legacy` in the corpus): the tool's established legacy schema,
/// an explicit choice of source variant, and whether object values are mirrored.
#[derive(Clone, Debug, Default)]
pub struct LegacyOptions {
    /// An established `outputSchema` to keep advertising to old clients (LEG-3).
    pub output_schema: Option<Arc<CompiledSchema>>,
    /// The structured variant that feeds legacy `structuredContent` (LEG-3).
    pub structured_from: Option<Selector>,
    /// `false` turns the text mirror off for object values (LEG-4).
    pub mirror: bool,
}

impl LegacyOptions {
    /// Reads `{ "outputSchema"?, "structuredFrom"?, "mirror"? }`; `structuredFrom` must name a
    /// declared structured variant as `"<audience>/structured"`.
    pub fn from_json(value: Option<&Value>, declaration: &Declaration) -> Result<Self> {
        let mut options = LegacyOptions { mirror: true, ..LegacyOptions::default() };
        let Some(value) = value else {
            return Ok(options);
        };
        let obj = value.as_object().ok_or_else(|| Error::malformed("", "legacy options must be an object"))?;
        match obj.get("outputSchema") {
            None => {}
            // The SEP types a schema as an object: `true` or `"x"` is the wrong shape, not a schema.
            Some(schema @ Value::Object(_)) => {
                options.output_schema = Some(Arc::new(CompiledSchema::compile(schema, "/outputSchema")?));
            }
            Some(_) => return Err(Error::malformed("/outputSchema", "legacy outputSchema must be a JSON object")),
        }
        match obj.get("structuredFrom") {
            None => {}
            Some(Value::String(text)) => {
                let selector = text
                    .strip_suffix("/structured")
                    .and_then(|audience| Audience::parse(audience).ok())
                    .map(|audience| Selector::new(audience, Format::Structured))
                    .filter(|selector| declaration.get(selector).is_some())
                    .ok_or_else(|| {
                        Error::malformed(
                            "/structuredFrom",
                            format!("structuredFrom {text:?} does not name a declared structured variant"),
                        )
                    })?;
                options.structured_from = Some(selector);
            }
            Some(_) => return Err(Error::malformed("/structuredFrom", "structuredFrom must be a string")),
        }
        match obj.get("mirror") {
            None => {}
            Some(Value::Bool(b)) => options.mirror = *b,
            Some(_) => return Err(Error::malformed("/mirror", "mirror must be a boolean")),
        }
        Ok(options)
    }

    /// Refuses an `outputSchema` no declared variant could ever feed: without `structuredFrom`,
    /// a source is `assistant/structured` or a structured variant of an extension that defines
    /// a legacy projection. Advertising the schema anyway would make every legacy call fail late
    /// (LEG-7), so the declaration is wrong (`malformed`, path `/outputSchema`).
    pub(crate) fn check_possible_source(&self, declaration: &Declaration, registry: &Registry) -> Result<()> {
        if self.output_schema.is_none() || self.structured_from.is_some() {
            return Ok(());
        }
        let possible = declaration.variants().iter().any(|v| {
            v.selector.format == Format::Structured
                && match &v.selector.audience {
                    Audience::Assistant => true,
                    Audience::Extension(id) => registry.get(id).is_some_and(|d| d.legacy_projection),
                    Audience::User | Audience::Programmatic => false,
                }
        });
        if possible {
            return Ok(());
        }
        Err(Error::malformed(
            "/outputSchema",
            "legacy outputSchema needs a source: name one with structuredFrom, or declare assistant/structured or an extension variant with a legacy projection",
        ))
    }
}

/// The legacy structured projection of one tool on one connection.
#[derive(Debug)]
pub(crate) struct Projection<'t> {
    /// The variant whose output becomes `structuredContent`.
    pub source: Option<&'t Variant>,
    /// The schema advertised as `outputSchema` (before any wrap), and used to validate the
    /// value sent.
    pub schema: Option<&'t CompiledSchema>,
    /// Whether the source may be mirrored into text: never for an extension source (View
    /// data must not reach model context, LEG-4).
    pub mirrorable: bool,
    /// Whether only object values are sent: an extension source's non-object value is never
    /// projected, in any revision, since only a text mirror could carry it (LEG-4).
    pub objects_only: bool,
    /// How the revision carries it.
    pub carriage: LegacyStructured,
}

impl<'t> Projection<'t> {
    /// Picks the source in the contract's order: `structuredFrom`; `assistant/structured`;
    /// a negotiated extension's structured variant when the extension defines a legacy
    /// projection (Apps, APP-7); else none. An extension source is used only when the schema
    /// it would advertise (`legacy.outputSchema`, else its own) is object-rooted, or when it
    /// has no schema at all (then object values only, and no `outputSchema`). The schema is
    /// advertised only when this connection has a source (LEG-7).
    pub fn new(declaration: &'t Declaration, options: &'t LegacyOptions, conn: &Connection) -> Self {
        let carriage = conn.version().legacy_structured();
        let usable = |variant: &&'t Variant| match &variant.selector.audience {
            Audience::Extension(id) => conn.negotiated_extension(id).is_some_and(|d| d.legacy_projection),
            _ => true,
        };
        let explicit = options.structured_from.as_ref().and_then(|s| declaration.get(s)).filter(usable);
        let candidate = explicit
            .or_else(|| declaration.get(&Selector::new(Audience::Assistant, Format::Structured)))
            .or_else(|| {
                declaration
                    .variants()
                    .iter()
                    .filter(|v| v.selector.format == Format::Structured && v.selector.audience.extension().is_some())
                    .find(usable)
            });
        let advertised = |variant: &'t Variant| options.output_schema.as_deref().or(variant.schema.as_deref());
        let (source, extension) = match candidate {
            Some(variant) if variant.selector.audience.extension().is_some() => {
                let object_rooted = advertised(variant).is_none_or(CompiledSchema::is_object_rooted);
                (object_rooted.then_some(variant), true)
            }
            other => (other, false),
        };
        let schema = source.and_then(advertised);
        Projection { source, schema, mirrorable: !extension, objects_only: extension, carriage }
    }

    /// The `outputSchema` advertised in tools/list, if any.
    pub fn output_schema(&self) -> Option<Value> {
        let schema = self.schema?;
        match self.carriage {
            LegacyStructured::None => None,
            LegacyStructured::Any => Some(schema.source().clone()),
            LegacyStructured::ObjectOnly if schema.is_object_rooted() => Some(schema.source().clone()),
            LegacyStructured::ObjectOnly => Some(wrap_schema(schema.source())),
        }
    }

    /// Builds the legacy `structuredContent` for a produced value (already validated), and the
    /// mirror text block to append to `content`, if any. The value sent is the caller's own
    /// payload, or an object the core builds around it (`{"result": payload}`).
    pub fn structured_in<'v, F: Source, P: PayloadsIn<F> + ?Sized>(
        &self,
        value: &NodeOf<'v, F>,
        mirror_objects: bool,
        payloads: &P,
    ) -> Result<Option<(Out<'v, F>, Option<Value>)>> {
        let is_object = payloads.is_object(value);
        if self.objects_only && !is_object {
            return Ok(None);
        }
        // `wrapped`: whether the payload is sent as `{"result": payload}`.
        let wrapped = match self.carriage {
            LegacyStructured::None => return Ok(None),
            LegacyStructured::Any => false,
            // An error value is not validated, so it may not fit an object-rooted schema: these
            // revisions carry objects only, so such a value is not sent at all.
            LegacyStructured::ObjectOnly if self.schema.is_some_and(|s| s.is_object_rooted()) && !is_object => {
                return Ok(None)
            }
            LegacyStructured::ObjectOnly => match self.schema {
                Some(schema) => !schema.is_object_rooted(),
                None => !is_object,
            },
        };
        let sent = if wrapped {
            Out::Object(vec![(std::borrow::Cow::Borrowed("result"), Out::Node(value.clone()))])
        } else {
            Out::Node(value.clone())
        };
        let sent_object = wrapped || is_object;
        let mirror = if self.mirrorable && (mirror_objects || !sent_object) {
            // The text of `{"result": payload}` as JSON.stringify writes it, around the payload's.
            let text = if wrapped {
                format!("{{\"result\":{}}}", payloads.stringify(value)?)
            } else {
                payloads.stringify(value)?
            };
            let mut block = Map::new();
            block.insert("type".into(), Value::from("text"));
            block.insert("text".into(), Value::from(text));
            Some(Value::Object(block))
        } else {
            None
        };
        Ok(Some((sent, mirror)))
    }
}

/// The Tool object sent in tools/list under a legacy revision: `outputVariants` removed,
/// `outputSchema` added when a projection exists, every other field unchanged (LEG-1).
pub(crate) fn legacy_tool(tool: &Map<String, Value>, projection: &Projection<'_>) -> Value {
    let mut out = tool.clone();
    out.remove("outputVariants");
    if let Some(schema) = projection.output_schema() {
        out.insert("outputSchema".into(), schema);
    }
    Value::Object(out)
}

/// The produced payload of the source variant, validated against the advertised schema.
pub(crate) fn validate_source<'v, F: Source, P: PayloadsIn<F> + ?Sized>(
    projection: &Projection<'_>,
    value: &NodeOf<'v, F>,
    path: &str,
    payloads: &P,
) -> Result<()> {
    match projection.schema {
        Some(schema) => {
            payloads.validate(schema, value, &pointer_push(path, "structuredContent"), "legacy structuredContent")
        }
        None => Ok(()),
    }
}
