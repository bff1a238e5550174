//! Tests of computer-git against the real git CLI, real servers (`git daemon`, `git
//! http-backend` behind python's CGI server) and hostile repositories.

mod support;

mod hostile;
mod parity;
mod remote;
