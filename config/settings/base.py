"""Settings shared by every environment. Everything that differs between machines comes from the environment."""
import ipaddress
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent
DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / ".data"))


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


SECRET_KEY = os.environ.get("SECRET_KEY", "")
DEBUG = env_bool("DEBUG", False)
# load_demo runs without --force only where this is on: the settings of `make demo` (config/settings/local.py).
DEMO_SITE = False
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served by the service itself (/api/docs/)
    "axes",
    "mathjax",
    "core",
    "pooling",
    "jobs",
    "llm",
    "judging",
    "agreement",
    "characterisation",
    "nuggets",
    "evaluation",
    "simulation",
    "people",
    "workflow",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After the session and the user, so that it knows who asks; it refuses an oversized body in __call__, before
    # CsrfViewMiddleware reads the body (in process_view, which runs after every middleware's __call__).
    "workflow.uploads.UploadLimitMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "config.errors.ServiceUnavailableMiddleware",  # a broker that does not answer: the 503 page
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: turns a lockout flagged during authentication into the lockout page (people.lockout).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "core.context_processors.roles",
            ],
        },
    },
]

# DATABASE_URL, else an embedded SQLite file under .data/.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{DATA_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
    )
}
# A worker killed while its query waits (on a lock, on a long scan) would leave its server process, and with it the
# job's advisory lock, until the query ends: PostgreSQL (14 and later) checks every few seconds that the client is still
# there, so the lock goes with the worker and another one takes the job (docs/deploy.md, "Jobs and workers").
PG_CLIENT_CHECK = {"options": f"-c client_connection_check_interval={os.environ.get('PG_CLIENT_CHECK_MS', '5000')}"}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # One writer at a time: wait for the lock instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 30
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {}).update(PG_CLIENT_CHECK)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Argon2 (argon2-cffi), Django's recommended hasher, at OWASP's setting (people.hashers): a tenth of PBKDF2's CPU per
# login, so that a training session's assessors signing in at once do not queue behind each other's hashes
# (docs/benchmarks.md, "Logins").
# PBKDF2 stays listed so that existing hashes still verify; Django rehashes them with Argon2 at their next login.
PASSWORD_HASHERS = [
    "people.hashers.Argon2Hasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# django-axes first: it refuses a locked-out account or address before any password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Failed logins (the login page, the admin's and /api/token/) are counted per pair of account name and client address;
# LOGIN_FAILURE_LIMIT failures of one pair within LOGIN_COOLOFF_MINUTES lock that pair for that long (docs/accounts.md,
# docs/security.md). Neither the name alone nor the address alone: behind a proxy, or a campus NAT, many people share
# one address, and one attacker must not lock them all out. A success does not wipe the count.
AXES_ENABLED = env_bool("AXES_ENABLED", True)
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "10"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "people.lockout.lockout_response"
AXES_HTTP_RESPONSE_CODE = 429
# The client's address is the connection's own (REMOTE_ADDR) unless TRUSTED_PROXY_COUNT proxies stand in front and
# each appends the address it saw to X-Forwarded-For: then the one the outermost proxy saw (people.lockout).
# Without a proxy the header is the client's to forge. A declared proxy (BEHIND_PROXY=1) counts as one by default.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT") or (1 if env_bool("BEHIND_PROXY") else 0))
# The header is believed only on a connection from one of these addresses or networks (the proxy's): one sent to the
# app port from anywhere else is counted under its own address, whatever it forged (docs/deploy.md).
TRUSTED_PROXY_ADDRESSES = [entry.strip() for entry in os.environ.get("TRUSTED_PROXY_ADDRESSES", "127.0.0.1,::1")
                           .split(",") if entry.strip()]
for _entry in TRUSTED_PROXY_ADDRESSES:
    try:
        ipaddress.ip_network(_entry, strict=False)
    except ValueError:
        raise ImproperlyConfigured(f"TRUSTED_PROXY_ADDRESSES: '{_entry}' is not an address or a network") from None
AXES_CLIENT_IP_CALLABLE = "people.lockout.client_address"

# An API token (/api/token/) is refused this long after it was issued (people.tokens); asking again gives a new one.
TOKEN_LIFETIME = timedelta(days=int(os.environ.get("TOKEN_LIFETIME_DAYS", "30")))

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", DATA_DIR / "media"))
# Uploads go through the storage API (jobs/store.py): the web stores them, the worker that runs the job reads and
# then deletes them. In MEDIA_ROOT, which web and workers must then share (one host, or a shared volume); with
# MEDIA_STORAGE=s3 in a bucket of any S3-compatible store (S3, MinIO, Ceph, GCS's interoperability mode), so that
# workers on other hosts share nothing with the web but PostgreSQL, Redis and the store (docs/deploy.md).
MEDIA_STORAGE = os.environ.get("MEDIA_STORAGE", "local")
if MEDIA_STORAGE not in ("local", "s3"):
    raise ImproperlyConfigured(f"MEDIA_STORAGE is 'local' or 's3', not '{MEDIA_STORAGE}'")
# django-storages' own setting names; without keys boto3 looks further (its environment variables, an instance role).
AWS_STORAGE_BUCKET_NAME = os.environ.get("AWS_STORAGE_BUCKET_NAME", "")
AWS_S3_ENDPOINT_URL = os.environ.get("AWS_S3_ENDPOINT_URL") or None
AWS_S3_REGION_NAME = os.environ.get("AWS_S3_REGION_NAME") or None
AWS_ACCESS_KEY_ID = os.environ.get("AWS_ACCESS_KEY_ID") or None
AWS_SECRET_ACCESS_KEY = os.environ.get("AWS_SECRET_ACCESS_KEY") or None
# A stored upload read back is spooled to a temporary file (FILE_UPLOAD_TEMP_DIR) past this size, not held in memory.
AWS_S3_MAX_MEMORY_SIZE = 8 * 1024**2
if MEDIA_STORAGE == "s3" and not AWS_STORAGE_BUCKET_NAME:
    raise ImproperlyConfigured("MEDIA_STORAGE=s3 needs AWS_STORAGE_BUCKET_NAME")
STORAGES = {
    "default": {"BACKEND": "storages.backends.s3.S3Storage" if MEDIA_STORAGE == "s3"
                else "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Uploads: files over 2.5 MB stream to a temporary file; the largest accepted upload is UPLOAD_MAX_BYTES, for an
# organizer at an upload URL (workflow/uploads.py). Every other request body (anyone's, anywhere else, and anyone but
# an organizer's at an upload URL) is refused with 413 past REQUEST_BODY_MAX_BYTES, before it is read.
UPLOAD_MAX_BYTES = int(os.environ.get("UPLOAD_MAX_BYTES", str(2 * 1024**3)))
REQUEST_BODY_MAX_BYTES = int(os.environ.get("REQUEST_BODY_MAX_BYTES", str(1024**2)))
FILE_UPLOAD_TEMP_DIR = os.environ.get("FILE_UPLOAD_TEMP_DIR") or None

# Celery: Redis as broker when REDIS_URL is set, otherwise tasks run in-process.
REDIS_URL = os.environ.get("REDIS_URL", "")
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# A task whose worker dies unacknowledged is handed out again: at once when a prefork child dies, otherwise by Redis
# after the visibility timeout (5 minutes, not Redis's hour), looked for every 10 seconds by every idle worker. A job
# handed out again runs only if no live worker holds it, at most JOB_MAX_ATTEMPTS times in all, then fails with its
# reason and a Retry button (jobs/runner.py, docs/architecture.md).
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "300")),
                                   "unacked_restore_throttle": 1}
