//! P-RS-1: check + route + View projection of an Apps result with a 0.5 / 4 / 64 KB
//! structured payload, against one plain `jsonschema` `is_valid` of the same payload with the
//! same schema. Both sides run interleaved in one process and the ratio of their medians is
//! printed as `bench P-RS-1 <size>: <ratio>x` (goal ≤ 1.3x, moonshot 1.1x).

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use mcp_outputs::{Config, Connection, Mode, PlanOptions, ProtocolVersion, ReceivedTool, APPS_EXTENSION};
use serde_json::{json, Value};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn view_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "columns": {"type": "array", "items": {"type": "string"}},
            "rows": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "customerId": {"type": "string", "pattern": "^cust_[0-9]+$"},
                    "displayName": {"type": "string", "minLength": 1},
                    "region": {"enum": ["NA", "EMEA", "APAC", "LATAM"]},
                    "lastActivity": {"type": "string", "format": "date-time"},
                    "score": {"type": "number", "minimum": 0, "maximum": 100},
                    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 8}
                },
                "required": ["customerId", "displayName", "region"],
                "additionalProperties": false
            }},
            "facets": {"type": "object"}
        },
        "required": ["columns", "rows"]
    })
}

/// A View payload of about `bytes` serialised bytes.
fn payload(bytes: usize) -> Value {
    let regions = ["NA", "EMEA", "APAC", "LATAM"];
    let mut rows = Vec::new();
    let mut value =
        json!({"columns": ["displayName", "region", "lastActivity"], "rows": [], "facets": {"region": regions}});
    let mut i = 0;
    while value.to_string().len() < bytes {
        rows.push(json!({
            "customerId": format!("cust_{:04}", 1000 + i),
            "displayName": format!("Globex Division {i}"),
            "region": regions[i % 4],
            "lastActivity": "2026-08-17T21:10:00Z",
            "score": (i * 7 % 100) as f64 + 0.5,
            "tags": ["enterprise", "renewal"]
        }));
        value["rows"] = Value::Array(rows.clone());
        i += 1;
    }
    value
}

/// Median time per call of `f`, measured in `rounds` batches of `batch` calls.
fn median_per_call(samples: &mut [Duration], batch: u32) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() / f64::from(batch)
}

fn main() {
    let config = Config::new();
    let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![APPS_EXTENSION.to_owned()], config);
    let tool = json!({
        "name": "search_customers",
        "inputSchema": {"type": "object"},
        "outputVariants": [
            {"audience": "assistant", "format": "content"},
            {"audience": APPS_EXTENSION, "format": "structured", "schema": view_schema()}
        ]
    });
    let host = ReceivedTool::accept(&tool, &conn).unwrap();
    // The host planned the call (apps mode): it routes with the plan's selectors.
    let plan = host.plan_mode(Mode::Apps, &PlanOptions::default()).unwrap();
    let selectors = plan.selectors.clone();
    let plain = jsonschema::options().should_validate_formats(false).build(&view_schema()).unwrap();

    for (label, bytes) in [("0.5KB", 512), ("4KB", 4096), ("64KB", 65536)] {
        let data = payload(bytes);
        let result = json!({
            "resultType": "complete",
            "outputs": [
                {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "Found the Globex customers."}]},
                {"audience": APPS_EXTENSION, "format": "structured", "structuredContent": data}
            ],
            "_meta": {APPS_EXTENSION: {"datasetVersion": "v18"}, "com.example/trace": "abc"}
        });
        // Sanity: both sides agree the payload is valid, and the route really projects it.
        let route = host.route_selected(&selectors, &result).unwrap();
        assert!(route.view.is_some() && plain.is_valid(&result["outputs"][1]["structuredContent"]));

        let batch = (200_000 / bytes as u32).max(20);
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..31 {
            let start = Instant::now();
            for _ in 0..batch {
                let route = host.route_selected(black_box(&selectors), black_box(&result)).unwrap();
                black_box(route.view.as_ref());
            }
            ours.push(start.elapsed());
            let structured = &result["outputs"][1]["structuredContent"];
            let start = Instant::now();
            for _ in 0..batch {
                black_box(plain.is_valid(black_box(structured)));
            }
            theirs.push(start.elapsed());
        }
        let a = median_per_call(&mut ours, batch);
        let b = median_per_call(&mut theirs, batch);
        println!(
            "bench P-RS-1 {label}: {:.2}x   (check+route+view {:.1} µs, is_valid {:.1} µs, payload {} bytes)",
            a / b,
            a * 1e6,
            b * 1e6,
            result["outputs"][1]["structuredContent"].to_string().len()
        );
    }
}
