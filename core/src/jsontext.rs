//! Compact JSON text of a `Value`, in two number styles: exactly as JavaScript's
//! `JSON.stringify` writes it ([`stringify`]), for the legacy text mirror (LEG-4), which must be
//! the same bytes whichever SDK language produced it; and exactly as `serde_json::to_string`
//! writes it ([`compact`]), for every other text the library answers. They differ in numbers
//! only: `JSON.stringify` follows ECMAScript `Number::toString` (`1.0` → `1`, `-0.0` → `0`,
//! `1e-7` stays `1e-7`).

use serde_json::{Number, Value};

/// Serialises `value` as `JSON.stringify(value)` would.
pub fn stringify(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, true, &mut out);
    out
}

/// `value`'s text as `serde_json::to_string` (and `Value`'s `Display`) writes it, byte for byte.
/// The one writer of a `Value`'s text in the npm wasm: `Display` would link serde_json's compact
/// and pretty serialisers of `Value` beside this one, which the mirror needs anyway (P-JS-4).
pub fn compact(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, false, &mut out);
    out
}

/// `value` into `out`, its numbers as JavaScript prints them (`js`) or as serde_json does.
fn write_value(value: &Value, js: bool, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) if js => write_number(n, out),
        // `Number`'s `Display` is serde_json's own number writer (integers as integers, a double
        // by its shortest digits: `1.0`, `-0.0`, `1e+21`), the one its serialiser calls.
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, js, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_value(item, js, out);
            }
            out.push('}');
        }
    }
}

fn write_string(s: &str, out: &mut String) {
    // serde_json escapes exactly the characters JSON.stringify escapes (quote, backslash and
    // controls, with lowercase \u00xx), and never fails on a string.
    match serde_json::to_string(s) {
        Ok(text) => out.push_str(&text),
        Err(_) => out.push_str("\"\""),
    }
}

fn write_number(n: &Number, out: &mut String) {
    write_number_of(n.as_i64(), n.as_u64(), n.as_f64(), out);
}

/// Integers as their digits, every other number as ECMAScript prints the double: one rule for
/// every representation of a number the writers read.
fn write_number_of(i: Option<i64>, u: Option<u64>, f: Option<f64>, out: &mut String) {
    if let Some(i) = i {
        out.push_str(&i.to_string());
    } else if let Some(u) = u {
        out.push_str(&u.to_string());
    } else if let Some(f) = f {
        out.push_str(&js_number(f));
    }
}

/// [`stringify`] of a value in any representation the validator reads (`jsonschema_value::Node`),
/// where it lives: a binding writes its own objects' mirror text without converting them
/// (issue 11). `None` when a node is of no JSON type, or a number is not a finite one: the
/// caller then has something other than plain JSON in hand, and converts it to find out what.
/// The recursion is as deep as the value, which the caller has held to the limits.
pub fn stringify_node<'a, F, N>(node: &N) -> Option<String>
where
    F: jsonschema_value::Json,
    N: jsonschema_value::Node<'a, F>,
{
    let mut out = String::new();
    write_node(node, &mut out).then_some(out)
}

fn write_node<'a, F, N>(node: &N, out: &mut String) -> bool
where
    F: jsonschema_value::Json,
    N: jsonschema_value::Node<'a, F>,
{
    use jsonschema_value::{Array, JsonNumber, Object};
    if node.is_null() {
        out.push_str("null");
    } else if let Some(b) = node.as_boolean() {
        out.push_str(if b { "true" } else { "false" });
    } else if let Some(s) = node.as_string() {
        write_string(&s, out);
    } else if let Some(n) = node.as_number() {
        let f = n.as_f64();
        if !f.is_some_and(f64::is_finite) {
            return false;
        }
        write_number_of(n.as_i64(), n.as_u64(), f, out);
    } else if let Some(items) = node.as_array() {
        out.push('[');
        for (i, item) in items.elements().enumerate() {
            if i > 0 {
                out.push(',');
            }
            if !write_node(&item, out) {
                return false;
            }
        }
        out.push(']');
    } else if let Some(members) = node.as_object() {
        out.push('{');
        for (i, (key, item)) in members.members().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_string(key.as_ref(), out);
            out.push(':');
            if !write_node(&item, out) {
                return false;
            }
        }
        out.push('}');
    } else {
        return false;
    }
    true
}

