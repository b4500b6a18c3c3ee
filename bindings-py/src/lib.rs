//! Python binding of `mcp-outputs` (the native module `mcp_outputs._mcp_outputs`).
//!
//! It adapts types and errors only: every protocol decision is the core's (the JSON facade
//! `mcp_outputs::json`, [`ServerTool`] and [`ReceivedTool`]). A result or produced outputs made of
//! plain values are read where they live by the core's generic path (`plain`: `check`, `route`,
//! `respond`), with the GIL held from the read to the hand-back, and the answer names the caller's
//! own objects (`out_to_py`). Anything else, the requested outputs and the cold paths (declare,
//! accept, plan, tools/list, options) are read by the core too, through `lenient` (the core's
//! limits walk, then a snapshot `Value`), and work on a large snapshot runs with the GIL released;
//! JSON text (`str` / `bytes`) goes through the core's text parser (docs/boundary.md).
//! Errors are raised as the exception classes of `mcp_outputs._errors` (defined in Python: abi3
//! classes cannot subclass `ValueError`).

mod convert;
mod lenient;
mod payload;
mod plain;

use convert::{as_text, to_py, Text};
use mcp_outputs::json;
use mcp_outputs::migration::{migrate, MigrateOptions};
use mcp_outputs::node::{Out, SerdeJson};
use mcp_outputs::ops::{COMMON_FIELDS, OPERATIONS};
use mcp_outputs::payload::InPlace;
use mcp_outputs::planning::Mode;

use mcp_outputs::{
    Config, Connection, Error, ErrorCode, Limits, ProtocolVersion, ReceivedTool, ServerArgument, ServerTool,
};
use payload::PlainPayloads;
use plain::{PlainNode, PyPlain};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use serde_json::{Map, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Inputs at least this large (the core's byte estimate) are processed with the GIL released;
/// below it, releasing and taking the GIL back costs more than it frees.
const DETACH_BYTES: usize = 16 * 1024;

// ---------------------------------------------------------------------------------------------
// Errors

/// The exception classes of `mcp_outputs._errors`, fetched once (when the module is imported)
/// so that raising an error imports nothing and runs as little Python as possible.
struct Classes {
    by_code: Py<PyDict>,
    base: Py<PyAny>,
    internal: Py<PyAny>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        let module = py.import("mcp_outputs._errors")?;
        Ok(Classes {
            by_code: module.getattr("ERROR_CLASSES")?.cast_into::<PyDict>()?.unbind(),
            base: module.getattr("McpOutputsError")?.unbind(),
            internal: module.getattr("InternalError")?.unbind(),
        })
    })
}

/// The core error as the Python exception of its code.
fn raise(py: Python<'_>, error: &Error) -> PyErr {
    let Ok(classes) = classes(py) else {
        return PyValueError::new_err(error.to_string());
    };
    let jsonrpc = match error.to_jsonrpc_error().map(|rpc| to_py(py, &rpc)) {
        Some(Ok(rpc)) => rpc,
        _ => py.None().into_bound(py),
    };
    let cls = match classes.by_code.bind(py).get_item(error.code().as_str()) {
        Ok(Some(cls)) => cls,
        _ => classes.base.bind(py).clone(),
    };
    let fields = Fields { code: error.code().as_str(), message: error.message(), path: error.path(), jsonrpc };
    instance(&cls, fields)
}

/// The fields of an `McpOutputsError`.
struct Fields<'a, 'py> {
    code: &'a str,
    message: &'a str,
    path: &'a str,
    jsonrpc: Bound<'py, PyAny>,
}

/// An instance of `cls` (an `McpOutputsError` class) with `fields`. The class's `__init__` runs
/// Python code; near the recursion limit that fails (a `RecursionError`), and the error would
/// lose its class. Then the instance is made as `__init__` would make it, through
/// `BaseException.__new__` and attribute sets, which run no Python frame; failing even that, the
/// exception is raised by class and arguments, and Python makes it where it is caught.
fn instance(cls: &Bound<'_, PyAny>, fields: Fields<'_, '_>) -> PyErr {
    let Fields { code, message, path, jsonrpc } = fields;
    if let Ok(exc) = cls.call1((code, message, path, &jsonrpc)) {
        return PyErr::from_value(exc);
    }
    let py = cls.py();
    let bare = || -> PyResult<PyErr> {
        let display =
            if path.is_empty() { format!("{code}: {message}") } else { format!("{code}: {message} (at {path})") };
        let exc = py.get_type::<pyo3::exceptions::PyBaseException>().getattr("__new__")?.call1((cls, display))?;
        exc.setattr("code", code)?;
        exc.setattr("message", message)?;
        exc.setattr("path", path)?;
        exc.setattr("_jsonrpc", &jsonrpc)?;
        Ok(PyErr::from_value(exc))
    };
    bare().unwrap_or_else(|_| match cls.cast::<pyo3::types::PyType>() {
        Ok(ty) => {
            PyErr::from_type(ty.clone(), (code.to_owned(), message.to_owned(), path.to_owned(), jsonrpc.unbind()))
        }
        Err(_) => PyValueError::new_err(format!("{code}: {message}")),
    })
}

