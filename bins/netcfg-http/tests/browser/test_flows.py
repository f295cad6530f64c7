"""The issue's end-to-end flows, done as a user does them: clicking and
typing in headless Chromium. The API is used only to set up data a flow
does not cover, and each test asserts on what the page shows."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from selenium.webdriver.common.by import By

from conftest import Api, Browser, open_browser


# --------------------------------------------------------------------------
# Configurations


def test_create_configuration(browser: Browser, api: Api):
    nets = browser.open_view("/", "nets")
    browser.wait_text("There is no configuration yet", nets)
    browser.click(browser.button("New configuration", nets))
    dialog = browser.dialog()
    browser.fill(dialog, ("Name", "lab"), ("Instance", "sim"))
    browser.click(browser.button("Create", dialog))
    # it lands on the new configuration
    browser.view("overview")
    browser.wait(lambda d: d.find_element(By.XPATH, "//nav//h2").get_attribute("textContent").strip() == "lab",
                 message="the navigation naming lab")

    # the list shows it, stopped, on the simulator
    browser.click(browser.link("Configurations"))
    nets = browser.view("nets")
    row = browser.row("lab", nets)
    assert "Stopped" in row.text and "simulator" in row.text, row.text

    # the same name again: the conflict shows beside the name
    browser.expect_status(409)
    browser.click(browser.button("New configuration", nets))
    dialog = browser.dialog()
    name = browser.field("Name", dialog)
    problem = browser.submit_refused(name, "lab", "Create", dialog, "a problem beside Name")
    assert "lab" in problem or "taken" in problem or "exists" in problem, problem
    assert name.get_attribute("value") == "lab", "what was typed is kept"
    assert api.net_names() == ["lab"]


def test_download_configuration(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=2)
    nets = browser.open_view("/", "nets")
    browser.click(browser.button("Download lab", nets))
    saved = browser.wait_download()
    assert saved.read_bytes()[:16] == b"SQLite format 3\0", f"{saved.name} is not a SQLite file"
    assert saved.name.endswith(".sqlite"), saved.name


# --------------------------------------------------------------------------
# Devices: anchors and tags added through the Add device dialog


def add_device_in_dialog(browser: Browser, view, serial: str, name: str, role: str,
                         xyz: tuple[int, int, int] | None = None) -> None:
    browser.click(browser.button("Add device", view))
    dialog = browser.dialog()
    browser.fill(dialog, ("Serial number", serial), ("Name", name), ("Role", role))
    if xyz:
        for axis, value in zip("xyz", xyz):
            browser.type(browser.field(f"{axis} (mm)", dialog), str(value))
    browser.click(browser.button("Add device", dialog))
    browser.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"), message=f"the dialog closed after adding {serial}")


def test_add_anchors_and_tags(browser: Browser, api: Api):
    api.create_net("lab")
    view = browser.open_view("/nets/lab/devices", "devices")
    browser.wait_text("no devices yet", view)

    # an anchor without its position: the API's problems show beside x, y, z
    browser.expect_status(400)
    browser.click(browser.button("Add device", view))
    dialog = browser.dialog()
    browser.fill(dialog, ("Serial number", "01:04:0001"), ("Role", "ANCHOR (2)"))
    browser.click(browser.button("Add device", dialog))
    x = browser.field("x (mm)", dialog)
    problem = browser.wait_problem(x, "a problem beside x (mm)")
    assert "x, y and z" in problem, problem
    assert browser.field("Serial number", dialog).get_attribute("value") == "01:04:0001", "what was typed is kept"
    browser.click(browser.button("Cancel", dialog))

    anchors = [("01:04:0001", "Seeder NW", "SEEDER (3)", (0, 0, 2500)),
               ("01:04:0002", "Anchor NE", "ANCHOR (2)", (10000, 0, 2500)),
               ("01:04:0003", "Anchor SE", "ANCHOR (2)", (10000, 10000, 2500)),
               ("01:04:0004", "Anchor SW", "ANCHOR (2)", (0, 10000, 2500))]
    for serial, name, role, xyz in anchors:
        add_device_in_dialog(browser, view, serial, name, role, xyz)
    for serial, name in [("01:05:0001", "Forklift 1"), ("01:05:0002", "Worker 2")]:
        add_device_in_dialog(browser, view, serial, name, "DEFAULT TAG (4)")

    browser.wait_text("6 devices", view)
    row = browser.row("01:04:0003", view)
    assert "Anchor SE" in row.text and "10000" in row.text.replace(",", "").replace("\u202f", ""), row.text
    assert "Forklift 1" in browser.row("01:05:0001", view).text

    # the search narrows the list
    browser.type(browser.field("Search", view), "forklift")
    browser.wait_text("1 of 6 devices", view)

    stored = {d["serial_number"]: d for d in api.get("/nets/lab/devices")["devices"]}
    assert set(stored) == {serial for serial, *_ in anchors} | {"01:05:0001", "01:05:0002"}
    assert stored["01:04:0003"]["interfaces"][0] == {"identifier": 0, "role_id": 2, "x": 10000, "y": 10000, "z": 2500}
    assert stored["01:05:0002"]["interfaces"][0]["role_id"] == 4


# --------------------------------------------------------------------------
# Device commands: an LED command and its reply


def choose_starting(browser: Browser, select, text: str) -> None:
    """Picks the option whose visible text starts with `text`."""
    from selenium.webdriver.support.ui import Select
    options = [o for o in Select(select).options if o.text.strip().startswith(text)]
    assert options, f"no option starting with {text!r} in {[o.text for o in Select(select).options]}"
    Select(select).select_by_visible_text(options[0].text)


def test_led_command_and_reply(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=2)
    api.start("lab")
    view = browser.open_view("/nets/lab/commands", "commands")
    browser.fill(view, ("Send to", "One device"), ("Action", "Set LED"))
    browser.wait(lambda _: len(browser.field("Device", view).find_elements(By.TAG_NAME, "option")) > 1,
                 message="the devices listed")
    choose_starting(browser, browser.field("Device", view), "01:05:0001")
    browser.fill(view, ("Colour", "Red"), ("Mode", "Flashing"))

    # a timeout out of range is refused beside its field
    browser.expect_status(400)
    timeout = browser.field("Timeout (s)", view)
    problem = browser.submit_refused(timeout, "2", "Send command", view, "a problem beside Timeout (s)")
    assert "5" in problem and "1800" in problem, problem

    browser.type(timeout, "30")
    browser.click(browser.button("Send command", view))
    reply = browser.heading("Reply", view).find_element(By.XPATH, "./ancestor::section[1]")
    browser.wait_text("set_led", reply)
    outcome = browser.row("01:05:0001", reply)
    assert "replied" in outcome.text and "Done" in outcome.text, outcome.text
    # the history keeps it
    history = browser.heading("History", view).find_element(By.XPATH, "./ancestor::section[1]")
    assert "set_led" in browser.row("01:05:0001", history).text


# --------------------------------------------------------------------------
# Notifications


def test_mark_notification_read(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=1)
    api.start("lab")
    # the start's notifications are stored as the network comes up
    browser.wait(lambda _: api.get("/nets/lab/notifications_count")["count"] or False,
                 message="notifications of the start")
    view = browser.open_view("/nets/lab/notifications", "notifications")

    def unread_in_title() -> int | None:
        found = re.search(r"Notifications \((\d+) unread\)", browser.text(view))
        return int(found.group(1)) if found else None

    # the title counts what the server holds unread
    unread = browser.wait(lambda _: (lambda shown: shown if shown and shown == api.get("/nets/lab/notifications_count")["count"] else False)(
        unread_in_title()), message="the title counting the unread notifications")
    row = browser.row("network started", view)
    assert "Unread" in row.text
    browser.click(browser.button("Mark read", row))
    browser.wait(lambda _: "Read" in row.text and "Unread" not in row.text, message="the row marked read")
    browser.button("Mark unread", row)
    browser.wait(lambda _: unread_in_title() == unread - 1, message=f"the title counting {unread - 1} unread")
    # the server has it read
    started = [n for n in api.get("/nets/lab/notifications")["notifications"] if "network started" in n["message"]]
    assert started and started[0]["read"] is True


# --------------------------------------------------------------------------
# Access control


TOKEN = "a-long-admin-secret-for-tests"


def test_access_control_asks_for_a_token(server_factory, request):
    server = server_factory(config=f'[auth]\ntokens = [{{ token = "{TOKEN}", access = "admin" }}]\n', token=TOKEN)
    Api(server.url, TOKEN).create_net("secret-site")
    with open_browser(request, server.url) as browser:
        browser.expect_status(401)
        sign_in = browser.open_view("/", "sign-in")
        assert "secret-site" not in browser.text()
        token = browser.field("Access token", sign_in)
        assert token.get_attribute("type") == "password"
        problem = browser.submit_refused(token, "not-the-right-token-at-all", "Use the key", sign_in, "a problem beside the token")
        assert "not known" in problem, problem
        assert "secret-site" not in browser.text()

        browser.type(token, TOKEN)
        browser.click(browser.button("Use the key", sign_in))
        nets = browser.view("nets")
        browser.row("secret-site", nets)
        browser.button("Sign out")


# --------------------------------------------------------------------------
# Running on the simulator: tags move on the floor plan


def tag_positions(browser: Browser, view) -> dict[str, tuple[str, str]]:
    """The floor view's list of tags: serial number → (x, y) as shown."""
    positions = {}
    tags = browser.heading("Tags", view).find_element(By.XPATH, "./ancestor::section[1]")
    for row in browser.rows(tags):
        cells = row.find_elements(By.TAG_NAME, "td")
        if len(cells) >= 3:
            serial = re.search(r"[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{4}", cells[0].text)
            if serial:
                positions[serial.group(0)] = (cells[1].text, cells[2].text)
    return positions


