"""The shared scenario of the bindings (the same steps as the Rust, Node.js and C tests),
then the Python-only parts: exceptions, streaming, asyncio, Ctrl-C, sessions and jobs."""

import asyncio
import errno
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import computer


# --- the shared scenario -------------------------------------------------------------

def test_write_then_exec_in_the_isolate(ws):
    ws.fs.write_text("/workspace/notes.md", "one\ntwo\nthree\n")
    r = ws.exec("wc -l < notes.md && grep -c o notes.md", backend="isolate")
    assert (r.status, r.text, r.ended) == (0, "3\n2\n", "exited")
    assert ws.fs.read_text("notes.md") == "one\ntwo\nthree\n"


def test_auto_falls_back_to_the_container(ws, container_ready):
    r = ws.exec("python3 -c 'print(6*7)' | wc -l; python3 -c 'print(6*7)'", backend="auto", timeout=600)
    assert r.text == "1\n42\n", r.stderr


def test_stream_yields_output_as_it_comes(ws):
    events = list(ws.exec_stream("echo one; echo two >&2; echo three"))
    kinds = [e.kind for e in events]
    assert kinds[-1] == "exit" and events[-1].status == 0
    assert "".join(e.text for e in events if e.kind == "stdout") == "one\nthree\n"
    assert "".join(e.text for e in events if e.kind == "stderr") == "two\n"
    assert events[-1].result.stdout == b"one\nthree\n"


def test_snapshot_and_fork(ws_file, tmp_path):
    ws_file.fs.write_text("state.txt", "before\n")
    snap = ws_file.snapshot("before")
    assert snap.name == "before" and snap.inodes > 0
    ws_file.fs.write_text("state.txt", "after\n")
    copy = ws_file.fork("before", tmp_path / "copy.db")
    assert copy.fs.read_text("state.txt") == "before\n"
    assert ws_file.fs.read_text("state.txt") == "after\n"
    copy.fs.write_text("state.txt", "copy\n")
    assert ws_file.fs.read_text("state.txt") == "after\n"
    ws_file.restore("before")
    assert ws_file.fs.read_text("state.txt") == "before\n"
    assert [s.name for s in ws_file.snapshots()] == ["before"]
    assert Path(copy.path) == tmp_path / "copy.db"


def test_tool_calls(ws):
    tools = ws.tools()
    assert tools.call("write", {"path": "hello.py", "content": "print('hi')\n"})
    assert "print('hi')" in tools.call("read", {"path": "/workspace/hello.py"})
    out = tools.call("exec", json.dumps({"command": "cat hello.py | wc -l"}))
    assert "1" in out
    openai = tools.openai()
    assert {t["function"]["name"] for t in openai} == set(tools.names())
    assert all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object" for t in openai)
    anthropic = tools.anthropic()
    assert all(set(t) == {"name", "description", "input_schema"} for t in anthropic)
    assert {t["name"] for t in ws.tools(read_only=True).mcp()} == {"read", "ls", "find", "grep"}
    with pytest.raises(FileNotFoundError):
        tools.call("read", {"path": "missing.txt"})
    with pytest.raises(ValueError, match="unknown tool"):
        tools.call("format_disk", {})


def test_a_missing_file_is_file_not_found(ws):
    with pytest.raises(FileNotFoundError) as e:
        ws.fs.read_text("nope/missing.txt")
    assert e.value.errno == errno.ENOENT
    assert "/workspace/nope/missing.txt" in str(e.value)
    ws.fs.mkdir("dir")
    with pytest.raises(IsADirectoryError):
        ws.fs.read_bytes("dir")
    with pytest.raises(FileExistsError):
        ws.fs.mkdir("dir")


def test_a_timeout_is_named_as_a_limit(ws):
    with pytest.raises(computer.LimitExceeded) as e:
        ws.exec("echo started; sleep 30", timeout=0.5)
    assert e.value.limit == "timeout"
    assert e.value.result.status == 124
    assert e.value.result.stdout == b"started\n"
    assert "time limit" in str(e.value)


def test_git_clone_from_a_real_daemon(ws, git_daemon):
    with pytest.raises(computer.ComputerError, match="network policy|not allowed|refused"):
        ws.git.clone(git_daemon, "/workspace/repo")
    ws.net.allow(git_daemon.rsplit("/", 1)[0])
    ws.git.clone(git_daemon, "/workspace/repo")
    assert ws.fs.read_text("repo/README.md") == "# served\n"
    assert ws.git.run(["log", "--format=%s"], cwd="/workspace/repo").text == "first\n"
    r = ws.exec("git status --short && cat README.md", cwd="/workspace/repo")
    assert r.text == "# served\n", r.stderr


