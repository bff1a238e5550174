"""Type stubs of the extension module (the Rust side of ``computer``)."""

from os import PathLike
from typing import Any, AsyncIterator, Iterator, Literal, Optional, Sequence, TypedDict, Union

from typing_extensions import Unpack

Backend = Literal["auto", "isolate", "container"]
Command = Union[str, Sequence[str]]
Data = Union[bytes, bytearray, str]

__version__: str

class ComputerError(Exception):
    """An error that is not a filesystem error (a backend, git, the network...)."""

class LimitExceeded(ComputerError):
    """A limit stopped the call."""

    limit: str
    """``timeout``, ``memory``, ``output``, ``instances``, ``jobs`` or ``tool``."""
    result: Optional[ExecResult]
    """What the command wrote before it was stopped, for a command."""

class Cancel:
    """Stops the command it is given to, from another thread."""

    def __init__(self) -> None: ...
    def cancel(self) -> None: ...
    @property
    def cancelled(self) -> bool: ...

class Stat:
    kind: str
    size: int
    mode: int
    mtime: float
    ino: int

class Entry:
    name: str
    path: str
    kind: str

class Fs:
    """The workspace's files; relative paths start at ``/workspace``."""

    def read_bytes(self, path: str) -> bytes: ...
    def read_text(self, path: str, encoding: str = "utf-8") -> str: ...
    def write_bytes(self, path: str, data: Data) -> None: ...
    def write_text(self, path: str, text: str) -> None: ...
    def append(self, path: str, data: Data) -> None: ...
    def stat(self, path: str, follow_symlinks: bool = True) -> Stat: ...
    def exists(self, path: str) -> bool: ...
    def list(self, path: str) -> list[Entry]: ...
    def mkdir(self, path: str, parents: bool = False) -> None: ...
    def remove(self, path: str, recursive: bool = False) -> None: ...
    def rename(self, src: str, dst: str) -> None: ...

class ExecResult:
    status: int
    stdout: bytes
    stderr: bytes
    ended: str
    """``exited``, ``timeout``, ``memory``, ``output``, ``instances``, ``crashed``, ``cancelled``."""
    @property
    def text(self) -> str: ...
    @property
    def ok(self) -> bool: ...

class Event:
    kind: Literal["stdout", "stderr", "exit"]
    data: bytes
    status: Optional[int]
    result: Optional[ExecResult]
    @property
    def text(self) -> str: ...

class ExecStream(Iterator[Event]):
    def __iter__(self) -> ExecStream: ...
    def __next__(self) -> Event: ...
    def close(self) -> None: ...
    def __enter__(self) -> ExecStream: ...
    def __exit__(self, *exc: Any) -> None: ...

class _Runs:
    def exec(
        self,
        command: Command,
        *,
        cwd: Optional[str] = None,
        env: Optional[Sequence[tuple[str, str]]] = None,
        stdin: Optional[Data] = None,
        backend: Backend = "auto",
        timeout: Optional[float] = None,
        cancel: Optional[Cancel] = None,
    ) -> ExecResult: ...
    def exec_stream(
        self,
        command: Command,
        *,
        cwd: Optional[str] = None,
        env: Optional[Sequence[tuple[str, str]]] = None,
        stdin: Optional[Data] = None,
        backend: Backend = "auto",
        timeout: Optional[float] = None,
    ) -> ExecStream: ...
    async def exec_async(
        self,
        command: Command,
        *,
        cwd: Optional[str] = None,
        env: Optional[Sequence[tuple[str, str]]] = None,
        stdin: Optional[Data] = None,
        backend: Backend = "auto",
        timeout: Optional[float] = None,
    ) -> ExecResult: ...
    def exec_stream_async(
        self,
        command: Command,
        *,
        cwd: Optional[str] = None,
        env: Optional[Sequence[tuple[str, str]]] = None,
        stdin: Optional[Data] = None,
        backend: Backend = "auto",
        timeout: Optional[float] = None,
    ) -> AsyncIterator[Event]: ...

