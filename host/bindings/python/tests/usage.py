"""Type-checked by tests/all.rs (mypy --strict), never run: a program using the package as an
agent would, so that the stubs (`computer/_computer.pyi`) are held to what the module gives."""

import asyncio

import computer


def main() -> None:
    ws = computer.Workspace.open("agent.db")
    ws.fs.write_text("notes.md", "hi\n")
    text: str = ws.fs.read_text("notes.md")
    r = ws.exec(["wc", "-l", "notes.md"], cwd="/workspace", backend="isolate", timeout=1.5)
    status: int = r.status
    for ev in ws.exec_stream("echo hi"):
        print(ev.kind, ev.data)
    session = ws.session()
    session.exec("X=1")
    job = ws.spawn("sleep 1")
    ended = job.wait(timeout=2)
    ws.net.allow("git://127.0.0.1:9418")
    ws.git.clone("git://127.0.0.1:9418/repo", "/workspace/repo")
    stats = ws.import_bucket("s3://b/p", "in", endpoint="http://127.0.0.1:9000", allow_http=True)
    moved: int = stats.transferred
    skipped: list[str] = ws.export_bucket("out", "s3://b/p", delete=True, region="us-east-1").skipped
    pushed: int = ws.push_snapshot("v1", "s3://b/s")["chunks_uploaded"]
    copy: computer.Workspace = computer.Workspace.pull_snapshot(
        "v1", "s3://b/s", "copy.db", access_key_id="k", secret_access_key="s"
    )
    tools = ws.tools(read_only=True)
    answer: str = tools.call("read", {"path": "notes.md"})
    try:
        ws.exec("sleep 9", timeout=0.1)
    except computer.LimitExceeded as e:
        print(e.limit, e.result)
    print(text, status, ended, moved, skipped, pushed, copy, answer, tools.openai())


async def agent() -> None:
    ws = computer.Workspace.memory()
    r = await ws.exec_async("true")
    print(r.ok)


main()
asyncio.run(agent())
