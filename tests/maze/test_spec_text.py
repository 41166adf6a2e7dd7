"""Maze files as users write them: which form a text is read as, and what a bad one is told."""

from __future__ import annotations

import json

import pytest

from cvcheck.errors import InputError
from cvcheck.maze.spec_io import spec_from_text, spec_to_dict

ASCII = "#####\n#S  #\n### #\n#E  #\n#####\n"


def test_json_and_ascii_are_told_apart() -> None:
    spec = spec_from_text(ASCII)
    assert spec.shape == (2, 2)
    again = spec_from_text("  \n" + json.dumps(spec_to_dict(spec)))
    assert spec_to_dict(again) == spec_to_dict(spec)


@pytest.mark.parametrize("text, says", [
    ("[1, 2, 3]", "must be a JSON object, got list"),      # JSON, not an ASCII lattice of one line
    ("[1, 2", "not valid JSON"),
    ('{"grid": [3, 3]', "not valid JSON"),
    ('{"grid": [3, 3]}', "lacks connection_list, start, goal"),
    ("#####\n#S #E\n", "(2n+1) x (2m+1) lattice"),
])
def test_a_bad_maze_file_is_told_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(InputError) as err:
        spec_from_text(text)
    assert says in str(err.value)