def test_start_on_simulator_and_tags_move(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=3)
    nets = browser.open_view("/", "nets")
    browser.click(browser.button("Start lab", nets))
    browser.wait(lambda _: "Running" in browser.row("lab", nets).text, message="lab shown running")
    browser.button("Stop lab", nets)

    browser.click(browser.link("lab", nets))
    browser.view("overview")
    browser.click(browser.link("Floor plan"))
    floor = browser.view("floor")
    first = browser.wait(lambda _: (lambda seen: seen if len(seen) == 3 else False)(tag_positions(browser, floor)),
                         message="three tags listed on the floor plan")
    assert set(first) == {"01:05:0001", "01:05:0002", "01:05:0003"}, first

    def moved(_):
        now = tag_positions(browser, floor)
        return now if all(now.get(tag) not in (None, place) for tag, place in first.items()) else False
    later = browser.wait(moved, timeout=8, message="every tag's position to change")
    assert later != first


# --------------------------------------------------------------------------
# Settings: a bad value is refused beside its field


def test_bad_setting_value_shows_beside_the_field(browser: Browser, api: Api):
    api.create_net("lab")
    before = {s["setting_key"]: s["value"] for s in api.get("/nets/lab/settings")["settings"]}
    browser.expect_status(400)
    view = browser.open_view("/nets/lab/settings", "settings")
    period = browser.field("Max tag period", view)
    card = period.find_element(By.XPATH, "./ancestor::form[1]")
    problem = browser.submit_refused(period, "5", "Save", card, "a problem beside Max tag period")
    assert "975" in problem, problem
    assert period.get_attribute("value") == "5", "what was typed is kept"
    after = {s["setting_key"]: s["value"] for s in api.get("/nets/lab/settings")["settings"]}
    assert after["max_tag_period"] == before["max_tag_period"]

    # a good value is taken, and the problem goes
    browser.type(period, "97500")
    browser.click(browser.button("Save", card))
    browser.wait(lambda _: api.get("/nets/lab/settings/max_tag_period")["setting"]["value"] == 97500,
                 message="the setting saved")
    saved = browser.wait(lambda _: (lambda f: f if f.get_attribute("value") == "97500" else False)(
        browser.field("Max tag period", browser.view("settings"))), message="the saved value shown")
    assert saved.get_attribute("aria-invalid") != "true"


