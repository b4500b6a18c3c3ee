//! The one error type of the library: a stable code, a message, and the JSON Pointer of the
//! offending value. Server-side errors also carry their JSON-RPC error code.

use serde_json::{json, Value};
use std::fmt;

macro_rules! error_codes {
    ($( $(#[$doc:meta])* $variant:ident = $text:literal, )*) => {
        /// Stable error codes, identical in Rust, JavaScript and Python.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $( $(#[$doc])* $variant, )*
        }

        impl ErrorCode {
            /// Every code, in declaration order (the bindings' type tests compare against this).
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The kebab-case wire form of the code.
            pub fn as_str(self) -> &'static str {
                match self { $( ErrorCode::$variant => $text, )* }
            }

            /// Parses the kebab-case form.
            pub fn parse(text: &str) -> Option<Self> {
                match text { $( $text => Some(ErrorCode::$variant), )* _ => None }
            }
        }
    };
}

error_codes! {
    /// Input of the wrong JSON shape (SEC-1).
    Malformed = "malformed",
    /// Input over a size, depth or count limit (SEC-1).
    LimitExceeded = "limit-exceeded",
    /// Not a `YYYY-MM-DD` calendar date (VER-1).
    InvalidProtocolVersion = "invalid-protocol-version",
    /// A well-formed date that is not a supported revision (VER-1).
    UnsupportedProtocolVersion = "unsupported-protocol-version",
    /// Not a core audience and not a well-formed, registered extension identifier (AUD-1, AUD-3).
    InvalidAudience = "invalid-audience",
    /// An audience/format pair that is not allowed (FMT-2, APP-1).
    InvalidCombination = "invalid-combination",
    /// An audience/format pair declared twice (DECL-1).
    DuplicateVariant = "duplicate-variant",
    /// No `assistant/content` variant (DECL-2, PLAN-7).
    MissingAssistantContent = "missing-assistant-content",
    /// A declared schema that is not a valid JSON Schema (DECL-4).
    InvalidSchema = "invalid-schema",
    /// A schema `$ref` that points outside the schema (SEC-3).
    ExternalRef = "external-ref",
    /// An extension audience used without negotiation (DECL-5, SEL-4, SEL-9).
    UnnegotiatedExtension = "unnegotiated-extension",
    /// A Tool without `outputVariants` under 2026-12-01 (VER-2, PLAN-14).
    MissingOutputVariants = "missing-output-variants",
    /// `requestedOutputs` under an earlier protocol version (SEL-2, PLAN-12).
    RequestedOutputsOnLegacyVersion = "requested-outputs-on-legacy-version",
    /// A selector twice in `requestedOutputs` (SEL-5).
    DuplicateSelector = "duplicate-selector",
    /// `requestedOutputs: []` (SEL-8).
    EmptySelection = "empty-selection",
    /// A selector the tool did not declare (SEL-3, SEL-9, PLAN-10).
    UndeclaredVariant = "undeclared-variant",
    /// A requested selector without its output (RES-1, LEG-7).
    MissingOutput = "missing-output",
    /// An output nobody requested (RES-2, PLAN-15).
    UnrequestedOutput = "unrequested-output",
    /// An output whose payload field does not match its format (RES-3).
    OutputShapeMismatch = "output-shape-mismatch",
    /// A structured output that fails its own variant's schema (RES-4, PLAN-11).
    SchemaViolation = "schema-violation",
    /// A successful assistant/content output with no block (DECL-3).
    EmptyAssistantContent = "empty-assistant-content",
    /// `isError: true` with no output (ERR-4).
    EmptyErrorOutputs = "empty-error-outputs",
    /// A structured variant without a schema, when the plan requires schemas (DECL-7).
    MissingSchema = "missing-schema",
    /// A Tool whose name another Tool of the same tools/list page has (LIST-3): only ever the
    /// code of an excluded tool in `discover`, never an error raised.
    DuplicateToolName = "duplicate-tool-name",
    /// No JSON Schema validator for a declared schema: a build without one of its own (the npm
    /// default entry) was given none. Raised where the schema is first read (`declare`,
    /// `accept`), never by a build with its own validator.
    MissingValidator = "missing-validator",
    /// The caller's JSON Schema validator answered in the wrong shape (not `{valid: boolean}`,
    /// or a Promise): detected on its first use, never read as a verdict.
    InvalidValidator = "invalid-validator",
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// JSON-RPC error codes used on the wire.
pub mod jsonrpc {
    /// Invalid params: every request-side error (version format, selection).
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal error: the server's own fault (its declaration or its produced outputs).
    pub const INTERNAL_ERROR: i64 = -32603;
    /// MCP: the requested protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// Where an error comes from, which decides its JSON-RPC code on a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// A server answering a request: errors become JSON-RPC errors.
    Server,
    /// A client checking what it received: errors are local.
    Client,
}

/// An argument of a server-side operation, by whose fault it is when it cannot be used: the
/// core decides its JSON-RPC code, also for a fault a binding finds while reading it (JSON text
/// it parses, a value it measures or converts before the core sees it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerArgument {
    /// What the server says of its tools: a declaration, its legacy options, a tools/list
    /// page's `cache` or cursor, what a tool produced: the server's own (-32603).
    Tool,
    /// What a request carries (`params`, `requestedOutputs`, an `initialize` or discover
    /// request): the client's (-32602).
    Request,
    /// The capabilities the server declares: the server's own (-32603).
    Capabilities,
}

