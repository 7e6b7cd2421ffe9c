"""The guide's Python example (docs/guide/python.md, section API) runs as written, from a
folder where `maps/` is the repository's, and every line whose comment opens with a Python
value (`m.labels[:3]  # ['A1', 'A2', 'A3']: ...`) gives that value."""

import ast
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def api_example():
    text = (ROOT / "docs" / "guide" / "python.md").read_text()
    section = text.split("\n## API\n", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def shown_value(comment):
    """(True, value) for the longest start of `comment` that is a Python literal."""
    for cut in range(len(comment), 0, -1):
        try:
            return True, ast.literal_eval(comment[:cut].strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return False, None


def test_shown_value_reads_literals_and_nothing_else():
    assert shown_value(" ['A1', 'A2']: in map order") == (True, ["A1", "A2"])
    assert shown_value(" 'Hill 112', 'x', (20, 12)") == (True, ("Hill 112", "x", (20, 12)))
    assert shown_value(" dict: the object of `los --json`") == (False, None)
    assert shown_value(" uint32 per hex") == (False, None)


def test_the_guides_api_example_runs_and_shows_what_it_says(tmp_path, monkeypatch):
    os.symlink(ROOT / "maps", tmp_path / "maps")
    monkeypatch.chdir(tmp_path)
    scope = {}
    checked = 0
    for n, line in enumerate(api_example().splitlines(), 1):
        code, _, comment = line.partition("#")
        if not code.strip():
            continue
        has, want = shown_value(comment)
        if has:
            got = eval(code, scope)  # noqa: S307 - the guide's own example
            got = got.tolist() if hasattr(got, "tolist") else got
            assert got == want, f"python.md API line {n}: `{code.strip()}` gives {got!r}"
            checked += 1
        else:
            exec(code, scope)  # noqa: S102
    assert checked >= 3, checked
    assert (tmp_path / "g250.json").exists()
