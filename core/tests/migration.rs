//! Property test for MIG-2: a migrated tool keeps its established legacy behaviour.
//!
//! For generated legacy Tools T (with and without `outputSchema`, object-rooted or not; Apps
//! tools through `_meta.ui.resourceUri` or the deprecated flat key, and tools that only look
//! like one) and every combination of `migrate`'s options:
//! - `migrate` warns `legacy-output-schema-dropped` exactly when T's `outputSchema` cannot be
//!   kept (no variant takes it, or the ui variant takes a schema whose root is not an object);
//! - whenever it does not warn, `advertise` of the declaration with the returned legacy options
//!   under 2026-07-28 is T exactly when the connection has the projection's source (Apps
//!   negotiated for a ui source), and T without `outputSchema` otherwise;
//! - and `respond` sends as `structuredContent` the value T's own calls sent. Without an
//!   `outputSchema` only an Apps tool's View data was part of T's behaviour: an object value is
//!   sent again, a non-object one never is (contract v2 item 7: only a text mirror could carry
//!   it, and View data must not reach the model);
//! - when it warns, the migrated tool never advertises an `outputSchema` (LEG-7).

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use mcp_outputs::migration::{migrate, MigrateOptions};
use mcp_outputs::{Config, Connection, Limits, Produced, ProtocolVersion, ServerTool, APPS_EXTENSION};
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestCaseError, TestRunner};
use serde_json::{json, Map, Value};
use std::cell::Cell;

/// A legacy `outputSchema` and a value a call of T sent under it.
#[derive(Clone, Debug)]
struct Schema {
    schema: Value,
    object_rooted: bool,
}

fn schemas() -> impl Strategy<Value = (Option<Schema>, Value)> {
    let int_object = (any::<i32>(), proptest::option::of("[a-z]{0,6}")).prop_map(|(n, s)| {
        let mut value = json!({ "n": n });
        if let Some(s) = s {
            value["s"] = Value::from(s);
        }
        (
            Some(Schema {
                schema: json!({
                    "type": "object",
                    "properties": { "n": { "type": "integer" }, "s": { "type": "string" } },
                    "required": ["n"]
                }),
                object_rooted: true,
            }),
            value,
        )
    });
    let any_object =
        json_object().prop_map(|v| (Some(Schema { schema: json!({ "type": "object" }), object_rooted: true }), v));
    let array = proptest::collection::vec(any::<i16>(), 0..4).prop_map(|items| {
        (
            Some(Schema { schema: json!({ "type": "array", "items": { "type": "integer" } }), object_rooted: false }),
            Value::from(items),
        )
    });
    let string = "[a-z ]{0,8}".prop_map(|s| {
        (Some(Schema { schema: json!({ "type": "string", "title": "text" }), object_rooted: false }), Value::from(s))
    });
    // No `type` at the root: not object-rooted, even when the value is an object.
    let untyped = json_value()
        .prop_map(|v| (Some(Schema { schema: json!({ "description": "anything" }), object_rooted: false }), v));
    let none = json_value().prop_map(|v| (None, v));
    prop_oneof![int_object, any_object, array, string, untyped, none]
}

fn json_scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        "[a-z]{0,5}".prop_map(Value::from),
    ]
}

fn json_object() -> impl Strategy<Value = Value> {
    proptest::collection::btree_map("[a-z]{1,4}", json_scalar(), 0..4)
        .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>()))
}

fn json_value() -> impl Strategy<Value = Value> {
    prop_oneof![json_scalar(), json_object(), proptest::collection::vec(json_scalar(), 0..3).prop_map(Value::from)]
}

/// `_meta` of T: an Apps tool (nested or deprecated flat key), or tools that only look like one.
fn metas() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        Just(Some(json!({ "ui": { "resourceUri": "ui://dash/index.html" } }))),
        Just(Some(json!({ "ui": { "resourceUri": "ui://dash/index.html", "visibility": ["app"] } }))),
        Just(Some(json!({ "ui/resourceUri": "ui://charts/sales.html" }))),
        Just(Some(json!({ "ui": { "visibility": ["model"] } }))),
        Just(Some(json!({ "com.example/trace": true }))),
    ]
}

#[derive(Clone, Debug)]
struct Case {
    tool: Value,
    schema: Option<Schema>,
    value: Value,
    options: MigrateOptions,
}