impl ServerArgument {
    /// `fault` as the server answers it on the wire.
    pub fn fault(self, fault: Error) -> Error {
        fault.on_wire(match self {
            ServerArgument::Request => jsonrpc::INVALID_PARAMS,
            ServerArgument::Tool | ServerArgument::Capabilities => jsonrpc::INTERNAL_ERROR,
        })
    }
}

/// A failed operation. Boxed, so that `Result`s stay one pointer wide on the happy path.
#[derive(Clone, Debug, PartialEq)]
pub struct Error(Box<ErrorInner>);

#[derive(Clone, Debug, PartialEq)]
struct ErrorInner {
    code: ErrorCode,
    message: String,
    path: String,
    jsonrpc: Option<i64>,
    data: Option<Value>,
    over: Option<crate::limits::Over>,
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error with a message and the JSON Pointer of the offending value.
    /// A message longer than [`MAX_MESSAGE_BYTES`] is cut in the middle (see [`cut_message`]):
    /// messages echo the offending input, which may be megabytes long.
    pub fn new(code: ErrorCode, path: impl Into<String>, message: impl Into<String>) -> Self {
        let message = cut_message(message.into());
        Error(Box::new(ErrorInner { code, message, path: path.into(), jsonrpc: None, data: None, over: None }))
    }

    pub(crate) fn malformed(path: impl Into<String>, message: impl Into<String>) -> Self {
        Error::new(ErrorCode::Malformed, path, message)
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        self.0.code
    }

    /// A human-readable message that names the offending value.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// JSON Pointer of the offending value, relative to the argument the operation was given
    /// (the tool, the request `params`, the result, or the produced outputs).
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// The JSON-RPC error code when the error is one a server returns on the wire.
    pub fn jsonrpc_code(&self) -> Option<i64> {
        self.0.jsonrpc
    }

    /// Extra JSON-RPC `data` (e.g. `{supported, requested}` for an unsupported version).
    pub fn data(&self) -> Option<&Value> {
        self.0.data.as_ref()
    }

    /// The container over its length cap, for a `limit-exceeded` error of the limits walk:
    /// the length in data, not only in the message.
    pub fn over(&self) -> Option<crate::limits::Over> {
        self.0.over
    }

    pub(crate) fn with_over(mut self, over: crate::limits::Over) -> Self {
        self.0.over = Some(over);
        self
    }

    pub(crate) fn with_data(mut self, data: Value) -> Self {
        self.0.data = Some(data);
        self
    }

    /// Prefixes the path, for errors raised on a nested value.
    pub(crate) fn under(mut self, prefix: &str) -> Self {
        self.0.path = format!("{prefix}{}", self.0.path);
        self
    }

