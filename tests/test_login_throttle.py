"""Failed logins are counted per pair of account and address (django-axes, really on here) at the login page, the
admin's login and /api/token/: at the limit that pair is locked with a 429 page in the site's layout (JSON under
/api/), and a good login before the limit works. Behind a declared proxy the address is the one the proxy saw."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.contrib.auth.hashers import check_password
from django.test import Client, override_settings
from rest_framework.test import APIClient

from config.settings import base

LIMIT = 3
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("axes_on")]


@pytest.fixture
def axes_on():
    with override_settings(AXES_ENABLED=True, AXES_FAILURE_LIMIT=LIMIT):
        yield


@pytest.fixture
def accounts(django_user_model):
    for name in ("ada", "bob", "cy", "dee", "eve"):
        django_user_model.objects.create_superuser(name, password=f"{name}-pass-1")  # staff, for the admin too


def login_page(username, password, ip="10.0.0.1"):
    return Client().post("/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def admin_login(username, password, ip="10.0.0.1"):
    return Client().post("/admin/login/", {"username": username, "password": password, "next": "/admin/"},
                         REMOTE_ADDR=ip)


def api_token(username, password, ip="10.0.0.1"):
    return APIClient().post("/api/token/", {"username": username, "password": password}, format="json",
                            REMOTE_ADDR=ip)


def api_token_form(username, password, ip="10.0.0.1"):
    return APIClient().post("/api/token/", {"username": username, "password": password}, REMOTE_ADDR=ip)


GOOD = {login_page: 302, admin_login: 302, api_token: 200, api_token_form: 200}
BAD = {login_page: 200, admin_login: 200, api_token: 400, api_token_form: 400}
DOORS = list(GOOD)


def assert_locked(response, door):
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    if door in (api_token, api_token_form):
        assert "Too many failed logins" in response.json()["detail"]
    else:
        page = response.content.decode()
        assert "Too many failed logins" in page and '<header class="topbar' in page  # the site's layout


@pytest.mark.parametrize("door", DOORS, ids=lambda d: d.__name__)
def test_a_good_login_before_the_limit_works(accounts, door):
    for _ in range(LIMIT - 1):
        assert door("ada", "wrong").status_code == BAD[door]
    assert door("ada", "ada-pass-1").status_code == GOOD[door]


@pytest.mark.parametrize("door", DOORS, ids=lambda d: d.__name__)
def test_failures_lock_the_account_from_that_address_only(accounts, door):
    for _ in range(LIMIT - 1):
        assert door("ada", "wrong", ip="10.0.1.1").status_code == BAD[door]
    assert_locked(door("ada", "wrong", ip="10.0.1.1"), door)
    # Even the right password, from that address, is refused while the lock lasts...
    assert_locked(door("ada", "ada-pass-1", ip="10.0.1.1"), door)
    # ...while ada from her own address, and the other accounts from the attacker's, still sign in.
    assert door("ada", "ada-pass-1", ip="10.0.2.1").status_code == GOOD[door]
    assert door("bob", "bob-pass-1", ip="10.0.1.1").status_code == GOOD[door]


@pytest.mark.parametrize("door", DOORS, ids=lambda d: d.__name__)
def test_failures_under_many_names_lock_no_other_account_at_that_address(accounts, door):
    for name in ("ada", "bob", "cy", "eve"):
        for _ in range(LIMIT - 1):
            assert door(name, "wrong", ip="10.0.3.3").status_code == BAD[door]
    assert door("dee", "dee-pass-1", ip="10.0.3.3").status_code == GOOD[door]


def test_one_count_across_the_three_doors(accounts):
    assert login_page("eve", "wrong", ip="10.0.4.1").status_code == 200
    assert admin_login("eve", "wrong", ip="10.0.4.1").status_code == 200
    assert_locked(api_token("eve", "wrong", ip="10.0.4.1"), api_token)
    assert_locked(login_page("eve", "eve-pass-1", ip="10.0.4.1"), login_page)


def test_a_forged_forwarded_for_header_does_not_change_the_address(accounts):
    def attempt(name, password, i):
        return Client().post("/login/", {"username": name, "password": password}, REMOTE_ADDR="10.0.5.5",
                             HTTP_X_FORWARDED_FOR=f"192.0.2.{i}")

    for i in range(LIMIT - 1):
        assert attempt("cy", "wrong", i).status_code == 200
    assert_locked(attempt("cy", "wrong", LIMIT), login_page)
    assert_locked(attempt("cy", "cy-pass-1", LIMIT + 1), login_page)


PROXY = "172.18.0.2"  # the TLS-terminating proxy: every request reaches the service from its address


def compose_setting(name: str) -> str:
    """A setting as docker-compose.yml sets it when .env does not."""
    compose = yaml.safe_load((Path(base.BASE_DIR) / "docker-compose.yml").read_text())
    value = compose["services"]["web"]["environment"][name]  # "${TRUSTED_PROXY_COUNT:-1}"
    return value.rsplit(":-", 1)[1].rstrip("}")


def compose_proxy():
    return override_settings(TRUSTED_PROXY_COUNT=int(compose_setting("TRUSTED_PROXY_COUNT")),
                             TRUSTED_PROXY_ADDRESSES=compose_setting("TRUSTED_PROXY_ADDRESSES").split(","))


def through_proxy(username, password, client_ip, forged=""):
    """A login as the proxy passes it on: the client's own X-Forwarded-For (anything it likes), then the address
    the proxy saw appended."""
    forwarded = f"{forged}, {client_ip}" if forged else client_ip
    return Client().post("/login/", {"username": username, "password": password}, REMOTE_ADDR=PROXY,
                         HTTP_X_FORWARDED_FOR=forwarded)


def test_behind_the_compose_proxy_one_attacker_locks_only_the_names_it_attacks(accounts):
    with compose_proxy():
        # One attacker, forging a different X-Forwarded-For each time, fails under many names...
        for i in range(LIMIT):
            for name in ("ada", "bob", "cy"):
                through_proxy(name, "wrong", "198.51.100.66", forged=f"192.0.2.{i}")
        # ...ada is locked for the attacker, even with her right password...
        assert_locked(through_proxy("ada", "ada-pass-1", "198.51.100.66"), login_page)
        # ...but dee and eve at the same proxy, and ada herself, sign in from their own addresses.
        assert through_proxy("dee", "dee-pass-1", "203.0.113.4").status_code == 302
        assert through_proxy("eve", "eve-pass-1", "203.0.113.5", forged="198.51.100.66").status_code == 302
        assert through_proxy("ada", "ada-pass-1", "203.0.113.6").status_code == 302


@pytest.mark.parametrize("proxy", [None, "10.9.9.9"])
def test_behind_a_proxy_a_login_sent_to_the_app_port_directly_is_counted_under_its_own_address(accounts, proxy):
    """BEHIND_PROXY=1 (one proxy), but the attacker reaches the app port itself, forging a new X-Forwarded-For each
    time: the header is not the proxy's (the connection is from no trusted address), so its failures lock it."""
    trusted = ["127.0.0.1", "::1"] if proxy is None else ["10.9.9.0/24"]
    with override_settings(TRUSTED_PROXY_COUNT=1, TRUSTED_PROXY_ADDRESSES=trusted):
        def attempt(password, i):
            return Client().post("/login/", {"username": "ada", "password": password}, REMOTE_ADDR="198.51.100.7",
                                 HTTP_X_FORWARDED_FOR=f"192.0.2.{i}")

        for i in range(LIMIT - 1):
            assert attempt("wrong", i).status_code == 200
        assert_locked(attempt("wrong", LIMIT), login_page)
        assert_locked(attempt("ada-pass-1", LIMIT + 1), login_page)
        # The proxy's own connections are still counted under the address it appended.
        if proxy:
            response = Client().post("/login/", {"username": "ada", "password": "ada-pass-1"}, REMOTE_ADDR=proxy,
                                     HTTP_X_FORWARDED_FOR="198.51.100.99")
            assert response.status_code == 302