fn cases() -> impl Strategy<Value = Case> {
    (
        "[a-z_]{1,10}",
        proptest::option::of("[A-Za-z ]{0,12}"),
        proptest::option::of("[A-Za-z ]{0,12}"),
        any::<bool>(),
        metas(),
        schemas(),
        (any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |(name, title, description, annotated, meta, (schema, value), (programmatic, assistant, apps))| {
                let mut tool = Map::new();
                tool.insert("name".into(), Value::from(name));
                if let Some(title) = title {
                    tool.insert("title".into(), Value::from(title));
                }
                if let Some(description) = description {
                    tool.insert("description".into(), Value::from(description));
                }
                tool.insert(
                    "inputSchema".into(),
                    json!({ "type": "object", "properties": { "q": { "type": "string" } } }),
                );
                if let Some(schema) = &schema {
                    tool.insert("outputSchema".into(), schema.schema.clone());
                }
                if annotated {
                    tool.insert("annotations".into(), json!({ "readOnlyHint": true }));
                }
                if let Some(meta) = meta {
                    tool.insert("_meta".into(), meta);
                }
                Case {
                    tool: Value::Object(tool),
                    schema,
                    value,
                    options: MigrateOptions {
                        programmatic_from_output_schema: programmatic,
                        assistant_from_output_schema: assistant,
                        apps,
                    },
                }
            },
        )
}

/// Whether T is an MCP Apps tool, read independently of the library.
fn is_apps_tool(tool: &Value) -> bool {
    tool["_meta"]["ui"]["resourceUri"].is_string() || tool["_meta"]["ui/resourceUri"].is_string()
}

fn without_output_schema(tool: &Value) -> Value {
    let mut out = tool.clone();
    out.as_object_mut().unwrap().remove("outputSchema");
    out
}

#[derive(Default)]
struct Stats {
    kept: Cell<usize>,
    schema_advertised: Cell<usize>,
    ui_schema_advertised: Cell<usize>,
    ui_data_without_schema: Cell<usize>,
    dropped: Cell<usize>,
}

fn bump(cell: &Cell<usize>) {
    cell.set(cell.get() + 1);
}

fn check(case: &Case, stats: &Stats) -> Result<(), TestCaseError> {
    let config = Config::new();
    let migrated = migrate(&case.tool, case.options, &Limits::default())
        .map_err(|e| TestCaseError::fail(format!("migrate refused a valid legacy Tool: {e}")))?;
    // Which variant takes T's outputSchema, decided from T and the options alone (MIG-1, item 4).
    let ui_takes = case.options.apps && is_apps_tool(&case.tool);
    // MIG-3: assistant/structured is the source when the author says so, even with programmatic too.
    let assistant_takes = !ui_takes && case.options.assistant_from_output_schema;
    let programmatic_takes = !ui_takes && !assistant_takes && case.options.programmatic_from_output_schema;
    let kept = match &case.schema {
        None => true,
        Some(schema) => assistant_takes || programmatic_takes || (ui_takes && schema.object_rooted),
    };
    let warned = !migrated.warnings.is_empty();
    prop_assert_eq!(warned, !kept, "warnings {:?} for {}", migrated.warnings, case.tool);
    let server = ServerTool::declare(&migrated.tool, migrated.legacy.as_ref(), &config)
        .map_err(|e| TestCaseError::fail(format!("the migrated declaration is refused: {e}")))?;
    if warned {
        bump(&stats.dropped);
    } else {
        bump(&stats.kept);
    }
    for apps in [false, true] {
        let negotiated = if apps { vec![APPS_EXTENSION.to_owned()] } else { Vec::new() };
        let conn = Connection::new(ProtocolVersion::V2026_07_28, negotiated, Config::new());
        let advertised = server.advertise(&conn);
        // The connection has the projection's source: the programmatic variant always, the ui
        // variant when Apps is negotiated.
        let has_source = assistant_takes || programmatic_takes || (ui_takes && apps);
        if warned {
            prop_assert!(advertised.get("outputSchema").is_none(), "a dropped schema is advertised: {}", advertised);
            continue;
        }
        let expected =
            if case.schema.is_some() && has_source { case.tool.clone() } else { without_output_schema(&case.tool) };
        prop_assert_eq!(&advertised, &expected, "advertise under 2026-07-28 (Apps {}) is not T", apps);
        // The tool's call: assistant/content, plus the structured output its source takes.
        let mut outputs = vec![
            json!({ "audience": "assistant", "format": "content", "content": [{ "type": "text", "text": "done" }] }),
        ];
        let source = if ui_takes {
            Some(APPS_EXTENSION)
        } else if assistant_takes && case.schema.is_some() {
            if case.options.programmatic_from_output_schema {
                outputs.push(
                    json!({ "audience": "programmatic", "format": "structured", "structuredContent": case.value }),
                );
            }
            Some("assistant")
        } else if programmatic_takes && case.schema.is_some() {
            Some("programmatic")
        } else {
            None
        };
        if let Some(audience) = source {
            outputs.push(json!({ "audience": audience, "format": "structured", "structuredContent": case.value }));
        }
        let produced = json!({ "outputs": outputs });
        let result = server
            .respond(&conn, None, Produced::new(&produced))
            .map_err(|e| TestCaseError::fail(format!("respond refused a call T could answer: {e}")))?;
        let sent = result.get("structuredContent");
        if advertised.get("outputSchema").is_some() {
            bump(&stats.schema_advertised);
            if ui_takes {
                bump(&stats.ui_schema_advertised);
            }
            prop_assert_eq!(sent, Some(&case.value), "structuredContent differs from T's");
        } else if ui_takes && apps && case.schema.is_none() {
            // T sent its View data with no outputSchema: objects are sent again (item 5), a
            // non-object never (item 7).
            let expected = case.value.is_object().then_some(&case.value);
            if expected.is_some() {
                bump(&stats.ui_data_without_schema);
            }
            prop_assert_eq!(sent, expected, "View data without a schema");
        } else {
            prop_assert_eq!(sent, None, "structuredContent without a source on this connection");
        }
    }
    Ok(())
}

#[test]
fn migrated_tools_keep_their_legacy_behaviour() {
    let stats = Stats::default();
    let mut runner =
        TestRunner::new(RunnerConfig { cases: 10_000, failure_persistence: None, ..RunnerConfig::default() });
    let outcome = runner.run(&cases(), |case| check(&case, &stats));
    if let Err(e) = outcome {
        panic!("MIG-2 property broken: {e}");
    }
    // The property is only as good as the cases that exercise it.
    let total = stats.kept.get() + stats.dropped.get();
    assert!(total >= 10_000, "only {total} cases ran");
    assert!(stats.kept.get() >= total / 2, "too few cases keep their schema: {}", stats.kept.get());
    assert!(stats.dropped.get() >= total / 10, "too few dropped schemas: {}", stats.dropped.get());
    assert!(stats.schema_advertised.get() >= total / 10, "too few advertised schemas");
    assert!(stats.ui_schema_advertised.get() >= total / 50, "too few ui schemas advertised");
    assert!(stats.ui_data_without_schema.get() >= total / 100, "too few View values without a schema");
}