# --------------------------------------------------------------------------
# Configurations: copy, rename, delete, upload; and the list follows changes
# made elsewhere (live events)


def test_copy_rename_delete_and_upload(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=2)
    saved = api.call("GET", "/nets/lab/download", raw=True)
    nets = browser.open_view("/", "nets")

    browser.click(browser.button("Copy lab", nets))
    dialog = browser.dialog()
    browser.type(browser.field("Name of the copy", dialog), "lab-b")
    browser.click(browser.button("Copy", dialog))
    browser.row("lab-b", nets)

    # The list reloads on every change event and then asks each
    # configuration's unread count: a count asked just as lab-b is renamed
    # or annex deleted is a 404 the page ignores, but Chromium logs it.
    browser.expected.append(re.compile(r"/nets/(annex|lab-b)/notifications_count - .*status of 404\b"))
    browser.click(browser.button("Rename lab-b", nets))
    dialog = browser.dialog()
    browser.type(browser.field("New name", dialog), "annex")
    browser.click(browser.button("Save", dialog))
    browser.row("annex", nets)
    browser.wait(lambda _: "lab-b" not in browser.text(nets), message="lab-b gone from the list")
    assert len(api.get("/nets/annex/devices")["devices"]) == 6

    browser.click(browser.button("Delete annex", nets))
    dialog = browser.dialog()
    browser.click(browser.button("Delete configuration", dialog))
    browser.wait(lambda _: "annex" not in browser.text(nets), message="annex gone from the list")
    assert sorted(api.net_names()) == ["lab"]

    # the downloaded file comes back under a new name
    file = browser.downloads / "lab.sqlite"
    file.write_bytes(saved)
    browser.click(browser.button("Upload configuration", nets))
    dialog = browser.dialog()
    browser.field("Saved-state file", dialog).send_keys(str(file))
    browser.type(browser.field("Name", dialog), "restored")
    browser.click(browser.button("Upload", dialog))
    browser.row("restored", nets)
    assert len(api.get("/nets/restored/devices")["devices"]) == 6


