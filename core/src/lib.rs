//! # mcp-outputs
//!
//! The reference implementation of MCP SEP-3279, "audience-directed tool result variants":
//! a tool declares `outputVariants`, a `tools/call` carries `requestedOutputs`, the result
//! carries exactly the requested `outputs`, and the host routes each by its audience. Older
//! protocol revisions keep the legacy `content` / `structuredContent` shape through a
//! versioned projection.
//!
//! Pure Rust, no I/O: no file, network, clock or environment access. Schemas are never
//! fetched (SEC-3), and every input is bounded by [`Limits`] (SEC-1).
//!
//! One module per role of the SEP:
//! - [`version`]: protocol revisions; [`audience`]: audiences, formats, selectors and the
//!   extension registry; [`content`]: content blocks; [`schema`]: compiled JSON Schemas.
//! - [`declaration`]: `outputVariants`; [`selection`]: `requestedOutputs`.
//! - [`server`]: declare, advertise, select, respond; [`legacy`]: the legacy projection.
//! - [`client`]: accept and check; [`planning`]: modes and consumers to `requestedOutputs`;
//!   [`routing`]: model / user / programmatic / extensions / View / dropped.
//! - [`migration`]: legacy Tools to declarations; [`wire`]: `_meta`, negotiation, tools/list,
//!   JSON-RPC errors; [`ops`]: the JSON-in / JSON-out layer the bindings call; [`payload`]:
//!   the seam through which a binding keeps structured payloads as its own objects.
//!
//! ```
//! use mcp_outputs::{Config, Connection, ProtocolVersion, ReceivedTool, ServerTool, Produced};
//! use serde_json::json;
//!
//! let config = Config::new();
//! let tool = ServerTool::declare(&json!({
//!     "name": "search_customers",
//!     "inputSchema": {"type": "object"},
//!     "outputVariants": [
//!         {"audience": "assistant", "format": "content"},
//!         {"audience": "programmatic", "format": "structured",
//!          "schema": {"type": "object", "required": ["items"]}}
//!     ]
//! }), None, &config)?;
//! let conn = Connection::new(ProtocolVersion::V2026_12_01, vec![], config);
//!
//! // The host plans a code-mode call, the server answers it, the host routes the result.
//! let host = ReceivedTool::accept(&tool.advertise(&conn), &conn)?;
//! let plan = host.plan_mode(mcp_outputs::Mode::Code, &Default::default())?;
//! let requested = plan.requested_outputs();
//! let produced = json!({"outputs": [
//!     {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "2 found"}]},
//!     {"audience": "programmatic", "format": "structured", "structuredContent": {"items": [1, 2]}}
//! ]});
//! let result = tool.respond(&conn, requested.as_ref(), Produced::new(&produced))?;
//! let route = host.route(requested.as_ref(), &result)?;
//! assert_eq!(route.programmatic.len(), 1);
//! assert!(route.model.is_empty());
//! # Ok::<(), mcp_outputs::Error>(())
//! ```

pub mod answer;
pub mod audience;
pub mod client;
pub mod connection;
pub mod content;
pub mod declaration;
pub mod error;
mod fields;
pub mod json;
pub mod jsontext;
pub mod legacy;
pub mod limits;
pub mod migration;
pub mod node;
pub mod ops;
mod output;
pub mod payload;
pub mod planning;
pub mod routing;
pub mod schema;
pub mod selection;
pub mod server;
pub mod stack;
pub mod tape;
#[cfg(test)]
mod testing;
pub mod types;
pub mod validation_work;
pub mod version;
pub mod wire;

pub use audience::{Audience, ExtensionDefinition, Format, Registry, Selector, APPS_EXTENSION};
pub use client::{CheckedResult, Discovered, ReceivedTool, ResultKind};
pub use connection::{Config, Connection};
pub use declaration::{Warning, WarningCode};
pub use error::{Error, ErrorCode, Result, ServerArgument};
pub use limits::{Container, Limits, Over, MAX_DEPTH_CEILING};
pub use planning::{Mode, Plan, PlanOptions};
pub use routing::{Diagnostic, Dropped, Route, View};
pub use server::{Produced, ServerTool};
pub use types::{
    ContentToolResultOutput, ContentToolResultVariant, ProducedOutputs, StructuredToolResultOutput,
    StructuredToolResultVariant, ToolResultOutput, ToolResultOutputSelector, ToolResultVariant,
};
pub use version::ProtocolVersion;

/// The README's Rust examples run as doc tests, so the README cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
