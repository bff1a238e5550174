//! Hostile repositories.
