"""The job a request's verb names, and the tools that do it."""

from __future__ import annotations

from tiller.models import ToolSpec
from tiller.models.local.chooser import named_by_verb
from tiller.models.local.verbs import job_of, request_job, tool_jobs


def test_a_request_names_a_job_with_the_verb_that_opens_a_clause() -> None:
    assert request_job("Show me notes.txt") == job_of("read")
    assert request_job("Could you please print lines 3 to 5?") == job_of("read")
    assert request_job("grep for Priya") == job_of("search")
    assert request_job("Where is the port set?") == job_of("search")
    assert request_job("Is it cold? Then convert 20 euros to yen") == job_of("convert")
    # A job word inside a clause is not what the clause asks for.
    assert request_job("What is a Python list comprehension?") is None
    assert request_job("Hello there") is None


def test_a_tool_does_the_jobs_its_name_and_leading_verb_say() -> None:
    assert tool_jobs("read_file", "Read a text file.") == {job_of("read")}
    assert tool_jobs("shell", "Run a shell command.") == {job_of("run")}
    assert tool_jobs("set_reminder", "Remind me at a time.") == {job_of("set"), job_of("remind")}
    assert tool_jobs("get_weather", "Current weather for a city.") == set()


def test_the_best_ranked_tool_doing_the_named_job_is_chosen() -> None:
    def spec(name: str, description: str) -> ToolSpec:
        return ToolSpec(name, description, {"type": "object", "properties": {}})

    search = spec("search", "Search the files for a pattern.")
    read = spec("read_file", "Read a text file.")
    listing = spec("list_files", "List files and directories.")
    ranked = [search, listing, read]
    assert named_by_verb("Show me notes.txt", ranked) is read
    assert named_by_verb("ls", ranked) is listing
    assert named_by_verb("Find TODO", ranked) is search
    assert named_by_verb("What does config.toml say?", ranked) is None  # ranking decides