/// Runs `f`, turning a panic (a bug) into `mcp_outputs.InternalError` rather than pyo3's
/// `PanicException` (a `BaseException`), with room on the stack for the deepest input the
/// limits allow, whatever the calling thread's stack size (`mcp_outputs::stack`).
fn guard<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match mcp_outputs::stack::with_room(mcp_outputs::stack::CALL_BYTES, || catch_unwind(AssertUnwindSafe(f))) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            let Ok(classes) = classes(py) else {
                return Err(PyValueError::new_err(message));
            };
            let cls = classes.internal.bind(py);
            if let Ok(exc) = cls.call1((message.as_str(),)) {
                return Err(PyErr::from_value(exc));
            }
            // `InternalError.__init__` takes the message alone: `instance` fails its first way
            // and makes it bare, with the fields that `__init__` would set.
            let message = format!("internal error in mcp-outputs: {message}");
            let fields =
                Fields { code: "internal-error", message: &message, path: "", jsonrpc: py.None().into_bound(py) };
            Err(instance(cls, fields))
        }
    }
}

trait OrRaise<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, Error> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| raise(py, &e))
    }
}

// ---------------------------------------------------------------------------------------------
// Arguments

/// One JSON argument: read from Python objects, or parsed from `str` / `bytes` by the core.
struct Arg {
    value: Value,
    /// The core's byte estimate of the value (the text length for text).
    size: usize,
}

fn arg(obj: &Bound<'_, PyAny>, limits: &Limits, what: &str) -> Result<Arg, Error> {
    match as_text(obj)? {
        Some(Text::Str(text)) => Ok(Arg { value: limits.parse_text(text, what)?, size: text.len() }),
        Some(Text::Bytes(bytes)) => Ok(Arg { value: limits.parse_bytes(bytes, what)?, size: bytes.len() }),
        None => {
            let (value, size) = lenient::argument(obj, limits)?;
            Ok(Arg { value, size })
        }
    }
}

fn opt_arg(obj: Option<&Bound<'_, PyAny>>, limits: &Limits, what: &str) -> Result<Option<Value>, Error> {
    match obj {
        Some(o) if !o.is_none() => arg(o, limits, what).map(|a| Some(a.value)),
        _ => Ok(None),
    }
}

/// A value argument that is never JSON text (a `str` is a JSON string).
fn opt_value(obj: Option<&Bound<'_, PyAny>>, limits: &Limits) -> Result<Option<Value>, Error> {
    match obj {
        Some(o) if !o.is_none() => lenient::argument(o, limits).map(|(v, _)| Some(v)),
        _ => Ok(None),
    }
}

/// A member of a larger input (`key`, a JSON Pointer without its leading `/`), read with the
/// limits of one argument; an error names its path in that input.
fn member(obj: &Bound<'_, PyAny>, limits: &Limits, key: &str) -> Result<Value, Error> {
    lenient::argument(obj, limits)
        .map(|(value, _)| value)
        .map_err(|e| Error::new(e.code(), format!("/{key}{}", e.path()), e.message()))
}

/// Runs `f` with the GIL released when the input is large.
fn run_sized<T: Send>(py: Python<'_>, size: usize, f: impl FnOnce() -> T + Send) -> T {
    if size >= DETACH_BYTES {
        py.detach(f)
    } else {
        f()
    }
}

fn codes<'a>(py: Python<'_>, items: impl IntoIterator<Item = &'a str>) -> PyResult<Py<PyList>> {
    Ok(PyList::new(py, items)?.unbind())
}

fn warnings_list(py: Python<'_>, warnings: &[mcp_outputs::Warning]) -> PyResult<Py<PyAny>> {
    Ok(to_py(py, &json::warnings(warnings))?.unbind())
}

// ---------------------------------------------------------------------------------------------
// Config and Connection

/// Library options: registered extension audiences and limits.
#[pyclass(frozen, module = "mcp_outputs._mcp_outputs", name = "Config")]
struct PyConfig {
    inner: Arc<Config>,
}

#[pymethods]
impl PyConfig {
    #[new]
    #[pyo3(signature = (*, extensions = None, limits = None, supported_versions = None))]
    fn new(
        py: Python<'_>,
        extensions: Option<&Bound<'_, PyAny>>,
        limits: Option<&Bound<'_, PyAny>>,
        supported_versions: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        guard(py, || {
            let defaults = Limits::default();
            let mut options = Map::new();
            if let Some(value) = opt_value(extensions, &defaults).or_raise(py)? {
                options.insert("extensions".into(), value);
            }
            if let Some(value) = opt_value(supported_versions, &defaults).or_raise(py)? {
                options.insert("supportedVersions".into(), value);
            }
            if let Some(value) = opt_value(limits, &defaults).or_raise(py)? {
                options.insert("limits".into(), value);
            }
            let inner = json::config(Some(&Value::Object(options))).or_raise(py)?;
            Ok(PyConfig { inner })
        })
    }

    /// The limits in force, with the option names of `Config(limits=...)`.
    #[getter]
    fn limits(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let l = &self.inner.limits;
        let dict = PyDict::new(py);
        dict.set_item("maxDepth", l.max_depth)?;
        dict.set_item("maxBytes", l.max_bytes)?;
        dict.set_item("maxArrayLen", l.max_array_len)?;
        dict.set_item("maxObjectLen", l.max_object_len)?;
        dict.set_item("maxVariants", l.max_variants)?;
        dict.set_item("maxTools", l.max_tools)?;
        dict.set_item("maxExtensions", l.max_extensions)?;
        Ok(dict.into_any().unbind())
    }

    /// The protocol revisions this side supports (VER-4), oldest first.
    #[getter]
    fn supported_versions(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        Ok(PyTuple::new(py, self.inner.supported_versions.iter().map(|v| v.as_str()))?.unbind())
    }

    /// The registered extension definitions (the built-in Apps one first).
    #[getter]
    fn extensions(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let defs: Vec<Value> = self.inner.registry.definitions().iter().map(|d| d.to_json()).collect();
        Ok(to_py(py, &Value::Array(defs))?.unbind())
    }

    fn __repr__(&self) -> String {
        format!("Config(limits={:?})", self.inner.limits)
    }
}

