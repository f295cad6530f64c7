"""Fixtures of the web front end's end-to-end tests: a real server, a real
headless Chromium, and helpers to find what a user sees.

Run from this directory:

    python3 -m pytest -q -x                       # the embedded ui files
    DEV_UI_DIR=<workspace>/crates/netcfg-ui/ui python3 -m pytest -q -x

Environment:
- NETCFG_BINARY: the server binary (default <workspace>/target/debug/netcfg-http).
- NETCFG_SCREENSHOTS: where `shot(name)` writes <name>.png (default <workspace>/docs/ui).
- DEV_UI_DIR: passed to the server (a debug build then reads the ui files from disk).
- NETCFG_BROWSER_WAIT: seconds a test waits for what it expects to see (default 20).

Elements are found as a user finds them: by label text, button text, role,
heading, and the `data-view` attribute each view's section carries; never by
layout classes. Each test fails when the browser's console holds a SEVERE
entry other than the API's answer to a request the test made fail on purpose
(`browser.expect_status(400)`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterable

import pytest
from selenium import webdriver
from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
    TimeoutException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

WORKSPACE = Path(__file__).resolve().parents[4]
BINARY = Path(os.environ.get("NETCFG_BINARY", WORKSPACE / "target" / "debug" / "netcfg-http"))
SCREENSHOTS = Path(os.environ.get("NETCFG_SCREENSHOTS", WORKSPACE / "docs" / "ui"))
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
API_VERSION = "5.1"
# A 20 m by 15 m room of six anchors (the first a seeder), at the corners
# and the middle of the long walls, from 2 m to 4 m high: a site that
# locates (the floor-plan tests of solved locations and zones use it).
ROOM_ANCHORS = [
    ("01:04:0001", (0, 0, 2000)),
    ("01:04:0002", (20000, 0, 2400)),
    ("01:04:0003", (20000, 15000, 2800)),
    ("01:04:0004", (0, 15000, 3200)),
    ("01:04:0005", (10000, 0, 3600)),
    ("01:04:0006", (10000, 15000, 4000)),
]
# How long a user-visible change may take before a test gives up.
WAIT = float(os.environ.get("NETCFG_BROWSER_WAIT", "20"))


# --------------------------------------------------------------------------
# The server


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# The servers running now: a failing test's report carries their logs.
LIVE_SERVERS: list["Server"] = []


class Server:
    """One netcfg-http process on a free loopback port, with its own data
    directory (and config file, when given)."""

    def __init__(self, binary: Path = BINARY, config: str | None = None, token: str | None = None,
                 port: int | None = None):
        if not binary.exists():
            raise FileNotFoundError(f"no server binary at {binary} (set NETCFG_BINARY)")
        self.scratch = Path(tempfile.mkdtemp(prefix="netcfg-browser-"))
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = token
        self.log_path = self.scratch / "server.log"
        command = [str(binary), "--bind", "127.0.0.1", "--port", str(self.port),
                   "--data-dir", str(self.scratch / "data")]
        if config is not None:
            config_path = self.scratch / "netcfg.toml"
            config_path.write_text(config)
            command += ["--config", str(config_path)]
        # NETCFG_<KEY> variables are the server's settings (unknown keys are
        # refused): pass none of ours. DEV_UI_DIR passes through.
        env = {key: value for key, value in os.environ.items() if not key.startswith("NETCFG_")}
        env.setdefault("RUST_LOG", "info")
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT, env=env)
        LIVE_SERVERS.append(self)
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited ({self.process.returncode}):\n{self.log()}")
            request = urllib.request.Request(self.url + "/nets", headers={"Api-Version": API_VERSION})
            try:
                urllib.request.urlopen(request, timeout=2).read()
                return
            except urllib.error.HTTPError:
                return  # it answers (401 with access control on)
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.05)
        raise RuntimeError(f"the server did not answer within 30 s:\n{self.log()}")

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self in LIVE_SERVERS:
            LIVE_SERVERS.remove(self)
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()

    def remove(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)


def admin_key(url: str, name: str, password: str) -> str:
    """An admin key of the admin `name`, made with its password (a session
    cookie and its CSRF token)."""
    request = urllib.request.Request(
        url + "/session", method="POST", data=json.dumps({"name": name, "password": password}).encode(),
        headers={"Api-Version": API_VERSION, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        cookie = answer.headers["Set-Cookie"].split(";")[0]
        csrf = json.load(answer)["session"]["csrf_token"]
    request = urllib.request.Request(
        url + f"/users/{name}/keys", method="POST", data=json.dumps({"name": "setup", "role": "admin"}).encode(),
        headers={"Api-Version": API_VERSION, "Content-Type": "application/json", "Cookie": cookie,
                 "X-CSRF-Token": csrf})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)["api_key"]["key"]


class ApiFailure(Exception):
    def __init__(self, status: int, body: dict):
        super().__init__(f"{status}: {body.get('message')}")
        self.status = status
        self.body = body


class Api:
    """The API through urllib, for setting up data (and reading it back)."""

    def __init__(self, url: str, token: str | None = None):
        self.url = url
        self.token = token

    def call(self, method: str, path: str, body: Any = None, raw: bool = False) -> Any:
        headers = {"Api-Version": API_VERSION, "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                payload = response.read()
        except urllib.error.HTTPError as error:
            text = error.read()
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = {"message": text.decode(errors="replace")}
            raise ApiFailure(error.code, parsed) from None
        if raw:
            return payload
        return json.loads(payload) if payload else {}

    def get(self, path: str) -> Any:
        return self.call("GET", path)

    def post(self, path: str, body: Any = None) -> Any:
        return self.call("POST", path, body)

    def patch(self, path: str, body: Any = None) -> Any:
        return self.call("PATCH", path, body)

    # Data the tests need.

    def create_net(self, name: str, instance: str = "sim") -> dict:
        return self.post("/nets", {"name": name, "instance": instance})["configuration"]

    def add_device(self, net: str, serial: str, role: int, xyz: tuple[int, int, int] | None = None,
                   name: str | None = None) -> dict:
        interface: dict[str, Any] = {"identifier": 0, "role_id": role}
        if xyz is not None:
            interface.update(x=xyz[0], y=xyz[1], z=xyz[2])
        body: dict[str, Any] = {"serial_number": serial, "interfaces": [interface], "disabled": False}
        if name:
            body["name"] = name
        return self.post(f"/nets/{net}/devices", body)["device"]

    def add_site(self, net: str, anchors: int = 4, tags: int = 3) -> None:
        """A small site: anchors on a square 10 m apart (the first a seeder),
        and default tags (role 4, 10 Hz)."""
        corners = [(0, 0), (10000, 0), (10000, 10000), (0, 10000), (5000, 0), (5000, 10000)]
        for index in range(anchors):
            x, y = corners[index % len(corners)]
            self.add_device(net, f"01:04:{index + 1:04X}", 3 if index == 0 else 2, (x, y, 2500),
                            name=f"Anchor {index + 1}")
        for index in range(tags):
            self.add_device(net, f"01:05:{index + 1:04X}", 4, name=f"Tag {index + 1}")

    def create_site(self, net: str, anchors: int = 4, tags: int = 3) -> None:
        """The configuration `net` on the simulator with a small site (see
        `add_site`)."""
        self.create_net(net)
        self.add_site(net, anchors=anchors, tags=tags)

    def start(self, net: str) -> None:
        self.post(f"/nets/{net}", {"action": "start"})

    def net_names(self) -> list[str]:
        """The names of the configurations, as the API lists them."""
        return [net["name"] for net in self.get("/nets")["configurations"]]


# --------------------------------------------------------------------------
# The browser


class Browser:
    """A Selenium driver with the lookups a user would make."""

    def __init__(self, driver: webdriver.Chrome, base: str, downloads: Path):
        self.driver = driver
        self.base = base
        self.downloads = downloads
        # Answers the test made fail on purpose (expect_status). None by
        # default: a view that asks for what is known not to exist (a 404
        # on every load) fails its test.
        self.expected: list[re.Pattern] = []
        # Pages of others the test visits (an OpenID provider's login page):
        # their console is theirs, not the front end's.
        self.foreign: list[str] = []

    # Console ----------------------------------------------------------------

    def expect_status(self, *statuses: int) -> None:
        """The test makes requests fail on purpose: the API's answers with
        these statuses (4xx) may show in the console."""
        for status in statuses:
            assert 400 <= status < 500, "only the API's 4xx answers are expected failures"
            self.expected.append(re.compile(rf"status of {status}\b"))

    def console_problems(self) -> list[str]:
        problems = []
        for entry in self.driver.get_log("browser"):
            if entry.get("level") != "SEVERE":
                continue
            message = entry.get("message", "")
            if any(pattern.search(message) for pattern in self.expected) and self.base in message:
                continue
            if any(message.startswith(prefix) for prefix in self.foreign):
                continue
            problems.append(message)
        return problems

    # Navigation ---------------------------------------------------------------

    def open(self, fragment: str = "/") -> None:
        """Goes to a view by its URL fragment (#/nets/x/devices)."""
        target = f"{self.base}/#{fragment}"
        if self.driver.current_url.startswith(self.base + "/"):
            self.driver.execute_script("location.hash = arguments[0]", fragment)
        else:
            self.driver.get(target)

    def reload(self) -> None:
        self.driver.refresh()

    def wait(self, condition: Callable[[Any], Any], timeout: float = WAIT, message: str = "") -> Any:
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05,
                                 ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)
                                 ).until(condition)
        except TimeoutException:
            raise AssertionError(f"{message or 'condition'} not met within {timeout} s; the page says:\n"
                                 f"{self.text()[:2000]}") from None

    def open_view(self, fragment: str, module: str) -> WebElement:
        """Opens a page and waits for its view `module` (see `view`)."""
        self.open(fragment)
        return self.view(module)

    def view(self, module: str, timeout: float = WAIT) -> WebElement:
        """Waits for the view's section (data-view) with its content loaded
        (no "Loading…" placeholder inside); a view may replace its section
        as it loads, so it is found again at each try."""
        def loaded(d):
            for section in d.find_elements(By.CSS_SELECTOR, f'section[data-view="{module}"]'):
                if not section.find_elements(By.CSS_SELECTOR, '[aria-busy="true"]'):
                    return section
            return False
        return self.wait(loaded, timeout, f"the view {module!r}, loaded")

    def text(self, within: WebElement | None = None) -> str:
        try:
            return (within or self.driver.find_element(By.TAG_NAME, "body")).text
        except Exception:  # noqa: BLE001 - only for messages
            return ""

    def wait_text(self, text: str | re.Pattern, within: WebElement | None = None, timeout: float = WAIT) -> str:
        """Waits until the page (or an element) shows the text; returns it."""
        def seen(_):
            shown = self.text(within)
            if isinstance(text, re.Pattern):
                found = text.search(shown)
                return found.group(0) if found else False
            return shown if text in shown else False
        return self.wait(seen, timeout, f"the text {text!r}")

    def status_line(self) -> str:
        return self.text(self.driver.find_element(By.CSS_SELECTOR, 'header.top [role="status"]'))

    # Elements -----------------------------------------------------------------

    def _root(self, within: WebElement | None):
        return within if within is not None else self.driver

    def field(self, label: str, within: WebElement | None = None, exact: bool = True) -> WebElement:
        """The control of the visible label `label` (its `for`, or the control inside it)."""
        def find(_):
            test = f"normalize-space()={xpath_string(label)}" if exact else f"contains(normalize-space(), {xpath_string(label)})"
            for element in self._root(within).find_elements(By.XPATH, f".//label[{test}]"):
                if not element.is_displayed():
                    continue
                target = element.get_attribute("for")
                if target:
                    controls = self.driver.find_elements(By.ID, target)
                    if controls:
                        return controls[0]
                inner = element.find_elements(By.CSS_SELECTOR, "input, select, textarea")
                if inner:
                    return inner[0]
            # aria-label of a control without a visible label (a search box)
            for element in self._root(within).find_elements(By.CSS_SELECTOR, "input, select, textarea"):
                if element.get_attribute("aria-label") == label and element.is_displayed():
                    return element
            return False
        return self.wait(find, message=f"a field labelled {label!r}")

    def field_box(self, control: WebElement) -> WebElement:
        """The `.field` container around a control (where its problem shows)."""
        return control.find_element(By.XPATH, "./ancestor::*[contains(concat(' ', normalize-space(@class), ' '), ' field ')][1]")

    def problem_beside(self, control: WebElement) -> str | bool:
        """The problem shown beside a control (the `.problem` in its
        `.field`) once the control is marked aria-invalid; False before."""
        if control.get_attribute("aria-invalid") != "true":
            return False
        problems = self.field_box(control).find_elements(By.CSS_SELECTOR, ".problem")
        texts = [p.text.strip() for p in problems if p.is_displayed() and p.text.strip()]
        return texts[0] if texts else False

    def wait_problem(self, control: WebElement, message: str) -> str:
        """Waits for a problem beside a control (`message` says which, if
        none comes); returns it."""
        return self.wait(lambda _: self.problem_beside(control), message=message)

    def submit_refused(self, control: WebElement, text: str, button: str, within: WebElement, message: str) -> str:
        """Types `text` into a control, presses the button `button` in
        `within` and waits for the problem beside the control (`message`
        says which, if none comes); returns it."""
        self.type(control, text)
        self.click(self.button(button, within))
        return self.wait_problem(control, message)

    def button(self, text: str, within: WebElement | None = None, exact: bool = True) -> WebElement:
        """A visible, enabled button by its text (or aria-label)."""
        def find(_):
            test = (f"normalize-space()={xpath_string(text)} or @aria-label={xpath_string(text)}" if exact
                    else f"contains(normalize-space(), {xpath_string(text)})")
            for element in self._root(within).find_elements(By.XPATH, f".//button[{test}] | .//input[@type='submit' and @value={xpath_string(text)}]"):
                if element.is_displayed() and element.is_enabled():
                    return element
            return False
        return self.wait(find, message=f"a button {text!r}")

    def link(self, text: str, within: WebElement | None = None, exact: bool = True) -> WebElement:
        def find(_):
            test = f"normalize-space()={xpath_string(text)}" if exact else f"contains(normalize-space(), {xpath_string(text)})"
            for element in self._root(within).find_elements(By.XPATH, f".//a[{test}]"):
                if element.is_displayed():
                    return element
            return False
        return self.wait(find, message=f"a link {text!r}")

    def heading(self, text: str, within: WebElement | None = None) -> WebElement:
        def find(_):
            for element in self._root(within).find_elements(
                    By.XPATH, f".//*[self::h1 or self::h2 or self::h3 or self::h4][contains(normalize-space(), {xpath_string(text)})]"):
                if element.is_displayed():
                    return element
            return False
        return self.wait(find, message=f"a heading {text!r}")

    def dialog(self) -> WebElement:
        return self.wait(lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, "dialog[open]") if e.is_displayed()), False),
                         message="an open dialog")

    def click(self, element: WebElement) -> None:
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()

    def type(self, control: WebElement, text: str, clear: bool = True) -> None:
        if not clear:
            control.send_keys(text)
            return
        for _ in range(5):
            control.clear()
            # clear() sets the value without an input event Preact sees
            self.driver.execute_script(
                "arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", control)
            control.send_keys(text)
            # A dialog fills its fields when it opens: a fill that lands
            # between the clear and the keys leaves the old value in front
            # of the text (CI saw "lab-bannex"); then type it again.
            value = control.get_attribute("value") or ""
            if value == text or not value.endswith(text):
                return

    def fill(self, within: WebElement, *fields: tuple[str, str]) -> None:
        """Fills in the fields of `within` by their labels, in order: types
        into a text field, chooses (by its text) in a select."""
        for label, value in fields:
            control = self.field(label, within)
            if control.tag_name.lower() == "select":
                self.choose(control, value)
            else:
                self.type(control, value)

    def choose(self, control: WebElement, visible_text: str) -> None:
        from selenium.webdriver.support.ui import Select
        Select(control).select_by_visible_text(visible_text)

    def rows(self, within: WebElement | None = None) -> list[WebElement]:
        """The body rows of the tables in view."""
        return [row for row in self._root(within).find_elements(By.CSS_SELECTOR, "table tbody tr") if row.is_displayed()]

    def row(self, text: str, within: WebElement | None = None) -> WebElement:
        """The table row (or list item) that shows `text`."""
        def find(_):
            for element in self._root(within).find_elements(By.XPATH, f".//tr[contains(., {xpath_string(text)})] | .//li[contains(., {xpath_string(text)})]"):
                if element.is_displayed():
                    return element
            return False
        return self.wait(find, message=f"a row showing {text!r}")

    # Files --------------------------------------------------------------------

    def wait_row(self, rows: Callable[[], list[dict[str, str]]], name: str, what: str,
                 **expected: str | re.Pattern) -> dict[str, str]:
        """Waits until `rows()` (rows as their cells by their column's
        header) lists `name` (its Name cell) with the cells `expected`
        (column headers with _ for spaces; a pattern is searched for);
        returns its row. `what` names the thing listed, for the message."""
        def seen(_):
            for row in rows():
                if row.get("Name") != name:
                    continue
                for column, value in expected.items():
                    cell = row.get(column.replace("_", " "), "")
                    if isinstance(value, re.Pattern) and not value.search(cell):
                        return False
                    if isinstance(value, str) and cell != value:
                        return False
                return row
            return False
        return self.wait(seen, message=f"the {what} {name} listed with {expected}")

    def shot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        target = SCREENSHOTS / f"{name}.png"
        self.driver.save_screenshot(str(target))
        return target

    def wait_download(self, suffix: str = "", timeout: float = WAIT) -> Path:
        def arrived(_):
            files = [p for p in self.downloads.iterdir()
                     if not p.name.endswith(".crdownload") and p.name.endswith(suffix) and p.stat().st_size > 0]
            return files[0] if files else False
        return self.wait(arrived, timeout, f"a downloaded file in {self.downloads}")


