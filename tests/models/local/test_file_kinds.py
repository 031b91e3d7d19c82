"""A kind of file named by its format is the glob that lists its files."""

from __future__ import annotations

import json
from pathlib import Path

from tiller.models.local.argument_schema import argument_schema
from tiller.models.local.file_kinds import globs_named, takes_a_glob
from tiller.tools.builtin.files import ListFilesTool
from tiller.tools.workspace import Workspace


def test_a_kind_of_file_named_by_its_format_or_extension_is_its_glob() -> None:
    assert globs_named("list the markdown files") == ["*.md"]
    assert globs_named("any Python scripts in here?") == ["*.py"]
    assert globs_named("show me the .csv files and the json files") == ["*.csv", "*.json"]
    # A word before "files" that is no format, or no kind of file at all, gives none.
    assert globs_named("list the files here") == []
    assert globs_named("what's in the old files folder") == []
    assert globs_named("tell me about markdown") == []


def test_a_parameter_takes_a_glob_when_its_description_says_so() -> None:
    assert takes_a_glob({"type": "string", "description": "Glob: '*.py' matches names"})
    assert takes_a_glob({"type": "string", "description": "Files to list, e.g. *.md"})
    assert not takes_a_glob({"type": "string", "description": "Directory to list."})


def test_the_glob_is_offered_to_the_listing_tool_only_when_a_kind_is_named(
    tmp_path: Path,
) -> None:
    schema = ListFilesTool(Workspace(tmp_path)).parameters
    listed = argument_schema(schema, "list the markdown files")["properties"]
    assert listed["pattern"]["pattern"] == "^(\\*[.]md)$"
    assert "path" not in listed  # no folder named: none invented
    assert json.dumps(argument_schema(schema, "list the files")["properties"]) == "{}"
