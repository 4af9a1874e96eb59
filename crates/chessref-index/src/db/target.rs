//! Which database a `--db` value names: a `postgres://` (or `postgresql://`) URL is a
//! Postgres server, anything else is the path of a SQLite file.

use std::path::PathBuf;
use std::str::FromStr;

/// The database a `--db` value names.
#[derive(Clone, Debug)]
pub enum DbTarget {
    /// A SQLite file (the default).
    Sqlite(PathBuf),
    /// A Postgres database.
    Postgres(PgTarget),
}

/// A Postgres database: the driver's parsed configuration, and how to name it in
/// messages (never with its password).
#[derive(Clone)]
pub struct PgTarget {
    config: Box<postgres::Config>,
    shown: String,
}

/// Why a `--db` value names no database.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// The value is empty.
    #[error("--db is empty: give a SQLite file path or a postgres:// URL")]
    Empty,
    /// A URL of a scheme other than Postgres's.
    #[error(
        "--db {shown}: unsupported database URL scheme {scheme}:// (use postgres://... for \
         Postgres, or a plain file path for SQLite)"
    )]
    Scheme {
        /// The value, up to its scheme.
        shown: String,
        /// The scheme found.
        scheme: String,
    },
    /// A Postgres URL the driver cannot parse.
    #[error("--db {shown}: not a valid Postgres URL: {reason}")]
    BadUrl {
        /// The URL's scheme and host part, without credentials.
        shown: String,
        /// The driver's reason.
        reason: String,
    },
    /// A Postgres URL without a host (`postgres:///db`).
    #[error("--db {shown}: the Postgres URL names no host (postgres://USER@HOST:PORT/DATABASE)")]
    NoHost {
        /// The URL without credentials.
        shown: String,
    },
}

impl FromStr for DbTarget {
    type Err = TargetError;

    fn from_str(value: &str) -> Result<DbTarget, TargetError> {
        if value.is_empty() {
            return Err(TargetError::Empty);
        }
        let Some((scheme, _)) = value.split_once("://") else {
            return Ok(DbTarget::Sqlite(PathBuf::from(value)));
        };
        // A path may hold "://" (a directory named "a:"), but not after a bare scheme.
        let is_scheme = !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
        if !is_scheme {
            return Ok(DbTarget::Sqlite(PathBuf::from(value)));
        }
        let lower = scheme.to_ascii_lowercase();
        if lower != "postgres" && lower != "postgresql" {
            return Err(TargetError::Scheme {
                shown: format!("{scheme}://..."),
                scheme: scheme.to_owned(),
            });
        }
        let unparsed = format!("{lower}://{}", without_credentials(value));
        // The driver knows only the lowercase schemes; URL schemes are case-insensitive.
        let url = format!("{lower}://{}", &value[scheme.len() + 3..]);
        let config = postgres::Config::from_str(&url).map_err(|e| TargetError::BadUrl {
            shown: unparsed.clone(),
            reason: super::error::describe(&e),
        })?;
        let target = PgTarget::from_config(config);
        if target.config.get_hosts().is_empty() {
            return Err(TargetError::NoHost { shown: unparsed });
        }
        Ok(DbTarget::Postgres(target))
    }
}

/// The authority and path of a URL with any `user:password@` dropped (for messages about
/// a URL that did not parse).
fn without_credentials(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => &rest[at + 1..],
        None => rest,
    }
}

impl PgTarget {
    /// A target from the driver's configuration.
    pub fn from_config(config: postgres::Config) -> PgTarget {
        let shown = show(&config);
        PgTarget {
            config: Box::new(config),
            shown,
        }
    }

    /// The driver's configuration (a copy to adjust: application name, timeouts).
    pub fn config(&self) -> postgres::Config {
        (*self.config).clone()
    }

    /// `postgres://USER@HOST:PORT/DATABASE`, without the password.
    pub fn shown(&self) -> &str {
        &self.shown
    }
}

impl std::fmt::Debug for PgTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // postgres::Config's Debug redacts the password too; ours is shorter.
        f.debug_tuple("PgTarget").field(&self.shown).finish()
    }
}

impl std::fmt::Display for PgTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

impl std::fmt::Display for DbTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbTarget::Sqlite(path) => write!(f, "{}", path.display()),
            DbTarget::Postgres(pg) => pg.fmt(f),
        }
    }
}

/// The configuration as a URL without its password.
fn show(config: &postgres::Config) -> String {
    use postgres::config::Host;
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, host)| {
            let host = match host {
                Host::Tcp(name) => name.clone(),
                Host::Unix(path) => path.display().to_string(),
            };
            match config.get_ports().get(i).or(config.get_ports().first()) {
                Some(port) => format!("{host}:{port}"),
                None => host,
            }
        })
        .collect();
    let user = config
        .get_user()
        .map(|u| format!("{u}@"))
        .unwrap_or_default();
    let db = config.get_dbname().unwrap_or("");
    format!("postgres://{user}{}/{db}", hosts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pg(value: &str) -> PgTarget {
        match value.parse::<DbTarget>() {
            Ok(DbTarget::Postgres(pg)) => pg,
            other => panic!("{value}: {other:?}"),
        }
    }

    #[test]
    fn test_paths_are_sqlite() {
        for value in ["index.sqlite", "/var/lib/x.db", "./a://b", "my dir://x"] {
            match value.parse::<DbTarget>() {
                Ok(DbTarget::Sqlite(path)) => assert_eq!(path, PathBuf::from(value)),
                other => panic!("{value}: {other:?}"),
            }
        }
    }

    #[test]
    fn test_postgres_urls_and_their_names_hide_the_password() {
        let t = pg("postgres://alice:s3cret@db.example:5433/chess");
        assert_eq!(t.shown(), "postgres://alice@db.example:5433/chess");
        assert_eq!(t.config().get_password(), Some(&b"s3cret"[..]));
        assert!(!format!("{t:?}").contains("s3cret"));
        let t = pg("postgresql://bob@127.0.0.1/x?application_name=y");
        assert_eq!(t.shown(), "postgres://bob@127.0.0.1:5432/x");
        assert_eq!(t.config().get_application_name(), Some("y"));
        let t = pg("POSTGRES://h/d");
        assert_eq!(t.shown(), "postgres://h:5432/d");
    }

    #[test]
    fn test_bad_values_say_what_is_wrong() {
        assert_eq!("".parse::<DbTarget>().unwrap_err(), TargetError::Empty);
        let e = "mysql://root:pw@h/db".parse::<DbTarget>().unwrap_err();
        assert!(matches!(&e, TargetError::Scheme { scheme, .. } if scheme == "mysql"));
        assert!(!e.to_string().contains("pw"), "{e}");
        let e = "weird://".parse::<DbTarget>().unwrap_err();
        assert!(
            e.to_string()
                .contains("unsupported database URL scheme weird://"),
            "{e}"
        );
        let e = "postgres://u:hunter2@h:notaport/db"
            .parse::<DbTarget>()
            .unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, TargetError::BadUrl { .. }), "{text}");
        assert!(
            text.starts_with("--db postgres://h:notaport/db: not a valid Postgres URL"),
            "{text}"
        );
        assert!(!text.contains("hunter2"), "{text}");
        let e = "postgres:///db".parse::<DbTarget>().unwrap_err();
        assert!(matches!(e, TargetError::NoHost { .. }), "{e}");
    }
}