class Session(_Runs):
    @property
    def cwd(self) -> Optional[str]: ...

class Job:
    @property
    def id(self) -> int: ...
    @property
    def command(self) -> str: ...
    @property
    def running(self) -> bool: ...
    @property
    def status(self) -> Optional[int]: ...
    def read(self) -> tuple[bytes, bytes]: ...
    def wait(self, timeout: Optional[float] = None) -> Optional[int]: ...
    def kill(self) -> None: ...

class Store(TypedDict, total=False):
    """Where a bucket is and how to sign for it; unset: the host's AWS variables and secret store."""
    endpoint: str
    region: str
    access_key_id: str
    secret_access_key: str
    allow_http: bool

class BucketStats:
    transferred: int
    bytes: int
    unchanged: int
    deleted: int
    skipped: list[str]

class GitResult:
    status: int
    stdout: bytes
    stderr: bytes
    @property
    def text(self) -> str: ...

class Git:
    def run(
        self,
        args: Sequence[str],
        *,
        cwd: str = "/workspace",
        env: Optional[Sequence[tuple[str, str]]] = None,
    ) -> GitResult: ...
    def clone(self, url: str, dest: str) -> None: ...

class Net:
    def allow(self, rule: str, methods: Optional[Sequence[str]] = None) -> str: ...
    def deny(self, rule: str, methods: Optional[Sequence[str]] = None) -> str: ...
    def policy(self) -> str: ...

class Snapshot:
    name: str
    created: float
    inodes: int
    bytes: int

class Tools:
    def definitions(self) -> list[dict[str, Any]]: ...
    def openai(self) -> list[dict[str, Any]]: ...
    def anthropic(self) -> list[dict[str, Any]]: ...
    def mcp(self) -> list[dict[str, Any]]: ...
    def names(self) -> list[str]: ...
    def call(self, name: str, args: Union[dict[str, Any], str], cancel: Optional[Cancel] = None) -> str: ...
    async def call_async(self, name: str, args: Union[dict[str, Any], str]) -> str: ...

class Workspace(_Runs):
    @staticmethod
    def open(path: Union[str, PathLike[str]]) -> Workspace: ...
    @staticmethod
    def memory() -> Workspace: ...
    @property
    def fs(self) -> Fs: ...
    @property
    def git(self) -> Git: ...
    @property
    def net(self) -> Net: ...
    @property
    def path(self) -> Optional[str]: ...
    def session(self) -> Session: ...
    def spawn(
        self,
        command: Command,
        *,
        cwd: Optional[str] = None,
        env: Optional[Sequence[tuple[str, str]]] = None,
        backend: Backend = "auto",
        timeout: Optional[float] = None,
    ) -> Job: ...
    def jobs(self) -> list[Job]: ...
    def snapshot(self, name: str) -> Snapshot: ...
    def snapshots(self) -> list[Snapshot]: ...
    def restore(self, name: str) -> None: ...
    def delete_snapshot(self, name: str) -> None: ...
    def fork(self, name: str, path: Union[str, PathLike[str]]) -> Workspace: ...
    def import_path(self, src: Union[str, PathLike[str]], dest: str = "/workspace") -> int: ...
    def export_path(self, src: str, dest: Union[str, PathLike[str]]) -> int: ...
    def import_bucket(self, url: str, dest: str = "/workspace", **store: Unpack[Store]) -> BucketStats: ...
    def export_bucket(self, src: str, url: str, *, delete: bool = False, **store: Unpack[Store]) -> BucketStats: ...
    def push_snapshot(self, name: str, url: str, **store: Unpack[Store]) -> dict[str, int]: ...
    @staticmethod
    def pull_snapshot(name: str, url: str, path: Union[str, PathLike[str]], **store: Unpack[Store]) -> Workspace: ...
    def tools(self, read_only: bool = False) -> Tools: ...
