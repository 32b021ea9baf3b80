"""Settings of bench/judging.py's server and process: the production settings, with the benchmark's URLconf
(bench/judging_urls.py: the product's URLs and one route of the benchmark's own). The product's URLs are not changed:
the route exists only under these settings."""
from config.settings.production import *  # noqa: F403

ROOT_URLCONF = "bench.judging_urls"
# The floor of a judging POST (bench/judging_urls.py): its URL, and the scratch table its one INSERT goes to, which
# bench/judging.py creates (it is no model of the product) and drops.
BENCH_FLOOR_URL = "/bench/floor/"
BENCH_FLOOR_TABLE = "bench_judging_floor"
