"""Failed logins are counted per account and per address (django-axes, really on here) at the login page, the
admin's login and /api/token/: at the limit both are locked with a 429 page in the site's layout (JSON under /api/),
and a good login before the limit works."""
import pytest
from django.test import Client, override_settings
from rest_framework.test import APIClient

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
def test_failures_lock_the_account_from_any_address(accounts, door):
    for i in range(LIMIT - 1):
        assert door("ada", "wrong", ip=f"10.0.1.{i}").status_code == BAD[door]
    assert_locked(door("ada", "wrong", ip="10.0.1.99"), door)
    # Even the right password, from yet another address, is refused while the lock lasts...
    assert_locked(door("ada", "ada-pass-1", ip="10.0.2.1"), door)
    # ...and the other accounts are not locked.
    assert door("bob", "bob-pass-1", ip="10.0.2.1").status_code == GOOD[door]


@pytest.mark.parametrize("door", DOORS, ids=lambda d: d.__name__)
def test_failures_lock_the_address_for_every_account(accounts, door):
    for name in ("ada", "bob"):
        assert door(name, "wrong", ip="10.0.3.3").status_code == BAD[door]
    assert_locked(door("cy", "wrong", ip="10.0.3.3"), door)
    assert_locked(door("dee", "dee-pass-1", ip="10.0.3.3"), door)
    assert door("dee", "dee-pass-1", ip="10.0.3.4").status_code == GOOD[door]


def test_one_count_across_the_three_doors(accounts):
    assert login_page("eve", "wrong", ip="10.0.4.1").status_code == 200
    assert admin_login("eve", "wrong", ip="10.0.4.2").status_code == 200
    assert_locked(api_token("eve", "wrong", ip="10.0.4.3"), api_token)
    assert_locked(login_page("eve", "eve-pass-1", ip="10.0.4.4"), login_page)


def test_a_forged_forwarded_for_header_does_not_change_the_address(accounts):
    def attempt(name, password, i):
        return Client().post("/login/", {"username": name, "password": password}, REMOTE_ADDR="10.0.5.5",
                             HTTP_X_FORWARDED_FOR=f"192.0.2.{i}")

    for i, name in enumerate(("ada", "bob")):
        assert attempt(name, "wrong", i).status_code == 200
    assert_locked(attempt("cy", "wrong", 2), login_page)
    assert_locked(attempt("dee", "dee-pass-1", 3), login_page)


@pytest.mark.parametrize("username", ["x" * 300, "x\x00y", ""])
def test_a_name_no_account_could_have_is_refused_with_400_at_the_token_door(username):
    assert api_token(username, "p").status_code == 400


def test_the_people_page_shows_a_locked_account_and_unlocks_it(accounts, django_user_model):
    for i in range(LIMIT):
        login_page("ada", "wrong", ip=f"10.0.6.{i}")
    assert_locked(login_page("ada", "ada-pass-1", ip="10.0.7.1"), login_page)
    client = Client()
    # ada is a superuser (the accounts fixture's): only a superuser may unlock her (people.services._check_may_act).
    client.force_login(django_user_model.objects.get(username="bob"))
    page = client.get("/people/")
    ada = next(p for p in page.context["organizers"] if p.account.username == "ada")
    assert ada.locked and ada.failed_logins >= LIMIT
    assert 'class="error">locked</strong>' in page.content.decode()
    assert f'href="/people/{ada.account.pk}/unlock/"' in page.content.decode()
    assert "Unlock ada?" in client.get(f"/people/{ada.account.pk}/unlock/").content.decode()
    assert client.post(f"/people/{ada.account.pk}/unlock/").status_code == 302
    assert login_page("ada", "ada-pass-1", ip="10.0.7.1").status_code == 302
