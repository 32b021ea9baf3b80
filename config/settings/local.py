"""Development and `make demo`: debug on, a fixed development key when none is set."""
from .base import *  # noqa: F403
from .base import SECRET_KEY, env_bool

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = SECRET_KEY or "local-development-only-not-secret"

DATA_DIR.mkdir(parents=True, exist_ok=True)  # noqa: F405 - the SQLite file and uploads live here
WHITENOISE_USE_FINDERS = True  # serve static/ without collectstatic
WHITENOISE_AUTOREFRESH = True
