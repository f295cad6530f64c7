"""The floor plan's site checks (decisions §12), as a user does them: the
predicted coverage under the plan, the survey of the anchors (one of them
displaced by the simulator), and each tag's own error estimate. The API sets
up the site and starts it; the test asserts on what the page shows, and
compares the survey's table with what the API answers. And a fresh
configuration's plan as a new user meets it: nothing asked for that is known
not to exist, anchors that move by dragging only once asked to."""

from __future__ import annotations

import re
from typing import Callable

from selenium.webdriver.common.by import By

from conftest import ROOM_ANCHORS, Api, Browser, drag_plan, plan_point

NET = "site"
# The simulator measures with 30 mm of timing noise, and puts anchor
# 01:04:0003 1.5 m east of where the configuration says it is.
INSTANCE = "sim?toa_noise_mm=30&survey_error=01:04:0003:1500:0:0"
ANCHORS = ROOM_ANCHORS
WALKING_TAG = "01:05:0001"
REFERENCE_TAG = "01:05:0002"
# A survey makes the anchors range each other: give it longer than a click.
SURVEY_WAIT = 60


def section_of(browser: Browser, heading: str, view):
    """The section a heading names."""
    return browser.heading(heading, view).find_element(By.XPATH, "./ancestor::section[1]")


def number(text: str) -> float:
    """A number as the page writes it (with group separators)."""
    return float(re.sub(r"[,\s\u202f\u00a0]", "", text))


def cells_by_header(table_section, row) -> dict[str, str]:
    """A table row's cells by their column's header."""
    headers = [" ".join(th.text.split()) for th in table_section.find_elements(By.CSS_SELECTOR, "thead th")]
    cells = [" ".join(td.text.split()) for td in row.find_elements(By.TAG_NAME, "td")]
    return dict(zip(headers, cells))


def test_coverage_survey_and_tag_errors(browser: Browser, api: Api, shot: Callable[[str], object]):
    api.create_net(NET)
    for index, (serial, xyz) in enumerate(ANCHORS):
        api.add_device(NET, serial, 3 if index == 0 else 2, xyz)
    api.add_device(NET, WALKING_TAG, 4)
    api.add_device(NET, REFERENCE_TAG, 4, (7000, 6000, 1000))
    # A survey error may name only devices the configuration holds.
    api.patch(f"/nets/{NET}", {"name": NET, "instance": INSTANCE})

    # No survey yet: the view does not ask for one (a 404 would fail the test)
    view = browser.open_view(f"/nets/{NET}/floor", "floor")
    survey = section_of(browser, "Anchor survey", view)
    browser.wait_text("No survey in this session", survey)
    # stopped: nothing to survey with
    assert not survey.find_element(By.XPATH, ".//button[normalize-space()='Survey anchors']").is_enabled()

    # Coverage (works stopped): the legend of its scale shows, with the
    # grid's figures once the prediction came
    coverage = browser.field("Coverage", view)
    assert not coverage.is_selected()
    browser.click(coverage)
    legend = section_of(browser, "Coverage: predicted 95% error", view)
    # at the height the coverage was asked for (z = 1000 mm)
    assert "at a height of 1.00 m" in browser.text(legend), browser.text(legend)
    for text in ["good", "fair", "poor", "Not covered"]:
        assert text in browser.text(legend), browser.text(legend)
    figures = browser.wait_text(re.compile(r"([\d,.\s\u202f\u00a0]+) of ([\d,.\s\u202f\u00a0]+) cells of 500 mm covered"), legend)
    covered, cells = (number(part) for part in re.findall(r"[\d][\d,.\s\u202f\u00a0]*", figures)[:2])
    assert 0 < covered <= cells, figures
    failures = [e.text for e in view.find_elements(By.CSS_SELECTOR, ".notice.level-1") if e.is_displayed()]
    assert not failures, failures
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", view.find_element(By.TAG_NAME, "canvas"))
    shot("floor-coverage")

    # Running, the survey can be made: every anchor is judged, and the one
    # the simulator displaced is bad, with a suggested position near where
    # it really is
    api.start(NET)
    browser.click(browser.button("Survey anchors", view))
    rows = browser.wait(lambda _: (lambda found: found if len(found) == len(ANCHORS) else False)(browser.rows(survey)),
                        timeout=SURVEY_WAIT, message=f"{len(ANCHORS)} anchors in the survey's table")
    shown = {}
    for row in rows:
        values = cells_by_header(survey, row)
        serial = re.search(r"[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{4}", values["Anchor"])
        assert serial, values
        verdict = re.search(r"\b(good|check|bad)\b", values["Verdict"])
        assert verdict, values
        shown[serial.group(0)] = (verdict.group(1), number(values["Residual (mm)"]), values["Suggested position"])
    assert set(shown) == {serial for serial, _ in ANCHORS}, shown
    verdict, residual, suggested = shown["01:04:0003"]
    assert verdict == "bad" and residual > 1000, shown["01:04:0003"]
    where = re.search(r"x (-?[\d.]+) m, y (-?[\d.]+) m", suggested)
    assert where, suggested
    assert abs(float(where.group(1)) - 21.5) <= 0.6 and abs(float(where.group(2)) - 15.0) <= 0.6, suggested
    for serial, (verdict, _, _) in shown.items():
        if serial != "01:04:0003":
            assert verdict != "bad", (serial, shown[serial])
    # the table is the API's survey
    report = api.get(f"/nets/{NET}/survey")["survey"]
    assert {anchor["serial_number"]: anchor["verdict"] for anchor in report["anchors"]} == \
        {serial: verdict for serial, (verdict, _, _) in shown.items()}
    # the plan rings the anchors by verdict: its legend says how
    legend_items = browser.text(section_of(browser, "Legend", view))
    assert "Survey: bad" in legend_items and "Where the survey puts a bad anchor" in legend_items, legend_items
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", view.find_element(By.TAG_NAME, "canvas"))
    shot("floor-survey")

    # The tags' list has each tag's own 95% error estimate, in mm
    tags = section_of(browser, "Tags", view)

    def errors_listed(_):
        listed = {}
        for row in browser.rows(tags):
            values = cells_by_header(tags, row)
            serial = re.search(r"[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{4}", values.get("Tag", ""))
            error = values.get("Error (mm)", "")
            if serial and re.fullmatch(r"[\d,.\s\u202f\u00a0]+", error):
                listed[serial.group(0)] = number(error)
        return listed if {WALKING_TAG, REFERENCE_TAG} <= set(listed) else False

    errors = browser.wait(errors_listed, message="both tags listed with their error (mm)")
    assert all(0 < error < 100_000 for error in errors.values()), errors
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", tags)
    shot("floor-tags")

    # Opened again in this tab, the plan shows the survey made: it asks for
    # the last one now that it knows there is one
    browser.reload()
    view = browser.view("floor")
    survey = section_of(browser, "Anchor survey", view)
    browser.wait(lambda _: len(browser.rows(survey)) == len(ANCHORS), message="the last survey shown again")
    assert "Survey: bad" in browser.text(section_of(browser, "Legend", view))


