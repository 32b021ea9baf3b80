"""`make demo` and development: the site as a newcomer meets it (DEBUG off: the site's own error pages, no debug
page), a fixed development key when none is set. DEBUG=1 in the environment turns Django's debug page on."""
from .base import *  # noqa: F403
from .base import SECRET_KEY, env_bool

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = SECRET_KEY or "local-development-only-not-secret"
# load_demo runs here without --force: this is the demo's own site.
DEMO_SITE = True

DATA_DIR.mkdir(parents=True, exist_ok=True)  # noqa: F405 - the SQLite file and uploads live here
# Static files come from static/ through WhiteNoise, DEBUG or not, without collectstatic.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
