//! Body extractors that turn every malformed request into an [`ApiError`]
//! (JSON with a 4xx status) instead of axum's plain-text rejections.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use serde::de::DeserializeOwned;

use crate::AppState;
use crate::error::ApiError;

/// A JSON body (`Content-Type: application/json`) deserialized strictly:
/// unknown fields, wrong types and trailing data are errors.
#[derive(Debug)]
pub struct StrictJson<T>(pub T);

/// A PGN body: any content type, non-blank UTF-8 text.
#[derive(Debug)]
pub struct PgnBody(pub String);

/// Reads the whole body, mapping the length-limit rejection to a 413 that names the limit.
async fn read_body(req: Request, state: &AppState, limit: usize) -> Result<Bytes, ApiError> {
    Bytes::from_request(req, state).await.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::PayloadTooLarge { limit }
        } else {
            ApiError::BadBody(rejection.body_text())
        }
    })
}

impl<T: DeserializeOwned> FromRequest<AppState> for StrictJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let content_type = req
            .headers()
            .get(CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let essence = content_type
            .as_deref()
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim();
        if !essence.eq_ignore_ascii_case("application/json") {
            return Err(ApiError::UnsupportedMediaType {
                found: content_type.unwrap_or_default(),
                expected: "application/json",
            });
        }
        let bytes = read_body(req, state, state.config.json_limit).await?;
        serde_json::from_slice(&bytes)
            .map(StrictJson)
            .map_err(|e| ApiError::BadJson(with_key_hint(e.to_string())))
    }
}

impl FromRequest<AppState> for PgnBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let bytes = read_body(req, state, state.config.pgn_limit).await?;
        let text = String::from_utf8(bytes.to_vec())
            .map_err(|e| ApiError::BadBody(format!("the PGN is not UTF-8 text: {e}")))?;
        if text.trim().is_empty() {
            return Err(ApiError::BadBody("the PGN body is empty".into()));
        }
        Ok(PgnBody(text))
    }
}

/// A serde message about an unknown snake_case key (`start_fen`), with the camelCase
/// spelling every body uses (`startFen`) appended.
fn with_key_hint(message: String) -> String {
    let key = message
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(key, _)| key);
    match key {
        Some(key) if key.contains('_') => {
            let mut camel = String::with_capacity(key.len());
            let mut upper = false;
            for c in key.chars() {
                if c == '_' {
                    upper = !camel.is_empty();
                } else if upper {
                    camel.extend(c.to_uppercase());
                    upper = false;
                } else {
                    camel.push(c);
                }
            }
            format!("{message} (keys are camelCase: `{camel}`)")
        }
        _ => message,
    }
}

#[cfg(test)]
mod tests {
    use super::with_key_hint;

    #[test]
    fn a_snake_case_key_is_named_with_its_camel_case_spelling() {
        assert_eq!(
            with_key_hint("unknown field `start_fen`, expected `fen` or `state`".into()),
            "unknown field `start_fen`, expected `fen` or `state` (keys are camelCase: `startFen`)"
        );
        assert_eq!(
            with_key_hint("unknown field `extra`, expected `fen`".into()),
            "unknown field `extra`, expected `fen`"
        );
        assert_eq!(with_key_hint("EOF".into()), "EOF");
    }
}
