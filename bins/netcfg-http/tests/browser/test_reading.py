"""Views read as a site engineer reads them (issue 46): no bare "none",
no number without its unit."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from conftest import Api, Browser


def cells(browser: Browser, view, text: str) -> dict[str, str]:
    """The cells of the row showing `text`, by their column's header."""
    row = browser.row(text, view)
    table = row.find_element(By.XPATH, "./ancestor::table[1]")
    headers = [" ".join(th.text.split()) for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
    values = [" ".join(cell.text.split()) for cell in row.find_elements(By.XPATH, "./th | ./td")]
    return dict(zip(headers[-len(values):], values))


def test_a_notification_of_the_whole_network_says_so(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=1)
    api.start("lab")
    view = browser.open_view("/nets/lab/notifications", "notifications")
    started = cells(browser, view, "network started")
    assert started["Device"] == "the whole network", started
    joined = cells(browser, view, "01:05:0001 joined")
    assert joined["Device"] == "01:05:0001", joined


def test_a_roles_downlink_window_reads_in_milliseconds(browser: Browser, api: Api):
    api.create_net("lab")
    api.post("/nets/lab/roles", {"name": "Fast tag", "network_period": 48750, "window_duration": 4875})
    view = browser.open_view("/nets/lab/roles", "roles")
    fast = cells(browser, view, "Fast tag")
    assert fast["Downlink window"] == "4,875 5 ms", fast
    assert fast["Network period"] == "48,750 50 ms (20 Hz)", fast
    assert cells(browser, view, "DEFAULT TAG")["Downlink window"] == "0 none"


def test_an_alert_rules_level_reads_as_a_word(browser: Browser, api: Api):
    api.create_net("lab")
    view = browser.open_view("/nets/lab/alerts", "alerts")
    browser.click(browser.button("Add alert rule", view))
    dialog = browser.dialog()
    browser.fill(dialog, ("Name", "quiet"), ("Condition", "Tag silent"), ("Level", "Warning"))
    browser.click(browser.button("Add alert rule", dialog))
    browser.wait(lambda _: cells(browser, view, "quiet").get("Level") == "Warning", message="the rule's level, a word")
    assert api.get("/nets/lab/alert_rules/quiet")["alert_rule"]["level"] == 2
