"""Drives `computer mcp` (stdio) or `computer serve` (streamable HTTP) with the official MCP
Python SDK; prints what it saw as JSON.

    mcp_client.py stdio COMPUTER WORKSPACE
    mcp_client.py http URL TOKEN
    mcp_client.py move URL TOKEN    # one session across a move of its workspace: writes, says
                                    # "ready", waits for a line on stdin, reads back
"""
import asyncio
import contextlib
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def attr(obj, snake, camel):
    """The SDK's field, by its name in either of the SDK's spellings."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


@contextlib.asynccontextmanager
async def connect(mode, a, b):
    if mode == "stdio":
        params = StdioServerParameters(command=a, args=["--workspace", b, "mcp"])
        async with stdio_client(params) as (read, write):
            yield read, write
    else:
        from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
        headers = {"Authorization": f"Bearer {b}"}
        async with create_mcp_http_client(headers=headers) as http:
            async with streamable_http_client(a, http_client=http) as streams:
                yield streams[0], streams[1]


async def main(mode, a, b):
    seen = {}
    async with connect(mode, a, b) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            seen["server"] = attr(init, "server_info", "serverInfo").name
            tools = await session.list_tools()
            seen["tools"] = [t.name for t in tools.tools]
            seen["edit_schema_required"] = sorted(
                attr(next(t for t in tools.tools if t.name == "edit"), "input_schema", "inputSchema")["required"])

            async def call(name, args, progress=None):
                r = await session.call_tool(name, args, progress_callback=progress)
                return {"error": bool(attr(r, "is_error", "isError")), "text": r.content[0].text if r.content else ""}

            seen["write"] = await call("write", {"path": "notes/a.txt", "content": "one\ntwo\ntwo\n"})
            seen["read"] = await call("read", {"path": "/workspace/notes/a.txt", "limit": 1})
            seen["edit_ambiguous"] = await call(
                "edit", {"path": "notes/a.txt", "edits": [{"old_text": "two", "new_text": "2"}]})
            seen["edit"] = await call(
                "edit", {"path": "notes/a.txt", "edits": [{"old_text": "one", "new_text": "1"}]})
            seen["missing"] = await call("read", {"path": "nope.txt"})
            seen["grep"] = await call("grep", {"pattern": "two"})
            seen["ls"] = await call("ls", {"path": "notes"})
            seen["find"] = await call("find", {"pattern": "**/*.txt"})
            seen["exec"] = await call("exec", {"command": "cat notes/a.txt | wc -l; exit 2"})
            seen["timeout"] = await call("exec", {"command": "sleep 5", "timeout": 0.5})
            progress = []

            async def on_progress(done, total, message):
                progress.append(message)

            seen["streamed"] = await call("exec", {"command": "echo first; sleep 0.3; echo second"}, on_progress)
            # Notifications may trail the result by a moment.
            for _ in range(50):
                if any("second" in (m or "") for m in progress):
                    break
                await asyncio.sleep(0.02)
            seen["progress"] = progress
            # Git as agents type it, in the isolate alone: the host's git runs it, and what it
            # does not run says where it would.
            seen["git"] = await call("exec", {"backend": "isolate", "command":
                "git init -q g && cd g && echo x > f && git add -A"
                " && git -c user.name=Mo -c user.email=mo@example.com commit -qam one"
                " && git -C .. -C g log --format=%an"})
            seen["git_unsupported"] = await call("exec", {"backend": "isolate", "command": "cd g && git bisect start"})
            seen["delete"] = await call("delete", {"path": "notes", "recursive": True})
            seen["delete_root"] = await call("delete", {"path": "/workspace", "recursive": True})
            seen["bad_args"] = await call("ls", {"bogus": True})
            try:
                await session.call_tool("no_such_tool", {})
                seen["unknown"] = "no error"
            except Exception as e:  # a protocol error, as the SDK raises it
                seen["unknown"] = type(e).__name__
    print(json.dumps(seen))


async def across_a_move(url, token):
    """One session: a write, then (once the workspace moved) a read and an exec."""
    seen = {}
    async with connect("http", url, token) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(name, args):
                r = await session.call_tool(name, args)
                return {"error": bool(attr(r, "is_error", "isError")), "text": r.content[0].text if r.content else ""}

            seen["write"] = await call("write", {"path": "moved.txt", "content": "before the move\n"})
            print("ready", flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            seen["read"] = await call("read", {"path": "moved.txt"})
            seen["exec"] = await call("exec", {"command": "echo after >> moved.txt; cat moved.txt"})
    print(json.dumps(seen), flush=True)


if sys.argv[1] == "move":
    asyncio.run(across_a_move(*sys.argv[2:4]))
else:
    asyncio.run(main(*sys.argv[1:4]))
