//! The web console: one static page and its script and style, built into
//! the binary, served at `/` and `/console` without a token. Everything it
//! shows or does goes through the JSON API with the token the operator
//! types in (kept in the tab's `sessionStorage`, sent as
//! `Authorization: Bearer`), so the API's rules hold for it as for any
//! client.

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

const HTML: &str = include_str!("console.html");
const JS: &str = include_str!("console.js");
const CSS: &str = include_str!("console.css");

/// Only this server's own script and style; no frames.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                      img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
                      form-action 'none'; frame-ancestors 'none'";

/// The console's routes, for a router of any state.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(page))
        .route("/console", get(page))
        .route("/console.js", get(script))
        .route("/console.css", get(style))
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

async fn page() -> Response {
    let mut response = asset("text/html; charset=utf-8", HTML);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(POLICY),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

async fn script() -> Response {
    asset("text/javascript; charset=utf-8", JS)
}

async fn style() -> Response {
    asset("text/css; charset=utf-8", CSS)
}
