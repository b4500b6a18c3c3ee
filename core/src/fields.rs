//! Field lookup tuned for the small objects of the protocol. With `preserve_order`, a
//! serde_json object is an IndexMap whose `get` hashes the key with SipHash; for the handful
//! of fields of an output, a block or a result, comparing keys in order is several times
//! cheaper, and these lookups are most of a result check's fixed cost.

use serde_json::{Map, Value};

/// Objects up to this size are scanned instead of hashed.
const SCAN_LIMIT: usize = 16;

/// `get` for protocol objects.
pub(crate) trait Field {
    /// The value of `key`, if present.
    fn field(&self, key: &str) -> Option<&Value>;
}

impl Field for Map<String, Value> {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        if self.len() <= SCAN_LIMIT {
            self.iter().find_map(|(k, v)| (k == key).then_some(v))
        } else {
            self.get(key)
        }
    }
}

impl Field for Value {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|m| m.field(key))
    }
}