    /// Marks the error as one a server sends, with the JSON-RPC code `code`
    /// (the version errors keep their own codes).
    pub fn on_wire(mut self, code: i64) -> Self {
        self.0.jsonrpc = Some(match self.0.code {
            ErrorCode::UnsupportedProtocolVersion => jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
            ErrorCode::InvalidProtocolVersion => jsonrpc::INVALID_PARAMS,
            _ => code,
        });
        self
    }

    /// The JSON-RPC error object (`{code, message, data}`) for a server-side error; `None` for
    /// a client-side one. `data` always holds the stable `mcpOutputsCode` and the `path`.
    pub fn to_jsonrpc_error(&self) -> Option<Value> {
        let code = self.0.jsonrpc?;
        let mut data = match &self.0.data {
            Some(Value::Object(map)) => map.clone(),
            _ => serde_json::Map::new(),
        };
        data.insert("mcpOutputsCode".into(), Value::from(self.0.code.as_str()));
        if !self.0.path.is_empty() {
            data.insert("path".into(), Value::from(self.0.path.clone()));
        }
        Some(crate::fields::object(vec![
            ("code", Value::from(code)),
            ("message", Value::from(self.0.message.clone())),
            ("data", Value::Object(data)),
        ]))
    }

    /// `{code, message, path}` plus `jsonrpc` when present: the error shape of every binding.
    pub fn to_json(&self) -> Value {
        let mut out = json!({
            "code": self.0.code.as_str(),
            "message": self.0.message,
            "path": self.0.path,
        });
        if let (Some(rpc), Value::Object(map)) = (self.to_jsonrpc_error(), &mut out) {
            map.insert("jsonrpc".into(), rpc);
        }
        out
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.path.is_empty() {
            write!(f, "{}: {}", self.0.code, self.0.message)
        } else {
            write!(f, "{}: {} (at {})", self.0.code, self.0.message, self.0.path)
        }
    }
}

impl std::error::Error for Error {}

/// The longest error message kept whole, in bytes. Messages quote the offending value so that
/// a user sees what was wrong; a few hundred bytes of it are enough for that, and an input of
/// megabytes must not become a message (and a JSON-RPC error) of megabytes.
pub const MAX_MESSAGE_BYTES: usize = 512;

/// Keeps the head and the tail of a message over [`MAX_MESSAGE_BYTES`] (the head names what
/// was wrong, the tail often says which limit or rule), with the number of bytes cut between.
pub(crate) fn cut_message(message: String) -> String {
    if message.len() <= MAX_MESSAGE_BYTES {
        return message;
    }
    let head_end = floor_char_boundary(&message, 320);
    let tail_start = ceil_char_boundary(&message, message.len() - 128);
    let (head, rest) = message.split_at(head_end);
    let tail = rest.get(tail_start - head_end..).unwrap_or_default();
    format!("{head}…[{} bytes cut]…{tail}", tail_start - head_end)
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn ceil_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

/// Appends one JSON Pointer token, escaping `~` and `/` (RFC 6901).
pub(crate) fn pointer_push(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    out.push('/');
    for ch in token.chars() {
        match ch {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

/// Appends an array index to a JSON Pointer.
pub(crate) fn pointer_index(base: &str, index: usize) -> String {
    format!("{base}/{index}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_are_cut_in_the_middle() {
        let short = Error::new(ErrorCode::Malformed, "", "short");
        assert_eq!(short.message(), "short");
        // A 10 MB echoed value, with multi-byte characters at both cut points.
        let echoed = "é".repeat(5_000_000);
        let err = Error::new(ErrorCode::InvalidAudience, "/audience", format!("audience {echoed:?} is not known"));
        assert!(err.message().len() <= MAX_MESSAGE_BYTES + 40, "{} bytes", err.message().len());
        assert!(err.message().starts_with("audience \"éé"));
        assert!(err.message().ends_with("éé\" is not known"));
        assert!(err.message().contains("bytes cut]"));
        let rpc = err.on_wire(jsonrpc::INVALID_PARAMS).to_jsonrpc_error().expect("wire error");
        assert!(rpc.to_string().len() < 1024);
    }
}
