"""Every example of README.md and docs/*.md runs as pasted (docs/building.md,
"Examples in these pages"):

- a fenced block whose info string is `bash` (or `sh`) or `python`, with no
  other word, runs on the CPU from a folder that looks like the repository
  root (its top-level folders linked in), and must exit with 0;
- `exit=N` as a second word: it runs and must exit with N;
- `gpu`, `network`, `long`, `needs-files`: it is not run, only checked
  (bash -n, Python's compile());
- any other language (`text`, `cpp`, `json`, none) is not an example.

The blocks of one page share one folder and run in order, so a later block
may read what an earlier one wrote (the tour's smoke_run/). CTest runs this
file as DocsExamples."""

import dataclasses
import os
import re
import subprocess
import sys

import pytest

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOT_RUN_TAGS = {"gpu", "network", "long", "needs-files"}
LANGUAGES = {"bash": "bash", "sh": "bash", "python": "python"}
# What the examples may use of the repository; everything they write lands beside these links.
LINKED = ["build", "examples", "data", "python", "tools", "include", "scripts", "tests", "src", "docs", "cmake",
          "CMakeLists.txt", "pyproject.toml", "README.md"]
BLOCK_TIMEOUT_S = 300


@dataclasses.dataclass
class Block:
    page: str       # relative to the repository root
    line: int       # of the opening fence
    language: str   # bash or python
    tags: list
    body: str

    @property
    def runs(self):
        return not NOT_RUN_TAGS.intersection(self.tags)

    @property
    def expected_status(self):
        for tag in self.tags:
            if tag.startswith("exit="):
                return int(tag[len("exit="):])
        return 0

    def __str__(self):
        return f"{self.page}:{self.line}"


def pages():
    docs = os.path.join(SOURCE_DIR, "docs")
    names = sorted(f for f in os.listdir(docs) if f.endswith(".md")) if os.path.isdir(docs) else []
    return ["README.md"] + [os.path.join("docs", f) for f in names]


def fenced_blocks(page):
    """(line, info string, body) of every fenced block of `page`."""
    lines = open(os.path.join(SOURCE_DIR, page), encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^(`{3,}|~{3,})(.*)$", lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group(1), m.group(2).strip(), i
        i += 1
        body = []
        while i < len(lines) and not re.match(r"^" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$", lines[i]):
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence
        out.append((start + 1, info, "\n".join(body) + "\n"))
    return out


def examples():
    blocks = []
    for page in pages():
        for line, info, body in fenced_blocks(page):
            words = info.split()
            if not words or words[0] not in LANGUAGES:
                continue
            blocks.append(Block(page, line, LANGUAGES[words[0]], words[1:], body))
    return blocks


BLOCKS = examples()


@pytest.fixture(scope="module")
def workspaces(tmp_path_factory):
    """One folder per page, with the repository's top-level folders linked in."""
    made = {}

    def of(page):
        if page not in made:
            root = tmp_path_factory.mktemp(re.sub(r"\W", "_", page))
            for name in LINKED:
                if os.path.exists(os.path.join(SOURCE_DIR, name)):
                    os.symlink(os.path.join(SOURCE_DIR, name), root / name)
            made[page] = root
        return made[page]

    return of


def environment():
    env = dict(os.environ)
    env["CUDA_VISIBLE_DEVICES"] = ""  # what runs here runs on the CPU, GPU or not
    cache = os.environ.get("BACKENDBENCH_DOCS_CACHE")
    if cache:  # compiled kernels kept between runs of this test (CTest sets it to a folder of the build)
        env["BACKENDBENCH_CACHE"] = cache
    return env


def test_there_are_examples_to_run():
    assert any(b.runs and b.page == "README.md" for b in BLOCKS)
    assert sum(b.runs for b in BLOCKS) >= 10


@pytest.mark.parametrize("block", [b for b in BLOCKS], ids=str)
def test_tags_are_known(block):
    unknown = [t for t in block.tags if t not in NOT_RUN_TAGS and not re.fullmatch(r"exit=\d+", t)]
    assert not unknown, f"{block}: unknown tag(s) {unknown} (known: {sorted(NOT_RUN_TAGS)}, exit=N)"


@pytest.mark.parametrize("block", [b for b in BLOCKS if not b.runs], ids=str)
def test_example_not_run_is_well_formed(block):
    if block.language == "python":
        compile(block.body, str(block), "exec")
    else:
        r = subprocess.run(["bash", "-n"], input=block.body, text=True, capture_output=True)
        assert r.returncode == 0, f"{block}: bash -n: {r.stderr}"


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.runs], ids=str)
def test_example_runs_on_cpu(block, workspaces):
    cwd = workspaces(block.page)
    script = cwd / f"block_{block.line}.{'py' if block.language == 'python' else 'sh'}"
    script.write_text(block.body)
    command = [sys.executable, str(script)] if block.language == "python" else ["bash", "-e", str(script)]
    try:
        r = subprocess.run(command, cwd=cwd, env=environment(), text=True, capture_output=True,
                           timeout=BLOCK_TIMEOUT_S)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{block}: still running after {BLOCK_TIMEOUT_S} s (tag it `long`?)\n{e.stderr or ''}")
    assert r.returncode == block.expected_status, (
        f"{block}: exit status {r.returncode}, expected {block.expected_status}\n"
        f"--- the block\n{block.body}--- stdout (end)\n{r.stdout[-3000:]}\n--- stderr (end)\n{r.stderr[-3000:]}")


def test_readme_is_a_front_door():
    lines = open(os.path.join(SOURCE_DIR, "README.md"), encoding="utf-8").read().split("\n")
    assert len(lines) <= 260, f"README.md has {len(lines)} lines: reference material belongs in docs/"
    long_lines = [i + 1 for i, line in enumerate(lines) if len(line) > 200]
    assert not long_lines, f"README.md lines over 200 characters: {long_lines}"
    top = "\n".join(lines[:8])
    assert "scripts/setup.sh && build/backendbench --suite smoke --backend aten\n" in top
    assert "scripts/setup.sh --tests && ctest --test-dir build --output-on-failure -LE gpu -j 2\n" in top


@pytest.mark.parametrize("page", pages())
def test_relative_links_resolve(page):
    text = open(os.path.join(SOURCE_DIR, page), encoding="utf-8").read()
    here = os.path.dirname(os.path.join(SOURCE_DIR, page))
    missing = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+://", target) or target.startswith("#"):
            continue
        path = target.split("#")[0]
        if path == "sandbox.md" or path == "docs/sandbox.md":
            continue  # written by another page's owner; linked ahead of it
        if not os.path.exists(os.path.join(here, path)):
            missing.append(target)
    assert not missing, f"{page}: links to missing files: {missing}"
