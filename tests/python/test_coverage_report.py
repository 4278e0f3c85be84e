"""README's op-coverage summary is generated: `python -m torch_ocl.coverage`
writes it between README.md's ops-summary marks from the same results as
docs/ops.md, and this test fails when the committed README and docs/ops.json
disagree."""

import json
import os

from torch_ocl import coverage

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_readme_summary_is_the_one_of_docs_ops_json():
    with open(os.path.join(ROOT, "docs", "ops.json")) as f:
        results = json.load(f)["results"]
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    start, end = (readme.index(mark) for mark in coverage.README_MARKS)
    assert readme[start + len(coverage.README_MARKS[0]):end] == coverage.summary_line(results)
    with open(os.path.join(ROOT, "docs", "ops.md")) as f:
        assert f"**Summary:** {coverage.summary_line(results)}." in f.read()


def test_update_readme_rewrites_between_the_marks(tmp_path):
    results = [{"op": "add", "dtype": "float32", "status": "native"},
               {"op": "add", "dtype": "int64", "status": "fallback"}]
    path = tmp_path / "README.md"
    path.write_text("before <!-- ops-summary -->old<!-- /ops-summary --> after\n")
    assert coverage.update_readme(str(path), results)
    assert path.read_text() == ("before <!-- ops-summary -->" + coverage.summary_line(results) +
                                "<!-- /ops-summary --> after\n")
    unmarked = tmp_path / "other.md"
    unmarked.write_text("no marks\n")
    assert not coverage.update_readme(str(unmarked), results)
    assert unmarked.read_text() == "no marks\n"
    assert not coverage.update_readme(str(tmp_path / "missing.md"), results)