/// ECMAScript `Number::toString(10)` for a finite double.
pub fn js_number(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        // serde_json values are always finite; -0 prints as 0 in JavaScript.
        return "0".to_owned();
    }
    // The shortest digits that read back as `value`, from serde_json's own float printer: it is
    // linked anyway, and a second printer (ryu, with its tables) cost the npm wasm 12 KB gzip.
    // Writing a finite double into a String cannot fail.
    let shortest_text = serde_json::to_string(&value.abs()).unwrap_or_default();
    let shortest = shortest_text.as_str();
    let (mantissa, exponent) = match shortest.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (shortest, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: String = format!("{int_part}{frac_part}");
    // `point`: the position of the decimal point relative to the start of `digits`
    // (ECMAScript's n), so that value = 0.digits × 10^point.
    let mut point = i32::try_from(int_part.len()).unwrap_or(0) + exponent;
    while digits.starts_with('0') && digits.len() > 1 {
        digits.remove(0);
        point -= 1;
    }
    while digits.ends_with('0') && digits.len() > 1 {
        digits.pop();
    }
    let k = i32::try_from(digits.len()).unwrap_or(1);
    let n = point;
    let mut out = String::new();
    if value < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', usize::try_from(n - k).unwrap_or(0)));
    } else if 0 < n && n <= 21 {
        let (head, tail) = digits.split_at(usize::try_from(n).unwrap_or(0));
        out.push_str(head);
        out.push('.');
        out.push_str(tail);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', usize::try_from(-n).unwrap_or(0)));
        out.push_str(&digits);
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let e = n - 1;
        out.push('e');
        out.push(if e >= 0 { '+' } else { '-' });
        out.push_str(&e.abs().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_as_javascript_prints_them() {
        let cases = [
            (1.0, "1"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (1.25e300, "1.25e+300"),
            (-0.0, "0"),
            (5e-324, "5e-324"),
            (0.30000000000000004, "0.30000000000000004"),
            // Exactly 848933478400430.25, a tie between two shortest digit strings: the even
            // one, as JavaScript prints it.
            (f64::from_bits(4_830_146_668_741_004_658), "848933478400430.2"),
        ];
        for (value, expected) in cases {
            assert_eq!(js_number(value), expected, "{value:e}");
        }
    }

    #[test]
    fn compact_writes_what_serde_json_writes() {
        let text =
            r#"{"b":1.0,"a":[true,null,"é\n\u0001\"\\"],"c":{},"n":[-0.0,1e21,1e-7,-3,18446744073709551615,0.1]}"#;
        let value: Value = serde_json::from_str(text).unwrap_or(json!(null));
        assert_eq!(compact(&value), value.to_string());
        assert_eq!(
            compact(&value),
            r#"{"b":1.0,"a":[true,null,"é\n\u0001\"\\"],"c":{},"n":[-0.0,1e+21,1e-7,-3,18446744073709551615,0.1]}"#
        );
    }

    #[test]
    fn compact_and_ordered() {
        let value: Value = serde_json::from_str(r#"{"b":1.0,"a":[true,null,"é\n"],"c":{}}"#).unwrap_or(json!(null));
        assert_eq!(stringify(&value), r#"{"b":1,"a":[true,null,"é\n"],"c":{}}"#);
    }

    /// The significant digits of a number's text (no sign, point, exponent or padding zeros).
    fn significant(text: &str) -> String {
        let mantissa = text.split(['e', 'E']).next().unwrap_or_default();
        let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
        digits.trim_start_matches('0').trim_end_matches('0').to_owned()
    }

    proptest::proptest! {
        // Every finite double reads back from its text, with the digits ECMAScript picks: the
        // shortest, the closest, an even last digit on a tie. Ryu, an independent printer that
        // picks them so, is the oracle (Rust's own `{:e}` is not: it rounds a tie up, e.g.
        // 848933478400430.25, which JavaScript prints 848933478400430.2).
        #[test]
        fn numbers_read_back_with_ecmascript_digits(bits in proptest::prelude::any::<u64>()) {
            let value = f64::from_bits(bits);
            proptest::prop_assume!(value.is_finite() && value != 0.0);
            let text = js_number(value);
            proptest::prop_assert_eq!(text.parse::<f64>().ok(), Some(value), "{}", text);
            let mut oracle = ryu::Buffer::new();
            proptest::prop_assert_eq!(significant(&text), significant(oracle.format_finite(value.abs())));
        }

        // `compact` is `Value`'s `Display`, byte for byte.
        #[test]
        fn compact_is_displays_text(value in crate::testing::arb_json()) {
            proptest::prop_assert_eq!(compact(&value), value.to_string());
        }

        // The writer over the validator's representations writes what the value writer writes:
        // one mirror text, whatever holds the value.
        #[test]
        fn the_node_writer_writes_what_the_value_writer_writes(value in crate::testing::arb_json()) {
            use jsonschema_value::SerdeJson;
            proptest::prop_assert_eq!(stringify_node::<SerdeJson, _>(&&value), Some(stringify(&value)));
        }
    }
}
