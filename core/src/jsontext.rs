//! Compact JSON text exactly as JavaScript's `JSON.stringify` writes it, for the legacy text
//! mirror (LEG-4): the mirror must be the same bytes whichever SDK language produced it.
//! Differences from `serde_json::to_string`: numbers follow ECMAScript `Number::toString`
//! (`1.0` → `1`, `1e21` → `1e+21`, `1e-7` stays `1e-7`, `-0` → `0`).

use serde_json::{Number, Value};

/// Serialises `value` as `JSON.stringify(value)` would.
pub fn stringify(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
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
                write_value(item, out);
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
    if let Some(i) = n.as_i64() {
        out.push_str(&i.to_string());
    } else if let Some(u) = n.as_u64() {
        out.push_str(&u.to_string());
    } else if let Some(f) = n.as_f64() {
        out.push_str(&js_number(f));
    }
}

/// ECMAScript `Number::toString(10)` for a finite double.
pub fn js_number(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        // serde_json values are always finite; -0 prints as 0 in JavaScript.
        return "0".to_owned();
    }
    let mut buffer = ryu::Buffer::new();
    let shortest = buffer.format_finite(value.abs());
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
        ];
        for (value, expected) in cases {
            assert_eq!(js_number(value), expected, "{value:e}");
        }
    }

    #[test]
    fn compact_and_ordered() {
        let value: Value = serde_json::from_str(r#"{"b":1.0,"a":[true,null,"é\n"],"c":{}}"#).unwrap_or(json!(null));
        assert_eq!(stringify(&value), r#"{"b":1,"a":[true,null,"é\n"],"c":{}}"#);
    }
}
