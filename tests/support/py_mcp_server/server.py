"""An MCP server on the python `mcp` SDK (2.x): `greet` asks for a name through a
resolver, so the SDK elicits mid-call in 2025-11-25 and returns `input_required` in
2026-07-28."""
from typing import Annotated

from pydantic import BaseModel, Field
from mcp.server.mcpserver import ElicitationResult, Elicit, MCPServer, Resolve

app = MCPServer("py-interop")


class Who(BaseModel):
    name: str = Field(default="Ada", description="Your name")


def ask_who() -> Elicit[Who]:
    return Elicit("Who are you?", Who)


@app.tool()
async def greet(who: Annotated[ElicitationResult[Who], Resolve(ask_who)]) -> str:
    """Ask for a name, then greet."""
    if who.action == "accept":
        return f"Hello, {who.data.name}"
    return who.action


if __name__ == "__main__":
    app.run("stdio")
