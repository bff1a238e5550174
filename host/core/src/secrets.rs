//! The host's secrets ([`computer_net::Secrets`]): what the host adds to a guest's requests
//! on the way out (its curl, wget and git) and redacts from what comes back. They are kept
//! outside every workspace file (the CLI keeps them in a [`computer_net::SecretStore`]);
//! a guest sees placeholders only.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use computer_net::{Secret, Secrets};

use crate::exec::ExecOutput;
use crate::workspace::Workspace;
use computer_isolate::{OutputSink, Stream};

/// The process's secrets, once an embedder set them.
static HOST: RwLock<Option<Secrets>> = RwLock::new(None);

/// Sets the secrets of every workspace of this process that was not given its own
/// ([`Workspace::set_secrets`]). Until called, they are [`env_secrets`].
/// Applies at once, to git handles made before too.
pub fn set_host_secrets(secrets: Secrets) {
    *HOST.write().unwrap_or_else(|e| e.into_inner()) = Some(secrets);
    HOST_CHANGES.fetch_add(1, Ordering::Relaxed);
}

/// How many times the process's secrets were set: a git handle made under another count
/// holds old ones.
static HOST_CHANGES: AtomicU64 = AtomicU64::new(0);

pub(crate) fn host_changes() -> u64 {
    HOST_CHANGES.load(Ordering::Relaxed)
}

/// The process's secrets: those set by [`set_host_secrets`], else [`env_secrets`].
pub fn host_secrets() -> Secrets {
    HOST.read()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_else(env_secrets)
}

/// The secrets of the host's environment: `COMPUTER_GIT_TOKEN`, sent to the hosts of the
/// comma list `COMPUTER_GIT_TOKEN_HOSTS` (as git's basic auth; a guest sees
/// `$COMPUTER_GIT_TOKEN` as its placeholder). A token with no hosts, or one that is not a
/// valid secret, is left out, and the host's stderr says why (once).
pub fn env_secrets() -> Secrets {
    static ENV: OnceLock<Secrets> = OnceLock::new();
    ENV.get_or_init(|| {
        let Some(token) = std::env::var("COMPUTER_GIT_TOKEN")
            .ok()
            .filter(|t| !t.is_empty())
        else {
            return Secrets::default();
        };
        let hosts: Vec<String> = std::env::var("COMPUTER_GIT_TOKEN_HOSTS")
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|h| !h.is_empty())
            .map(str::to_string)
            .collect();
        if hosts.is_empty() {
            eprintln!(
                "computer: COMPUTER_GIT_TOKEN is set but COMPUTER_GIT_TOKEN_HOSTS names no \
                 host, so the token is sent nowhere (list the hosts it belongs to)"
            );
            return Secrets::default();
        }
        match Secret::new("COMPUTER_GIT_TOKEN", &token, &hosts, None, None)
            .and_then(|s| Secrets::new(vec![s]))
        {
            Ok(secrets) => secrets,
            Err(e) => {
                eprintln!("computer: COMPUTER_GIT_TOKEN is not used: {e}");
                Secrets::default()
            }
        }
    })
    .clone()
}

impl Workspace {
    /// The secrets this workspace's guests' requests get on the way out: its own
    /// ([`Workspace::set_secrets`]), else the process's ([`host_secrets`]).
    pub fn secrets(&self) -> Secrets {
        crate::lock(self.secrets_slot())
            .clone()
            .unwrap_or_else(host_secrets)
    }

    /// Gives this workspace (and its clones) secrets of its own; `None` goes back to the
    /// process's. Applies from the next command and git operation.
    pub fn set_secrets(&self, secrets: Option<Secrets>) {
        *crate::lock(self.secrets_slot()) = secrets;
        self.forget_git();
    }

    /// For an embedder running components itself (as [`Workspace::exec`] does): gives `env`
    /// each secret's placeholder, and `sink` the output with every value redacted.
    pub fn guest_view(
        &self,
        env: &mut Vec<(String, String)>,
        sink: Option<OutputSink>,
    ) -> Option<OutputSink> {
        let secrets = self.secrets();
        add_placeholders(&secrets, env);
        let (sink, redactor) = redacting(&secrets, sink);
        // Each chunk redacted alone (flushed at once): this sink's caller has no end-of-run
        // call to flush a held-back tail, so a value split across two chunks can pass here.
        match redactor {
            Some(redactor) => Some(Arc::new(move |stream, bytes: &[u8]| {
                redactor.write(stream, bytes);
                redactor.flush();
            }) as OutputSink),
            None => sink,
        }
    }
}

