"""load_demo: the demo campaigns of the README (SPEC 9)."""
from django.conf import settings

from pooling.demo.load import ORGANIZER, demo_load
from pooling.errors import InputError

from ._base import ServiceCommand


class Command(ServiceCommand):
    help = ("Loads the demo: a synthetic collection, the ARQMath-3 topics, synthetic runs with their pools built, "
            "and demo accounts.")

    def add_arguments(self, parser):
        parser.add_argument("--reset", action="store_true", help="delete the demo data first and load it anew")
        parser.add_argument("--seed", type=int, default=2022)
        parser.add_argument("--force", action="store_true",
                            help="load even with DEBUG off (it resets the passwords of the demo accounts)")

    def handle(self, *args, **o):
        if not settings.DEBUG and not o["force"]:
            raise InputError("DEBUG is off: this looks like a deployment. load_demo resets the passwords of the "
                             "accounts organizer and assessor1-3; run it with --force if that is what you want")
        report = demo_load(out_dir=settings.DATA_DIR / "demo", reset=o["reset"], seed=o["seed"])
        for line in report.lines:
            self.stdout.write(line)
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS("Demo accounts (new passwords each time load_demo runs):"))
        for username, password in report.passwords.items():
            role = "organizer" if username == ORGANIZER else "assessor"
            self.stdout.write(f"  {role:9}  user {username:10}  password {password}")
        self.stdout.write("Open http://127.0.0.1:8000/ and log in.")
