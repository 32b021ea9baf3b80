"""Running management commands in tests: their output, or the lines of a rejection (exit status 2)."""
from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def command_output(*args) -> tuple[str, str]:
    """Standard output and standard error of a command that succeeds."""
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def rejected(*args) -> list[str]:
    """The lines a rejected command writes on standard error; fails unless it exits with status 2."""
    err = StringIO()
    with pytest.raises(CommandError) as info:
        call_command(*args, stdout=StringIO(), stderr=err)
    assert info.value.returncode == 2
    return err.getvalue().splitlines()
