"""The service's logs: one JSON object per line, with no secret in them.

Each line has the time, level, logger and message, the request id when there is one,
the fields a log call passes in `extra`, and a traceback (`exc`) for errors. Whatever
looks like an API key (`tlr_…`), a bearer token or a JWT is replaced by `[redacted]`
wherever it appears, so a key a client mistyped into a URL does not reach the log.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TextIO

from tiller.server.request_ids import current_request_id

SECRETS = re.compile(
    r"tlr_[A-Za-z0-9_\-]+"  # API keys
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/\-]+=*"  # Authorization values
    r"|eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*"  # JWTs
)
REDACTED = "[redacted]"
# The attributes every LogRecord has (and uvicorn's coloured copy of the message): the
# rest came from `extra`.
_STANDARD = set(vars(logging.makeLogRecord({}))) | {
    "message",
    "asctime",
    "taskName",
    "color_message",
}


def redact(text: str) -> str:
    return SECRETS.sub(REDACTED, text)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = current_request_id()
        if request_id is not None:
            line["request_id"] = request_id
        for name, value in vars(record).items():
            if name not in _STANDARD and not name.startswith("_"):
                line[name] = value
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return redact(json.dumps(line, default=str, ensure_ascii=False))


LOGGERS = ("tiller", "uvicorn", "uvicorn.error", "uvicorn.access", "dbos")


def configure_logging(level: str, stream: TextIO | None = None) -> Callable[[], None]:
    """Send the service's and the web server's logs to `stream` (stderr) as JSON lines;
    returns the function that puts the loggers back as they were (for tests)."""
    saved = [
        (logger, list(logger.handlers), logger.level, logger.propagate, logger.disabled)
        for logger in map(logging.getLogger, LOGGERS)
    ]
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
    logging.getLogger("uvicorn.access").disabled = True  # `tiller.server.access` has it

    def restore() -> None:
        for logger, handlers, level_was, propagate, disabled in saved:
            logger.handlers = handlers
            logger.setLevel(level_was)
            logger.propagate = propagate
            logger.disabled = disabled

    return restore
