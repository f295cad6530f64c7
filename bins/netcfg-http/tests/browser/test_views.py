"""Every view of the VIEWS table (app.js, lib/views.js) renders, at 1280×800, over a running
configuration with devices, without console errors; each one's screenshot
goes to docs/ui/<module>.png (NETCFG_SCREENSHOTS). The devices view is also
shot at tablet size (768×1024)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from conftest import WORKSPACE, Api, Browser, Server, _browser

NET = "site"


def views() -> list[tuple[str, str]]:
    """(pattern, module) of each row of the VIEWS table (app.js, or the
    lib/ module app.js imports it from)."""
    ui = Path(os.environ.get("DEV_UI_DIR") or WORKSPACE / "crates" / "netcfg-ui" / "ui")
    for source_file in [ui / "app.js", *sorted((ui / "lib").glob("*.js"))]:
        source = source_file.read_text()
        if "export const VIEWS" not in source:
            continue
        table = source[source.index("export const VIEWS"):]
        table = table[:table.index("];")]
        rows = re.findall(r'pattern:\s*"([^"]+)",\s*module:\s*"([^"]+)"', table)
        assert rows, f"no views found in {source_file}"
        return rows
    raise AssertionError(f"no VIEWS table in {ui}/app.js or {ui}/lib/")


VIEWS = views()


@pytest.fixture(scope="module")
def site():
    """One server for the module, with a running configuration: 6 anchors,
    8 tags, a custom role, a position limit, a device pair, a recording of
    2 s, notifications from the start; and a stopped configuration."""
    server = Server()
    api = Api(server.url)
    api.create_net(NET)
    api.post(f"/nets/{NET}/roles", {"name": "Fast tag", "network_period": 48750})
    api.add_site(NET, anchors=6, tags=8)
    api.post(f"/nets/{NET}/position_limits", {"name": "Loading bay", "min_x": 1000, "min_y": 1000, "min_z": 0,
                                               "max_x": 6000, "max_y": 4000, "max_z": 3000})
    api.post(f"/nets/{NET}/device_pairs", {"pairs": [{"serial_number_1": "01:04:0002", "serial_number_2": "01:04:0003",
                                                      "type": "blacklist"}]})
    api.start(NET)
    # a recording that ends by itself, so that the Recordings view lists one
    api.post(f"/nets/{NET}/recordings", {"name": "first-shift", "duration_s": 2})
    # a stopped one beside it, so the list shows both states
    api.create_site("warehouse", anchors=4, tags=2)
    yield server
    server.stop()
    server.remove()


@pytest.fixture(scope="module")
def module_browser(request, site):
    yield from _browser(request, site.url)


def settle(browser: Browser, section, quiet_ms: int = 300, limit: float = 3.0) -> None:
    """Waits until the view's markup stops changing for `quiet_ms` (live
    views keep changing: then at most `limit` seconds)."""
    browser.driver.set_script_timeout(limit + 2)
    browser.driver.execute_async_script(
        """
        const [section, quiet, limit, done] = arguments;
        const start = performance.now();
        let last = performance.now();
        const observer = new MutationObserver(() => { last = performance.now(); });
        observer.observe(section, {subtree: true, childList: true, characterData: true, attributes: true});
        (function check() {
          const now = performance.now();
          if (now - last >= quiet || now - start >= limit * 1000) { observer.disconnect(); done(); }
          else setTimeout(check, 50);
        })();
        """,
        section, quiet_ms, limit)


def fragment(pattern: str) -> str:
    return pattern.replace(":net", NET)


@pytest.mark.parametrize("pattern,module", VIEWS, ids=[module for _, module in VIEWS])
def test_view_renders(module_browser: Browser, pattern: str, module: str):
    browser = module_browser
    section = browser.open_view(fragment(pattern), module)
    heading = section.find_element(By.TAG_NAME, "h1")
    assert heading.text.strip(), f"the view {module} has no heading"
    # the view says something beyond its heading
    assert len(browser.text(section).strip()) > len(heading.text.strip()), f"the view {module} is empty"
    # a failure of the view is shown inside it, as an alert: none here
    failures = [e.text for e in browser.driver.find_elements(By.CSS_SELECTOR, "main .notice.level-1") if e.is_displayed()]
    assert not failures, f"the view {module} shows an error: {failures}"
    assert "This view failed" not in browser.text(), browser.text()
    settle(browser, section)
    browser.shot(module)
    problems = browser.console_problems()
    assert not problems, f"console errors on {module}:\n" + "\n".join(problems)


@pytest.fixture
def tablet(request, site):
    yield from _browser(request, site.url, size=(768, 1024))


def test_devices_at_tablet_size(tablet: Browser):
    tablet.open(f"/nets/{NET}/devices")
    section = tablet.view("devices")
    tablet.wait_text("01:04:0001", section)
    # nothing wider than the window: the page does not scroll sideways
    overflow = tablet.driver.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    settle(tablet, section)
    tablet.shot("devices-tablet")
    assert overflow <= 0, f"the devices view is {overflow} px wider than a 768 px window"