fn config_of(config: Option<&Bound<'_, PyConfig>>) -> Arc<Config> {
    config.map_or_else(Config::new, |c| Arc::clone(&c.get().inner))
}

/// One connection: the protocol version and the extensions both sides negotiated.
#[pyclass(frozen, module = "mcp_outputs._mcp_outputs", name = "Connection")]
struct PyConnection {
    inner: Connection,
}

#[pymethods]
impl PyConnection {
    #[new]
    #[pyo3(signature = (protocol_version = None, negotiated = None, *, config = None))]
    fn new(
        py: Python<'_>,
        protocol_version: Option<&Bound<'_, PyAny>>,
        negotiated: Option<&Bound<'_, PyAny>>,
        config: Option<&Bound<'_, PyConfig>>,
    ) -> PyResult<Self> {
        guard(py, || {
            let config = config_of(config);
            let mut fields = Map::new();
            if let Some(v) = opt_value(protocol_version, &config.limits).or_raise(py)? {
                fields.insert("protocolVersion".into(), v);
            }
            if let Some(v) = opt_value(negotiated, &config.limits).or_raise(py)? {
                fields.insert("negotiated".into(), v);
            }
            let inner = json::connection(&config, Some(&Value::Object(fields))).or_raise(py)?;
            Ok(PyConnection { inner })
        })
    }

    /// The connection both sides agree on after `initialize` (up to 2025-11-25) or
    /// `server/discover` (from 2026-07-28 on): the version and the extensions both capabilities list.
    #[staticmethod]
    #[pyo3(signature = (protocol_version, client_capabilities, server_capabilities, *, config = None))]
    fn negotiate(
        py: Python<'_>,
        protocol_version: &Bound<'_, PyAny>,
        client_capabilities: &Bound<'_, PyAny>,
        server_capabilities: &Bound<'_, PyAny>,
        config: Option<&Bound<'_, PyConfig>>,
    ) -> PyResult<Self> {
        guard(py, || {
            let config = config_of(config);
            let mut init = Map::new();
            for (key, obj) in [
                ("protocolVersion", protocol_version),
                ("clientCapabilities", client_capabilities),
                ("serverCapabilities", server_capabilities),
            ] {
                init.insert(key.into(), member(obj, &config.limits, key).or_raise(py)?);
            }
            let inner = json::negotiate(&config, &Value::Object(init)).or_raise(py)?;
            Ok(PyConnection { inner })
        })
    }

    /// The connection of one request (from 2026-07-28 on), read from its `params["_meta"]`.
    #[staticmethod]
    #[pyo3(signature = (params, server_capabilities, *, config = None))]
    fn from_request(
        py: Python<'_>,
        params: &Bound<'_, PyAny>,
        server_capabilities: &Bound<'_, PyAny>,
        config: Option<&Bound<'_, PyConfig>>,
    ) -> PyResult<Self> {
        guard(py, || {
            let config = config_of(config);
            // Whose fault a value this binding cannot read is, and which comes first, is the
            // core's to say (ServerArgument, connection_from_request_unread).
            let (params, _) =
                lenient::argument(params, &config.limits).map_err(|e| ServerArgument::Request.fault(e)).or_raise(py)?;
            let server = match lenient::argument(server_capabilities, &config.limits) {
                Ok((server, _)) => server,
                Err(fault) => return Err(json::connection_from_request_unread(&config, &params, fault)).or_raise(py),
            };
            let inner = json::connection_from_request(&config, &params, &server).or_raise(py)?;
            Ok(PyConnection { inner })
        })
    }

    /// The `params` of a tools/call: `requestedOutputs` from `plan` only, `_meta` from 2026-07-28 on.
    #[pyo3(signature = (name, arguments, plan, client_capabilities))]
    fn tools_call_params(
        &self,
        py: Python<'_>,
        name: &str,
        arguments: Option<&Bound<'_, PyAny>>,
        plan: &Bound<'_, PyAny>,
        client_capabilities: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        guard(py, || {
            let limits = self.inner.limits();
            let arguments = opt_value(arguments, limits).or_raise(py)?;
            let (plan, _) = lenient::argument(plan, limits).or_raise(py)?;
            let (caps, _) = lenient::argument(client_capabilities, limits).or_raise(py)?;
            let params = self.inner.tools_call_params_json(name, arguments.as_ref(), &plan, &caps).or_raise(py)?;
            Ok(to_py(py, &params)?.unbind())
        })
    }

    /// The `params` of any request (tools/list, resources/read, …): `_meta` from 2026-07-28 on.
    fn request_params(
        &self,
        py: Python<'_>,
        params: &Bound<'_, PyAny>,
        client_capabilities: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        guard(py, || {
            let limits = self.inner.limits();
            let (params, _) = lenient::argument(params, limits).or_raise(py)?;
            let (caps, _) = lenient::argument(client_capabilities, limits).or_raise(py)?;
            let params = self.inner.request_params_json(&params, &caps).or_raise(py)?;
            Ok(to_py(py, &params)?.unbind())
        })
    }