/// Gives the guest's environment each secret's placeholder (`NAME=computer-secret:NAME`),
/// unless the request sets `NAME` itself.
pub(crate) fn add_placeholders(secrets: &Secrets, env: &mut Vec<(String, String)>) {
    for (name, placeholder) in secrets.env() {
        if !env.iter().any(|(k, _)| *k == name) {
            env.push((name, placeholder));
        }
    }
}

/// `sink` with the secrets' values redacted, and the redactor to flush when the run ends.
pub(crate) fn redacting(
    secrets: &Secrets,
    sink: Option<OutputSink>,
) -> (Option<OutputSink>, Option<Arc<StreamRedactor>>) {
    let Some(sink) = sink else {
        return (None, None);
    };
    if secrets.is_empty() {
        return (Some(sink), None);
    }
    let redactor = Arc::new(StreamRedactor {
        secrets: secrets.clone(),
        sink,
        pending: Mutex::default(),
    });
    let writer = Arc::clone(&redactor);
    let sink: OutputSink = Arc::new(move |stream, bytes: &[u8]| writer.write(stream, bytes));
    (Some(sink), Some(redactor))
}

/// Redacts a stream as it comes: the end of a chunk that could begin a value waits for the
/// next chunk (or the end of the run), so a value split across two chunks is caught too.
pub(crate) struct StreamRedactor {
    secrets: Secrets,
    sink: OutputSink,
    /// Held back, already redacted: stdout's and stderr's.
    pending: Mutex<[Vec<u8>; 2]>,
}

impl StreamRedactor {
    fn slot(stream: Stream) -> usize {
        match stream {
            Stream::Stdout => 0,
            Stream::Stderr => 1,
        }
    }

    fn write(&self, stream: Stream, bytes: &[u8]) {
        // Under the lock, so that chunks reach the sink in order.
        let mut pending = crate::lock(&self.pending);
        let slot = &mut pending[Self::slot(stream)];
        slot.extend_from_slice(bytes);
        let out = self.secrets.redact_bytes(slot).into_owned();
        let keep = self.secrets.partial_tail(&out);
        let (ready, held) = out.split_at(out.len() - keep);
        if !ready.is_empty() {
            (self.sink)(stream, ready);
        }
        *slot = held.to_vec();
    }

    /// Sends what was held back.
    pub(crate) fn flush(&self) {
        let mut pending = crate::lock(&self.pending);
        for stream in [Stream::Stdout, Stream::Stderr] {
            let held = std::mem::take(&mut pending[Self::slot(stream)]);
            if !held.is_empty() {
                (self.sink)(stream, &held);
            }
        }
    }
}

impl ExecOutput {
    /// The output with the secrets' values replaced by their placeholders.
    pub(crate) fn redacted(mut self, secrets: &Secrets) -> ExecOutput {
        if let Cow::Owned(out) = secrets.redact_bytes(&self.stdout) {
            self.stdout = out;
        }
        if let Cow::Owned(err) = secrets.redact_bytes(&self.stderr) {
            self.stderr = err;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value split across chunks, even byte by byte, never reaches the sink; what could
    /// begin one is held back only until it is known, and flushed at the end.
    #[test]
    fn a_stream_never_shows_a_value_split_across_chunks() {
        let secret = Secret::new("K", "value-0123456789", &["docs.test".into()], None, None);
        let secrets = Secrets::new(vec![secret.unwrap()]).unwrap();
        let seen: Arc<Mutex<Vec<u8>>> = Arc::default();
        let into = Arc::clone(&seen);
        let sink: OutputSink = Arc::new(move |_, b: &[u8]| crate::lock(&into).extend_from_slice(b));
        let (sink, redactor) = redacting(&secrets, Some(sink));
        let (sink, redactor) = (sink.unwrap(), redactor.unwrap());
        for byte in b"say value-0123456789 twice: value-01234567" {
            sink(Stream::Stdout, &[*byte]);
        }
        sink(Stream::Stdout, b"89 and value-01");
        assert_eq!(
            String::from_utf8_lossy(&crate::lock(&seen)),
            "say computer-secret:K twice: computer-secret:K and "
        );
        redactor.flush();
        assert_eq!(
            String::from_utf8_lossy(&crate::lock(&seen)),
            "say computer-secret:K twice: computer-secret:K and value-01"
        );
    }
}
