//! Strategies the unit tests share.

use proptest::prelude::*;
use serde_json::{Number, Value};

/// Any JSON value, small: integers of both signs and beyond `i64`, finite floats, strings with
/// escapes and controls, nested arrays and objects.
pub(crate) fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
        "\\PC{0,12}|[\\x00-\\x1f\"\\\\]{0,3}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("\\PC{0,4}", inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// JSON text as a server may write it: objects whose members repeat a name (from a two-name
/// alphabet, so that duplicates are common), with the text's own nesting depth (the outermost
/// container at 1, a scalar at 0). A value built first and then written can never repeat a
/// member, so the limits' property tests missed that the text's depth and the parsed value's
/// differ (docs/fuzzing.md, finding 8).
pub(crate) fn arb_json_text_with_duplicates() -> impl Strategy<Value = (String, usize)> {
    let leaf = prop_oneof![
        Just(("null".to_owned(), 0usize)),
        any::<i32>().prop_map(|n| (n.to_string(), 0)),
        "[a-z]{0,3}".prop_map(|s| (format!("\"{s}\""), 0)),
    ];
    leaf.prop_recursive(6, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|items| {
                let depth = 1 + items.iter().map(|(_, d)| *d).max().unwrap_or(0);
                let texts: Vec<String> = items.into_iter().map(|(t, _)| t).collect();
                (format!("[{}]", texts.join(",")), depth)
            }),
            prop::collection::vec(("[ab]", inner), 0..5).prop_map(|members| {
                let depth = 1 + members.iter().map(|(_, (_, d))| *d).max().unwrap_or(0);
                let texts: Vec<String> = members.into_iter().map(|(k, (t, _))| format!("\"{k}\":{t}")).collect();
                (format!("{{{}}}", texts.join(",")), depth)
            }),
        ]
    })
}
