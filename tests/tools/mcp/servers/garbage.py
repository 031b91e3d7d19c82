"""Not a well-behaved MCP server: it prints a banner and a log line on stdout, where only
JSON-RPC messages may go, then reads stdin without ever answering."""

from __future__ import annotations

import sys

print("Weather service v1.2 starting", flush=True)
print("[INFO] listening on stdio", flush=True)
print('{"status": "ready"}', flush=True)
for _ in sys.stdin:
    pass