def test_buckets_import_and_export(ws, moto):
    store = moto("agent-data")
    ws.fs.mkdir("out/sub", parents=True)
    ws.fs.write_text("out/a.txt", "alpha\n")
    ws.fs.write_text("out/sub/b.txt", "beta\n")
    stats = ws.export_bucket("out", "s3://agent-data/run1", **store)
    assert (stats.transferred, stats.bytes) == (2, 11)
    # Unchanged files are not sent again.
    assert ws.export_bucket("/workspace/out", "s3://agent-data/run1", **store).unchanged == 2
    copy = computer.Workspace.memory()
    assert copy.import_bucket("s3://agent-data/run1", "in", **store).transferred == 2
    assert copy.fs.read_text("in/sub/b.txt") == "beta\n"
    ws.fs.remove("out/a.txt")
    assert ws.export_bucket("out", "s3://agent-data/run1", delete=True, **store).deleted == 1
    with pytest.raises(ValueError, match="s3://"):
        ws.import_bucket("http://agent-data/x", "in", **store)
    with pytest.raises(computer.ComputerError, match="no-such-bucket"):
        ws.import_bucket("s3://no-such-bucket/x", "in2", **store)
    assert not ws.fs.exists("in2")
    with pytest.raises(TypeError, match="endpont"):
        ws.import_bucket("s3://agent-data/run1", "in3", endpont="http://127.0.0.1:1")


def test_snapshots_pushed_to_and_pulled_from_a_bucket(ws, moto, tmp_path):
    store = moto("agent-snaps")
    ws.fs.write_text("state.txt", "v1\n")
    pushed = ws.push_snapshot("v1", "s3://agent-snaps/team", **store)
    assert pushed["chunks_uploaded"] >= 1 and pushed["entries"] >= 2
    # The chunks are there already: a second push sends only the manifest.
    assert ws.push_snapshot("v1", "s3://agent-snaps/team", **store)["chunks_uploaded"] == 0
    copy = computer.Workspace.pull_snapshot("v1", "s3://agent-snaps/team", tmp_path / "copy.db", **store)
    assert copy.fs.read_text("state.txt") == "v1\n"
    with pytest.raises(computer.ComputerError, match="exists"):
        computer.Workspace.pull_snapshot("v1", "s3://agent-snaps/team", tmp_path / "copy.db", **store)


# --- Python's own ---------------------------------------------------------------------

def test_arguments_and_input(ws):
    r = ws.exec(["printf", "%s|", "a b", "c"])
    assert r.text == "a b|c|"
    r = ws.exec("tr a-z A-Z", stdin="shout\n", env=[("X", "1")])
    assert r.text == "SHOUT\n"
    r = ws.exec('echo "$X"', env=[("X", "from env")], cwd="/tmp")
    assert r.text == "from env\n"
    r = ws.exec("exit 3")
    assert (r.status, r.ok) == (3, False)
    with pytest.raises(ValueError, match="backend"):
        ws.exec("true", backend="vm")
    for bad in (-1, 0, float("nan"), 1e300):
        with pytest.raises(ValueError, match="timeout"):
            ws.exec("true", timeout=bad)
    with pytest.raises(ValueError, match="command"):
        ws.exec(123)
    with pytest.raises(OSError) as e:
        ws.fs.read_text("a\0b")
    assert e.value.errno == errno.EINVAL


def test_fs_calls(ws):
    ws.fs.write_bytes("bin.dat", b"\x00\xff")
    ws.fs.append("bin.dat", b"\x01")
    assert ws.fs.read_bytes("bin.dat") == b"\x00\xff\x01"
    st = ws.fs.stat("bin.dat")
    assert (st.kind, st.size) == ("file", 3)
    ws.fs.mkdir("a/b/c", parents=True)
    ws.fs.rename("bin.dat", "a/b/moved.dat")
    assert [(e.name, e.kind) for e in ws.fs.list("a/b")] == [("c", "dir"), ("moved.dat", "file")]
    assert ws.fs.exists("a/b/moved.dat") and not ws.fs.exists("bin.dat")
    with pytest.raises(OSError) as e:
        ws.fs.remove("a")
    assert e.value.errno == errno.ENOTEMPTY
    ws.fs.remove("a", recursive=True)
    assert not ws.fs.exists("a")


