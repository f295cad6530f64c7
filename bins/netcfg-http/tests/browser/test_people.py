"""People in the web front end (decisions §17): signing in with a name and
password, the person in the header, a change made with the session cookie
(its CSRF token), My API keys with the secret shown once, Users and Audit
for an admin, and an operator who does not see them, and finds what its
role may not do disabled with the reason."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from conftest import Api, ApiFailure, admin_key, open_browser, xpath_string

PASSWORD = "correct horse battery"


def sign_in(browser, name: str, password: str):
    view = browser.open_view("/", "sign-in")
    browser.type(browser.field("Name", view), name)
    browser.type(browser.field("Password", view), password)
    browser.click(browser.button("Sign in", view))
    return view


def test_a_person_signs_in_makes_a_key_and_an_admin_sees_users_and_audit(server, request):
    api = Api(server)
    api.create_net("dock")
    # The first user, from the server's own machine: access control turns on.
    api.post("/users", {"name": "ada", "display_name": "Ada", "role": "admin", "password": PASSWORD})
    with open_browser(request, server) as browser:
        browser.expect_status(401)
        view = sign_in(browser, "ada", "not the password at all")
        problem = browser.wait_problem(browser.field("Password", view), "a problem beside the password")
        assert "wrong" in problem, problem

        browser.type(browser.field("Password", view), PASSWORD)
        browser.click(browser.button("Sign in", view))
        nets = browser.view("nets")
        browser.row("dock", nets)
        browser.wait_text("ada (admin)")

        # A change with the cookie: the page sends the session's CSRF token.
        browser.click(browser.button("New configuration", nets))
        dialog = browser.dialog()
        browser.fill(dialog, ("Name", "yard"))
        browser.click(browser.button("Create", dialog))
        browser.view("overview")

        # My API keys: the secret once, then only its first characters.
        keys = browser.open_view("/keys", "keys")
        browser.click(browser.button("Make a key", keys))
        dialog = browser.dialog()
        browser.fill(dialog, ("Name", "ci"))
        browser.click(browser.button("Make the key", dialog))
        shown = browser.wait(lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, "[data-secret]")
                                             if e.text.startswith("ncfg_")), False), message="the new key's secret")
        secret = shown.text
        browser.click(browser.button("Done", browser.dialog()))
        row = browser.row("ci", keys)
        assert secret not in browser.text(), "the secret is shown once"
        assert secret[:8] in row.text
        assert Api(server, secret).get("/users/ada")["user"]["name"] == "ada"
        assert Api(server, secret).get("/nets/yard")["configuration"]["name"] == "yard"

        users = browser.open_view("/users", "users")
        browser.row("ada", users)
        browser.click(browser.button("Add user", users))
        dialog = browser.dialog()
        browser.fill(dialog, ("Name", "floor"), ("Password", "operators password"))
        browser.choose(browser.field("Role", dialog), "operator: also runs networks and sends commands")
        browser.click(browser.button("Add user", dialog))
        browser.row("floor", browser.view("users"))

        audit = browser.open_view("/audit", "audit")
        browser.wait_text("sign in failed", audit)
        browser.wait_text("key created", audit)

        browser.click(browser.button("Sign out"))
        browser.view("sign-in")
        try:
            Api(server).get("/nets")
            raise AssertionError("signed out, yet the API answered")
        except ApiFailure as failure:
            assert failure.status == 401

        # An operator does not see Users or Audit, and cannot make a key above its role.
        sign_in(browser, "floor", "operators password")
        browser.view("nets")
        browser.wait_text("floor (operator)")
        navigation = browser.driver.find_element(By.CSS_SELECTOR, "nav.side")
        assert "Users" not in navigation.text and "Audit" not in navigation.text
        assert "My API keys" in navigation.text


def disabled_button(browser, text: str, within):
    """A visible button by its text (or aria-label) that is disabled."""
    def find(_):
        test = f"normalize-space()={xpath_string(text)} or @aria-label={xpath_string(text)}"
        for element in within.find_elements(By.XPATH, f".//button[{test}]"):
            if element.is_displayed() and not element.is_enabled():
                return element
        return False
    return browser.wait(find, message=f"a disabled button {text!r}")


def test_an_operator_finds_what_its_role_may_not_do_disabled_with_the_reason(server, request):
    api = Api(server)
    api.create_net("dock")
    # The first user, from the server's own machine; then an operator, made by it.
    api.post("/users", {"name": "ada", "display_name": "Ada", "role": "admin", "password": PASSWORD})
    admin = Api(server, admin_key(server, "ada", PASSWORD))
    admin.post("/users", {"name": "floor", "role": "operator", "password": "operators password"})
    with open_browser(request, server) as browser:
        browser.expect_status(401)
        sign_in(browser, "floor", "operators password")
        nets = browser.view("nets")
        browser.wait_text("floor (operator)")

        # Before any click: creating, and deleting, a configuration needs an editor.
        create = disabled_button(browser, "New configuration", nets)
        title = create.get_attribute("title")
        assert "Needs the role editor" in title, title
        assert "floor is operator" in title, title
        delete = disabled_button(browser, "Delete dock", nets)
        assert "Needs the role editor" in delete.get_attribute("title")
        # Starting one is an operator's.
        assert browser.button("Start dock", nets).get_attribute("title") in ("", None)

        # The overview: Start is enabled, and the server agrees.
        overview = browser.open_view("/nets/dock", "overview")
        start = browser.button("Start", overview)
        assert start.get_attribute("title") in ("", None), start.get_attribute("title")
        browser.click(start)
        stop = browser.button("Stop", browser.view("overview"))
        assert stop.get_attribute("title") in ("", None), stop.get_attribute("title")
        assert admin.get("/nets/dock")["configuration"]["state"] == "running"
