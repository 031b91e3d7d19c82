"""Input filters: checks each new user message passes before the model sees it.

A filter takes the text and returns `Pass()`, `Warn(warning)` (the run goes on and
the warning is recorded) or `Reject(reason)` (the run stops before any model
call). Give them to an agent in `Governance(input_filters=[...])`.
"""

from tiller.loop.filters import InputFilter, Pass, Reject, Warn, apply_input_filters

__all__ = ["InputFilter", "Pass", "Reject", "Warn", "apply_input_filters"]
