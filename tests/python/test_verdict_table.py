"""docs/checks.md's "Where each verdict is decided" names every ErrorType and only files that exist."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def enumerators():
    header = (ROOT / "src/results/error_types.h").read_text()
    body = header[header.index("enum class ErrorType {"):]
    body = body[:body.index("};")]
    return re.findall(r"^\s+([a-z_]+),", body, re.M)


def table_rows():
    text = (ROOT / "docs/checks.md").read_text()
    section = text[text.index("## Where each verdict is decided"):]
    return [line for line in section.splitlines() if line.startswith("| ") and "`" in line]


def test_every_error_type_has_a_row():
    named = set()
    for row in table_rows():
        columns = row.split(" | ")
        named.update(re.findall(r"`([a-z_]+)`", columns[1]))
    missing = [e for e in enumerators() if e not in named]
    assert not missing, f"error types without a row in docs/checks.md: {missing}"


def test_every_file_the_table_names_exists():
    paths = {p for row in table_rows() for p in re.findall(r"`(src/[^`]+)`", row)}
    assert paths
    gone = sorted(p for p in paths if not (ROOT / p).exists())
    assert not gone, f"docs/checks.md names files that do not exist: {gone}"


def test_each_row_names_a_file_that_sets_its_types():
    for row in table_rows():
        columns = row.split(" | ")
        types = re.findall(r"`([a-z_]+)`", columns[1])
        files = [ROOT / p for p in re.findall(r"`(src/[^`]+)`", columns[2])]
        text = "".join(f.read_text() for f in files if f.is_file())
        for t in types:
            constant = "k" + "".join(part.title() for part in t.split("_"))  # runner::kTimeout for timeout
            assert f"ErrorType::{t}" in text or constant in text, f"no file of the row of {t} sets it: {row}"