    /// The tools/list result: each `ServerTool` advertised for this connection, each dict (a
    /// legacy Tool not yet migrated, before 2026-12-01 only) as given; `cache` is
    /// `{"ttlMs", "cacheScope"}` (default 0 / "private", sent from 2026-07-28 on);
    /// `next_cursor` is the page's `nextCursor`, sent as given (LIST-4).
    #[pyo3(signature = (tools, *, cache = None, next_cursor = None))]
    fn tools_list_result(
        &self,
        py: Python<'_>,
        tools: &Bound<'_, PyAny>,
        cache: Option<&Bound<'_, PyAny>>,
        next_cursor: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        guard(py, || {
            let items: Vec<Bound<'_, PyAny>> = if let Ok(list) = tools.cast::<PyList>() {
                list.iter().collect()
            } else if let Ok(tuple) = tools.cast::<PyTuple>() {
                tuple.iter().collect()
            } else {
                let err = Error::new(ErrorCode::Malformed, "/tools", "tools must be a list of ServerTool or dict");
                return Err(raise(py, &err));
            };
            let limits = self.inner.limits();
            limits.check_count(items.len(), limits.max_tools, "/tools", "tools").or_raise(py)?;
            let mut values = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let value = match item.cast::<PyServerTool>() {
                    Ok(tool) => tool.get().inner.advertise(&self.inner),
                    Err(_) => member(item, limits, &format!("tools/{i}")).or_raise(py)?,
                };
                values.push(value);
            }
            let cache = opt_value(cache, limits).or_raise(py)?;
            let next_cursor = opt_value(next_cursor, limits).or_raise(py)?;
            let result =
                self.inner.tools_list_result_json(values, cache.as_ref(), next_cursor.as_ref()).or_raise(py)?;
            Ok(to_py(py, &result)?.unbind())
        })
    }

    #[getter]
    fn protocol_version(&self) -> &'static str {
        self.inner.version().as_str()
    }

    #[getter]
    fn negotiated(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        codes(py, self.inner.negotiated().iter().map(String::as_str))
    }

    #[getter]
    fn config(&self) -> PyConfig {
        PyConfig { inner: Arc::clone(self.inner.config()) }
    }

    fn __repr__(&self) -> String {
        format!("Connection({:?}, {:?})", self.inner.version().as_str(), self.inner.negotiated())
    }
}

// ---------------------------------------------------------------------------------------------
// Server side

/// A tool declaration validated and compiled once (`ServerTool.declare`).
#[pyclass(frozen, module = "mcp_outputs._mcp_outputs", name = "ServerTool")]
struct PyServerTool {
    inner: ServerTool,
}

#[pymethods]
impl PyServerTool {
    #[staticmethod]
    #[pyo3(signature = (tool, legacy = None, *, config = None))]
    fn declare(
        py: Python<'_>,
        tool: &Bound<'_, PyAny>,
        legacy: Option<&Bound<'_, PyAny>>,
        config: Option<&Bound<'_, PyConfig>>,
    ) -> PyResult<Self> {
        guard(py, || {
            let config = config_of(config);
            // What the binding reads of a declaration is the server's fault, as what the core
            // finds in it is (ServerArgument).
            let server = |e| ServerArgument::Tool.fault(e);
            let tool = arg(tool, &config.limits, "tool").map_err(server).or_raise(py)?;
            let legacy = opt_arg(legacy, &config.limits, "legacy").map_err(server).or_raise(py)?;
            let inner =
                run_sized(py, tool.size, || ServerTool::declare(&tool.value, legacy.as_ref(), &config)).or_raise(py)?;
            Ok(PyServerTool { inner })
        })
    }

    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    #[getter]
    fn warnings(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        warnings_list(py, self.inner.warnings())
    }

    #[getter]
    fn config(&self) -> PyConfig {
        PyConfig { inner: Arc::clone(self.inner.config()) }
    }

    /// The Tool object to send in tools/list on `conn`.
    fn advertise(&self, py: Python<'_>, conn: &Bound<'_, PyConnection>) -> PyResult<Py<PyAny>> {
        guard(py, || Ok(to_py(py, &self.inner.advertise(&conn.get().inner))?.unbind()))
    }

    /// The selectors a request's `requestedOutputs` resolves to, in request order.
    #[pyo3(signature = (conn, requested_outputs = None))]
    fn select(
        &self,
        py: Python<'_>,
        conn: &Bound<'_, PyConnection>,
        requested_outputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        guard(py, || {
            let conn = &conn.get().inner;
            let selection = server_selection(&self.inner, conn, requested_outputs).or_raise(py)?;
            Ok(to_py(py, &mcp_outputs::selection::to_json(&selection))?.unbind())
        })
    }

    /// `select` over JSON text: `requestedOutputs` as text in, the selection as text out.
    #[pyo3(signature = (conn, requested_outputs = None))]
    fn select_text(
        &self,
        py: Python<'_>,
        conn: &Bound<'_, PyConnection>,
        requested_outputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        guard(py, || {
            let conn = &conn.get().inner;
            let requested = text_arg(py, requested_outputs)?;
            self.inner.select_text(conn, requested.as_deref()).or_raise(py)
        })
    }

    /// The CallToolResult to send for `produced` (`{"outputs": [...], "isError"?, "_meta"?}`).
    #[pyo3(signature = (conn, requested_outputs, produced))]
    fn respond(
        &self,
        py: Python<'_>,
        conn: &Bound<'_, PyConnection>,
        requested_outputs: Option<&Bound<'_, PyAny>>,
        produced: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        guard(py, || {
            let conn = &conn.get().inner;
            let limits = conn.limits();
            // The request first: its faults outrank the produced outputs' (the core's order).
            let selectors = server_selection(&self.inner, conn, requested_outputs).or_raise(py)?;
            // Plain values are read where they live, by the core, and the result carries the
            // caller's own outputs and payloads (plain.rs).
            let in_place = plain::in_place(produced, || {
                let node = PlainNode::new(produced.as_borrowed());
                self.inner
                    .respond_selected::<PyPlain, _>(conn, &selectors, node, &PlainPayloads)
                    .map(|out| out_to_py(py, &out).map(Bound::unbind))
            });
            if let Some(answer) = in_place {
                return answer.or_raise(py)?;
            }
            // Anything else is read once, as a snapshot, and the result is built from that
            // snapshot alone (docs/boundary.md): nothing of the caller's is handed back, so the
            // snapshot may be read while other threads run. What cannot be read of the produced
            // outputs is the tool's fault, as what the core finds in them is.
            let (produced, size) =
                lenient::argument(produced, limits).map_err(|fault| ServerArgument::Tool.fault(fault)).or_raise(py)?;
            let result = run_sized(py, size, || {
                self.inner.respond_selected::<SerdeJson, _>(conn, &selectors, &produced, &InPlace).map(Out::into_value)
            })
            .or_raise(py)?;
            Ok(to_py(py, &result)?.unbind())
        })
    }

