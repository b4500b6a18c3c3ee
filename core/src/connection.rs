//! What a tool is validated against: the library configuration (extension registry, limits)
//! and the per-connection facts (protocol version, negotiated extensions).

use crate::audience::{Audience, ExtensionDefinition, Registry};
use crate::error::{pointer_index, Error, Result};
use crate::limits::Limits;
use crate::version::ProtocolVersion;
use serde_json::Value;
use std::sync::Arc;

/// Library-wide configuration shared by every tool and connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The extension audiences this library instance knows.
    pub registry: Registry,
    /// The caps on every input.
    pub limits: Limits,
    /// The protocol revisions this side supports (VER-4), oldest first; every revision unless
    /// the caller narrows it. A connection at any other revision is refused.
    pub supported_versions: Vec<ProtocolVersion>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            registry: Registry::default(),
            limits: Limits::default(),
            supported_versions: ProtocolVersion::ALL.to_vec(),
        }
    }
}

impl Config {
    /// The built-in registry and default limits.
    pub fn new() -> Arc<Config> {
        Arc::new(Config::default())
    }

    /// A configuration with `limits` and the built-in registry plus `extensions`
    /// (a JSON array of definitions, see [`ExtensionDefinition::from_json`]).
    pub fn with_extensions(extensions: Option<&Value>, limits: Limits) -> Result<Arc<Config>> {
        if let Some(value) = extensions {
            limits.check_value(value, "")?;
        }
        let registry = Registry::from_json(extensions, limits.max_extensions)?;
        Ok(Arc::new(Config { registry, limits, supported_versions: ProtocolVersion::ALL.to_vec() }))
    }

    /// [`Config::with_extensions`] with the revisions this side supports (VER-4): a non-empty
    /// JSON array of distinct revision strings among the supported six (`malformed` at
    /// `/supportedVersions` otherwise); absent or null means all of them.
    pub fn with_options(
        extensions: Option<&Value>,
        supported_versions: Option<&Value>,
        limits: Limits,
    ) -> Result<Arc<Config>> {
        let supported = read_supported_versions(supported_versions)?;
        let mut config = Arc::unwrap_or_clone(Config::with_extensions(extensions, limits)?);
        config.supported_versions = supported;
        Ok(Arc::new(config))
    }

    /// Reads a version string of a request and refuses a revision outside
    /// [`Config::supported_versions`]: `invalid-protocol-version` for a string that is not a
    /// date, `unsupported-protocol-version` (data `{supported, requested}`, `supported` being
    /// this side's list, oldest first) for any date this side does not support.
    pub fn parse_version(&self, text: &str) -> Result<ProtocolVersion> {
        let version = ProtocolVersion::parse(text).map_err(|e| match e.code() {
            crate::ErrorCode::UnsupportedProtocolVersion => unsupported(text, &self.supported_versions),
            _ => e,
        })?;
        if self.supported_versions.contains(&version) {
            Ok(version)
        } else {
            Err(unsupported(text, &self.supported_versions))
        }
    }
}

fn unsupported(text: &str, supported: &[ProtocolVersion]) -> Error {
    let list: Vec<&str> = supported.iter().map(|v| v.as_str()).collect();
    Error::new(
        crate::ErrorCode::UnsupportedProtocolVersion,
        "",
        format!("protocol version {text} is not supported (supported: {})", list.join(", ")),
    )
    .with_data(crate::fields::object(vec![("supported", Value::from(list)), ("requested", Value::from(text))]))
}