def xpath_string(text: str) -> str:
    """A string literal for XPath 1 (which has no escapes)."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ", \"'\", ".join(f"'{part}'" for part in text.split("'")) + ")"


def make_driver(downloads: Path, size: tuple[int, int] = (1280, 800), extra: Iterable[str] = ()) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", f"--window-size={size[0]},{size[1]}",
                     "--disable-dev-shm-usage", "--disable-gpu", "--hide-scrollbars", *extra]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.add_experimental_option("prefs", {
        "download.default_directory": str(downloads),
        "download.prompt_for_download": False,
        "safebrowsing.enabled": False,
    })
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    # --window-size is the window's outer size: make the viewport `size`.
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    if list(inner) != list(size):
        outer = driver.get_window_size()
        driver.set_window_size(outer["width"] + size[0] - inner[0], outer["height"] + size[1] - inner[1])
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    return driver


# --------------------------------------------------------------------------
# The floor plan's canvas: a user points at places on it


def plan_point(browser: Browser, x: float, y: float) -> tuple[int, int]:
    """Where the plan point (x, y) mm is in the viewport, now."""
    return tuple(browser.driver.execute_script(
        """const canvas = document.querySelector('section[data-view="floor"] canvas');
        const rect = canvas.getBoundingClientRect();
        const [sx, sy] = window.netcfgFloorPlan.toScreen(arguments[0], arguments[1]);
        return [Math.round(rect.left + sx), Math.round(rect.top + sy)];""", x, y))


def click_plan(browser: Browser, x: float, y: float, double: bool = False) -> None:
    """A click (or a double-click) of the mouse on the plan at (x, y) mm."""
    px, py = plan_point(browser, x, y)
    actions = ActionBuilder(browser.driver)
    actions.pointer_action.move_to_location(px, py)
    if double:
        actions.pointer_action.double_click()
    else:
        actions.pointer_action.click()
    actions.perform()


def drag_plan(browser: Browser, start: tuple[float, float], end: tuple[float, float]) -> None:
    """Presses the mouse at plan point `start`, moves it in steps to `end`, lets go."""
    sx, sy = plan_point(browser, *start)
    ex, ey = plan_point(browser, *end)
    actions = ActionBuilder(browser.driver)
    actions.pointer_action.move_to_location(sx, sy)
    actions.pointer_action.pointer_down()
    for step in range(1, 6):
        actions.pointer_action.move_to_location(round(sx + (ex - sx) * step / 5), round(sy + (ey - sy) * step / 5))
    actions.pointer_action.pointer_up()
    actions.perform()


# --------------------------------------------------------------------------
# Fixtures


@pytest.fixture
def server_factory():
    """Starts servers (optionally with a config file); each is stopped at the
    end. A failing test's report shows their logs."""
    started: list[Server] = []

    def start(config: str | None = None, token: str | None = None, port: int | None = None) -> Server:
        server = Server(config=config, token=token, port=port)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
        server.remove()


