//! What a tool is validated against: the library configuration (extension registry, limits)
//! and the per-connection facts (protocol version, negotiated extensions).

use crate::audience::{Audience, ExtensionDefinition, Registry};
use crate::error::{pointer_index, Error, Result};
use crate::limits::Limits;
use crate::version::ProtocolVersion;
use serde_json::Value;
use std::sync::Arc;

/// Library-wide configuration shared by every tool and connection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// The extension audiences this library instance knows.
    pub registry: Registry,
    /// The caps on every input.
    pub limits: Limits,
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
        Ok(Arc::new(Config { registry, limits }))
    }
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
            None => ProtocolVersion::LATEST,
            Some(text) => ProtocolVersion::parse(text)?,
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
        if self.negotiated.iter().any(|n| n == id) {
            self.config.registry.get(id)
        } else {
            None
        }
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