    /// `respond` over JSON text: the produced outputs as text in, the wire result as text out.
    #[pyo3(signature = (conn, requested_outputs, produced))]
    fn respond_text(
        &self,
        py: Python<'_>,
        conn: &Bound<'_, PyConnection>,
        requested_outputs: Option<&Bound<'_, PyAny>>,
        produced: &Bound<'_, PyAny>,
    ) -> PyResult<String> {
        guard(py, || {
            let conn = &conn.get().inner;
            let requested = text_arg(py, requested_outputs)?;
            let produced = text_arg(py, Some(produced))?.unwrap_or_default();
            let size = produced.len();
            run_sized(py, size, || self.inner.respond_text(conn, requested.as_deref(), &produced)).or_raise(py)
        })
    }

    fn __repr__(&self) -> String {
        format!("ServerTool({:?})", self.inner.name())
    }
}

/// JSON text from `str` or `bytes` (which must be UTF-8); anything else is a TypeError.
fn text_arg(py: Python<'_>, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    match as_text(obj).or_raise(py)? {
        Some(Text::Str(s)) => Ok(Some(s.to_owned())),
        Some(Text::Bytes(b)) => match std::str::from_utf8(b) {
            Ok(s) => Ok(Some(s.to_owned())),
            Err(e) => Err(raise(py, &Error::new(ErrorCode::Malformed, "", format!("JSON text is not UTF-8: {e}")))),
        },
        None => Err(pyo3::exceptions::PyTypeError::new_err("JSON text must be str or bytes")),
    }
}

// ---------------------------------------------------------------------------------------------
// Client side

/// A tool as received in tools/list on one connection, validated and compiled once
/// (`ReceivedTool.accept`).
#[pyclass(frozen, module = "mcp_outputs._mcp_outputs", name = "ReceivedTool")]
struct PyReceivedTool {
    inner: ReceivedTool,
}

impl PyReceivedTool {
    /// The optional `legacy_structured` rule, read by the core (`None` and Python `None` alike).
    fn legacy_rule(&self, py: Python<'_>, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<mcp_outputs::Audience>> {
        let limits = self.inner.connection().limits();
        // A `str` is the consumer's name, never JSON text.
        let value = opt_value(value, limits).or_raise(py)?;
        value.map(|v| self.inner.legacy_consumer(&v)).transpose().or_raise(py)
    }
}

#[pymethods]
impl PyReceivedTool {
    #[staticmethod]
    fn accept(py: Python<'_>, tool: &Bound<'_, PyAny>, conn: &Bound<'_, PyConnection>) -> PyResult<Self> {
        guard(py, || {
            let conn = &conn.get().inner;
            let tool = arg(tool, conn.limits(), "tool").or_raise(py)?;
            let inner = run_sized(py, tool.size, || ReceivedTool::accept(&tool.value, conn)).or_raise(py)?;
            Ok(PyReceivedTool { inner })
        })
    }

    #[getter]
    fn tool(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(to_py(py, &Value::Object(self.inner.tool().clone()))?.unbind())
    }

    #[getter]
    fn name(&self) -> &str {
        self.inner.tool().get("name").and_then(Value::as_str).unwrap_or_default()
    }

    #[getter]
    fn warnings(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        warnings_list(py, self.inner.warnings())
    }

    #[getter]
    fn connection(&self) -> PyConnection {
        PyConnection { inner: self.inner.connection().clone() }
    }

    /// Plans a call: `mode` or `consumers`; answers `{"requestedOutputs"?, "schemas"?}`.
    #[pyo3(signature = (mode = None, consumers = None, *, require_schema = false, schemas = false))]
    fn plan(
        &self,
        py: Python<'_>,
        mode: Option<&Bound<'_, PyAny>>,
        consumers: Option<&Bound<'_, PyAny>>,
        require_schema: bool,
        schemas: bool,
    ) -> PyResult<Py<PyAny>> {
        guard(py, || {
            let limits = self.inner.connection().limits();
            let mut request = Map::new();
            if let Some(mode) = opt_value(mode, limits).or_raise(py)? {
                request.insert("mode".into(), mode);
            }
            if let Some(consumers) = opt_value(consumers, limits).or_raise(py)? {
                request.insert("consumers".into(), consumers);
            }
            request.insert("requireSchema".into(), Value::Bool(require_schema));
            request.insert("schemas".into(), Value::Bool(schemas));
            let plan = self.inner.plan_json(&Value::Object(request)).or_raise(py)?;
            Ok(to_py(py, &plan)?.unbind())
        })
    }

