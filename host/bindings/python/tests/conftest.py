"""Fixtures of the Python binding's tests: workspaces, a real `git daemon` on 127.0.0.1,
and the container backend where Docker and FUSE are here (in CI they must be)."""

import os
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

import computer


@pytest.fixture
def ws():
    return computer.Workspace.memory()


@pytest.fixture
def ws_file(tmp_path):
    return computer.Workspace.open(tmp_path / "agent.db")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def git_daemon(tmp_path):
    """A bare repository `repo.git` with one commit (README.md), served by `git daemon` on
    127.0.0.1: yields its git:// URL."""
    if shutil.which("git") is None:
        _skip("no git on this machine")
    served = tmp_path / "served"
    work = tmp_path / "work"
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
    (work / "README.md").write_text("# served\n")
    subprocess.run(["git", "-C", str(work), "add", "."], check=True)
    subprocess.run(["git", "-C", str(work), "commit", "-qm", "first"], check=True, env=env)
    served.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(served / "repo.git")], check=True)
    port = _free_port()
    exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True).stdout.strip()
    daemon = subprocess.Popen(
        [os.path.join(exec_path, "git-daemon"), "--reuseaddr", "--export-all", "--listen=127.0.0.1",
         f"--port={port}", f"--base-path={served}", str(served)],
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"git://127.0.0.1:{port}/repo.git"
    finally:
        daemon.kill()
        daemon.wait()


@pytest.fixture(scope="session")
def moto():
    """A real S3-compatible server (moto, PyPI) on 127.0.0.1: yields a function that makes a
    bucket and returns the store's keyword arguments for it."""
    if shutil.which("moto_server") is None:
        _skip("moto_server is not installed (python3 -m pip install 'moto[server]')")
    port = _free_port()
    server = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)

        def bucket(name):
            urllib.request.urlopen(urllib.request.Request(f"{endpoint}/{name}", method="PUT")).close()
            return dict(endpoint=endpoint, region="us-east-1", access_key_id="test",
                        secret_access_key="test", allow_http=True)

        yield bucket
    finally:
        server.kill()
        server.wait()


def _skip(why):
    """Outside CI, skips saying why; in CI (`CI` set) the test fails instead."""
    if os.environ.get("CI"):
        pytest.fail(f"CI needs this: {why}")
    pytest.skip(why)


@pytest.fixture
def container_ready():
    """Docker and FUSE are here, as root (the container backend mounts the workspace)."""
    if shutil.which("docker") is None or subprocess.run(["docker", "info"], capture_output=True).returncode:
        _skip("no Docker engine")
    if not os.path.exists("/dev/fuse") or os.geteuid() != 0:
        _skip("no /dev/fuse, or not root")
