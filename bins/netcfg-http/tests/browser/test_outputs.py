"""The Outputs view (decisions §14), as a user works it: reached from the
navigation; an MQTT output added through the form, its wildcard topic
prefix refused by the server with the problem beside the field, then added
with a username and password that the list shows as set and the page never
shows again; a webhook refused without its secret (the problem beside
Secret), then added with one. The configuration started, the MQTT output's
row shows it not connected with the error it met (nothing listens on its
port): that is how an output is tested. Edited to point at a real broker
(mosquitto), its row shows it connected; its password removed through the
form; then disabled and deleted. Each problem the page shows is the one the
API answers for the same body."""

from __future__ import annotations

import re
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from conftest import Api, ApiFailure, Browser, free_port

NET = "plant"
MOSQUITTO = "/usr/sbin/mosquitto"
PASSWORD = "hunter2-not-shown"
SECRET = "s3cret-not-shown"


@pytest.fixture
def mosquitto() -> Iterator[int]:
    """A mosquitto of its own on a free loopback port (Debian's package,
    which `cargo xtask ci` installs); its port."""
    scratch = Path(tempfile.mkdtemp(prefix="netcfg-mosquitto-"))
    port = free_port()
    config = scratch / "mosquitto.conf"
    config.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest none\n")
    process = subprocess.Popen([MOSQUITTO, "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, f"mosquitto exited ({process.returncode})"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "mosquitto never listened"
                time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def table_rows(section: WebElement) -> list[dict[str, str]]:
    """The outputs listed in the section's table, each as its cells by their
    column's header, with the lines of its first cell (Output) as Name, URL
    and Credentials, and those of Status as Status and Last error."""
    rows = []
    for table in section.find_elements(By.TAG_NAME, "table"):
        headers = [" ".join(th.text.split()) for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
        for row in table.find_elements(By.CSS_SELECTOR, "tbody tr"):
            if not row.is_displayed():
                continue
            cells = [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "th, td")]
            listed = {header: " ".join(text.split()) for header, text in zip(headers, cells)}
            name, url, credentials = ([line.strip() for line in cells[0].splitlines()] + ["", "", ""])[:3]
            status, _, error = cells[headers.index("Status")].partition("\n")
            listed.update({"Name": name, "URL": url, "Credentials": credentials,
                           "Status": status.strip(), "Last error": " ".join(error.split())})
            rows.append(listed)
    return rows


def row_of(browser: Browser, view: WebElement, name: str, **expected: str | re.Pattern) -> dict[str, str]:
    """Waits until the output `name` is listed with the cells `expected`
    (column headers with _ for spaces; a pattern is searched for); returns its row."""
    return browser.wait_row(lambda: table_rows(view), name, "output", **expected)


def dialog_closed(browser: Browser) -> None:
    browser.wait(lambda d: not [e for e in d.find_elements(By.CSS_SELECTOR, "dialog[open]") if e.is_displayed()],
                 message="the dialog closed")


def problem_of(api: Api, body: dict, field: str) -> str:
    """The problem the API names on `field` when `body` is posted."""
    with pytest.raises(ApiFailure) as refused:
        api.post(f"/nets/{NET}/outputs", body)
    assert refused.value.status == 400, refused.value.body
    problems = [p["problem"] for p in refused.value.body.get("problems", []) if p["field"] == field]
    assert problems, refused.value.body
    return "; ".join(problems)


def test_add_watch_change_disable_and_delete_outputs(browser: Browser, api: Api, mosquitto: int,
                                                     shot: Callable[[str], object]):
    api.create_site(NET, anchors=4, tags=2)
    # nothing listens here: the MQTT output's connection is refused
    closed_port = free_port()
    broker_url = f"mqtt://127.0.0.1:{closed_port}"
    hook_url = f"http://127.0.0.1:{closed_port}/hook"

    # Reached from the navigation of the configuration
    browser.open(f"/nets/{NET}")
    browser.view("overview")
    browser.click(browser.link("Outputs", browser.driver.find_element(By.CSS_SELECTOR, "nav.side")))
    view = browser.view("outputs")
    browser.wait_text("No outputs yet", view)
    assert "there is no test button" in browser.text(view), "the help text says how to test an output"

    # An MQTT output: the fields of its scheme appear once its URL is typed
    browser.click(browser.button("Add output", view))
    dialog = browser.dialog()
    browser.fill(dialog, ("Name", "broker"), ("URL", broker_url), ("Topic prefix", "a/+/b"), ("Username", "site"),
                         ("Password", PASSWORD))
    browser.click(browser.field("Notifications", dialog))
    assert not [label for label in dialog.find_elements(By.XPATH, ".//label[normalize-space()='Secret']") if label.is_displayed()]

    # A wildcard in the topic prefix: refused, the server's problem beside the field
    browser.expect_status(400)
    browser.click(browser.button("Add output", dialog))
    prefix = browser.field("Topic prefix", dialog)
    problem = browser.wait_problem(prefix, "a problem beside the topic prefix")
    assert problem == problem_of(api, {"name": "broker", "url": broker_url, "events": ["position", "zone"],
                                       "topic_prefix": "a/+/b"}, "topic_prefix"), problem
    assert browser.field("Password", dialog).get_attribute("value") == PASSWORD, "what was typed stays"
    assert api.get(f"/nets/{NET}/outputs")["outputs"] == []
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", prefix)
    shot("outputs-problem")

    # Corrected, it is added; the list shows its credentials as set, never their values
    browser.type(prefix, "plant/uwb")
    browser.click(browser.button("Add output", dialog))
    dialog_closed(browser)
    row = row_of(browser, view, "broker", Credentials="username set, password set", Enabled="yes", Status="stopped")
    assert row["URL"] == broker_url and row["Events"] == "position, zone, notification, state", row
    stored = api.get(f"/nets/{NET}/outputs/broker")["output"]
    assert stored["topic_prefix"] == "plant/uwb" and stored["password_set"] and stored["username_set"], stored
    assert not {"username", "password", "secret"} & set(stored), stored

    # A webhook: a secret instead of MQTT's fields, required
    browser.click(browser.button("Add output", view))
    dialog = browser.dialog()
    browser.fill(dialog, ("Name", "hook"), ("URL", hook_url))
    secret = browser.field("Secret", dialog)
    assert not [label for label in dialog.find_elements(By.XPATH, ".//label[normalize-space()='Topic prefix']") if label.is_displayed()]
    browser.click(browser.button("Add output", dialog))
    problem = browser.wait_problem(secret, "a problem beside the secret")
    assert problem == problem_of(api, {"name": "hook", "url": hook_url, "events": ["position", "zone", "state"]}, "secret"), problem
    browser.type(secret, SECRET)
    browser.click(browser.button("Add output", dialog))
    dialog_closed(browser)
    row_of(browser, view, "hook", Credentials="secret set", Status="stopped")
    assert api.get(f"/nets/{NET}/outputs/hook")["output"]["secret_set"] is True

    # Started, the outputs run: the MQTT output's row shows it not connected
    # with the error it met, as its status says
    api.start(NET)
    row = row_of(browser, view, "broker", Status="not connected", Last_error=re.compile(r"\S"))
    assert "refused" in row["Last error"].lower(), row
    status = api.get(f"/nets/{NET}/outputs/broker/status")["status"]
    assert status["running"] and not status["connected"] and status["last_error"], status
    source = browser.driver.page_source
    assert PASSWORD not in source and SECRET not in source, "the credentials are never on the page"

    # Pointed at a real broker, it shows connected: the change is its test
    browser.click(browser.button("Edit broker", view))
    dialog = browser.dialog()
    password = browser.field("Password", dialog)
    assert password.get_attribute("value") == "" and "password set" in (password.get_attribute("placeholder") or "")
    assert browser.field("Username", dialog).get_attribute("value") == ""
    browser.type(browser.field("URL", dialog), f"mqtt://127.0.0.1:{mosquitto}")
    browser.click(browser.button("Save changes", dialog))
    dialog_closed(browser)
    row_of(browser, view, "broker", Status="connected")
    assert api.get(f"/nets/{NET}/outputs/broker/status")["status"]["connected"] is True
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", view)
    shot("outputs-status")

    # Its password removed, its batching changed: only those are sent
    browser.click(browser.button("Edit broker", view))
    dialog = browser.dialog()
    browser.click(browser.field("Remove the password", dialog))
    browser.type(browser.field("Batch (ms)", dialog), "100")
    browser.click(browser.button("Save changes", dialog))
    dialog_closed(browser)
    row_of(browser, view, "broker", Credentials="username set")
    stored = api.get(f"/nets/{NET}/outputs/broker")["output"]
    assert stored["batch_ms"] == 100 and stored["username_set"] and not stored["password_set"], stored
    assert stored["url"] == f"mqtt://127.0.0.1:{mosquitto}" and stored["topic_prefix"] == "plant/uwb", stored
    row_of(browser, view, "broker", Status="connected")

    # Disabled: it stops
    browser.click(browser.button("Disable broker", view))
    row_of(browser, view, "broker", Enabled="no", Status="disabled")
    assert api.get(f"/nets/{NET}/outputs/broker")["output"]["enabled"] is False
    browser.wait(lambda _: api.get(f"/nets/{NET}/outputs/broker/status")["status"]["running"] is False,
                 message="the disabled output stopped")

    # Deleted, after a confirmation
    browser.click(browser.button("Delete broker", view))
    dialog = browser.dialog()
    assert "Delete output broker?" in browser.text(dialog)
    browser.click(browser.button("Delete", dialog))
    dialog_closed(browser)
    browser.wait(lambda _: [row.get("Name") for row in table_rows(view)] == ["hook"], message="broker gone from the list")
    assert [output["name"] for output in api.get(f"/nets/{NET}/outputs")["outputs"]] == ["hook"]


def test_a_long_url_wraps_at_its_separators(browser: Browser, api: Api):
    api.create_net(NET)
    url = ("https://hooks.integration.example.com/services/site-engineering/positions/receiver"
           "?tenant=north-warehouse-building-7&format=json&batch=positions,zones,notifications")
    api.post(f"/nets/{NET}/outputs", {"name": "hook", "url": url, "events": ["position"], "secret": SECRET})
    view = browser.open_view(f"/nets/{NET}/outputs", "outputs")
    row = row_of(browser, view, "hook", Credentials="secret set")
    assert row["URL"] == url, row
    cell = view.find_element(By.XPATH, ".//tr[@data-item='hook']/th")
    # it fits its cell, on several lines, each ending after a separator or
    # a hyphen (the characters that end each line but the last), never in
    # the middle of a word
    fits = browser.driver.execute_script("return arguments[0].scrollWidth <= arguments[0].clientWidth", cell)
    assert fits, "the URL overflows its cell"
    lines = browser.driver.execute_script(
        """const text = arguments[0].querySelector('.long-path');
        const range = document.createRange();
        const ends = [];
        let last = null;
        const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (let at = 0; at < node.length; at += 1) {
            range.setStart(node, at);
            range.setEnd(node, at + 1);
            const top = Math.round(range.getBoundingClientRect().top);
            if (last !== null && top > last.top) ends.push(last.char);
            last = {top, char: node.data[at]};
          }
        }
        return ends;""", cell)
    assert lines, "the URL is on one line"
    assert all(char in "/?&.=:#-" for char in lines), lines
