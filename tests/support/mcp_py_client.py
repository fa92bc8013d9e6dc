"""A client nobody here wrote: the python `mcp` SDK against `switchboard serve`.

Usage: mcp_py_client.py (URL | COMMAND ARGS...) -- prints one JSON object: the tool
names, the result of calling ECHO, and of calling WRITE (which the gateway refuses
headless). ECHO and WRITE come from the environment (SB_ECHO, SB_WRITE, SB_ARGS).
"""

import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters


def text(result):
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def main():
    target = sys.argv[1]
    if target.startswith("http"):
        server = target
    else:
        server = StdioServerParameters(command=target, args=sys.argv[2:], cwd=os.getcwd())
    async with Client(server) as client:
        tools = await client.list_tools()
        echo = await client.call_tool(os.environ["SB_ECHO"], json.loads(os.environ["SB_ARGS"]))
        write = await client.call_tool(os.environ["SB_WRITE"], {})
        print(json.dumps({
            "tools": sorted(t.name for t in tools.tools),
            "echo": {"is_error": bool(echo.is_error), "text": text(echo)},
            "write": {"is_error": bool(write.is_error), "text": text(write)},
        }))


asyncio.run(main())