def test_fresh_floor_plan_asks_nothing_missing_and_drags_anchors_only_when_asked(browser: Browser, api: Api):
    api.create_net("fresh")
    view = browser.open_view("/nets/fresh/floor", "floor")
    survey = section_of(browser, "Anchor survey", view)
    browser.wait_text("No survey in this session", survey)
    browser.wait_text("No positions yet", section_of(browser, "Tags", view))
    # no anchors: nothing to move
    assert not [label for label in view.find_elements(By.XPATH, ".//label[normalize-space()='Move anchors by dragging']")
                if label.is_displayed()]

    # An anchor added: the control shows, off
    api.add_device("fresh", "01:04:0001", 3, (0, 0, 2500))
    api.add_device("fresh", "01:04:0002", 2, (10000, 0, 2500))
    dragging = browser.field("Move anchors by dragging", view)
    assert not dragging.is_selected()
    # a drag that starts on an anchor pans the plan: the anchor stays
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", view.find_element(By.TAG_NAME, "canvas"))
    before = plan_point(browser, 10000, 0)
    drag_plan(browser, (10000, 0), (9000, 1000))
    browser.wait(lambda _: plan_point(browser, 10000, 0) != before, message="the plan panned")
    assert api.get("/nets/fresh/devices/01:04:0002")["device"]["interfaces"][0]["x"] == 10000

    # Ticked, the same drag moves the anchor
    browser.click(dragging)
    drag_plan(browser, (10000, 0), (9000, 1000))
    browser.wait(lambda _: api.get("/nets/fresh/devices/01:04:0002")["device"]["interfaces"][0]["x"] != 10000,
                 message="the anchor moved")
    moved = api.get("/nets/fresh/devices/01:04:0002")["device"]["interfaces"][0]
    assert abs(moved["x"] - 9000) < 300 and abs(moved["y"] - 1000) < 300, moved
