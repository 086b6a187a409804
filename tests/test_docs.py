"""The documentation: every command documents itself (a help text with an example), the
site's command reference is each command's ``--help``, every command is named on a page,
and the pages' code examples run (docs/testing.md says which, and how)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from cli_commands import every_command
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.demo import build_demo

ROOT = Path(__file__).resolve().parents[1]
PATHS = [path for path, _ in every_command()]
PAGES = sorted((ROOT / "docs").glob("*.md"))
RUNNABLE = "<!-- runnable -->"


def hook(name: str) -> ModuleType:
    """A module of docs/hooks/, loaded from its file as MkDocs loads it."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REFERENCE = hook("command_reference")


def test_every_command_and_subcommand_is_checked() -> None:
    """The list is the group's full one, whatever was imported before (the lazy group's
    ``cli.commands`` held 6 of 27 commands in a full run, none in this file alone)."""
    assert {("judge",), ("recall",), ("store", "copy"), ("qrels", "diff")} <= set(PATHS)
    assert len(PATHS) == len(set(PATHS)) >= 30


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_every_command_has_help_with_an_example(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0
    assert "Example" in result.output, f"pooltool {' '.join(path)} --help shows no example"


def test_the_reference_is_each_commands_help() -> None:
    """Each section of the generated page is what ``pooltool PATH --help`` prints in a
    terminal of the reference's width, through click's whole command line."""
    reference = REFERENCE.command_reference()
    for path in [(), *PATHS]:
        printed = CliRunner().invoke(cli, [*path, "--help"], prog_name="pooltool",
                                     terminal_width=REFERENCE.WIDTH)
        assert printed.exit_code == 0
        title = " ".join(("pooltool", *path))
        assert f"## {title}\n\n```text\n{printed.output}```\n" in reference, title
    assert reference.count("\n## pooltool") + 1 == len(PATHS) + 1


def test_the_reference_page_is_generated() -> None:
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert page.count(REFERENCE.PLACEHOLDER) == 1 and "Usage:" not in page


def test_every_command_is_named_on_a_page() -> None:
    """Besides the generated reference, some page (or the README) shows each command in
    use: ``pooltool [--db X] NAME`` or ```NAME`` in code."""
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES
                     if page.name != "commands.md") + (ROOT / "README.md").read_text()
    unnamed = [" ".join(path) for path in PATHS
               if not re.search(r"pooltool (--db \S+ )?" + re.escape(" ".join(path)) + r"\b", text)
               and f"`{' '.join(path)}" not in text]
    assert unnamed == []


def code_blocks(page: Path) -> list[tuple[str, str]]:
    """The page's examples to run, in order: (``python`` or ``bash``, the code); every
    python block, and the bash blocks right after a ``<!-- runnable -->`` line."""
    found = re.finditer(r"(?m)^(<!-- runnable -->\n)?```(\w+)\n(.*?)^```$", page.read_text("utf-8"),
                        re.S)
    return [(m[2], m[3]) for m in found
            if m[2] == "python" or (m[2] == "bash" and m[1] is not None)]


EXAMPLE_PAGES = [page for page in [ROOT / "README.md", *PAGES] if code_blocks(page)]


def test_the_examples_are_found() -> None:
    """The README's five-minute campaign is runnable, so is some Python example; a marker
    not followed by a bash block would be an example silently left out."""
    readme = code_blocks(ROOT / "README.md")
    assert readme and readme[0][0] == "bash" and "pooltool init" in readme[0][1]
    for page in [ROOT / "README.md", *PAGES]:
        text = page.read_text(encoding="utf-8")
        markers = re.findall(r"(?m)^" + RUNNABLE + r"\n(.{7})", text)
        assert all(after == "```bash" for after in markers), page.name


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with demo/ copied in and the demo store ``pooltool.db`` built there."""
    folder = tmp_path_factory.mktemp("docs-demo")
    shutil.copytree(ROOT / "demo", folder / "demo")
    build_demo(folder)
    return folder


@pytest.mark.parametrize("page", EXAMPLE_PAGES, ids=[page.name for page in EXAMPLE_PAGES])
def test_the_examples_run(page: Path, demo_folder: Path, tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "page"
    shutil.copytree(demo_folder, folder)
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                   f"{os.environ.get('PATH', '')}"}
    environment.pop("POOLTOOL_DB", None)
    monkeypatch.delenv("POOLTOOL_DB", raising=False)
    monkeypatch.chdir(folder)
    namespace: dict[str, object] = {}
    for language, code in code_blocks(page):
        if language == "bash":
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=folder,
                                  env=environment, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, f"{page.name}: {code}\n{done.stderr}"
        else:
            exec(compile(code, f"{page.name} example", "exec"), namespace)