# The one task every job runs through; each app's tasks.py (autodiscovered by config/celery_app.py, and imported by
# its AppConfig.ready) registers the kinds of job it owns (jobs/registry.py).
CELERY_IMPORTS = ["jobs.runner", "jobs.tasks"]
JOB_MAX_ATTEMPTS = int(os.environ.get("JOB_MAX_ATTEMPTS", "3"))
# Every worker sweeps the jobs every JOB_SWEEP_EVERY seconds (config/celery_app.py, jobs/runner.py: jobs_sweep): a
# queued job sent more than JOB_RESEND_AFTER seconds ago whose message the broker no longer holds (Redis restarted
# empty, a send that failed), and a running job whose worker is lost (no heartbeat for JOB_STALE_AFTER seconds, or
# its database lock gone), are sent again. The worker running a job beats every JOB_HEARTBEAT_EVERY seconds.
JOB_SWEEP_EVERY = float(os.environ.get("JOB_SWEEP_EVERY", "15"))
JOB_RESEND_AFTER = float(os.environ.get("JOB_RESEND_AFTER", "60"))
JOB_STALE_AFTER = float(os.environ.get("JOB_STALE_AFTER", "40"))
JOB_HEARTBEAT_EVERY = float(os.environ.get("JOB_HEARTBEAT_EVERY", "10"))
# A worker outlives the broker: it reconnects, for ever, at start-up and after Redis went away (docs/deploy.md).
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CHANNEL_ERROR_RETRY = True
# A web request that sends a job gives up on an unreachable broker within a second (then a 503, nothing saved).
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
# The leaderboard's and reusability's recomputes (scores_refresh jobs, evaluation/tasks.py): a low-priority queue of
# their own when named (serve it with a worker of its own, `celery -A config worker -Q scores`, whose niced process
# then runs nothing else), else the default queue.
CELERY_SCORES_QUEUE = os.environ.get("CELERY_SCORES_QUEUE", "")
# Reusability and the sweep of RRF's k, whose recomputes take a minute or more at ARQMath-3's size, are recomputed after
# a judgment at most this often (or when their page's button asks); the leaderboard's scores always first.
SCORES_ANALYSES_SECONDS = int(os.environ.get("SCORES_ANALYSES_SECONDS", "600"))
# The leaderboard's board under hybrid qrels (docs/evaluation.md, "Under hybrid qrels"), an analysis as the two above:
# its bootstrap replicates, fewer where runs x qrels items x replicates would pass HYBRID_BOARD_WORK (about a minute
# of a core), never fewer than 100: ARQMath-3's 33 runs over its pool get 100, 1.5 to 3 minutes (bench/hybrid_board.py).
HYBRID_BOARD_REPLICATES = int(os.environ.get("HYBRID_BOARD_REPLICATES", "1000"))
HYBRID_BOARD_WORK = int(os.environ.get("HYBRID_BOARD_WORK", "80000000"))
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]

