//! Field lookup tuned for the small objects of the protocol. With `preserve_order`, a
//! serde_json object is an IndexMap whose `get` hashes the key with SipHash; for the handful
//! of fields of an output, a block or a result, comparing keys in order is several times
//! cheaper, and these lookups are most of a result check's fixed cost.

use serde_json::{Map, Value};

/// An object of `members`, in their order: how the library builds an object that holds a
/// `Value` (or a list) it has in hand. `json!` would convert each through serde_json's value
/// serializer (`to_value`), linking a copy of `Value`'s `Serialize` for that alone (P-JS-4).
pub(crate) fn object(members: Vec<(&str, Value)>) -> Value {
    Value::Object(members.into_iter().map(|(name, value)| (name.to_owned(), value)).collect())
}

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

/// The largest integer every JSON reader holds exactly (2^53, JavaScript's safe range).
const MAX_EXACT: u64 = 1 << 53;

/// A JSON number read by value as a non-negative integer. `2` and `2.0` are one number: the
/// JavaScript and Python packages hand the core whichever form their parser kept, so an integer
/// field that refused `2.0` would answer differently per language (found by the differential
/// test, `ttlMs: 2.0`). A float is whole only within ±2^53, where it is exact.
pub(crate) fn whole_number(value: &Value) -> Option<u64> {
    match value.as_u64() {
        Some(n) => Some(n),
        None => value.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= MAX_EXACT as f64).map(|f| f as u64),
    }
}

/// A JSON number read by value as an integer of either sign, with [`whole_number`]'s rules
/// (a float only within ±2^53, where it is exact).
pub(crate) fn integer_by_value(value: &Value) -> Option<i128> {
    if let Some(n) = value.as_u64() {
        return Some(i128::from(n));
    }
    if let Some(n) = value.as_i64() {
        return Some(i128::from(n));
    }
    value.as_f64().filter(|f| f.fract() == 0.0 && f.abs() <= MAX_EXACT as f64).map(|f| f as i128)
}

#[cfg(test)]
mod tests {
    use super::{integer_by_value, whole_number};

    #[test]
    fn integers_of_either_sign_are_read_by_value() {
        for (value, expect) in [
            (json!(-1), Some(-1)),
            (json!(-1.0), Some(-1)),
            (json!(3.0), Some(3)),
            (json!(18446744073709551615u64), Some(i128::from(u64::MAX))),
            (json!(-2.5), None),
            (json!(1e300), None),
            (json!(null), None),
        ] {
            assert_eq!(integer_by_value(&value), expect, "{value}");
        }
    }
    use serde_json::json;

    #[test]
    fn whole_numbers_are_read_by_value() {
        for (value, expect) in [
            (json!(2), Some(2)),
            (json!(2.0), Some(2)),
            (json!(0.0), Some(0)),
            (json!(-0.0), Some(0)),
            (json!(9007199254740992.0), Some(9_007_199_254_740_992)),
            (json!(18446744073709551615u64), Some(u64::MAX)),
            (json!(2.5), None),
            (json!(-1), None),
            (json!(-1.0), None),
            (json!(1e300), None),
            (json!("2"), None),
        ] {
            assert_eq!(whole_number(&value), expect, "{value}");
        }
    }
}
