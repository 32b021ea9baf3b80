"""Commands start without the heavy libraries only some of them use (issue 24): `manage.py help`, and `manage.py
check` (whose system checks load every app and the URLconf, as any command that runs them does) import none of them;
each is imported where it is used."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numpy", "scipy", "pytrec_eval", "ir_measures", "krippendorff", "markdown_it", "boto3", "openai")


def imported(*args: str) -> set[str]:
    """The top-level packages a `manage.py` command imports (from `-X importtime`, which reports to stderr)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "manage.py", *args], cwd=ROOT, capture_output=True,
                          text=True, check=True, timeout=120)
    return {line.split("|")[-1].strip().split(".")[0]
            for line in done.stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize("args", [("help",), ("check",)])
def test_commands_start_without_the_heavy_libraries(args: tuple[str, ...]) -> None:
    assert imported(*args) & set(HEAVY) == set()
