"""Writes src/parley/_generated/models.py from the committed OpenAPI document (docs/api/openapi.json)
with datamodel-code-generator, pinned in requirements-dev.txt. ``--check`` fails when the committed
models differ from what the generator makes now (tests/test_generated_models.py runs it)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
DOCUMENT = PACKAGE.parent.parent / "docs" / "api" / "openapi.json"
MODELS = PACKAGE / "src" / "parley" / "_generated" / "models.py"

GENERATOR_OPTIONS = [
    "--input-file-type", "openapi",
    "--output-model-type", "pydantic_v2.BaseModel",
    "--target-python-version", "3.10",
    "--formatters", "black", "isort",
    "--disable-timestamp",
    "--use-standard-collections",
    "--use-union-operator",
    "--field-constraints",
    "--use-double-quotes",
    "--strict-nullable",
]


def generate(output: Path) -> None:
    command = [sys.executable, "-m", "datamodel_code_generator", "--input", str(DOCUMENT), "--output", str(output), *GENERATOR_OPTIONS]
    subprocess.run(command, check=True, cwd=PACKAGE)


def main() -> int:
    if "--check" not in sys.argv[1:]:
        generate(MODELS)
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch) / "models.py"
        generate(fresh)
        if fresh.read_text() != MODELS.read_text():
            print(f"{MODELS} is stale: run python packages/python/tools/generate_models.py", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
