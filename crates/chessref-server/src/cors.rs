//! CORS for browser front ends: every answer may be read from any origin.
//! The service is pure computation without cookies or credentials, so a
//! wildcard origin exposes nothing; preflight requests are answered here.

use axum::extract::Request;
use axum::http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_MAX_AGE,
};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Answers `OPTIONS` preflights and adds `Access-Control-Allow-Origin: *` to every answer.
pub async fn cors(req: Request, next: Next) -> Response {
    if req.method() == Method::OPTIONS {
        return (
            StatusCode::NO_CONTENT,
            [
                (ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
                (ACCESS_CONTROL_ALLOW_METHODS, "GET, POST, OPTIONS"),
                (ACCESS_CONTROL_ALLOW_HEADERS, "content-type"),
                (ACCESS_CONTROL_MAX_AGE, "86400"),
            ],
        )
            .into_response();
    }
    let mut response = next.run(req).await;
    response
        .headers_mut()
        .insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    response
}