def test_views_follow_changes_made_elsewhere(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=1)
    nets = browser.open_view("/", "nets")
    row = browser.row("lab", nets)
    assert "Stopped" in row.text
    api.start("lab")  # another client starts it
    browser.wait(lambda _: "Running" in browser.row("lab", nets).text, message="lab shown running without a reload")
    api.create_net("annex")
    browser.row("annex", nets)

    devices = browser.open_view("/nets/lab/devices", "devices")
    browser.wait_text("5 devices", devices)
    api.add_device("lab", "01:05:00AA", 4, name="Late tag")
    browser.row("Late tag", devices)
    browser.wait_text("6 devices", devices)


# --------------------------------------------------------------------------
# Roles: a custom role, refused then added, then deleted


def test_custom_role(browser: Browser, api: Api):
    api.create_net("lab")
    browser.expect_status(400)
    view = browser.open_view("/nets/lab/roles", "roles")
    # built-in roles cannot be deleted
    assert not browser.driver.find_element(By.XPATH, "//button[@aria-label='Delete ANCHOR']").is_enabled()

    browser.click(browser.button("Add role", view))
    dialog = browser.dialog()
    browser.fill(dialog, ("Name", "Fast tag"), ("Network period", "48750"))
    accelerometer = browser.field("Accelerometer period", dialog)
    problem = browser.submit_refused(accelerometer, "500", "Add role", dialog, "a problem beside Accelerometer period")
    assert "975" in problem, problem
    assert browser.field("Name", dialog).get_attribute("value") == "Fast tag", "what was typed is kept"

    browser.type(accelerometer, "1950")
    browser.click(browser.button("Add role", dialog))
    row = browser.row("Fast tag", view)
    assert "48,750" in row.text or "48750" in row.text, row.text
    role = [r for r in api.get("/nets/lab/roles")["roles"] if r["name"] == "Fast tag"][0]
    assert role["accelerometer_period"] == 1950 and role["network_period"] == 48750

    browser.click(browser.button("Delete Fast tag", view))
    dialog = browser.dialog()
    browser.click(browser.button("Delete", dialog))
    browser.wait(lambda _: "Fast tag" not in browser.text(view), message="the role gone")


