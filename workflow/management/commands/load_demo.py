"""load_demo: the demo campaigns of the README (README.md)."""
from django.conf import settings

from core.commands import ServiceCommand
from ir.problems import InputError
from workflow.demo import ORGANIZER, demo_load


class Command(ServiceCommand):
    help = ("Loads the demo: a synthetic collection, the ARQMath-3 topics, synthetic runs with their pools built, "
            "and demo accounts. Run again, it changes nothing that exists and prints the same passwords.")

    def add_arguments(self, parser):
        parser.add_argument("--reset", action="store_true",
                            help="delete the demo campaigns and collection first and load them anew "
                                 "(the accounts and their passwords are kept)")
        parser.add_argument("--seed", type=int, default=2022)
        parser.add_argument("--port", type=int, default=8000, help="the port named in the closing line")
        parser.add_argument("--force", action="store_true",
                            help="load even where the settings are not those of the demo (a deployment): it adds an "
                                 "organizer account whose password is kept in a file under DATA_DIR")

    def handle(self, *args, **o):
        if not settings.DEMO_SITE and not o["force"]:
            raise InputError("these settings are not the demo's (DEMO_SITE is off): this looks like a deployment. "
                             "load_demo adds demo campaigns and the accounts organizer and assessor1-3, their "
                             "passwords kept in a file under DATA_DIR; run it with --force if that is what you want")
        passwords_file = settings.DATA_DIR / "demo-passwords.txt"
        report = demo_load(out_dir=settings.DATA_DIR / "demo", passwords_file=passwords_file, reset=o["reset"],
                           seed=o["seed"])
        for line in report.lines:
            self.stdout.write(line)
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(f"Demo accounts (passwords kept in {passwords_file}):"))
        for username, password in report.passwords.items():
            role = "organizer" if username == ORGANIZER else "assessor"
            if password is None:
                self.stdout.write(self.style.WARNING(
                    f"  {role:9}  user {username:10}  password unknown ({report.unknown[username]})"))
            else:
                self.stdout.write(f"  {role:9}  user {username:10}  password {password}")
        if report.unknown:
            self.stdout.write("load_demo never resets a password: `python manage.py changepassword USER` sets a new "
                              "one for an account whose password is unknown.")
        self.stdout.write(f"Open http://127.0.0.1:{o['port']}/ and log in.")
