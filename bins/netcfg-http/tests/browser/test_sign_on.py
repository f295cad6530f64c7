"""Single sign-on in the web front end (decisions §17, `auth.oidc`), against
a real OpenID provider: the npm package oidc-provider on node
(oidc_provider.mjs), with its own login and consent pages. A person signs
in through it and becomes a user of the role its groups give; a person
whose groups give none is refused with the reason; a user with a password
is not taken over by a person of the same name at the provider."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from conftest import WAIT, WORKSPACE, Api, admin_key, free_port, open_browser

# Installed by `cargo xtask browser` (and so by CI) from npm.
PROVIDER_MODULE = Path(os.environ.get(
    "OIDC_PROVIDER_MODULE",
    WORKSPACE / "target" / "npm-oidc" / "node_modules" / "oidc-provider" / "lib" / "index.js",
))
PROVIDER_SCRIPT = Path(__file__).with_name("oidc_provider.mjs")
PASSWORD = "correct horse battery"


@pytest.fixture
def provider_and_server(server_factory):
    """An OpenID provider and a netcfg server that signs people in through
    it: the provider knows netcfg's page as its redirect URI."""
    if not PROVIDER_MODULE.exists():
        raise FileNotFoundError(f"oidc-provider is not installed at {PROVIDER_MODULE}: run `cargo xtask browser`")
    port = free_port()
    provider_port = free_port()
    process = subprocess.Popen(
        ["node", str(PROVIDER_SCRIPT), str(PROVIDER_MODULE), str(provider_port), f"http://127.0.0.1:{port}/"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in process.stdout:
            if line.startswith("ready "):
                issuer = line.split()[1]
                break
        else:
            raise RuntimeError(f"the OpenID provider exited ({process.wait()})")
        config = f"""
[auth.oidc]
issuer = "{issuer}"
client_id = "netcfg"
client_secret = "a-test-secret-of-netcfg-at-the-provider"
role_claim = "groups"
roles = {{ "rtls-admins" = "admin", "rtls-operators" = "operator" }}
"""
        server = server_factory(config=config, port=port)
        yield issuer, server.url
    finally:
        process.terminate()
        process.wait(timeout=10)


def sign_on(browser, login: str, issuer: str) -> None:
    """From the sign-in page: through the provider's login and consent
    (its pages load fonts from the internet and ask for a favicon: their
    console is the provider's). The front end's first request is a 401."""
    browser.foreign += [issuer + "/", "https://fonts.googleapis.com/"]
    browser.expect_status(401)
    view = browser.open_view("/", "sign-in")
    browser.wait_text("through http://127.0.0.1:", view)
    browser.click(browser.button("Sign in with single sign-on", view))
    driver = browser.driver
    name = browser.wait(lambda d: d.find_element(By.NAME, "login"), message="the provider's login page")
    name.send_keys(login)
    driver.find_element(By.NAME, "password").send_keys("anything will do here")
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    # The consent page, the first time this person meets netcfg.
    browser.wait(lambda d: "consent" in d.page_source, message="the provider's consent page")
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    browser.wait(lambda d: d.current_url.startswith(browser.base + "/"), timeout=WAIT,
                 message="back at netcfg")


def test_a_person_signs_in_through_the_provider_with_the_role_its_groups_give(provider_and_server, request):
    issuer, url = provider_and_server
    api = Api(url)
    assert api.get("/session/oidc")["oidc"] == {"enabled": True, "issuer": issuer}
    # The first user, from the server's own machine: access control turns on.
    api.post("/users", {"name": "ada", "role": "admin", "password": PASSWORD})
    ada = Api(url, admin_key(url, "ada", PASSWORD))
    ada.post("/users", {"name": "margaret", "role": "viewer", "password": PASSWORD})

    with open_browser(request, url) as browser:
        sign_on(browser, "grace", issuer)
        browser.view("nets")
        browser.wait_text("grace (admin)")
        assert "code=" not in browser.driver.current_url, "the provider's answer is taken off the address"
        users = browser.open_view("/users", "users")
        assert "admin" in browser.row("grace", users).text
        browser.click(browser.button("Sign out"))
        browser.view("sign-in")
    grace = ada.get("/users/grace")["user"]
    assert grace["role"] == "admin" and grace["display_name"] == "Grace", grace
    audit = ada.get("/audit")["audit"]["entries"]
    assert any(entry["event"] == "sign_in" and entry["user"] == "grace" and entry["detail"] == "oidc"
               for entry in audit), audit

    # Groups that give no role here; a name that is a user with a password.
    for login, reason in [("linus", "give linus no role here"),
                          ("margaret", "margaret is a user with a password here")]:
        with open_browser(request, url) as browser:
            sign_on(browser, login, issuer)
            view = browser.view("sign-in")
            browser.wait_text("Single sign-on failed", view)
            assert reason in browser.text(view), browser.text(view)
    assert ada.get("/users/margaret")["user"]["role"] == "viewer", "margaret is not taken over"
    names = [user["name"] for user in ada.get("/users")["users"]]
    assert "linus" not in names, names

    with open_browser(request, url) as browser:
        sign_on(browser, "otto", issuer)
        browser.view("nets")
        browser.wait_text("otto (operator)")
        assert browser.driver.find_elements(By.LINK_TEXT, "Users") == [], "an operator sees no Users"

