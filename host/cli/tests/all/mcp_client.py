"""Drives `computer mcp` with the official MCP Python SDK; prints what it saw as JSON."""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def attr(obj, snake, camel):
    """The SDK's field, by its name in either of the SDK's spellings."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


async def main(computer, workspace):
    params = StdioServerParameters(command=computer, args=["--workspace", workspace, "mcp"])
    seen = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            seen["server"] = attr(init, "server_info", "serverInfo").name
            tools = await session.list_tools()
            seen["tools"] = [t.name for t in tools.tools]
            seen["edit_schema_required"] = sorted(
                attr(next(t for t in tools.tools if t.name == "edit"), "input_schema", "inputSchema")["required"])

            async def call(name, args):
                r = await session.call_tool(name, args)
                return {"error": bool(attr(r, "is_error", "isError")), "text": r.content[0].text if r.content else ""}

            seen["write"] = await call("write", {"path": "notes/a.txt", "content": "one\ntwo\ntwo\n"})
            seen["read"] = await call("read", {"path": "/workspace/notes/a.txt", "limit": 1})
            seen["edit_ambiguous"] = await call(
                "edit", {"path": "notes/a.txt", "edits": [{"old_text": "two", "new_text": "2"}]})
            seen["edit"] = await call(
                "edit", {"path": "notes/a.txt", "edits": [{"old_text": "one", "new_text": "1"}]})
            seen["missing"] = await call("read", {"path": "nope.txt"})
            seen["grep"] = await call("grep", {"pattern": "two"})
            seen["exec"] = await call("exec", {"command": "cat notes/a.txt | wc -l; exit 2"})
            seen["bad_args"] = await call("ls", {"bogus": True})
            try:
                await session.call_tool("no_such_tool", {})
                seen["unknown"] = "no error"
            except Exception as e:  # a protocol error, as the SDK raises it
                seen["unknown"] = type(e).__name__
    print(json.dumps(seen))


asyncio.run(main(sys.argv[1], sys.argv[2]))