@pytest.fixture
def server(server_factory) -> str:
    """A fresh server's base URL (http://127.0.0.1:PORT)."""
    return server_factory().url


@pytest.fixture
def api(server) -> Api:
    return Api(server)


@pytest.fixture
def browser(request, server) -> Iterable[Browser]:
    """Headless Chromium at 1280×800 on the `server`; fails the test when the
    console holds an unexpected SEVERE entry."""
    yield from _browser(request, server)


def _browser(request, base: str, size: tuple[int, int] = (1280, 800)):
    downloads = Path(tempfile.mkdtemp(prefix="netcfg-downloads-"))
    driver = make_driver(downloads, size)
    browser = Browser(driver, base, downloads)
    try:
        yield browser
        if not getattr(request.node, "_netcfg_failed", False):
            problems = browser.console_problems()
            assert not problems, "the browser's console holds errors:\n" + "\n".join(problems)
    finally:
        driver.quit()
        shutil.rmtree(downloads, ignore_errors=True)


@pytest.fixture
def shot(browser) -> Callable[[str], Path]:
    """shot(name): saves the page as <NETCFG_SCREENSHOTS>/<name>.png."""
    return browser.shot


# `with open_browser(request, url, size) as browser:` for a test's own browser.
open_browser = contextlib.contextmanager(_browser)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        item._netcfg_failed = True
        for server in LIVE_SERVERS:
            report.sections.append((f"server log {server.url}", server.log()[-20000:]))