def test_alert_rule_fires_and_shows_its_state(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=3)
    api.start("lab")
    view = browser.open_view("/nets/lab/alerts", "alerts")
    # a new configuration has the two defaults, and a running site with
    # every anchor heard fires neither
    assert "ok" in browser.row("anchor-offline", view).text
    browser.row("anchor-unsynced", view)

    browser.click(browser.button("Add alert rule", view))
    dialog = browser.dialog()
    browser.fill(dialog, ("Name", "busy"), ("Condition", "Positions a second below"), ("Threshold", "1000000"),
                         ("For (s)", "1"))
    browser.click(browser.button("Add alert rule", dialog))
    browser.wait(lambda _: "firing since" in browser.row("busy", view).text, timeout=15,
                 message="the new rule shown firing")
    rule = api.get("/nets/lab/alert_rules/busy")["alert_rule"]
    assert rule["condition"] == "positions_below" and rule["threshold"] == 1000000 and rule["for_s"] == 1
    messages = [n["message"] for n in api.get("/nets/lab/notifications")["notifications"]]
    assert any(message.startswith("alert rule busy:") for message in messages), messages

    # no count of positions is below 0: the rule clears
    browser.click(browser.button("Edit busy", view))
    dialog = browser.dialog()
    browser.type(browser.field("Threshold", dialog), "0")
    browser.click(browser.button("Save changes", dialog))
    browser.wait(lambda _: "firing" not in browser.row("busy", view).text and "ok" in browser.row("busy", view).text,
                 timeout=15, message="the rule shown ok again")
    assert api.get("/nets/lab/alert_rules/busy")["alert_rule"]["threshold"] == 0


def test_overview_shows_the_alerts_firing_now(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=3)
    api.start("lab")
    view = browser.open_view("/nets/lab", "overview")
    # every anchor heard: nothing fires
    browser.wait_text("No alerts firing", view)
    # a rule no running site can meet fires within its second: it shows,
    # with since when, as the API lists it
    api.post("/nets/lab/alert_rules", {"name": "busy", "condition": "positions_below", "threshold": 1000000,
                                       "for_s": 1, "level": 2})
    browser.heading("Alerts firing now", view)
    row = browser.row("busy", view)
    firing = api.get("/nets/lab/alerts")["alerts"]
    assert [alert["rule"] for alert in firing] == ["busy"], firing
    assert "the whole network" in row.text and re.search(r"\d", row.text.split("the whole network")[1]), row.text
    # cleared, it goes
    api.patch("/nets/lab/alert_rules/busy", {"name": "busy", "condition": "positions_below", "threshold": 0})
    browser.wait_text("No alerts firing", view)


