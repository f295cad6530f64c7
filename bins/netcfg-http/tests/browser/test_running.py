"""A running configuration, as a site engineer meets it (issue 46): a change
that waits for a restart says so on the Overview and the Devices views,
with the buttons that apply it; the configurations' list restarts a
running one; the change history offers no restore to a start, stop,
restart or reload."""

from __future__ import annotations

import re

from selenium.webdriver.common.by import By

from conftest import Api, Browser

WAITING = "Changes wait for a restart"


def restart_line(view):
    """The line saying that changes wait for a restart (an alert), or False."""
    lines = [element for element in view.find_elements(By.XPATH, f".//*[@role='alert'][contains(., '{WAITING}')]")
             if element.is_displayed()]
    return lines[0] if lines else False


def heard(browser: Browser, view) -> str:
    """The Overview's "Heard" card's figure: "7 of 7"."""
    card = browser.heading("Heard", view).find_element(By.XPATH, "./..")
    return " ".join(card.find_element(By.CSS_SELECTOR, "p").text.split())


def test_a_device_added_while_running_joins_after_a_restart(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=2)
    api.start("lab")
    devices = browser.open_view("/nets/lab/devices", "devices")
    browser.wait_text("6 devices", devices)
    assert not restart_line(devices)

    # another client adds a tag while the network runs: it waits for a restart
    api.add_device("lab", "01:05:0003", 4, name="Late tag")
    line = browser.wait(lambda _: restart_line(devices), message="the line saying changes wait, without a reload")
    assert "restarted or reloaded" in line.text, line.text
    assert api.get("/nets/lab")["configuration"]["restart_needed"] is True

    # the Overview says it too; the new tag is not heard yet
    browser.click(browser.link("Overview", browser.driver.find_element(By.CSS_SELECTOR, "nav.side")))
    overview = browser.view("overview")
    line = browser.wait(lambda _: restart_line(overview), message="the line on the Overview")
    browser.wait(lambda _: heard(browser, overview) == "6 of 7", message="six of seven devices heard")
    assert "not heard" in browser.row("Late tag", overview).text

    browser.click(browser.button("Restart", line))
    browser.wait(lambda _: not restart_line(overview), message="the line gone after the restart")
    browser.wait(lambda _: heard(browser, overview) == "7 of 7", message="the late tag heard after the restart")
    assert api.get("/nets/lab")["configuration"]["restart_needed"] is False
    assert api.get("/nets/lab/history")["history"][0]["summary"] == "Restarted"

    # a reload takes a change without stopping the network
    api.add_device("lab", "01:05:0004", 4, name="Later tag")
    line = browser.wait(lambda _: restart_line(overview), message="the line again, after another device")
    browser.click(browser.button("Reload", line))
    browser.wait(lambda _: not restart_line(overview), message="the line gone after the reload")
    browser.wait(lambda _: heard(browser, overview) == "8 of 8", message="the later tag heard after the reload")
    assert api.get("/nets/lab/history")["history"][0]["summary"] == "Reloaded"

    # a name is taken live: nothing waits
    api.patch("/nets/lab/devices/01:05:0004", {"serial_number": "01:05:0004", "name": "Forklift", "disabled": False,
                                                "interfaces": [{"identifier": 0, "role_id": 4}]})
    devices = browser.open_view("/nets/lab/devices", "devices")
    browser.row("Forklift", devices)
    assert not restart_line(devices)


def test_the_configurations_list_restarts_a_running_one(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=1)
    nets = browser.open_view("/", "nets")
    row = browser.row("lab", nets)
    assert not row.find_elements(By.XPATH, ".//button[normalize-space()='Restart']")
    browser.click(browser.button("Start lab", nets))
    browser.click(browser.button("Restart lab", nets))
    browser.wait(lambda _: "Configuration lab restarted" in browser.status_line(), message="the restart said in the status line")
    browser.wait(lambda _: api.get("/nets/lab/history")["history"][0]["summary"] == "Restarted",
                 message="the restart journalled")
    assert "Running" in browser.row("lab", nets).text
    # the Overview offers it beside Stop
    overview = browser.open_view("/nets/lab", "overview")
    browser.button("Stop", overview)
    browser.button("Restart", overview)


def test_history_offers_no_restore_to_a_start_or_stop(browser: Browser, api: Api):
    api.create_net("lab")
    api.add_device("lab", "01:04:0001", 3, (0, 0, 2500))
    api.add_device("lab", "01:05:0001", 4)
    api.start("lab")
    api.post("/nets/lab", {"action": "restart"})
    api.post("/nets/lab", {"action": "stop"})
    # a schedule's run has no request
    api.post("/nets/lab/schedules", {"name": "pulse", "cron": "* * * * * *", "action": "start", "timezone": "UTC"})
    browser.wait(lambda _: any(entry["origin"] == "schedule:pulse" for entry in api.get("/nets/lab/history")["history"]),
                 message="the schedule's start journalled")
    api.call("DELETE", "/nets/lab/schedules/pulse")

    view = browser.open_view("/nets/lab/history", "history")
    scheduled = browser.row("schedule:pulse", view)
    cells = scheduled.find_elements(By.TAG_NAME, "td")
    assert cells[3].text == "–" and "none" not in scheduled.text, scheduled.text
    # starts, stops, restarts and reloads offer nothing; the newest change of
    # content is the current one (below the steps), and each older one can
    # be restored to
    rows = [(row.find_elements(By.TAG_NAME, "td")[4].text, row) for row in browser.rows(view)]
    steps = [row for summary, row in rows if summary in ("Started", "Restarted", "Stopped")]
    content = [row for summary, row in rows if summary not in ("Started", "Restarted", "Stopped")]
    assert len(steps) == 4, [summary for summary, _ in rows]
    for row in steps:
        assert not row.find_elements(By.XPATH, ".//button"), row.text
    assert content[0].text.count("Delete a schedule") == 1 and "current" in content[0].text and not content[0].find_elements(By.XPATH, ".//button"), content[0].text
    for row in content[1:]:
        browser.button("Restore to here", row)
    assert re.search(r"POST /nets/lab\b", browser.row("Restarted", view).text)
