"""The password hasher: Argon2id with OWASP's first recommended setting (19 MiB, 2 passes, 1 lane).

Django's own Argon2 settings (100 MiB, 8 lanes) cost about as much CPU per login as PBKDF2 on a 2-core machine, and
32 assessors signing in at once would hold 3 GB; this one is about a tenth of PBKDF2's CPU (docs/benchmarks.md,
"Logins"). Hashes made with other settings are rehashed with these at their next login.
"""
from django.contrib.auth.hashers import Argon2PasswordHasher


class Argon2Hasher(Argon2PasswordHasher):
    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1
