//! Errors of the container backend. Each says what failed and, for a limit, which limit.

/// A container backend result.
pub type Result<T, E = ContainerError> = std::result::Result<T, E>;

/// Why the container backend could not do something.
#[derive(Debug, thiserror::Error)]
pub enum ContainerError {
    /// No Docker engine answers (or it refused us).
    #[error(
        "the container backend cannot reach Docker ({0}); is the engine running, and is DOCKER_HOST right?"
    )]
    Engine(String),
    /// The engine failed a request.
    #[error("{what}: {error}")]
    Docker {
        /// What was being done.
        what: String,
        /// The engine's error.
        error: bollard::errors::Error,
    },
    /// The image is missing and could not be pulled or built.
    #[error("image {image}: {reason}")]
    Image {
        /// The image.
        image: String,
        /// Why.
        reason: String,
    },
    /// The workspace could not be mounted, or the container does not see the mount.
    #[error("workspace mount: {0}")]
    Mount(String),
    /// Copy mode could not copy the workspace into the container or the changes back.
    #[error("copy mode: {0}")]
    Copy(String),
    /// The egress proxy of the container could not start.
    #[error("container network: {0}")]
    Network(String),
    /// A bad request (an empty command, a working directory outside the workspace).
    #[error("{0}")]
    Invalid(String),
    /// Host I/O failed.
    #[error("{what}: {error}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        error: std::io::Error,
    },
}

/// Wraps an engine error with what was being done.
pub(crate) fn docker(
    what: impl std::fmt::Display,
) -> impl FnOnce(bollard::errors::Error) -> ContainerError {
    move |error| ContainerError::Docker {
        what: what.to_string(),
        error,
    }
}

/// Wraps an I/O error with what was being done.
pub(crate) fn io(what: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> ContainerError {
    move |error| ContainerError::Io {
        what: what.to_string(),
        error,
    }
}