    /// Checks a result (a dict, or the JSON text as `str` / `bytes`) against the request.
    /// `legacy_structured` (a local rule for an older server, LEG-8) is only validated.
    #[pyo3(signature = (requested_outputs, result, *, legacy_structured = None))]
    fn check(
        &self,
        py: Python<'_>,
        requested_outputs: Option<&Bound<'_, PyAny>>,
        result: &Bound<'_, PyAny>,
        legacy_structured: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        guard(py, || {
            let limits = self.inner.connection().limits();
            let selection = requested_selection(&self.inner, requested_outputs).or_raise(py)?;
            self.legacy_rule(py, legacy_structured)?;
            // The order of the text paths: the result's limits, then the request, then the rest.
            let checked = |result: &Value| {
                self.inner
                    .check_node_then::<SerdeJson, _, _>(|| selected(&selection), result, &InPlace)
                    .map(|c| c.to_json())
            };
            let answer = match as_text(result).or_raise(py)? {
                Some(text) => run_sized(py, text.len(), || parse_text(limits, &text).and_then(|v| checked(&v))),
                None => {
                    // Plain values are read where they live, by the core (plain.rs), in the
                    // order of the text path.
                    let in_place = plain::in_place(result, || {
                        let node = PlainNode::new(result.as_borrowed());
                        self.inner
                            .check_node_then::<PyPlain, _, _>(|| selected(&selection), node, &PlainPayloads)
                            .map(|c| c.to_json())
                    });
                    if let Some(answer) = in_place {
                        return Ok(to_py(py, &answer.or_raise(py)?)?.unbind());
                    }
                    // Anything else is read once, as a snapshot, which may be checked while other
                    // threads run.
                    let (value, size) = lenient::argument(result, limits).or_raise(py)?;
                    run_sized(py, size, || checked(&value))
                }
            }
            .or_raise(py)?;
            Ok(to_py(py, &answer)?.unbind())
        })
    }

    /// Checks a result and routes each output by its audience. Outputs are handed back as
    /// received: for a dict result, the very objects of the caller's result. Under an earlier
    /// revision `legacy_structured` names the consumer of a present `structuredContent` (LEG-8).
    #[pyo3(signature = (requested_outputs, result, *, legacy_structured = None))]
    fn route(
        &self,
        py: Python<'_>,
        requested_outputs: Option<&Bound<'_, PyAny>>,
        result: &Bound<'_, PyAny>,
        legacy_structured: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        guard(py, || {
            let limits = self.inner.connection().limits();
            let selection = requested_selection(&self.inner, requested_outputs).or_raise(py)?;
            let rule = self.legacy_rule(py, legacy_structured)?;
            match as_text(result).or_raise(py)? {
                Some(text) => {
                    let parsed = run_sized(py, text.len(), || parse_text(limits, &text)).or_raise(py)?;
                    let route = run_sized(py, text.len(), || {
                        self.inner
                            .check_node_then::<SerdeJson, _, _>(|| selected(&selection), &parsed, &InPlace)
                            .map(|checked| self.inner.route_node(&checked, rule.as_ref()).to_json())
                    })
                    .or_raise(py)?;
                    Ok(to_py(py, &route)?.unbind())
                }
                None => {
                    // Plain values are read where they live, by the core, and the caller's own
                    // objects are handed back (plain.rs); the GIL is held from the read to the
                    // hand-back, so no other thread changes them in between.
                    let in_place = plain::in_place(result, || {
                        let node = PlainNode::new(result.as_borrowed());
                        let checked =
                            self.inner.check_node_then::<PyPlain, _, _>(|| selected(&selection), node, &PlainPayloads);
                        checked.map(|checked| {
                            let route = self.inner.route_node(&checked, rule.as_ref());
                            out_to_py(py, &route.to_out()).map(Bound::unbind)
                        })
                    });
                    if let Some(answer) = in_place {
                        return answer.or_raise(py)?;
                    }
                    // Anything else is read once, as a snapshot: what is checked is what is
                    // handed back, and nothing of the caller's is, so the snapshot may be read
                    // while other threads run (docs/boundary.md).
                    let (value, size) = lenient::argument(result, limits).or_raise(py)?;
                    let route = run_sized(py, size, || {
                        self.inner
                            .check_node_then::<SerdeJson, _, _>(|| selected(&selection), &value, &InPlace)
                            .map(|checked| self.inner.route_node(&checked, rule.as_ref()).to_json())
                    })
                    .or_raise(py)?;
                    Ok(to_py(py, &route)?.unbind())
                }
            }
        })
    }

    fn __repr__(&self) -> String {
        format!("ReceivedTool({:?})", self.name())
    }
}

/// What a call's `requestedOutputs` resolves to: the selectors, or the request's fault. The
/// core answers it when it asks for the selection, in its order (after the result's limits).
type Selection = Result<Vec<mcp_outputs::Selector>, Error>;

/// The selection of a call's `requestedOutputs` (`None` and Python `None` alike: absent), or the
/// fault of reading it, which outranks everything else of the call. Plain values are read where
/// they live (`plain.rs`: the core's limits walk, then its selection over the same objects), with
/// no `Value` made of them; JSON text and any other value are read as before (`arg`). The
/// selection is made at once, before any Python code of the call runs (a legacy rule's or a
/// result's `model_dump` could change the caller's objects), and held until the core asks for it.
fn requested_selection(tool: &ReceivedTool, obj: Option<&Bound<'_, PyAny>>) -> Result<Selection, Error> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(tool.selection(None));
    };
    let limits = tool.connection().limits();
    if as_text(obj)?.is_none() {
        // The node is made inside the read: its classification marks a value that is not plain.
        if let Some(selection) =
            plain::in_place(obj, || tool.selection_node::<PyPlain>(Some(&PlainNode::new(obj.as_borrowed()))))
        {
            return Ok(selection);
        }
    }
    // Anything else, and every fault (its code and path are the snapshot reader's), as before.
    let requested = arg(obj, limits, "requestedOutputs")?;
    Ok(tool.selection(Some(&requested.value)))
}

