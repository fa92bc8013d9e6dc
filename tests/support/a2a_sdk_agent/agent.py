"""A small A2A agent on the official Python SDK (a2a-sdk, pinned in .ci/run), for
interop tests. Binds 127.0.0.1 on a free port and prints `READY <url>` once serving.

Tasks whose text starts with `fail` fail with the status message "could not do it";
others go WORKING, get an artifact `Hello, World! (<text>)` and complete.
"""

import asyncio
import socket
import sys

import uvicorn
from a2a.helpers import (
    get_message_text,
    new_task_from_user_message,
    new_text_message,
    new_text_part,
)
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from a2a.types.a2a_pb2 import TaskState
from starlette.applications import Starlette


class Executor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue=event_queue, task_id=task.id, context_id=task.context_id)
        await updater.update_status(state=TaskState.TASK_STATE_WORKING, message=new_text_message("working"))
        text = get_message_text(context.message) or ""
        if text.startswith("fail"):
            await updater.update_status(
                state=TaskState.TASK_STATE_FAILED, message=new_text_message("could not do it")
            )
            return
        await updater.add_artifact(parts=[new_text_part(text=f"Hello, World! ({text})", media_type="text/plain")])
        await updater.update_status(state=TaskState.TASK_STATE_COMPLETED, message=new_text_message("done"))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("cancel is not supported")


def main() -> None:
    streaming = "--no-streaming" not in sys.argv
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    card = AgentCard(
        name="SDK Hello Agent",
        description="a2a-sdk interop peer",
        version="0.0.1",
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        capabilities=AgentCapabilities(streaming=streaming),
        supported_interfaces=[AgentInterface(protocol_binding="JSONRPC", url=url)],
        skills=[AgentSkill(id="hello", name="Hello", description="Says hello", tags=["interop"])],
    )
    handler = DefaultRequestHandler(agent_executor=Executor(), task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")])
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))

    async def serve() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            await asyncio.sleep(0.05)
        print(f"READY {url}", flush=True)
        await task

    asyncio.run(serve())


if __name__ == "__main__":
    main()
