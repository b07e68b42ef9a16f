"""The package as shipped: models current with the committed OpenAPI document, mypy --strict clean,
and a wheel built with ``python -m build`` that installs into a fresh virtual environment and
imports every adapter."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from pathlib import Path

from conftest import PACKAGE


def run(*command: str | Path, cwd: Path = PACKAGE, isolated: bool = False) -> str:
    """Runs a command; ``isolated``: without this test run's PYTHONPATH (the package's sources), as a fresh install runs."""
    environment = {name: value for name, value in os.environ.items() if not (isolated and name == "PYTHONPATH")}
    finished = subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True, text=True, env=environment)
    assert finished.returncode == 0, f"{command} failed:\n{finished.stdout}\n{finished.stderr}"
    return finished.stdout


def test_the_generated_models_are_current_with_docs_api_openapi_json() -> None:
    run(sys.executable, PACKAGE / "tools" / "generate_models.py", "--check")


def test_the_package_passes_mypy_strict() -> None:
    output = run(sys.executable, "-m", "mypy", "--strict", "--cache-dir", PACKAGE / ".mypy_cache", "src/parley")
    assert "Success" in output


def test_a_built_wheel_installs_into_a_fresh_virtual_environment_and_imports_every_adapter(tmp_path: Path) -> None:
    run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", tmp_path / "dist", PACKAGE)
    [wheel] = (tmp_path / "dist").glob("parley_client-*.whl")
    fresh = tmp_path / "venv"
    venv.create(fresh, with_pip=True)
    # The versions the tests pin, without their hashes (pip checks hashes of every file or none).
    pins = "\n".join(re.findall(r"^[A-Za-z0-9_.\-]+==[^\s\\]+", (PACKAGE / "requirements-dev.txt").read_text(), flags=re.MULTILINE))
    (tmp_path / "constraints.txt").write_text(pins + "\n")
    python = fresh / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", "--no-input", "-c", tmp_path / "constraints.txt", f"{wheel}[langgraph,openai-agents,pydantic-ai]", cwd=tmp_path, isolated=True)
    imported = run(python, "-c", "import parley, parley.langgraph, parley.openai_agents, parley.pydantic_ai; print(parley.__file__)", cwd=tmp_path, isolated=True)
    assert str(fresh) in imported
    assert (Path(imported.strip()).parent / "py.typed").exists()