/// The selection of a request's `requestedOutputs` on the server side (`None` and Python `None`
/// alike: absent), with the request's code (-32602) on every fault. Plain values are read where
/// they live (`plain.rs`): the core's limits walk and its selection over the caller's own
/// objects, no `Value` made of them; any other value is read by the snapshot reader, whose faults
/// (their code and path) are as before.
fn server_selection(
    tool: &ServerTool,
    conn: &Connection,
    obj: Option<&Bound<'_, PyAny>>,
) -> Result<Vec<mcp_outputs::Selector>, Error> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return tool.select(conn, None);
    };
    // The node is made inside the read: its classification marks a value that is not plain.
    if let Some(selection) =
        plain::in_place(obj, || tool.select_node::<PyPlain>(conn, Some(&PlainNode::new(obj.as_borrowed()))))
    {
        return selection;
    }
    let requested = lenient::argument(obj, conn.limits()).map_err(|e| ServerArgument::Request.fault(e))?;
    tool.select(conn, Some(&requested.0))
}

/// The held selection, for the core's `check_node_then` (an error is cloned: only a failing call
/// pays for it).
fn selected(selection: &Selection) -> Result<&[mcp_outputs::Selector], Error> {
    selection.as_ref().map(Vec::as_slice).map_err(Clone::clone)
}

/// JSON text of a result, parsed by the core.
fn parse_text(limits: &Limits, text: &Text<'_>) -> Result<Value, Error> {
    match text {
        Text::Str(s) => limits.parse_text(s, "result"),
        Text::Bytes(b) => limits.parse_bytes(b, "result"),
    }
}

/// An answer of the core in terms of the caller's plain objects ([`Out`]) as Python objects:
/// every node it names is handed back as the caller's own object; what the core built around
/// them is new.
fn out_to_py<'r>(py: Python<'r>, out: &Out<'r, PyPlain>) -> PyResult<Bound<'r, PyAny>> {
    Ok(match out {
        Out::Node(node) => node.object(),
        Out::Value(value) => to_py(py, value)?,
        Out::Object(members) => {
            let dict = PyDict::new(py);
            for (key, value) in members {
                dict.set_item(answer_key(py, key), out_to_py(py, value)?)?;
            }
            dict.into_any()
        }
        Out::Array(items) => {
            PyList::new(py, items.iter().map(|item| out_to_py(py, item)).collect::<PyResult<Vec<_>>>()?)?.into_any()
        }
    })
}

/// A member name of an answer the core builds ([`Out::Object`]): the protocol's names are
/// interned Python strings, made once, whose hash is kept; a new string per member per call was
/// allocated and hashed again by every insert (about a tenth of a 0.5 KB route). Any other name
/// (an extension identifier) is made anew.
fn answer_key<'py>(py: Python<'py>, name: &str) -> Bound<'py, PyString> {
    macro_rules! interned {
        ($($known:literal),* $(,)?) => {
            match name {
                $($known => pyo3::intern!(py, $known).clone(),)*
                _ => PyString::new(py, name),
            }
        };
    }
    interned!(
        "model",
        "user",
        "programmatic",
        "extensions",
        "view",
        "dropped",
        "diagnostics",
        "isError",
        "outputs",
        "audience",
        "format",
        "content",
        "structuredContent",
        "_meta",
        "resultType",
        "result",
        "type",
        "text",
        "annotations",
        "io.modelcontextprotocol/ui",
    )
}

// ---------------------------------------------------------------------------------------------
// Functions

/// Runs one operation of the conformance corpus (`declare`, `advertise`, `select`, `respond`,
/// `accept`, `plan`, `check`, `route`, `migrate`, `list`, `discover`, `scenario`) on its input;
/// returns its `ok`.
#[pyfunction]
fn run(py: Python<'_>, op: &str, input: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    guard(py, || {
        let limits = Limits::default();
        let (value, size) = match as_text(input).or_raise(py)? {
            Some(_) => {
                let a = arg(input, &limits, "input").or_raise(py)?;
                (a.value, a.size)
            }
            None => {
                // The input wraps the core's arguments one level down, and the core checks each
                // argument with its limits (and the JSON-RPC code of its side): the wrapper's read
                // only bounds the nesting, at the deepest any setting allows.
                let wrapper = Limits {
                    max_depth: mcp_outputs::MAX_DEPTH_CEILING,
                    max_bytes: usize::MAX,
                    max_array_len: usize::MAX,
                    max_object_len: usize::MAX,
                    ..limits.clone()
                };
                lenient::read(input, &wrapper, 0).or_raise(py)?
            }
        };
        let out = run_sized(py, size, || mcp_outputs::ops::run(op, &value)).or_raise(py)?;
        Ok(to_py(py, &out)?.unbind())
    })
}

/// Checks only the JSON shape of a request's `requestedOutputs` (limits, an array of selector
/// objects with string `audience` and `format`): the errors that outrank every other, the
/// version's included. A server reading a request calls it before building the `Connection`.
#[pyfunction]
#[pyo3(signature = (requested_outputs, *, config = None))]
fn check_requested_outputs(
    py: Python<'_>,
    requested_outputs: &Bound<'_, PyAny>,
    config: Option<&Bound<'_, PyConfig>>,
) -> PyResult<()> {
    guard(py, || {
        let config = config_of(config);
        let requested = arg(requested_outputs, &config.limits, "requestedOutputs").or_raise(py)?;
        mcp_outputs::selection::check_shape(&requested.value, &config.limits).or_raise(py)
    })
}