def test_session_keeps_the_shells_state(ws):
    s = ws.session()
    s.exec("cd /tmp && X=kept && f() { echo \"f:$1\"; }")
    assert s.exec('echo "$X $(pwd)"; f ok').text == "kept /tmp\nf:ok\n"
    assert s.cwd == "/tmp"


def test_jobs(ws):
    job = ws.spawn("echo out; echo err >&2; exit 4")
    assert job.wait(timeout=60) == 4
    assert job.read() == (b"out\n", b"err\n")
    assert not job.running
    long = ws.spawn("sleep 30")
    assert long.running and long.wait(timeout=0.1) is None
    with pytest.raises(ValueError):
        long.wait(timeout=float("nan"))
    long.kill()
    assert long.wait(timeout=60) == 130
    assert {j.id for j in ws.jobs()} >= {job.id, long.id}


def test_ctrl_c_stops_the_running_command(ws):
    # Python raises KeyboardInterrupt only with its own handler, which it does not install
    # when it starts with SIGINT ignored (a background job of a script, as CI runs).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            ws.exec("touch started; sleep 20; touch finished")
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    # exec returned only once the command had ended: it was stopped, not left to finish.
    assert ws.fs.exists("started") and not ws.fs.exists("finished")


def test_python_handles_ctrl_c_again_after_a_command(ws):
    # exec takes SIGINT for its length only: after it, a Ctrl-C is Python's as before.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert ws.exec("echo hi").text == "hi\n"
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_commands_run_from_other_threads(ws):
    results = []
    threads = [threading.Thread(target=lambda i=i: results.append(ws.exec(f"echo {i}").text))
               for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["0\n", "1\n", "2\n", "3\n"]


def test_bad_input_is_a_value_error(ws):
    with pytest.raises(ValueError, match="rule"):
        ws.net.allow("not a rule at all")
    with pytest.raises(OSError, match="NUL") as e:
        ws.fs.read_text("a\0b")
    assert e.value.errno == errno.EINVAL
    jobs = [ws.spawn("sleep 60") for _ in range(16)]
    try:
        with pytest.raises(computer.LimitExceeded) as e:
            ws.spawn("true")
        assert e.value.limit == "jobs"
    finally:
        for job in jobs:
            job.kill()


def test_cancel_from_another_thread(ws):
    cancel = computer.Cancel()
    threading.Timer(0.3, cancel.cancel).start()
    r = ws.exec("touch started; sleep 20; touch finished", cancel=cancel)
    assert (r.status, r.ended) == (130, "cancelled")
    assert not ws.fs.exists("finished")


def test_asyncio_variants_do_not_block_the_loop(ws):
    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        t = asyncio.create_task(ticker())
        r = await ws.exec_async("sleep 0.5; echo done")
        t.cancel()
        assert r.text == "done\n"
        assert ticks > 5  # the loop ran while the command did
        chunks = [e.kind async for e in ws.exec_stream_async("echo a; echo b >&2")]
        assert chunks[-1] == "exit" and set(chunks[:-1]) == {"stdout", "stderr"}
        assert "x" in await ws.tools().call_async("exec", {"command": "echo x"})

    asyncio.run(main())


def test_cancelling_the_task_stops_the_command(ws):
    async def main():
        task = asyncio.create_task(ws.exec_async("touch started; sleep 20; touch finished"))
        while not ws.fs.exists("started"):
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert not ws.fs.exists("finished")


def test_closing_a_stream_stops_the_command(ws):
    stream = ws.exec_stream("echo first; sleep 1; touch finished")
    assert next(stream).text == "first\n"
    stream.close()
    with pytest.raises(StopIteration):
        next(stream)
    time.sleep(3)  # had it gone on, `finished` would be there after one second
    assert not ws.fs.exists("finished")


def test_the_example_agent_loop_runs():
    example = Path(__file__).parent.parent / "examples" / "agent_loop.py"
    out = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "tests passed: 2" in out.stdout, out.stdout


def test_a_forked_child_runs_commands(ws):
    # multiprocessing forks on Linux: the child has the parent's idle stream workers in its
    # list but not their threads, and must not hand a command to them.
    assert [e.data for e in ws.exec_stream("echo parent") if e.kind == "stdout"] == [b"parent\n"]
    pid = os.fork()
    if pid == 0:
        try:
            r = ws.exec("echo child")
            out = [e.data for e in ws.exec_stream("echo stream") if e.kind == "stdout"]
            os._exit(0 if (r.text, out) == ("child\n", [b"stream\n"]) else 1)
        except BaseException:
            os._exit(2)
    for _ in range(600):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child's exec did not end within a minute")
    assert os.waitstatus_to_exitcode(status) == 0
