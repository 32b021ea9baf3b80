"""The base of every app's batch commands: rejected input prints one line per problem and exits 2."""
from __future__ import annotations

import os
import sys

from django.core.management.base import BaseCommand, CommandError

from ir.problems import InputError

# Exit status of a program whose output pipe closed (128 + SIGPIPE), as shells report `yes | head`.
BROKEN_PIPE_STATUS = 141


class ServiceCommand(BaseCommand):
    def execute(self, *args, **options):
        try:
            try:
                return super().execute(*args, **options)
            except BrokenPipeError:
                self._output_closed()
            except OSError as exc:  # a PATH that does not exist or cannot be read
                raise InputError(f"{exc.filename}: {exc.strerror}") from exc
        except InputError as exc:
            for line in exc.messages():
                self.stderr.write(line)
            raise CommandError(f"rejected: {exc.total:,} problem{'s' if exc.total != 1 else ''}, nothing was written",
                               returncode=2) from exc

    def _output_closed(self) -> None:
        """The reader of the output went away (`export_pools ... | head`): stop quietly, as Unix tools do, rather
        than report a problem with the input."""
        out = getattr(self.stdout, "_out", None)  # the stream an OutputWrapper writes to
        if out is not None and out is sys.stdout:
            # Python flushes stdout again at exit; pointed at /dev/null, that flush cannot fail a second time.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, out.fileno())
        raise SystemExit(BROKEN_PIPE_STATUS)

    def report_warnings(self, warnings: list[str]) -> None:
        for warning in warnings:
            self.stdout.write(self.style.WARNING(f"warning: {warning}"))
