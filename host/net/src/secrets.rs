//! Secrets the host adds to a guest's requests on the way out. A guest never holds a value:
//! its environment has a placeholder (`GITHUB_TOKEN=computer-secret:GITHUB_TOKEN`), and the
//! host puts the value in place of the placeholder in a request's headers, on requests to the
//! hosts the secret is bound to and over https only. A placeholder in a request to any other
//! host refuses the request. A secret bound to a header (`--header Authorization --format
//! 'Bearer {}'`) is also added to every request to its hosts that lacks that header.

use std::fmt;
use std::sync::Arc;

use aho_corasick::{AhoCorasick, MatchKind};
use serde::{Deserialize, Serialize};

use crate::error::NetError;
use crate::policy::{PortRule, Rule, Target};

/// What a guest sees in place of a secret: this prefix and the secret's name.
pub const PLACEHOLDER_PREFIX: &str = "computer-secret:";
/// The most secrets one store holds.
pub const MAX_SECRETS: usize = 100;
/// The longest value of a secret.
pub const MAX_SECRET_BYTES: usize = 16 << 10;
/// The shortest value: a shorter one is easy to guess, and redacting it from output would
/// mangle ordinary text.
pub const MIN_SECRET_BYTES: usize = 8;
/// The longest name (it is an environment variable's name).
pub const MAX_SECRET_NAME: usize = 64;
/// The most hosts one secret is bound to.
pub const MAX_SECRET_HOSTS: usize = 100;

/// One secret: its value, where it may go, and how it is sent.
#[derive(Clone, Serialize, Deserialize)]
pub struct Secret {
    name: String,
    value: String,
    hosts: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    header: Option<String>,
    #[serde(default = "default_format")]
    format: String,
    /// `hosts` parsed (https, any port).
    #[serde(skip)]
    bound: Vec<Rule>,
}

fn default_format() -> String {
    "{}".to_string()
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Secret")
            .field("name", &self.name)
            .field("value", &"…")
            .field("hosts", &self.hosts)
            .field("header", &self.header)
            .field("format", &self.format)
            .finish()
    }
}

impl Secret {
    /// A secret `name` holding `value`, sent only to `hosts` (names, `*.NAME` for every
    /// subdomain, or addresses; any port). With `header`, it is added to every request to
    /// those hosts that lacks the header, as `format` says (`{}` is the value, `{base64}` its
    /// base64; default `{}`).
    pub fn new(
        name: &str,
        value: &str,
        hosts: &[String],
        header: Option<&str>,
        format: Option<&str>,
    ) -> Result<Secret, NetError> {
        let mut secret = Secret {
            name: name.to_string(),
            value: value.to_string(),
            hosts: hosts
                .iter()
                .map(|h| h.trim().to_ascii_lowercase())
                .collect(),
            header: header.map(str::to_string),
            format: format.map_or_else(default_format, str::to_string),
            bound: Vec::new(),
        };
        secret.validate()?;
        Ok(secret)
    }

    /// Checks every field and parses the hosts.
    fn validate(&mut self) -> Result<(), NetError> {
        let name = self.name.clone();
        let bad = |why: String| NetError::Secrets(format!("secret {name}: {why}"));
        if !is_name(&self.name) {
            return Err(NetError::Secrets(format!(
                "'{}' is not a secret name: letters, digits and _, not starting with a digit, \
                 at most {MAX_SECRET_NAME} characters (MAX_SECRET_NAME)",
                self.name.escape_debug()
            )));
        }
        if self.value.len() < MIN_SECRET_BYTES {
            return Err(bad(format!(
                "the value is shorter than {MIN_SECRET_BYTES} bytes (MIN_SECRET_BYTES)"
            )));
        }
        if self.value.len() > MAX_SECRET_BYTES {
            return Err(bad(format!(
                "the value is longer than {MAX_SECRET_BYTES} bytes (MAX_SECRET_BYTES)"
            )));
        }
        if self.value.chars().any(char::is_control) {
            return Err(bad(
                "the value holds a control character (a line break?): it goes into headers".into(),
            ));
        }
        if self.value.contains(PLACEHOLDER_PREFIX) {
            return Err(bad(format!("the value holds '{PLACEHOLDER_PREFIX}'")));
        }
        if self.hosts.is_empty() {
            return Err(bad(
                "it is bound to no host (--host NAME): it would be sent nowhere".into(),
            ));
        }
        if self.hosts.len() > MAX_SECRET_HOSTS {
            return Err(bad(format!(
                "more than {MAX_SECRET_HOSTS} hosts (MAX_SECRET_HOSTS)"
            )));
        }
        self.bound = Vec::with_capacity(self.hosts.len());
        for host in &self.hosts {
            let rule = Rule::parse(&format!("https://{host}"), &[])
                .ok()
                .filter(|r| r.port == PortRule::Default && r.path.is_none() && !host.contains(':'))
                .ok_or_else(|| {
                    bad(format!(
                        "'{host}' is not a host: a name, *.NAME or an IPv4 address, without \
                         scheme, port or path"
                    ))
                })?;
            self.bound.push(Rule {
                port: PortRule::Any,
                ..rule
            });
        }
        if let Some(header) = &self.header
            && (header.is_empty() || !header.bytes().all(is_token_byte))
        {
            return Err(bad(format!(
                "'{}' is not a header name",
                header.escape_debug()
            )));
        }
        if !self.format.contains("{}") && !self.format.contains("{base64}") {
            return Err(bad("the format has neither {} nor {base64}".into()));
        }
        if self.format.chars().any(char::is_control) || self.format.len() > 1024 {
            return Err(bad(
                "the format holds a control character or is longer than 1024 bytes".into(),
            ));
        }
        Ok(())
    }