# The cache: sessions and the judging pages' sanitized fragments, shared by the web processes when REDIS_URL is set.
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Judging pages sanitized ahead of the assessor, when topics are assigned (assessor.services): worth it only with a
# cache the web processes share (Redis). The local-memory cache of a set-up without Redis belongs to one process
# (the demo's load_demo would fill a cache that dies with it) and keeps 300 entries: pages sanitize as they go.
JUDGING_CACHE_WARM = bool(REDIS_URL)

# Sessions in the database alone: with the cache's Redis gone, people stay signed in and a page that needs the cache
# answers the site's 503 (config.errors), where a session read through the cache failed every request with a 500.
# The price is one indexed query a request.
SESSION_ENGINE = "django.contrib.sessions.backends.db"
# Messages live in the session, not in a cookie. No password ever goes through them: a new or reset password is shown
# on the response to the POST that made it, and nowhere else (people.pages.password_once).
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # The token first: a missing, wrong or expired token answers 401 with WWW-Authenticate: Token.
        "people.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["core.permissions.IsOrganizer"],
    "DEFAULT_SCHEMA_CLASS": "core.schema.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "core.pagination.Pagination",
    "PAGE_SIZE": 100,
    "EXCEPTION_HANDLER": "core.api.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Relevance assessment service API",
    "DESCRIPTION": "Campaigns, topics, runs and background jobs of an ARQMath-style relevance assessment.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["core.permissions.IsOrganizer"],
    # /api/docs/: Swagger UI from drf-spectacular-sidecar's static files; nothing from another host.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    # An assignment's kind is read and written by several endpoints: one named enum, not a hash-suffixed one.
    "ENUM_NAME_OVERRIDES": {"AssignmentKindEnum": "judging.models.Assignment.Kind"},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "filters": {"refusal_without_traceback": {"()": "core.log_filters.RefusalWithoutTraceback"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # django-axes announces its settings ("AXES: BEGIN ...") whenever Django starts, into every command's output.
    "loggers": {"axes.apps": {"level": "WARNING"},
                "django.request": {"filters": ["refusal_without_traceback"]}},
}
