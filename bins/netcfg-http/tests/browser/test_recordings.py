"""Recordings and their replay (decisions §15), as a user works them.

The Recordings view: reached from the navigation; while the configuration
is stopped it says why nothing can start; started (through the API), a
recording started from the form is listed as recording, its datagrams
growing, then stopped: its count matches the API's and its file, downloaded
from the page and fetched from the download URL, is a pcap. A duration the
form cannot read, and one the server refuses, show beside the field; a
recording with a duration ends by itself. A file that is not a pcap is
refused on upload with the server's reason beside the file, a name taken
beside the name, and the downloaded capture uploaded under another name is
listed as uploaded. Replay creates a configuration replaying a recording
and starts it (or says why it did not start). Delete asks first.

The timeline: a configuration replaying a recording, created and started
through the API, shows its timeline over the floor plan: paused, the
position stops advancing; moved with the slider, the replay goes there;
the speed and loop controls change the replay; leaving the view stops the
polling. It needs the engine's replay player: until the engine has it,
starting a replay answers `instance_unavailable` ("replays are not wired
yet") and the test is skipped, saying so.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from conftest import API_VERSION, Api, ApiFailure, Browser

NET = "hall"
# The first bytes of a classic pcap file written little-endian.
PCAP_MAGIC = bytes.fromhex("d4c3b2a1")
PCAP = "application/vnd.tcpdump.pcap"


# --------------------------------------------------------------------------
# What the page shows


def section_of(browser: Browser, heading: str, within: WebElement) -> WebElement:
    """The section a heading names."""
    return browser.heading(heading, within).find_element(By.XPATH, "./ancestor::section[1]")


def listed(view: WebElement) -> list[dict[str, str]]:
    """The recordings listed, each as its cells by their column's header."""
    rows = []
    for table in view.find_elements(By.TAG_NAME, "table"):
        headers = [" ".join(th.text.split()) for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
        for row in table.find_elements(By.CSS_SELECTOR, "tbody tr"):
            if row.is_displayed():
                cells = [" ".join(cell.text.split()) for cell in row.find_elements(By.CSS_SELECTOR, "th, td")]
                rows.append(dict(zip(headers, cells)))
    return rows


def row_of(browser: Browser, view: WebElement, name: str, **expected: str | re.Pattern) -> dict[str, str]:
    """Waits until the recording `name` is listed with the cells `expected`
    (a pattern is searched for); returns its row."""
    return browser.wait_row(lambda: listed(view), name, "recording", **expected)


def count(text: str) -> int:
    """A count as the page writes it (with group separators)."""
    return int(re.sub(r"\D", "", text) or "0")


def dialog_closed(browser: Browser) -> None:
    browser.wait(lambda d: not [e for e in d.find_elements(By.CSS_SELECTOR, "dialog[open]") if e.is_displayed()],
                 message="the dialog closed")


# --------------------------------------------------------------------------
# The API


def put_file(api: Api, path: str, data: bytes) -> dict:
    """PUTs a file as the body (the upload's way); the answer, or ApiFailure."""
    request = urllib.request.Request(api.url + path, data=data, method="PUT",
                                     headers={"Api-Version": API_VERSION, "Content-Type": PCAP})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        raise ApiFailure(error.code, json.loads(error.read())) from None


def record(api: Api, net: str, name: str, seconds: float) -> dict:
    """A recording of `seconds` (or more, until it holds a datagram) made
    through the API; as it ended."""
    api.post(f"/nets/{net}/recordings", {"name": name})
    deadline = time.monotonic() + 30
    time.sleep(seconds)
    while api.get(f"/nets/{net}/recordings/{name}")["recording"]["datagrams"] == 0:
        assert time.monotonic() < deadline, "the recording never held a datagram"
        time.sleep(0.2)
    return api.call("DELETE", f"/nets/{net}/recordings/{name}")["recording"]


def replays_not_wired(failure: ApiFailure) -> bool:
    """The engine has no replay player yet (another branch writes it)."""
    return failure.body.get("code") == "instance_unavailable" and "not wired" in (failure.body.get("message") or "")


# --------------------------------------------------------------------------
# The Recordings view


def test_record_stop_download_upload_replay_and_delete(browser: Browser, api: Api, shot: Callable[[str], object]):
    api.create_site(NET, anchors=4, tags=3)

    # Reached from the navigation; stopped, it says why nothing can start
    browser.open(f"/nets/{NET}")
    browser.view("overview")
    browser.click(browser.link("Recordings", browser.driver.find_element(By.CSS_SELECTOR, "nav.side")))
    view = browser.view("recordings")
    browser.wait_text("No recordings yet", view)
    start = section_of(browser, "Start a recording", view)
    browser.wait_text("one starts only then", start)
    assert not [b for b in start.find_elements(By.TAG_NAME, "button") if b.is_displayed()], "no form while stopped"

    # Started, the form appears; a recording started from it is listed as recording
    api.start(NET)
    start_button = browser.button("Start recording", start)
    browser.type(browser.field("Name", start), "morning")
    browser.click(start_button)
    row_of(browser, view, "morning", State="recording…")
    assert api.get(f"/nets/{NET}/recordings/morning")["recording"]["active"] is True
    # asked for again every 2 s: its datagrams and size grow on the page
    first = browser.wait(lambda _: next((row for row in listed(view) if row.get("Name") == "morning" and count(row["Datagrams"]) > 0), False),
                         message="the recording's datagrams counted")
    browser.wait(lambda _: next((row for row in listed(view) if row.get("Name") == "morning"
                                 and count(row["Datagrams"]) > count(first["Datagrams"])), False),
                 message="the recording's datagrams growing")

    # Stopped: the file kept, its count the API's
    browser.click(browser.button("Stop morning", view))
    row = row_of(browser, view, "morning", State="stopped")
    stored = api.get(f"/nets/{NET}/recordings/morning")["recording"]
    assert stored["active"] is False and stored["ended"] == "stopped" and stored["datagrams"] > 0, stored
    row = row_of(browser, view, "morning", Datagrams=re.compile(r"\d"))
    assert count(row["Datagrams"]) == stored["datagrams"], (row, stored)

    # Downloaded from the page, and from its URL: a pcap file
    browser.click(browser.button("Download morning", view))
    downloaded = browser.wait_download(".pcap")
    assert downloaded.name == "morning.pcap", downloaded
    assert downloaded.read_bytes()[:4] == PCAP_MAGIC
    with urllib.request.urlopen(f"{api.url}/nets/{NET}/recordings/morning/download", timeout=30) as response:
        data = response.read()
    assert data[:4] == PCAP_MAGIC, data[:16]
    assert len(data) == stored["size"] and data == downloaded.read_bytes()

    # A duration the form cannot read, then one the server refuses, beside the field
    browser.type(browser.field("Name", start), "short")
    duration = browser.field("Duration", start)
    problem = browser.submit_refused(duration, "soon", "Start recording", start, "a problem beside the duration")
    assert "10m" in problem, problem
    browser.expect_status(400)
    problem = browser.submit_refused(duration, "8d", "Start recording", start, "the server's problem beside the duration")
    with pytest.raises(ApiFailure) as refused:
        api.post(f"/nets/{NET}/recordings", {"name": "short", "duration_s": 8 * 86400})
    assert problem == "; ".join(p["problem"] for p in refused.value.body["problems"] if p["field"] == "duration_s"), problem
    # A recording of 2 s ends by itself
    browser.type(duration, "2s")
    browser.click(browser.button("Start recording", start))
    row_of(browser, view, "short", State="recording…")
    row_of(browser, view, "short", State="its duration passed")
    assert api.get(f"/nets/{NET}/recordings/short")["recording"]["ended"] == "duration"

    # A file that is not a pcap: refused, the server's reason beside the file
    upload = section_of(browser, "Upload a recording", view)
    scratch = Path(tempfile.mkdtemp(prefix="netcfg-recordings-"))
    notes = scratch / "site notes.txt"
    notes.write_text("anchors moved on Tuesday\n")
    chooser = browser.field("Capture file", upload)
    chooser.send_keys(str(notes))
    name = browser.field("Name", upload)
    browser.wait(lambda _: name.get_attribute("value") == "site-notes", message="the name suggested from the file's")
    browser.click(browser.button("Upload", upload))
    problem = browser.wait_problem(chooser, "the server's reason beside the file")
    with pytest.raises(ApiFailure) as refused:
        put_file(api, f"/nets/{NET}/recordings/site-notes", notes.read_bytes())
    assert refused.value.status == 400 and refused.value.body["code"] == "upload_refused", refused.value.body
    assert problem == refused.value.body["message"], problem
    assert "site-notes" not in [r["name"] for r in api.get(f"/nets/{NET}/recordings")["recordings"]]
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", upload)
    shot("recordings-upload-problem")

    # The downloaded capture: its own name is taken (beside Name), another is not
    browser.expect_status(409)
    chooser.send_keys(str(downloaded))
    browser.wait(lambda _: name.get_attribute("value") == "morning", message="the name suggested from the capture's")
    browser.click(browser.button("Upload", upload))
    problem = browser.wait_problem(name, "the name taken, beside the name")
    assert "morning" in problem, problem
    browser.type(name, "morning-copy")
    browser.click(browser.button("Upload", upload))
    row = row_of(browser, view, "morning-copy", State="uploaded")
    assert count(row["Datagrams"]) == stored["datagrams"], row
    name = browser.field("Name", section_of(browser, "Upload a recording", view))
    assert name.get_attribute("value") == "", "the form is emptied after an upload"

    # Replay: a configuration replaying it is created and started, its floor plan opened
    # (until the engine has its replay player, it is created but does not start, and says why)
    browser.expect_status(409)
    browser.click(browser.button("Replay morning", view))
    dialog = browser.dialog()
    replay_name = browser.field("Name of the new configuration", dialog)
    assert replay_name.get_attribute("value") == f"{NET}-replay-morning"
    browser.type(replay_name, "morning-again")
    browser.click(browser.button("Create and start", dialog))
    created = browser.wait(lambda _: next((net for net in api.get("/nets")["configurations"] if net["name"] == "morning-again"), False),
                           message="the replay's configuration created")
    assert created["instance"] == f"replay:{NET}/morning", created
    outcome = browser.wait(lambda d: ("floor" if d.find_elements(By.CSS_SELECTOR, 'section[data-view="floor"]')
                                      else "unstarted" if "did not start" in browser.text(dialog) else False),
                           message="the floor plan, or why the replay did not start")
    if outcome == "floor":
        assert browser.driver.current_url.endswith("#/nets/morning-again/floor"), browser.driver.current_url
        browser.heading(f"Replay of {NET}/morning", browser.view("floor"))
        api.post("/nets/morning-again", {"action": "stop"})
        view = browser.open_view(f"/nets/{NET}/recordings", "recordings")
    else:
        with pytest.raises(ApiFailure) as unstarted:
            api.post("/nets/morning-again", {"action": "start"})
        assert unstarted.value.body["message"] in browser.text(dialog), browser.text(dialog)
        browser.click(browser.button("Close", dialog))
        dialog_closed(browser)

    # Deleted after a confirmation
    browser.click(browser.button("Delete morning", view))
    dialog = browser.dialog()
    assert "Delete recording morning?" in browser.text(dialog)
    browser.click(browser.button("Delete", dialog))
    dialog_closed(browser)
    browser.wait(lambda _: "morning" not in [row.get("Name") for row in listed(view)], message="morning gone from the list")
    assert sorted(r["name"] for r in api.get(f"/nets/{NET}/recordings")["recordings"]) == ["morning-copy", "short"]


# --------------------------------------------------------------------------
# The replay timeline


def test_replay_timeline_pauses_seeks_and_stops_polling(browser: Browser, api: Api, shot: Callable[[str], object]):
    api.create_site(NET, anchors=4, tags=3)
    api.start(NET)
    night = record(api, NET, "night", seconds=8)
    assert night["duration_ms"] > 4000, night
    replay = "hall-replay-night"
    api.create_net(replay, f"replay:{NET}/night?loop=1")
    try:
        api.start(replay)
    except ApiFailure as failure:
        if replays_not_wired(failure):
            pytest.skip(f"the engine has no replay player yet: {failure.body['message']}")
        raise

    browser.open(f"/nets/{replay}/floor")
    # every question kept, so that counting them later is exact
    browser.driver.execute_script("performance.setResourceTimingBufferSize(100000)")
    view = browser.view("floor")
    bar = section_of(browser, f"Replay of {NET}/night", view)
    slider = browser.field("Position", bar)
    clock = bar.find_element(By.TAG_NAME, "output")
    assert int(slider.get_attribute("max")) == night["duration_ms"]
    assert browser.field("Loop", bar).is_selected(), "the instance asked for a loop"

    def position() -> int:
        return int(float(slider.get_attribute("value")))

    # Playing, the position advances
    before = position()
    browser.wait(lambda _: position() != before, message="the position advancing")

    # Paused, it stops
    browser.click(browser.button("Pause", bar))
    browser.button("Play", bar)
    state = api.get(f"/nets/{replay}/replay")["replay"]
    assert state["paused"] is True, state
    held = position()
    time.sleep(1.5)
    paused_at = api.get(f"/nets/{replay}/replay")["replay"]["position_ms"]
    assert paused_at == state["position_ms"], "the replay stood still"
    # The slider shows it within its step.
    assert position() == held and abs(held - paused_at) <= int(slider.get_attribute("step") or 1)

    # Moved with the slider, the replay goes there (and stays: paused)
    target = night["duration_ms"] // 2 // 100 * 100
    browser.driver.execute_script(
        """const [slider, value] = arguments;
        slider.value = String(value);
        slider.dispatchEvent(new Event('input', {bubbles: true}));
        slider.dispatchEvent(new Event('change', {bubbles: true}));""", slider, target)
    browser.wait(lambda _: abs(api.get(f"/nets/{replay}/replay")["replay"]["position_ms"] - target) <= 100,
                 message="the replay moved to the slider's position")
    browser.wait(lambda _: abs(position() - target) <= 100, message="the slider at the replay's position")
    minutes, seconds = divmod(target // 1000, 60)
    assert clock.text.startswith(f"{minutes}:{seconds:02d} / "), clock.text

    # Faster, then playing again
    browser.choose(browser.field("Speed", bar), "5×")
    browser.wait(lambda _: api.get(f"/nets/{replay}/replay")["replay"]["speed"] == 5, message="the speed changed")
    browser.click(browser.button("Play", bar))
    browser.button("Pause", bar)
    moved = position()
    browser.wait(lambda _: position() != moved, message="the position advancing again")
    browser.click(browser.field("Loop", bar))
    browser.wait(lambda _: api.get(f"/nets/{replay}/replay")["replay"]["loop"] is False, message="the loop off")
    shot("floor-replay")

    # Left, the view asks no more
    def asked() -> int:
        return browser.driver.execute_script(
            "return performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/replay')).length")
    browser.open(f"/nets/{replay}")
    browser.view("overview")
    then = asked()
    time.sleep(1.5)
    assert asked() == then, "the timeline kept asking after the view was left"
