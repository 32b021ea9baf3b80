"""Shared behaviour of the batch commands: rejected input prints one line per problem and exits 2."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from pooling.errors import InputError
from pooling.models import Campaign


class ServiceCommand(BaseCommand):
    def execute(self, *args, **options):
        try:
            try:
                return super().execute(*args, **options)
            except OSError as exc:  # a PATH that does not exist or cannot be read
                raise InputError(f"{exc.filename}: {exc.strerror}") from exc
        except InputError as exc:
            for line in exc.messages():
                self.stderr.write(line)
            raise CommandError(f"rejected: {exc.total} problem{'s' if exc.total != 1 else ''}, nothing was written",
                               returncode=2) from exc

    def campaign(self, name: str) -> Campaign:
        try:
            return Campaign.objects.select_related("collection").get(name=name)
        except Campaign.DoesNotExist:
            raise InputError(f"no campaign named '{name}'") from None

    def report_warnings(self, warnings: list[str]) -> None:
        for warning in warnings:
            self.stdout.write(self.style.WARNING(f"warning: {warning}"))