    /// The name (also the guest's environment variable).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The hosts it is sent to.
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// The header it is added as, if any.
    pub fn header(&self) -> Option<&str> {
        self.header.as_deref()
    }

    /// How it is written in its header.
    pub fn format(&self) -> &str {
        &self.format
    }

    /// What a guest sees in its place.
    pub fn placeholder(&self) -> String {
        format!("{PLACEHOLDER_PREFIX}{}", self.name)
    }

    /// The value as its format writes it.
    fn rendered(&self) -> String {
        use base64::Engine as _;
        let encoded = base64::engine::general_purpose::STANDARD.encode(&self.value);
        self.format
            .replace("{base64}", &encoded)
            .replace("{}", &self.value)
    }

    /// Every form the value leaves the host in: as it is, formatted, in base64, and in git's
    /// basic auth.
    fn sent_forms(&self) -> [String; 4] {
        use base64::Engine as _;
        let b64 = |t: &str| base64::engine::general_purpose::STANDARD.encode(t);
        [
            self.value.clone(),
            self.rendered(),
            b64(&self.value),
            self.git_basic(),
        ]
    }

    /// The credentials of git's basic auth: user `x-access-token`, the value as password.
    fn git_basic(&self) -> String {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(format!("x-access-token:{}", self.value))
    }

    /// Whether a request to `target` may carry it: https to one of its hosts.
    fn bound_to(&self, target: &Target) -> bool {
        target.scheme == "https" && self.bound.iter().any(|rule| rule.matches(target))
    }
}

/// Letters, digits and `_`, not starting with a digit.
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_SECRET_NAME
        && !name.as_bytes()[0].is_ascii_digit()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A byte of an HTTP token (a header's name).
pub(crate) fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A set of secrets (cheap to clone). The default holds none.
#[derive(Clone, Default)]
pub struct Secrets {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    list: Vec<Secret>,
    /// Finds every value (and its rendered header value) in text to redact it.
    redactor: Option<AhoCorasick>,
    /// The placeholder of each pattern of `redactor`.
    replacements: Vec<String>,
    /// The patterns of `redactor`.
    patterns: Vec<String>,
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.inner.list).finish()
    }
}

