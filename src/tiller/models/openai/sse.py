"""Server-sent events from raw body bytes.

Lines are split on bytes, so a UTF-8 character cut across two network reads is
decoded only once its line is whole. Each event is yielded as `(event, data)`;
`event` is "" when the server named none (Chat Completions never does).
"""

from __future__ import annotations

from collections.abc import AsyncIterator


async def sse_events(chunks: AsyncIterator[bytes]) -> AsyncIterator[tuple[str, str]]:
    """The events of an SSE body, in order, as `(event name, data)`."""
    pending = b""
    event = ""
    data: list[str] = []
    async for chunk in chunks:
        if pending:
            chunk = pending + chunk
        lines = chunk.split(b"\n")
        pending = lines.pop()  # the unfinished last line ("" when the chunk ended a line)
        for raw in lines:
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            if not raw:
                if data:
                    yield event, "\n".join(data)
                    data = []
                event = ""
                continue
            line = raw.decode("utf-8")
            name, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
            # comments (":...") and `id`/`retry` fields carry nothing Tiller uses
    if pending.rstrip(b"\r"):
        line = pending.rstrip(b"\r").decode("utf-8")
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        # A body that ends without the blank line after its last event still delivers it.
        yield event, "\n".join(data)
