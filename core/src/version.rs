//! Protocol revisions. The requested version alone picks the Tool and result shapes (VER-1):
//! versions are compared against the explicit list of revisions, never as free-form strings.

use crate::error::{Error, ErrorCode, Result};
use std::fmt;

/// A supported MCP protocol revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// 2024-11-05: text, image, embedded resource blocks; no structured output.
    V2024_11_05,
    /// 2025-03-26: adds audio blocks.
    V2025_03_26,
    /// 2025-06-18: object-only `structuredContent`, `outputSchema`, `resource_link` blocks.
    V2025_06_18,
    /// 2025-11-25: as 2025-06-18, JSON Schema 2020-12 by default.
    V2025_11_25,
    /// 2026-07-28: any JSON `structuredContent`, `resultType` on results.
    V2026_07_28,
    /// 2026-12-01: SEP-3279's `outputVariants` / `requestedOutputs` / `outputs`.
    V2026_12_01,
}

/// How a revision carries legacy `structuredContent` and `outputSchema`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegacyStructured {
    /// Neither field exists (2024-11-05, 2025-03-26).
    None,
    /// Objects only: other values and non-object-rooted schemas are wrapped in `{"result": …}`.
    ObjectOnly,
    /// Any JSON value and any schema (2026-07-28).
    Any,
}

impl ProtocolVersion {
    /// Every supported revision, oldest first.
    pub const ALL: [ProtocolVersion; 6] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
        ProtocolVersion::V2026_12_01,
    ];

    /// The newest revision, and the default when a request names none.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_12_01;

    /// The wire form.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
            ProtocolVersion::V2026_12_01 => "2026-12-01",
        }
    }

    /// Parses a version string: `invalid-protocol-version` when it is not a real calendar date
    /// in `YYYY-MM-DD` form, `unsupported-protocol-version` (with JSON-RPC data
    /// `{supported, requested}`) when it is a date that is not a supported revision.
    pub fn parse(text: &str) -> Result<Self> {
        if let Some(v) = ProtocolVersion::ALL.iter().find(|v| v.as_str() == text) {
            return Ok(*v);
        }
        if !is_calendar_date(text) {
            return Err(Error::new(
                ErrorCode::InvalidProtocolVersion,
                "",
                format!("protocol version {text:?} is not a YYYY-MM-DD date"),
            ));
        }
        let supported: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
        Err(Error::new(
            ErrorCode::UnsupportedProtocolVersion,
            "",
            format!("protocol version {text} is not supported (supported: {})", supported.join(", ")),
        )
        .with_data(crate::fields::object(vec![("supported", supported.into()), ("requested", text.into())])))
    }

    /// Whether this revision uses the legacy `content` / `structuredContent` shapes.
    pub fn is_legacy(self) -> bool {
        self < ProtocolVersion::V2026_12_01
    }

    /// Whether results carry `resultType` (from 2026-07-28 on).
    pub fn has_result_type(self) -> bool {
        self >= ProtocolVersion::V2026_07_28
    }

    /// How the revision carries legacy structured output.
    pub fn legacy_structured(self) -> LegacyStructured {
        match self {
            ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26 => LegacyStructured::None,
            ProtocolVersion::V2025_06_18 | ProtocolVersion::V2025_11_25 => LegacyStructured::ObjectOnly,
            _ => LegacyStructured::Any,
        }
    }

    /// Whether `audio` content blocks exist in this revision.
    pub fn has_audio(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// Whether `resource_link` content blocks exist in this revision.
    pub fn has_resource_link(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// Whether block annotations carry `lastModified` in this revision.
    pub fn has_last_modified(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ProtocolVersion {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        ProtocolVersion::parse(s)
    }
}

/// `YYYY-MM-DD` naming a real day of the proleptic Gregorian calendar.
fn is_calendar_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return false;
    }
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = text.get(range)?;
        if !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert!(is_calendar_date("2024-02-29"));
        assert!(!is_calendar_date("2023-02-29"));
        assert!(!is_calendar_date("1900-02-29"));
        assert!(is_calendar_date("2000-02-29"));
        assert!(!is_calendar_date("2026-13-45"));
        assert!(!is_calendar_date("2026-1-01"));
        assert!(!is_calendar_date("+026-01-01"));
        assert!(!is_calendar_date("latest"));
    }

    #[test]
    fn parse_codes() {
        assert_eq!(ProtocolVersion::parse("2025-06-18").map(|v| v.as_str()), Ok("2025-06-18"));
        let err = ProtocolVersion::parse("2025-01-01").err().map(|e| e.code());
        assert_eq!(err, Some(ErrorCode::UnsupportedProtocolVersion));
        let err = ProtocolVersion::parse("2026-02-30").err().map(|e| e.code());
        assert_eq!(err, Some(ErrorCode::InvalidProtocolVersion));
    }
}
