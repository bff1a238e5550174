"""http.client (and so urllib) over the host's egress.

The isolate's Python has no sockets. Here a connection of `http.client` gathers what it
writes and, once a request is whole, sends it through the runtime's door (`_host.call`) to
the host, which sends it through the workspace's network policy as it does the shell's
`curl`: checked names and addresses, every request audited, the workspace's secrets put in
where they are bound. The answer is read back as the bytes of an HTTP/1.1 response. HTTPS is
the host's too: it makes the TLS connection and always verifies it, so `HTTPSConnection`
takes a `context` but does not use it (there is no `ssl` module to make one).

The interpreter's prelude runs `_install()` (in `python_net_hook.py`) before the command
line; this file is compiled when `http.client` is first imported.
"""

import errno
import io
import json
import sys

import _host

# Header names the host sets itself (from the URL and the body), not the guest.
_HOST_HEADERS = {
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "proxy-connection",
}


def patch(hc):
    """Makes `hc` (the `http.client` module) send through the door."""

    def connect_http(self):
        sys.audit("http.client.connect", self, self.host, self.port)
        self.sock = DoorSocket(self, "http")

    hc.HTTPConnection.connect = connect_http

    if not hasattr(hc, "HTTPSConnection"):

        class HTTPSConnection(hc.HTTPConnection):
            """HTTPS through the host, which makes and verifies the TLS connection."""

            default_port = hc.HTTPS_PORT

            def __init__(self, host, port=None, *args, context=None, check_hostname=None, **kw):
                super().__init__(host, port, *args, **kw)
                self._context = context

            def connect(self):
                sys.audit("http.client.connect", self, self.host, self.port)
                self.sock = DoorSocket(self, "https")

        HTTPSConnection.__module__ = hc.__name__
        HTTPSConnection.__qualname__ = "HTTPSConnection"
        hc.HTTPSConnection = HTTPSConnection
        hc.__all__.append("HTTPSConnection")
        # urllib.request asks it for a default context: the host verifies instead.
        hc._create_https_context = lambda http_version: None


class DoorSocket:
    """What a connection writes its requests to and reads its responses from."""

    def __init__(self, conn, scheme):
        self._conn = conn
        self._scheme = scheme
        self._out = bytearray()
        self._answers = []

    def sendall(self, data):
        self._out += data
        while True:
            request = _whole(self._out)
            if request is None:
                return
            method, target, headers, body, used = request
            del self._out[:used]
            self._answers.append(self._exchange(method, target, headers, body))

    def send(self, data):
        self.sendall(data)
        return len(data)

    def makefile(self, mode="rb", *args, **kwargs):
        if "w" in mode:
            raise io.UnsupportedOperation("the door's connection is read through makefile")
        answer = self._answers.pop(0) if self._answers else b""
        return io.BytesIO(answer)

    def close(self):
        self._out.clear()
        self._answers.clear()

    def settimeout(self, timeout):
        pass

    def setsockopt(self, *args):
        pass

    def _exchange(self, method, target, headers, body):
        conn = self._conn
        if target.startswith(("http://", "https://")):
            url = target
        else:
            host = conn._tunnel_host or conn.host
            port = (conn._tunnel_port if conn._tunnel_host else conn.port) or conn.default_port
            if ":" in host and not host.startswith("["):
                host = f"[{host}]"
            default = 443 if self._scheme == "https" else 80
            netloc = host if port == default else f"{host}:{port}"
            url = f"{self._scheme}://{netloc}{target}"
        timeout = conn.timeout
        frame = {
            "op": "http",
            "method": method,
            "url": url,
            "headers": [[k, v] for k, v in headers if k.lower() not in _HOST_HEADERS],
            "timeout_ms": (
                int(timeout * 1000) if isinstance(timeout, (int, float)) and timeout >= 0 else None
            ),
        }
        answer = _host.call(json.dumps(frame).encode() + b"\n" + body)
        meta, _, body = answer.partition(b"\n")
        meta = json.loads(meta)
        if not meta.get("ok"):
            raise _error(meta.get("kind", "failed"), meta.get("message", "the request failed"))
        return _response(method, meta, body)


def _whole(buf):
    """The first request in `buf` if it is whole: (method, target, headers, body, bytes)."""
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        return None
    lines = bytes(buf[:end]).decode("latin-1").split("\r\n")
    method, target, _ = (lines[0].split(" ", 2) + ["", ""])[:3]
    headers = []
    for line in lines[1:]:
        if line[:1] in (" ", "\t") and headers:
            name, value = headers[-1]
            headers[-1] = (name, value + " " + line.strip())
            continue
        name, _, value = line.partition(":")
        headers.append((name.strip(), value.strip()))
    fields = {k.lower(): v for k, v in headers}
    at = end + 4
    if "chunked" in fields.get("transfer-encoding", "").lower():
        chunked = _dechunk(buf, at)
        if chunked is None:
            return None
        body, used = chunked
        return method, target, headers, body, used
    length = int(fields.get("content-length", "0") or "0")
    if len(buf) < at + length:
        return None
    return method, target, headers, bytes(buf[at : at + length]), at + length


def _dechunk(buf, at):
    """A chunked body from `at`, if whole: (body, where it ends)."""
    body = bytearray()
    while True:
        eol = buf.find(b"\r\n", at)
        if eol < 0:
            return None
        size = int(bytes(buf[at:eol]).split(b";")[0].strip() or b"0", 16)
        at = eol + 2
        if size == 0:
            break
        if len(buf) < at + size + 2:
            return None
        body += buf[at : at + size]
        at += size + 2
    # Trailers, up to an empty line.
    while True:
        eol = buf.find(b"\r\n", at)
        if eol < 0:
            return None
        line, at = buf[at:eol], eol + 2
        if not line:
            return bytes(body), at


def _clean(text):
    return str(text).replace("\r", " ").replace("\n", " ")


def _response(method, meta, body):
    """The host's answer as the bytes of an HTTP/1.1 response, framed by its length."""
    status = int(meta["status"])
    version = "HTTP/1.0" if meta.get("version") == "HTTP/1.0" else "HTTP/1.1"
    # Where a response has no body, its own Content-Length says what a GET would get.
    bodiless = method == "HEAD" or status in (204, 304) or 100 <= status < 200
    lines = [f"{version} {status} {_clean(meta.get('reason', ''))}"]
    for name, value in meta.get("headers", []):
        lower = name.lower()
        if lower in ("transfer-encoding", "connection", "keep-alive"):
            continue
        if lower == "content-length" and not bodiless:
            continue
        lines.append(f"{_clean(name)}: {_clean(value)}")
    if not bodiless:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogateescape") + body


def _error(kind, message):
    """The exception a socket would have raised for what went wrong."""
    import socket

    if kind == "refused":
        return PermissionError(errno.EACCES, message)
    if kind == "resolve":
        return socket.gaierror(socket.EAI_NONAME, message)
    if kind == "connect":
        return ConnectionRefusedError(errno.ECONNREFUSED, message)
    if kind == "timeout":
        return TimeoutError(errno.ETIMEDOUT, message)
    return OSError(errno.EIO, message)