/// Migrates a 2026-07-28 Tool to a 2026-12-01 declaration (MIG-1): `{tool, legacy?, warnings?}`,
/// where `legacy` holds the legacy options that keep the tool's established behaviour (MIG-2).
#[pyfunction]
#[pyo3(signature = (legacy_tool, *, programmatic_from_output_schema = false, assistant_from_output_schema = false, apps = false, config = None))]
fn migrate_tool(
    py: Python<'_>,
    legacy_tool: &Bound<'_, PyAny>,
    programmatic_from_output_schema: bool,
    assistant_from_output_schema: bool,
    apps: bool,
    config: Option<&Bound<'_, PyConfig>>,
) -> PyResult<Py<PyAny>> {
    guard(py, || {
        let config = config_of(config);
        let tool = arg(legacy_tool, &config.limits, "legacyTool").or_raise(py)?;
        let options = MigrateOptions { programmatic_from_output_schema, assistant_from_output_schema, apps };
        let out = migrate(&tool.value, options, &config.limits).or_raise(py)?;
        Ok(to_py(py, &out.to_json())?.unbind())
    })
}

/// Declares every tool of a tools/list, with legacy options per tool name; the first failing
/// tool is the error (-32603).
#[pyfunction]
#[pyo3(signature = (tools, *, legacy_by_tool = None, config = None))]
fn declare_tools(
    py: Python<'_>,
    tools: &Bound<'_, PyAny>,
    legacy_by_tool: Option<&Bound<'_, PyAny>>,
    config: Option<&Bound<'_, PyConfig>>,
) -> PyResult<Py<PyList>> {
    guard(py, || {
        let config = config_of(config);
        let server = |e| ServerArgument::Tool.fault(e);
        let tools = arg(tools, &config.limits, "tools").map_err(server).or_raise(py)?;
        let legacy = opt_value(legacy_by_tool, &config.limits).map_err(server).or_raise(py)?;
        let declared =
            run_sized(py, tools.size, || mcp_outputs::wire::declare_tools(&tools.value, legacy.as_ref(), &config))
                .or_raise(py)?;
        let items =
            declared.into_iter().map(|inner| Py::new(py, PyServerTool { inner })).collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.unbind())
    })
}

/// Reads a whole tools/list result as received (LIST-2, LIST-3): `{"tools": [ReceivedTool, …],
/// "excluded": [{index, name, code, path, message}], "cache"?, "nextCursor"?, "warnings":
/// [{code, path}]}`; only a Tool without `outputVariants` under 2026-12-01 makes the whole
/// response invalid, every other bad entry is excluded on its own.
#[pyfunction]
fn discover_tools(py: Python<'_>, result: &Bound<'_, PyAny>, conn: &Bound<'_, PyConnection>) -> PyResult<Py<PyAny>> {
    guard(py, || {
        let conn = &conn.get().inner;
        let result = arg(result, conn.limits(), "result").or_raise(py)?;
        let discovered = run_sized(py, result.size, || ReceivedTool::discover(&result.value, conn)).or_raise(py)?;
        let summary = discovered.to_json();
        let dict = PyDict::new(py);
        for key in ["excluded", "cache", "nextCursor"] {
            if let Some(value) = summary.get(key) {
                dict.set_item(key, to_py(py, value)?)?;
            }
        }
        dict.set_item("warnings", warnings_list(py, &discovered.warnings)?)?;
        let tools = discovered
            .tools
            .into_iter()
            .map(|inner| Py::new(py, PyReceivedTool { inner }))
            .collect::<PyResult<Vec<_>>>()?;
        dict.set_item("tools", PyList::new(py, tools)?)?;
        Ok(dict.into_any().unbind())
    })
}

/// Test hook: how many structured payloads were validated in place and how many as converted
/// values (this thread) since the last call.
#[pyfunction]
fn _payload_stats_for_tests() -> (usize, usize) {
    payload::take_stats()
}

/// Test hook: panics inside the guard, to prove a panic never surfaces as `PanicException`.
#[pyfunction]
#[allow(clippy::panic)]
fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    guard(py, || panic!("deliberate panic for the binding's tests"))
}

#[pymodule]
fn _mcp_outputs(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // The package imports `_errors` first; fetched now, raising never imports (see `classes`).
    let _ = classes(py);
    m.add_class::<PyConfig>()?;
    m.add_class::<PyConnection>()?;
    m.add_class::<PyServerTool>()?;
    m.add_class::<PyReceivedTool>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(migrate_tool, m)?)?;
    m.add_function(wrap_pyfunction!(declare_tools, m)?)?;
    m.add_function(wrap_pyfunction!(discover_tools, m)?)?;
    m.add_function(wrap_pyfunction!(check_requested_outputs, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(_payload_stats_for_tests, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ERROR_CODES", PyTuple::new(py, ErrorCode::ALL.iter().map(|c| c.as_str()))?)?;
    m.add("PROTOCOL_VERSIONS", PyTuple::new(py, ProtocolVersion::ALL.iter().map(|v| v.as_str()))?)?;
    m.add("LATEST_PROTOCOL_VERSION", ProtocolVersion::LATEST.as_str())?;
    m.add("MODES", PyTuple::new(py, Mode::ALL.iter().map(|v| v.as_str()))?)?;
    let ops = PyDict::new(py);
    for (op, fields) in OPERATIONS {
        ops.set_item(*op, PyTuple::new(py, fields.iter())?)?;
    }
    m.add("OPERATIONS", ops)?;
    m.add("COMMON_FIELDS", PyTuple::new(py, COMMON_FIELDS.iter())?)?;
    Ok(())
}

/// A snapshot of Python objects allocates many small strings and maps: mimalloc makes that about
/// twice as fast as the system allocator (used for the binding's Rust allocations only).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
