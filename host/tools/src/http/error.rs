//! Errors of the HTTP API: a status and a message, sent as `{"error": "..."}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::ToolError;

/// A failed request.
#[derive(Debug)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What went wrong, for the caller.
    pub message: String,
}

impl ApiError {
    /// An error with `status`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// 400.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    /// 409.
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }

    /// 500.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// A workspace error about `path`, with the status its errno means.
    pub fn fs(path: &str, e: &computer::VfsError) -> ApiError {
        let status = match e.errno() {
            libc::ENOENT => StatusCode::NOT_FOUND,
            libc::EEXIST | libc::ENOTEMPTY | libc::EBUSY => StatusCode::CONFLICT,
            libc::EROFS | libc::EPERM | libc::EACCES => StatusCode::FORBIDDEN,
            libc::EFBIG => StatusCode::PAYLOAD_TOO_LARGE,
            libc::ENOSPC => StatusCode::INSUFFICIENT_STORAGE,
            libc::EIO | libc::EAGAIN => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, format!("{path}: {e}"))
    }
}

impl From<ToolError> for ApiError {
    fn from(e: ToolError) -> ApiError {
        let status = match e {
            ToolError::UnknownTool(_) => StatusCode::NOT_FOUND,
            ToolError::InvalidArgs { .. } => StatusCode::BAD_REQUEST,
            ToolError::ReadOnly(_) => StatusCode::FORBIDDEN,
            ToolError::Limit(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ToolError::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
            ToolError::NotFound(_) => StatusCode::NOT_FOUND,
            ToolError::Failed(_) => StatusCode::UNPROCESSABLE_ENTITY,
        };
        ApiError::new(status, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message }).to_string();
        (
            self.status,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response()
    }
}