def test_schedule_starts_the_network_and_shows_its_runs(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=3)
    view = browser.open_view("/nets/lab/schedules", "schedules")
    browser.click(browser.button("Add schedule", view))
    dialog = browser.dialog()
    browser.fill(dialog, ("Name", "pulse"), ("Cron", "*/2 * * * * *"), ("Time zone", "Europe/Berlin"),
                         ("Action", "Start"))
    browser.click(browser.button("Add schedule", dialog))
    # the first run starts the stopped network; the table shows it
    browser.wait(lambda _: "ok at" in browser.row("pulse", view).text and "started" in browser.row("pulse", view).text,
                 timeout=15, message="the schedule's run shown")
    assert api.get("/nets/lab")["configuration"]["state"] == "running"
    # its next and last runs read in its zone, which the row names once
    text = browser.row("pulse", view).text
    times = re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d)?", text)
    assert len(times) == 2 and text.count("Europe/Berlin") == 1, text
    # the next run, every 2 s, is now as Berlin's clocks read it
    shown = datetime.fromisoformat(times[0]).replace(tzinfo=ZoneInfo("Europe/Berlin"))
    assert abs((shown - datetime.now(ZoneInfo("Europe/Berlin"))).total_seconds()) < 120, (times, text)
    schedule = api.get("/nets/lab/schedules/pulse")["schedule"]
    assert schedule["timezone"] == "Europe/Berlin" and schedule["enabled"] is True
    entries = api.get("/nets/lab/history")["history"]
    assert any(e["origin"] == "schedule:pulse" and e["summary"] == "Started" for e in entries), entries

    # disabled, it has no next run
    browser.click(browser.button("Edit pulse", view))
    dialog = browser.dialog()
    browser.choose(browser.field("Enabled", dialog), "no")
    browser.click(browser.button("Save changes", dialog))
    browser.wait(lambda _: "disabled" in browser.row("pulse", view).text, timeout=15, message="the schedule shown disabled")
    schedule = api.get("/nets/lab/schedules/pulse")["schedule"]
    assert schedule["enabled"] is False and schedule["next_run_ms"] is None


# --------------------------------------------------------------------------
# The keyboard alone


def test_keyboard_only(browser: Browser, api: Api):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    def press(*keys):
        ActionChains(browser.driver).send_keys(*keys).perform()

    def focused():
        return browser.driver.switch_to.active_element

    nets = browser.open_view("/", "nets")
    heading = browser.heading("Configurations", nets)
    browser.driver.execute_script("arguments[0].focus()", heading)
    press(Keys.TAB)
    assert focused().text == "New configuration", f"Tab from the heading reaches {focused().text!r}"
    press(Keys.ENTER)
    dialog = browser.dialog()
    name = browser.field("Name", dialog)
    browser.wait(lambda _: focused() == name, message="the focus in Name")
    press("kb")
    press(Keys.TAB, "sim", Keys.ENTER)
    browser.view("overview")
    assert api.get("/nets/kb")["configuration"]["instance"] == "sim"

    # Escape closes a dialog, and nothing is created
    nets = browser.open_view("/", "nets")
    browser.click(browser.button("New configuration", nets))
    browser.dialog()
    press("never")
    press(Keys.ESCAPE)
    browser.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"), message="the dialog closed by Escape")
    assert api.net_names() == ["kb"]


# --------------------------------------------------------------------------
# Devices: edit and delete


def test_edit_and_delete_devices(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=3)
    view = browser.open_view("/nets/lab/devices", "devices")
    browser.wait_text("7 devices", view)

    browser.click(browser.button("Edit device 01:05:0001", view))
    dialog = browser.dialog()
    browser.type(browser.field("Name", dialog), "Forklift 7")
    browser.click(browser.button("Save device", dialog))
    browser.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"), message="the dialog closed")
    assert "Forklift 7" in browser.row("01:05:0001", view).text
    assert api.get("/nets/lab/devices/01:05:0001")["device"]["name"] == "Forklift 7"

    browser.click(browser.button("Delete device 01:05:0002", view))
    dialog = browser.dialog()
    browser.click(browser.button("Delete device", dialog))
    browser.wait_text("6 devices", view)
    assert "01:05:0002" not in browser.text(view)
    assert "01:05:0002" not in [d["serial_number"] for d in api.get("/nets/lab/devices")["devices"]]

    # the role filter
    browser.choose(browser.field("Role", view), "SEEDER")
    browser.wait_text("1 of 6 devices", view)


# --------------------------------------------------------------------------
# Floor plan: moving an anchor with the form (the keyboard way)