impl Secrets {
    /// The set of `list` (names must differ).
    pub fn new(list: Vec<Secret>) -> Result<Secrets, NetError> {
        if list.len() > MAX_SECRETS {
            return Err(NetError::Secrets(format!(
                "more than {MAX_SECRETS} secrets (MAX_SECRETS)"
            )));
        }
        let mut patterns = Vec::new();
        let mut replacements = Vec::new();
        for (i, secret) in list.iter().enumerate() {
            if list[..i].iter().any(|s| s.name == secret.name) {
                return Err(NetError::Secrets(format!(
                    "two secrets are named {}",
                    secret.name
                )));
            }
            for text in secret.sent_forms() {
                if !patterns.contains(&text) {
                    patterns.push(text);
                    replacements.push(secret.placeholder());
                }
            }
        }
        let redactor = if patterns.is_empty() {
            None
        } else {
            Some(
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&patterns)
                    .map_err(|e| NetError::Secrets(format!("secrets: {e}")))?,
            )
        };
        Ok(Secrets {
            inner: Arc::new(Inner {
                list,
                redactor,
                replacements,
                patterns,
            }),
        })
    }

    /// Parses the JSON a [`Secrets::to_json`] wrote.
    pub fn from_json(text: &str) -> Result<Secrets, NetError> {
        #[derive(Deserialize)]
        struct File {
            secrets: Vec<Secret>,
        }
        let file: File = serde_json::from_str(text)
            .map_err(|e| NetError::Secrets(format!("the secret store does not parse: {e}")))?;
        let mut list = file.secrets;
        for secret in &mut list {
            secret.validate()?;
        }
        Secrets::new(list)
    }

    /// The JSON of the set, values included (for the host's store only).
    pub fn to_json(&self) -> String {
        let file = serde_json::json!({ "secrets": self.inner.list });
        serde_json::to_string_pretty(&file).unwrap_or_default() + "\n"
    }

    /// The secrets, in the order they were added.
    pub fn list(&self) -> &[Secret] {
        &self.inner.list
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.inner.list.is_empty()
    }

    /// The set with `secret` added, or in place of the one of its name.
    pub fn with(&self, secret: Secret) -> Result<Secrets, NetError> {
        let mut list = self.inner.list.clone();
        match list.iter_mut().find(|s| s.name == secret.name) {
            Some(old) => *old = secret,
            None => list.push(secret),
        }
        Secrets::new(list)
    }

    /// The set without the secret `name`; `None` when it holds no such secret.
    pub fn without(&self, name: &str) -> Option<Secrets> {
        let list: Vec<Secret> = self
            .inner
            .list
            .iter()
            .filter(|s| s.name != name)
            .cloned()
            .collect();
        (list.len() < self.inner.list.len()).then(|| Secrets::new(list).unwrap_or_default())
    }

    /// The set with the secrets of `other` added (those of `other` win on a name).
    pub fn merged(&self, other: &Secrets) -> Result<Secrets, NetError> {
        other
            .list()
            .iter()
            .try_fold(self.clone(), |set, s| set.with(s.clone()))
    }

    /// What a guest's environment gets: each name with its placeholder.
    pub fn env(&self) -> Vec<(String, String)> {
        self.inner
            .list
            .iter()
            .map(|s| (s.name.clone(), s.placeholder()))
            .collect()
    }

    fn get(&self, name: &str) -> Option<&Secret> {
        self.inner.list.iter().find(|s| s.name == name)
    }

    /// Puts the values into a request to `url` about to leave the host: each
    /// placeholder in a header becomes its value (a header that is the placeholder alone and
    /// is the secret's own header gets the formatted value), and each secret bound to a header
    /// is added where the request lacks it. Gives the names of the secrets used; refuses (with
    /// why) a request that carries the placeholder of a secret not bound to its host, in a
    /// header or the URL, or not over https. (The body is not looked at: a placeholder there
    /// is sent as it is, and holds nothing secret.)
    pub fn apply(
        &self,
        url: &str,
        headers: &mut Vec<(String, String)>,
    ) -> Result<Vec<String>, String> {
        let mut used: Vec<String> = Vec::new();
        if self.is_empty() {
            return Ok(used);
        }
        let target = crate::egress::target_of(url).ok_or("not a URL the host sends")?;
        let target = &target;
        let refuse = |secret: &Secret, place: &str| {
            Err(format!(
                "{place} carries the placeholder of secret {}, which is sent only over https to {}",
                secret.name,
                secret.hosts.join(", ")
            ))
        };
        for (name, _) in placeholders(url) {
            if let Some(secret) = self.get(name)
                && !secret.bound_to(target)
            {
                return refuse(secret, "the URL");
            }
        }
        for (header, value) in headers.iter_mut() {
            let found = placeholders(value);
            if found.is_empty() {
                continue;
            }
            let mut out = String::with_capacity(value.len());
            let mut at = 0;
            for (name, range) in found {
                let Some(secret) = self.get(name) else {
                    continue;
                };
                if !secret.bound_to(target) {
                    return refuse(secret, &format!("header {header}"));
                }
                out.push_str(&value[at..range.start]);
                let whole = range.start == 0 && range.end == value.len();
                if whole
                    && secret
                        .header
                        .as_deref()
                        .is_some_and(|h| h.eq_ignore_ascii_case(header))
                {
                    out.push_str(&secret.rendered());
                } else {
                    out.push_str(&secret.value);
                }
                at = range.end;
                if !used.contains(&secret.name) {
                    used.push(secret.name.clone());
                }
            }
            out.push_str(&value[at..]);
            *value = out;
        }
        for secret in &self.inner.list {
            let Some(header) = &secret.header else {
                continue;
            };
            if secret.bound_to(target)
                && !headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(header))
            {
                headers.push((header.clone(), secret.rendered()));
                if !used.contains(&secret.name) {
                    used.push(secret.name.clone());
                }
            }
        }
        Ok(used)
    }

    /// The value of secret `name` for the host's own signing of requests to `url` (a
    /// bucket's keys: the requests carry a signature, never the key, so an http URL gets
    /// it too); `None` when there is no such secret or it is not bound to `url`'s host.
    pub fn signing_value(&self, name: &str, url: &str) -> Option<&str> {
        let mut target = crate::egress::target_of(url)?;
        target.scheme = "https".to_string();
        self.inner
            .list
            .iter()
            .find(|s| s.name == name && s.bound_to(&target))
            .map(|s| s.value.as_str())
    }

    /// Whether a secret is bound to the host and port of `url` (over https).
    pub fn any_bound(&self, url: &str) -> bool {
        crate::egress::target_of(url)
            .is_some_and(|target| self.inner.list.iter().any(|s| s.bound_to(&target)))
    }

    /// The headers git sends to the remote `url`: every secret bound to its host over https,
    /// as its header (`Authorization: Basic` with user `x-access-token`, the form git hosts
    /// take a token in, for a secret bound to no header).
    pub fn git_headers(&self, url: &str) -> Vec<String> {
        let Some(target) = crate::egress::target_of(url) else {
            return Vec::new();
        };
        let mut headers: Vec<(String, String)> = Vec::new();
        for secret in self.inner.list.iter().filter(|s| s.bound_to(&target)) {
            let (name, value) = match &secret.header {
                Some(h) => (h.clone(), secret.rendered()),
                None => (
                    "Authorization".to_string(),
                    format!("Basic {}", secret.git_basic()),
                ),
            };
            if !headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(&name)) {
                headers.push((name, value));
            }
        }
        headers
            .into_iter()
            .map(|(h, v)| format!("{h}: {v}"))
            .collect()
    }

    /// `text` with every value (and formatted value) replaced by its placeholder.
    pub fn redact(&self, text: &str) -> String {
        match &self.inner.redactor {
            Some(ac) => ac.replace_all(text, &self.inner.replacements),
            None => text.to_string(),
        }
    }

    /// [`Secrets::redact`] on bytes; borrows when nothing is replaced.
    pub fn redact_bytes<'a>(&self, bytes: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        match &self.inner.redactor {
            Some(ac) if ac.is_match(bytes) => {
                std::borrow::Cow::Owned(ac.replace_all_bytes(bytes, &self.inner.replacements))
            }
            _ => std::borrow::Cow::Borrowed(bytes),
        }
    }

    /// How many bytes at the end of `bytes` could begin a value (or a form of one) that the
    /// next chunk of a stream completes: a stream holds them back until it knows.
    pub fn partial_tail(&self, bytes: &[u8]) -> usize {
        let longest = self
            .inner
            .patterns
            .iter()
            .map(String::len)
            .max()
            .unwrap_or(0);
        (1..longest.min(bytes.len() + 1))
            .rev()
            .find(|&k| {
                let tail = &bytes[bytes.len() - k..];
                self.inner
                    .patterns
                    .iter()
                    .any(|p| p.len() > k && p.as_bytes().starts_with(tail))
            })
            .unwrap_or(0)
    }

    /// Whether `text` holds a value.
    pub fn reveals(&self, text: &[u8]) -> bool {
        self.inner
            .redactor
            .as_ref()
            .is_some_and(|ac| ac.is_match(text))
    }
}

/// The placeholders in `text`: each name and where its placeholder lies.
fn placeholders(text: &str) -> Vec<(&str, std::ops::Range<usize>)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(PLACEHOLDER_PREFIX) {
        let start = from + at;
        let name_start = start + PLACEHOLDER_PREFIX.len();
        let len = text[name_start..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let end = name_start + len;
        if len > 0 {
            found.push((&text[name_start..end], start..end));
        }
        from = end.max(start + 1);
    }
    found
}