@pytest.mark.parametrize("forwarded", ["", "not-an-address", "x" * 300, " , "])
def test_behind_a_proxy_a_header_that_names_no_address_counts_as_the_connection(accounts, forwarded):
    with compose_proxy():
        for _ in range(LIMIT - 1):
            response = Client().post("/login/", {"username": "ada", "password": "wrong"}, REMOTE_ADDR=PROXY,
                                     HTTP_X_FORWARDED_FOR=forwarded)
            assert response.status_code == 200
        assert_locked(through_proxy("ada", "wrong", PROXY), login_page)


@pytest.mark.parametrize("door", [login_page, api_token], ids=lambda d: d.__name__)
def test_a_pbkdf2_password_is_rehashed_with_argon2_at_login(django_user_model, door):
    with override_settings(PASSWORD_HASHERS=base.PASSWORD_HASHERS):
        account = django_user_model.objects.create_user("frank")
        with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.PBKDF2PasswordHasher"]):
            account.set_password("frank-pass-1")
            account.save()
        assert account.password.startswith("pbkdf2_sha256$")
        assert door("frank", "frank-pass-1").status_code == GOOD[door]
        account.refresh_from_db()
        assert account.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
        assert check_password("frank-pass-1", account.password)
        assert door("frank", "frank-pass-1").status_code == GOOD[door]