def test_move_anchor_with_the_form(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=1)
    browser.expect_status(400)
    view = browser.open_view("/nets/lab/floor", "floor")
    form = browser.heading("Move an anchor", view).find_element(By.XPATH, "./ancestor::section[1]")
    browser.wait(lambda _: len(browser.field("Anchor", form).find_elements(By.TAG_NAME, "option")) > 1,
                 message="the anchors listed")
    choose_starting(browser, browser.field("Anchor", form), "Anchor 01:04:0002")
    x = browser.field("x (mm)", form)
    browser.wait(lambda _: x.get_attribute("value") == "10000", message="the anchor's x filled in")

    # beyond the range of a coordinate: refused beside x
    problem = browser.submit_refused(x, "99999999999", "Save position", form, "a problem beside x (mm)")
    assert problem
    assert api.get("/nets/lab/devices/01:04:0002")["device"]["interfaces"][0]["x"] == 10000

    browser.type(x, "12000")
    browser.click(browser.button("Save position", form))
    browser.wait(lambda _: api.get("/nets/lab/devices/01:04:0002")["device"]["interfaces"][0]["x"] == 12000,
                 message="the anchor moved")
    assert "01:04:0002" in browser.wait(lambda _: browser.status_line() or False, message="the status line")


# --------------------------------------------------------------------------
# Maximum tags


def test_maximum_tags_calculation(browser: Browser):
    view = browser.open_view("/max-tags", "max_tags")
    browser.click(browser.button("Calculate", view))
    result = browser.heading("Result for", view).find_element(By.XPATH, "./ancestor::section[1]")
    figure = result.find_element(By.CSS_SELECTOR, '[data-field="maximum_tags"]').text
    assert re.fullmatch(r"[\d,.\s\u202f]+", figure) and int(re.sub(r"\D", "", figure)) > 0, figure


# --------------------------------------------------------------------------
# Signing out


def test_sign_out(server_factory, request):
    server = server_factory(config=f'[auth]\ntokens = [{{ token = "{TOKEN}", access = "admin" }}]\n', token=TOKEN)
    with open_browser(request, server.url) as browser:
        browser.expect_status(401)
        sign_in = browser.open_view("/", "sign-in")
        browser.type(browser.field("Access token", sign_in), TOKEN)
        browser.click(browser.button("Use the key", sign_in))
        browser.view("nets")
        # a reload keeps the session
        browser.reload()
        browser.view("nets")
        browser.click(browser.button("Sign out"))
        browser.view("sign-in")
        assert browser.driver.execute_script("return sessionStorage.length") == 0


# --------------------------------------------------------------------------
# Logs: a start writes a log file; it can be read and downloaded


def test_read_and_download_a_log_file(browser: Browser, api: Api):
    api.create_site("lab", anchors=4, tags=1)
    api.start("lab")
    names = api.get("/nets/lab/logs")["logs"]
    assert names
    view = browser.open_view("/nets/lab/logs", "logs")
    row = browser.row(names[0], view)
    browser.click(browser.button("View", row))
    contents = browser.wait(lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, "pre[aria-label]")
                                            if e.get_attribute("aria-label") == f"Contents of {names[0]}"), False),
                            message="the log file's contents")
    browser.wait(lambda _: contents.get_attribute("textContent").strip() != "", message="text in the log file")
    browser.click(browser.button("Download", row))
    saved = browser.wait_download(".log")
    assert saved.name == names[0] and saved.read_text(errors="replace").strip()


# --------------------------------------------------------------------------
# Change history: a change made elsewhere shows up; restore to an earlier
# change; refused (409) while the configuration runs


