//! The binding's own conversions at the edges, where no caller's value is read as JSON: JSON
//! text given as `str` or `bytes` (which the core's text parser reads), and a `serde_json::Value`
//! the core answered, made into fresh Python objects ([`to_py`]). A caller's objects are read by
//! the core, in place (`crate::plain`) or through `crate::lenient`.

use mcp_outputs::{Error, ErrorCode};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyList, PyString};
use serde_json::Value;

/// JSON text given as `str` or `bytes`, if `obj` is one.
pub(crate) enum Text<'a> {
    Str(&'a str),
    Bytes(&'a [u8]),
}

impl Text<'_> {
    /// The length of the text in bytes.
    pub fn len(&self) -> usize {
        match self {
            Text::Str(s) => s.len(),
            Text::Bytes(b) => b.len(),
        }
    }
}

/// Reads `obj` as JSON text when it is a `str` or `bytes`.
pub(crate) fn as_text<'a>(obj: &'a Bound<'_, PyAny>) -> Result<Option<Text<'a>>, Error> {
    if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_str().map_err(|_| Error::new(ErrorCode::Malformed, "", "JSON text with a lone surrogate"))?;
        return Ok(Some(Text::Str(text)));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(Text::Bytes(b.as_bytes())));
    }
    Ok(None)
}

/// A JSON value as plain Python objects (dict, list, str, int, float, bool, None).
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(members) => {
            let dict = PyDict::new(py);
            for (key, item) in members {
                dict.set_item(PyString::new(py, key), to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}