/// `supportedVersions`: a non-empty list of distinct revisions, returned oldest first.
pub(crate) fn read_supported_versions(value: Option<&Value>) -> Result<Vec<ProtocolVersion>> {
    const PATH: &str = "/supportedVersions";
    let items = match value {
        None | Some(Value::Null) => return Ok(ProtocolVersion::ALL.to_vec()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(Error::malformed(PATH, "supportedVersions must be an array of protocol revisions")),
    };
    if items.is_empty() {
        return Err(Error::malformed(PATH, "supportedVersions must name at least one revision"));
    }
    // At most six entries are kept: a seventh is a duplicate or not a revision.
    let mut out: Vec<ProtocolVersion> = Vec::with_capacity(ProtocolVersion::ALL.len());
    for (i, item) in items.iter().enumerate() {
        let version = item
            .as_str()
            .and_then(|text| ProtocolVersion::ALL.iter().copied().find(|v| v.as_str() == text))
            .ok_or_else(|| Error::malformed(pointer_index(PATH, i), "not one of the supported revisions"))?;
        if out.contains(&version) {
            return Err(Error::malformed(pointer_index(PATH, i), format!("{version} is listed twice")));
        }
        out.push(version);
    }
    // Oldest first: the distinct revisions listed, in the order of `ALL` (which is `Ord`'s;
    // no sort routine in the wasm for six values).
    Ok(ProtocolVersion::ALL.iter().copied().filter(|v| out.contains(v)).collect())
}

/// One connection (or one request, from 2026-07-28 on): the protocol version and the
/// extensions both sides advertised (EXT-2).
#[derive(Clone, Debug)]
pub struct Connection {
    version: ProtocolVersion,
    negotiated: Vec<String>,
    config: Arc<Config>,
}

impl Connection {
    /// A connection at `version` with the negotiated extension identifiers.
    pub fn new(version: ProtocolVersion, negotiated: Vec<String>, config: Arc<Config>) -> Self {
        Connection { version, negotiated, config }
    }

    /// Reads the version string and a JSON array of negotiated extension identifiers.
    pub fn from_json(version: Option<&str>, negotiated: Option<&Value>, config: Arc<Config>) -> Result<Self> {
        let negotiated = match negotiated {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                config.limits.check_count(items.len(), config.limits.max_extensions, "", "negotiated extensions")?;
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        item.as_str().map(str::to_owned).ok_or_else(|| {
                            Error::malformed(pointer_index("", i), "negotiated extensions must be strings")
                        })
                    })
                    .collect::<Result<_>>()?
            }
            Some(_) => return Err(Error::malformed("", "negotiated must be an array of extension identifiers")),
        };
        let version = match version {
            None => config.parse_version(ProtocolVersion::LATEST.as_str())?,
            Some(text) => config.parse_version(text)?,
        };
        Ok(Connection::new(version, negotiated, config))
    }

    /// The protocol version of the connection.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// The negotiated extension identifiers, as given.
    pub fn negotiated(&self) -> &[String] {
        &self.negotiated
    }

    /// The library configuration.
    pub fn config(&self) -> &Arc<Config> {
        &self.config
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.config.limits
    }

    /// The definition of an extension audience that both sides negotiated and this library
    /// knows; `None` otherwise (its variants are then neither advertised nor accepted).
    pub fn negotiated_extension(&self, id: &str) -> Option<&ExtensionDefinition> {
        // A further audience of an extension is negotiated exactly when its extension is (EXT-5).
        let definition = self.config.registry.get(id)?;
        let extension = definition.extension.as_deref().unwrap_or(&definition.id);
        self.negotiated.iter().any(|n| n == extension).then_some(definition)
    }

    /// Whether an audience may be used on this connection: core audiences always, extension
    /// audiences only when negotiated (AUD-1, DECL-5, SEL-4).
    pub fn allows(&self, audience: &Audience) -> bool {
        match audience {
            Audience::Extension(id) => self.negotiated_extension(id).is_some(),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use serde_json::json;

    #[test]
    fn supported_versions_come_back_oldest_first_in_any_order_given() {
        // read_supported_versions orders by ALL: ALL must be in Ord's order.
        assert!(ProtocolVersion::ALL.windows(2).all(|w| matches!(w, [a, b] if a < b)));
        let shuffled = json!(["2025-11-25", "2024-11-05", "2026-12-01", "2025-03-26"]);
        let read = read_supported_versions(Some(&shuffled)).expect("valid list");
        let mut sorted = read.clone();
        sorted.sort();
        assert_eq!(read, sorted);
        assert_eq!(read.len(), 4);
    }

    #[test]
    fn supported_versions_narrow_what_a_connection_accepts() {
        let newest_first = json!(["2026-12-01", "2025-06-18"]);
        let config = Config::with_options(None, Some(&newest_first), Limits::default()).expect("valid list");
        assert_eq!(config.supported_versions, [ProtocolVersion::V2025_06_18, ProtocolVersion::V2026_12_01]);
        assert!(Connection::from_json(Some("2025-06-18"), None, Arc::clone(&config)).is_ok());
        for requested in ["2025-11-25", "2099-01-01"] {
            let err = Connection::from_json(Some(requested), None, Arc::clone(&config)).expect_err("outside the list");
            assert_eq!(err.code(), ErrorCode::UnsupportedProtocolVersion);
            let rpc = err.on_wire(crate::error::jsonrpc::INVALID_PARAMS).to_jsonrpc_error().expect("a wire error");
            assert_eq!(rpc["code"], json!(-32022));
            assert_eq!(rpc["data"]["supported"], json!(["2025-06-18", "2026-12-01"]), "oldest first");
            assert_eq!(rpc["data"]["requested"], json!(requested));
        }
        let err = config.parse_version("latest").expect_err("not a date");
        assert_eq!(err.code(), ErrorCode::InvalidProtocolVersion);
        let all = Config::with_options(None, None, Limits::default()).expect("default");
        assert_eq!(all.supported_versions, ProtocolVersion::ALL);
    }

    #[test]
    fn supported_versions_are_read_strictly() {
        for bad in [
            json!([]),
            json!("2026-12-01"),
            json!(["2026-12-01", "2026-12-01"]),
            json!(["2025-01-01"]),
            json!(["latest"]),
            json!([null]),
        ] {
            let err = Config::with_options(None, Some(&bad), Limits::default()).expect_err("malformed");
            assert_eq!(err.code(), ErrorCode::Malformed, "{bad}");
            assert!(err.path().starts_with("/supportedVersions"), "{bad}: {}", err.path());
        }
        let seven = json!(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2026-12-01", "x"]);
        assert_eq!(
            Config::with_options(None, Some(&seven), Limits::default()).map(|_| ()).map_err(|e| e.code()),
            Err(ErrorCode::Malformed)
        );
    }
}