def test_restore_from_the_change_history(browser: Browser, api: Api):
    api.create_net("lab")
    api.add_device("lab", "01:05:0001", 4, name="Forklift")
    added = api.get("/nets/lab/history")["history"][0]
    assert added["summary"].startswith("Add a device"), added
    browser.open("/nets/lab")
    browser.view("overview")
    browser.click(browser.link("Change history", browser.driver.find_element(By.CSS_SELECTOR, "nav.side")))
    view = browser.view("history")
    row = browser.row("Add a device", view)
    assert "POST /nets/lab/devices" in row.text and "anonymous" in row.text and "127.0.0.1" in row.text, row.text
    # the newest change is the current content: nothing to restore to
    assert not row.find_elements(By.XPATH, ".//button[normalize-space()='Restore to here']")

    # renamed by another client: the list follows
    api.patch("/nets/lab/devices/01:05:0001", {"serial_number": "01:05:0001", "name": "Crane", "disabled": False,
                                                 "interfaces": [{"identifier": 0, "role_id": 4}]})
    browser.wait_text("PATCH /nets/lab/devices/01:05:0001", view)

    browser.click(browser.button("Restore to here", browser.row("Add a device", view)))
    dialog = browser.dialog()
    browser.wait_text(f"change {added['id']}", dialog)
    browser.click(browser.button("Restore", dialog))
    browser.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"), message="the dialog closed")
    assert api.get("/nets/lab/devices/01:05:0001")["device"]["name"] == "Forklift"
    newest = api.get("/nets/lab/history")["history"][0]
    assert newest["path"] == f"/nets/lab/history/{added['id']}/restore", newest
    browser.wait(lambda _: browser.rows(view)[0].get_attribute("data-id") == str(newest["id"]),
                 message="the restore at the top of the list")

    # while it runs, the refusal shows in the dialog and nothing changes;
    # the start itself is journalled (decisions §16)
    api.start("lab")
    started = api.get("/nets/lab/history")["history"][0]
    assert (started["summary"], started["origin"]) == ("Started", "anonymous"), started
    # the start reaches the list live; a click while its row is inserted at
    # the top can land on the row that moved under the pointer
    browser.wait(lambda _: browser.rows(view)[0].get_attribute("data-id") == str(started["id"]),
                 message="the start at the top of the list")
    browser.expect_status(409)
    browser.click(browser.button("Restore to here", browser.row("Replace a device", view)))
    dialog = browser.dialog()
    browser.click(browser.button("Restore", dialog))
    alert = browser.wait(lambda _: next((e for e in dialog.find_elements(By.CSS_SELECTOR, '[role="alert"]')
                                         if e.is_displayed()), False), message="the refusal in the dialog")
    assert "running" in alert.text, alert.text
    browser.link("overview", dialog)
    assert api.get("/nets/lab/devices/01:05:0001")["device"]["name"] == "Forklift"
    assert api.get("/nets/lab/history")["history"][0]["id"] == started["id"]
    browser.click(browser.button("Cancel", dialog))


def test_change_history_pages_to_older_changes(browser: Browser, api: Api):
    api.create_net("lab")
    for index in range(55):
        api.add_device("lab", f"01:05:{index + 1:04X}", 4)
    view = browser.open_view("/nets/lab/history", "history")
    browser.wait_text("50 changes, newest first", view)
    browser.click(browser.button("Older", view))
    browser.wait_text("6 changes older than change 7, newest first", view)
    assert "Create a configuration" in browser.rows(view)[-1].text
    # on an older page every change can be restored to, the first too
    assert len(view.find_elements(By.XPATH, ".//button[normalize-space()='Restore to here']")) == 6
    browser.click(browser.button("Newest", view))
    browser.wait_text("50 changes, newest first", view)
    assert browser.rows(view)[0].get_attribute("data-id") == "56"


# --------------------------------------------------------------------------
# Several tabs at once


# Each page holds its live-events streams (long fetches), and over HTTP/1.1
# Chromium opens at most 6 connections per host: lib/events.js lets go of
# them while a page is hidden, so tabs left open do not starve new ones.
def test_seven_tabs_at_once(browser: Browser, api: Api):
    api.create_net("lab")
    driver = browser.driver
    driver.set_page_load_timeout(15)
    for tab in range(1, 8):
        if tab > 1:
            driver.switch_to.new_window("tab")
        browser.driver.get(browser.base + "/#/")
        try:
            browser.row("lab", browser.view("nets", timeout=8))
        except AssertionError as failure:
            raise AssertionError(f"tab {tab} of 7 does not show the configurations: {failure}") from None
