//! A host accepting a 117-tool tools/list (`discover`) natively, the list shaped like the JS
//! bench's (bindings-js/bench/fixtures.mjs: 1-3 structured variants of 0.5-7 KB schemas per
//! tool), against building a plain `jsonschema` validator for each of the same schemas. Printed
//! as `bench accept 117-tools-<cold|repeat>: <ratio>x`. Accepting checks the schemas and leaves
//! compiling each to its first use, measured too (`first-checks`). ACCEPT_PARTS=1 also prints
//! what parts of accepting cost (cloning the schemas, checking them, the limit walk).

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use mcp_outputs::{Config, Connection, ProtocolVersion, ReceivedTool};
use serde_json::{json, Map, Value};
use std::hint::black_box;
use std::time::Instant;

const WORDS: &[&str] =
    &["customer", "order", "invoice", "ticket", "repo", "branch", "user", "team", "region", "status"];

/// A small deterministic generator (xorshift), so every run sees the same list.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() * n as f64) as usize
    }
}

fn schema_of_size(rng: &mut Rng, target: usize) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut n = 0;
    loop {
        let schema =
            json!({"type": "object", "properties": props, "required": required, "additionalProperties": false});
        if schema.to_string().len() >= target {
            return schema;
        }
        let name = format!("{}_{n}", WORDS[rng.below(WORDS.len())]);
        n += 1;
        let description = format!("The {name} of the {}.", WORDS[rng.below(WORDS.len())]);
        let prop = match rng.below(6) {
            0 => json!({"type": "string", "description": description, "maxLength": 256}),
            1 => json!({"type": "integer", "description": description, "minimum": 0}),
            2 => json!({"type": "string", "enum": ["open", "closed", "merged", "draft"], "description": description}),
            3 => {
                json!({"type": "array", "description": description, "items": {"type": "string", "pattern": "^[a-z0-9_-]+$"}})
            }
            4 => json!({"type": "object", "description": description, "required": ["login", "id"], "properties": {
                "login": {"type": "string"}, "id": {"type": "integer"}, "url": {"type": "string", "format": "uri"}}}),
            _ => json!({"type": ["string", "null"], "description": description, "format": "date-time"}),
        };
        if rng.next() < 0.4 {
            required.push(Value::from(name.clone()));
        }
        props.insert(name, prop);
    }
}

fn tools_list(seed: u64) -> Value {
    let mut rng = Rng(seed);
    let audiences = ["programmatic", "assistant", "user"];
    let tools: Vec<Value> = (0..117)
        .map(|t| {
            let mut variants = vec![json!({"audience": "assistant", "format": "content"})];
            for audience in audiences.iter().take(1 + rng.below(3)) {
                let size = 500 + rng.below(6500);
                variants.push(
                    json!({"audience": audience, "format": "structured", "schema": schema_of_size(&mut rng, size)}),
                );
            }
            json!({"name": format!("tool_{t}"), "inputSchema": {"type": "object"}, "outputVariants": variants})
        })
        .collect();
    json!({"tools": tools, "ttlMs": 60000, "cacheScope": "public"})
}

fn main() {
    let conn = Connection::new(ProtocolVersion::V2026_12_01, Vec::new(), Config::new());
    let list = tools_list(3279);
    let schemas: Vec<Value> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["outputVariants"].as_array().unwrap().iter().filter_map(|v| v.get("schema").cloned()))
        .collect();
    let build_all = || {
        for schema in &schemas {
            black_box(jsonschema::options().should_validate_formats(false).build(schema).unwrap());
        }
    };
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64()
    };
    let accept = || {
        black_box(ReceivedTool::discover(&list, &conn).unwrap());
    };
    let cold = time(&accept);
    let build_cold = time(&build_all);
    let best = |f: &dyn Fn()| (0..5).map(|_| time(f)).fold(f64::INFINITY, f64::min);
    let repeat = best(&accept);
    let build = best(&build_all);
    // Each tool's first check of each structured variant: where the compiles went.
    let discovered = ReceivedTool::discover(&list, &conn).unwrap();
    let first_checks = time(&|| {
        for tool in &discovered.tools {
            for variant in tool.declaration().unwrap().variants() {
                if let Some(schema) = &variant.schema {
                    black_box(schema.is_valid(&json!({})));
                }
            }
        }
    });
    if std::env::var_os("ACCEPT_PARTS").is_some() {
        let clones = best(&|| {
            for schema in &schemas {
                black_box(schema.clone());
            }
        });
        let received = best(&|| {
            for schema in &schemas {
                black_box(mcp_outputs::schema::CompiledSchema::received(schema, "").unwrap());
            }
        });
        let limits = best(&|| {
            black_box(conn.limits().check_value(&list, "")).unwrap();
        });
        println!(
            "parts: clone {:.1} ms, received {:.1} ms, limits {:.1} ms",
            clones * 1e3,
            received * 1e3,
            limits * 1e3
        );
    }
    println!(
        "bench accept 117-tools-cold: {:.3}x ({:.1} ms vs {:.1} ms building {} schemas)\n\
         bench accept 117-tools-repeat: {:.3}x ({:.1} ms vs {:.1} ms)\n\
         bench accept 117-tools-first-checks: {:.1} ms",
        cold / build_cold,
        cold * 1e3,
        build_cold * 1e3,
        schemas.len(),
        repeat / build,
        repeat * 1e3,
        build * 1e3,
        first_checks * 1e3
    );
}