def test_a_new_password_is_hashed_with_argon2(django_user_model):
    with override_settings(PASSWORD_HASHERS=base.PASSWORD_HASHERS):
        account = django_user_model.objects.create_user("gus", password="gus-pass-1")
    assert account.password.startswith("argon2$")


@pytest.mark.parametrize("username", ["x" * 300, "x\x00y", ""])
def test_a_name_no_account_could_have_is_refused_with_400_at_the_token_door(username):
    assert api_token(username, "p").status_code == 400


def test_the_people_page_shows_a_locked_account_and_unlocks_it(accounts, django_user_model):
    login_page("ada", "wrong", ip="10.0.6.9")  # from elsewhere: counted, but not towards the lock
    for _ in range(LIMIT):
        login_page("ada", "wrong", ip="10.0.6.1")
    assert_locked(login_page("ada", "ada-pass-1", ip="10.0.6.1"), login_page)
    client = Client()
    # ada is a superuser (the accounts fixture's): only a superuser may unlock her (people.services._check_may_act).
    client.force_login(django_user_model.objects.get(username="bob"))
    page = client.get("/people/")
    ada = next(p for p in page.context["organizers"] if p.account.username == "ada")
    assert ada.locked and ada.failed_logins > LIMIT  # the one from elsewhere too
    assert 'class="error">locked</strong>' in page.content.decode()
    assert f'href="/people/{ada.account.pk}/unlock/"' in page.content.decode()
    assert "Unlock ada?" in client.get(f"/people/{ada.account.pk}/unlock/").content.decode()
    assert client.post(f"/people/{ada.account.pk}/unlock/").status_code == 302
    assert login_page("ada", "ada-pass-1", ip="10.0.6.1").status_code == 302


def test_a_trusted_proxy_entry_that_is_no_address_stops_the_start_up():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "TRUSTED_PROXY_ADDRESSES": "127.0.0.1,proxy"}
    done = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=base.BASE_DIR, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "TRUSTED_PROXY_ADDRESSES: 'proxy' is not an address or a network" in done.stderr


def test_the_readme_says_the_lock_is_of_an_account_at_an_address():
    """The code locks the pair (AXES_LOCKOUT_PARAMETERS), and the README tells users the same: not "one account, or
    one address"."""
    assert base.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]
    readme = " ".join((Path(base.BASE_DIR) / "README.md").read_text().split())
    assert "failed logins locked per pair of account and address" in readme
    assert ("Ten failed logins for one account from one address within 15 minutes lock that account at that address "
            "for 15 minutes") in readme
    assert "or from one address" not in readme and "per account and per address" not in readme
