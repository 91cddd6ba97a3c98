"""Ask the real mcp-agent-mail 0.1.0 server what it sees in a store amail wrote to.

Runs the server in-process (fastmcp in-memory transport, no network), as
make-agent-mail-sample.sh does. The caller sets STORAGE_ROOT and DATABASE_URL.
Usage: server_view.py PROJECT_KEY REPLY_ID QUERY
Prints one JSON object: PurpleBear's fetch_inbox, the server's acknowledge_message
results for (BlueLake, 10) and (PurpleBear, REPLY_ID), and a search for QUERY.
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


async def main(project, reply_id, query):
    out = {}
    async with Client(build_mcp_server()) as c:
        async def call(tool, **args):
            return payload(await c.call_tool(tool, args))

        out["fetch_inbox"] = await call("fetch_inbox", project_key=project, agent_name="PurpleBear",
                                        limit=50, include_bodies=True)
        out["ack_bluelake_10"] = await call("acknowledge_message", project_key=project,
                                            agent_name="BlueLake", message_id=10)
        out["ack_purplebear_reply"] = await call("acknowledge_message", project_key=project,
                                                 agent_name="PurpleBear", message_id=reply_id)
        out["search"] = await call("search_messages", project_key=project, query=query, limit=10)
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
