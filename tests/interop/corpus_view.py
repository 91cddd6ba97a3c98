"""Ask the real mcp-agent-mail 0.1.0 server what it sees in a store written by
`amail demo --messages N --format mcp`.

Runs the server in-process (fastmcp in-memory transport, no network), as
server_view.py does. The caller sets STORAGE_ROOT and DATABASE_URL.
Usage: corpus_view.py PROJECT_KEY AGENT ACK_ID THREAD_ID
Prints one JSON object: AGENT's fetch_inbox, the server's acknowledge_message
of ACK_ID as AGENT, a search for HELP_REQUEST and its summarize_thread of THREAD_ID.
"""

import asyncio
import json
import sys

from fastmcp import Client

from mcp_agent_mail.app import build_mcp_server


def payload(res):
    data = getattr(res, "structured_content", None) or getattr(res, "data", None)
    if data is None and getattr(res, "content", None):
        data = json.loads(res.content[0].text)
    if isinstance(data, dict) and set(data) == {"result"}:
        data = data["result"]
    return data


async def main(project, agent, ack_id, thread_id):
    out = {}
    async with Client(build_mcp_server()) as c:
        async def call(tool, **args):
            return payload(await c.call_tool(tool, args))

        out["fetch_inbox"] = await call("fetch_inbox", project_key=project, agent_name=agent,
                                        limit=1000, include_bodies=True)
        out["ack"] = await call("acknowledge_message", project_key=project, agent_name=agent,
                                message_id=ack_id)
        out["search"] = await call("search_messages", project_key=project, query="HELP_REQUEST",
                                   limit=1000)
        out["summary"] = await call("summarize_thread", project_key=project, thread_id=thread_id,
                                    include_examples=False, llm_mode=False)
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]))
