"""Tracked tags on the floor plan and their roles (issue 48, decisions §18),
as a user meets them: a walking tag leaves a faint trail of its last
seconds behind it (Trails in the plan's toolbar turns trails off and on);
hovering over the tag gives its speed in the plan's tooltip; its role's
tracking is set to "off" with the Roles view's form (the table says so,
an anchor's form offers no tracking); once restarted, the tag's tooltip
says it is untracked. The API sets up the site on the simulator and starts
and stops it; the test points at the tag through the plan's own transform
(window.netcfgFloorPlan, which also gives a tag's trail: its points and the
vertices of its polyline in the last frame)."""

from __future__ import annotations

import re

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select

from conftest import ROOM_ANCHORS, WAIT, Api, Browser, plan_point

NET = "tracking"
# Four anchors at the corners of a 20 m by 15 m room (the first a seeder)
# and a tag with no position of its own: the simulator walks it.
ANCHORS = ROOM_ANCHORS[:4]
TAG = "01:05:0001"
TAG_NAME = "Walker"
SPEED = re.compile(rf"^Tag {re.escape(TAG)} \({TAG_NAME}\): (\d+\.\d m/s)$")
UNTRACKED = re.compile(rf"^Tag {re.escape(TAG)} \({TAG_NAME}\): (untracked)$")


def trail(browser: Browser) -> dict:
    """The tag's trail as the plan holds it: {points: [[x, y] mm], drawn: vertices}."""
    return browser.driver.execute_script(
        "return window.netcfgFloorPlan ? window.netcfgFloorPlan.trail(arguments[0]) : {points: [], drawn: 0}", TAG)


def canvas_of(view: WebElement) -> WebElement:
    return view.find_element(By.TAG_NAME, "canvas")


def hover_tag(browser: Browser, view: WebElement, wanted: re.Pattern) -> str:
    """Moves the mouse onto the tag where it is now, again until the
    canvas's title (the hovered tag's tooltip) matches `wanted` (the tag
    walks: a move may land beside it); returns what matched."""
    canvas = canvas_of(view)
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)

    def seen(_):
        points = trail(browser)["points"]
        if not points:
            return False
        x, y = points[-1]
        px, py = plan_point(browser, x, y)
        actions = ActionBuilder(browser.driver)
        actions.pointer_action.move_to_location(px, py)
        actions.perform()
        found = wanted.search(canvas.get_attribute("title") or "")
        return found.group(1) if found else False
    return browser.wait(seen, timeout=2 * WAIT, message=f"the tag's tooltip matching {wanted.pattern!r}")


def move_away(browser: Browser, view: WebElement) -> None:
    """The mouse off the plan (onto its heading)."""
    ActionChains(browser.driver).move_to_element(view.find_element(By.TAG_NAME, "h1")).perform()


def test_trails_speed_and_tracking_off(browser: Browser, api: Api):
    api.create_net(NET)
    for index, (serial, xyz) in enumerate(ANCHORS):
        api.add_device(NET, serial, 3 if index == 0 else 2, xyz)
    api.add_device(NET, TAG, 4, name=TAG_NAME)
    # a tag role tracks by default; anchors and seeders have no tracking
    roles = {role["id"]: role for role in api.get(f"/nets/{NET}/roles")["roles"]}
    assert roles[4]["tracking"] == "default" and roles[4]["max_speed_mm_s"] == 3000, roles[4]
    assert "tracking" not in roles[2] and "max_speed_mm_s" not in roles[2], roles[2]
    api.start(NET)

    # The plan draws the walking tag's trail: several points, one polyline
    view = browser.open_view(f"/nets/{NET}/floor", "floor")
    trails = browser.field("Trails", view)
    assert trails.is_selected(), "trails are on by default"
    seen = browser.wait(lambda _: (lambda now: now if len(now["points"]) >= 5 and now["drawn"] >= 3 else False)(trail(browser)),
                        timeout=2 * WAIT, message=f"a trail of 5 points or more behind {TAG}")
    assert all(len(point) == 2 for point in seen["points"]), seen

    # Trails off: none drawn (the points are still kept); on again: drawn
    browser.click(trails)
    browser.wait(lambda _: trail(browser)["drawn"] == 0 and len(trail(browser)["points"]) >= 2,
                 message="no trail drawn with Trails off")
    browser.click(trails)
    browser.wait(lambda _: trail(browser)["drawn"] >= 2, message="the trail drawn again with Trails on")

    # Over the tag, the tooltip gives its speed: it is tracked
    speed = hover_tag(browser, view, SPEED)
    assert 0.0 <= float(speed.split()[0]) <= 10.0, speed
    move_away(browser, view)
    browser.wait(lambda _: not canvas_of(view).get_attribute("title"), message="no tooltip off the tag")

    # The Roles view: the tag role's tracking and speed; none for an anchor
    roles_view = browser.open_view(f"/nets/{NET}/roles", "roles")
    assert "default, 3.0 m/s" in browser.row("DEFAULT TAG", roles_view).text
    anchor_row = browser.row("ANCHOR", roles_view)
    assert "m/s" not in anchor_row.text, anchor_row.text
    browser.click(browser.button("Edit ANCHOR", roles_view))
    dialog = browser.dialog()
    for label in ("Tracking", "Max speed (mm/s)"):
        control = browser.field(label, dialog)
        assert not control.is_enabled(), f"{label} offered for an anchor"
        assert "Only tag roles are tracked" in browser.text(browser.field_box(control))
    browser.click(browser.button("Cancel", dialog))

    # Tracking off for the tag role, with its form
    browser.click(browser.button("Edit DEFAULT TAG", roles_view))
    dialog = browser.dialog()
    tracking = browser.field("Tracking", dialog)
    assert Select(tracking).first_selected_option.get_attribute("value") == "default"
    assert "smooths most" in browser.text(tracking), browser.text(tracking)
    assert browser.field("Max speed (mm/s)", dialog).get_attribute("value") == "3000"
    Select(tracking).select_by_value("off")
    browser.click(browser.button("Save changes", dialog))
    browser.wait(lambda _: "off, 3.0 m/s" in browser.row("DEFAULT TAG", roles_view).text,
                 message="the table showing tracking off")
    role = api.get(f"/nets/{NET}/roles/4")["role"]
    assert role["tracking"] == "off" and role["max_speed_mm_s"] == 3000, role
    assert {key: value for key, value in role.items() if key != "tracking"} == \
        {key: value for key, value in roles[4].items() if key != "tracking"}, "the rest of the role as it was"

    # A role's change waits for a restart; restarted, the tag is untracked
    api.post(f"/nets/{NET}", {"action": "restart"})
    view = browser.open_view(f"/nets/{NET}/floor", "floor")
    hover_tag(browser, view, UNTRACKED)

    # Stopped: the plan says no live positions come
    api.post(f"/nets/{NET}", {"action": "stop"})
    browser.wait_text("no live positions come until it runs", view)
