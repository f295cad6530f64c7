#!/usr/bin/env python3
"""The web front end's figures, measured in headless Chromium against a real
server (give it the release binary):

    python3 bench_front_end.py --binary target/release/netcfg-http

It prints each figure beside its goal; it has no pass or fail (it exits 0
whenever everything ran, 1 when something could not run):

1. First render of `/` on loopback: navigation start to the Configurations
   list rendered (its first table row in the DOM, then the next frame),
   cold (HTTP cache off) and warm. Goal: under 1 s.
2. The devices view of a configuration with 10,000 devices: navigation
   (from the Configurations list) to its rows rendered, and the time from a
   keystroke in its search box to the filtered list rendered. Goal: search
   under 200 ms.
3. The floor plan following 1,000 tags reporting at 10 Hz on the simulator
   (fixtures/bench/site.jsonl: 50 anchors, 1,000 default tags), started on
   `sim`: requestAnimationFrame intervals over ~10 s (p50, p95), the plan's
   own draw durations (window.netcfgFloorStats) and long tasks. Goal: p95
   frame time ≤ 33 ms.

The 10,000-device configuration is built once through the API (parallel
POSTs; the API has no bulk create), downloaded, and the file is kept in
--cache (default <workspace>/target/bench-front-end/) and uploaded on later
runs. The machine's other work shows in the figures (see /proc/loadavg,
printed with them).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import WORKSPACE, Api, ApiFailure, Server, make_driver  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

BIG = "big"
FLOOR = "floor"
SITE = WORKSPACE / "fixtures" / "bench" / "site.jsonl"


# --------------------------------------------------------------------------
# Data


def big_devices(count: int) -> list[dict]:
    """`count` devices: 2% anchors on a grid (every fifth a seeder), the rest
    default tags, each named."""
    devices = []
    anchors = max(4, count // 50)
    for index in range(count):
        if index < anchors:
            role = 3 if index % 5 == 0 else 2
            devices.append({"serial_number": f"01:04:{index + 1:04X}", "name": f"Anchor {index + 1}", "disabled": False,
                            "interfaces": [{"identifier": 0, "role_id": role, "x": (index % 5) * 10000,
                                            "y": (index // 5) * 10000, "z": 2500 + (index % 7) * 100}]})
        else:
            number = index - anchors + 1
            kind = ("Forklift", "Worker", "Pallet", "Trolley")[number % 4]
            devices.append({"serial_number": f"01:{5 + number // 0x10000:02X}:{number % 0x10000:04X}",
                            "name": f"{kind} {number}", "disabled": False,
                            "interfaces": [{"identifier": 0, "role_id": 4}]})
    return devices


def post_all(api: Api, net: str, devices: list[dict], workers: int = 8) -> None:
    def one(device):
        api.post(f"/nets/{net}/devices", device)
    with ThreadPoolExecutor(workers) as pool:
        for _ in pool.map(one, devices):
            pass


def upload(api: Api, file: Path, name: str) -> None:
    boundary = uuid.uuid4().hex
    body = b"".join([
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n{name}\r\n".encode(),
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"net_file\"; filename=\"{file.name}\"\r\n"
        f"Content-Type: application/vnd.sqlite3\r\n\r\n".encode(),
        file.read_bytes(),
        f"\r\n--{boundary}--\r\n".encode(),
    ])
    request = urllib.request.Request(api.url + "/nets/upload", data=body, method="POST", headers={
        "Api-Version": "5.1", "Content-Type": f"multipart/form-data; boundary={boundary}"})
    urllib.request.urlopen(request, timeout=120).read()


def make_big(api: Api, count: int, cache: Path) -> str:
    """The configuration of `count` devices: from the cached file, else built
    through the API (and cached)."""
    cached = cache / f"devices-{count}.sqlite"
    if cached.exists():
        try:
            upload(api, cached, BIG)
            if len(api.get(f"/nets/{BIG}/devices")["devices"]) == count:
                return f"uploaded from {cached}"
        except Exception as error:  # noqa: BLE001 - a stale file: build again
            print(f"  (the cached file was refused: {error}; building it again)")
        try:
            api.post(f"/nets/{BIG}", {"action": "delete"})
        except ApiFailure:
            pass
    started = time.monotonic()
    api.create_net(BIG)
    post_all(api, BIG, big_devices(count))
    spent = time.monotonic() - started
    cache.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(api.call("GET", f"/nets/{BIG}/download", raw=True))
    return f"built through the API in {spent:.1f} s (8 connections), cached in {cached}"


# --------------------------------------------------------------------------
# Measures

MARK_FIRST_RENDER = """
(() => {
  const found = () => document.querySelector('section[data-view="nets"] table tbody tr');
  const observer = new MutationObserver(() => {
    if (window.__netcfgListAt === undefined && found()) {
      window.__netcfgListAt = performance.now();
      observer.disconnect();
      requestAnimationFrame(() => setTimeout(() => { window.__netcfgListPaintedAt = performance.now(); }, 0));
    }
  });
  observer.observe(document, {childList: true, subtree: true});
})();
"""

# Runs `action` (a function of the page), then waits until `done()` holds
# (checked at each DOM change and each frame), then for the next frame;
# calls back with the milliseconds from just before `action`.
TIME_UNTIL = """
const [actionSource, doneSource, limitMs, callback] = arguments;
const action = new Function(actionSource);
const done = new Function(doneSource);
let settled = false;
const started = performance.now();
const observer = new MutationObserver(() => check());
function settle(result) {
  settled = true;
  observer.disconnect();
  callback(result);
}
function check() {
  if (settled) return;
  let ok = false;
  try { ok = done(); } catch (error) { ok = false; }
  if (ok) {
    settled = true;
    observer.disconnect();
    const inDom = performance.now() - started;
    requestAnimationFrame(() => setTimeout(() => callback({dom: inDom, painted: performance.now() - started}), 0));
  } else if (performance.now() - started > limitMs) {
    settle({timeout: true});
  } else {
    requestAnimationFrame(check);
  }
}
observer.observe(document.body, {childList: true, subtree: true, characterData: true});
action();
check();
"""


def first_render(driver, base: str, runs: int, cold: bool) -> list[dict]:
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": cold})
    script = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": MARK_FIRST_RENDER})
    results = []
    try:
        for _ in range(runs + 1):  # the first warms the server and Chromium up
            driver.get("about:blank")
            driver.get(base + "/")
            WebDriverWait(driver, 30, 0.02).until(lambda d: d.execute_script("return window.__netcfgListPaintedAt"))
            results.append(driver.execute_script("""
                const nav = performance.getEntriesByType('navigation')[0];
                const paint = Object.fromEntries(performance.getEntriesByType('paint').map(e => [e.name, e.startTime]));
                return {list: window.__netcfgListAt, painted: window.__netcfgListPaintedAt,
                        response: nav.responseEnd, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
                        fcp: paint['first-contentful-paint'],
                        resources: performance.getEntriesByType('resource').length};
            """))
    finally:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    return results[1:]


def timed(driver, action: str, done: str, limit_ms: int = 60000) -> dict:
    driver.set_script_timeout(limit_ms / 1000 + 10)
    return driver.execute_async_script(TIME_UNTIL, action, done, limit_ms)


def devices_view(driver, base: str, count: int, runs: int) -> dict:
    rendered = []
    driver.get(base + "/#/")
    for _ in range(runs):
        driver.execute_script("location.hash = '#/'")
        WebDriverWait(driver, 30, 0.02).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, 'section[data-view="nets"] table tbody tr'))
        result = timed(driver, "location.hash = '#/nets/big/devices';", f"""
            const section = document.querySelector('section[data-view="devices"]');
            const count = section && section.querySelector('[data-count]');
            return !!(count && count.textContent.includes('{count} devices') && section.querySelector('table tbody tr'));
        """)
        if result.get("timeout"):
            raise RuntimeError("the devices view did not render the 10,000 devices within 60 s")
        rendered.append(result)
    rows_in_dom = driver.execute_script(
        "return document.querySelectorAll('section[data-view=\"devices\"] table tbody tr').length")

    # the search box: found by its label, as a user finds it
    label = driver.find_element(By.XPATH, "//section[@data-view='devices']//label[normalize-space()='Search']")
    box = driver.find_element(By.ID, label.get_attribute("for"))
    driver.execute_script("window.__netcfgSearch = arguments[0]", box)
    type_into = """
        const box = window.__netcfgSearch;
        const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
        setter.call(box, %s);
        box.dispatchEvent(new Event('input', {bubbles: true}));
    """
    count_shown = "return document.querySelector('section[data-view=\"devices\"] [data-count]').textContent"
    searches = []
    terms = ["forklift 1", "forklift 12", "01:05:1", "worker 9999", "", "pallet", ""]
    for _ in range(max(1, runs // 2)):
        for term in terms:
            before = driver.execute_script(count_shown)
            result = timed(driver, type_into % json.dumps(term), f"""
                const shown = document.querySelector('section[data-view="devices"] [data-count]').textContent;
                return shown !== {json.dumps(before)} || {json.dumps(term == "")} && shown.startsWith('{count} devices');
            """, 20000)
            if result.get("timeout"):
                continue  # the count did not change (the same matches): not a figure
            result["term"] = term
            result["shown"] = driver.execute_script(count_shown)
            result["filter_ms"] = driver.execute_script("return window.netcfgDevicesTiming && window.netcfgDevicesTiming.filterMs")
            searches.append(result)
    return {"rendered": rendered, "rows_in_dom": rows_in_dom, "searches": searches}


FRAME_SAMPLER = """
const [seconds, callback] = arguments;
const stats = window.netcfgFloorStats;
const intervals = [];
const draws = [];
const longTasks = [];
let observer = null;
try {
  observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
  observer.observe({type: 'longtask', buffered: false});
} catch (error) {}
const start = {frames: stats ? stats.frames : 0, batches: stats ? stats.batches : 0, positions: stats ? stats.positions : 0,
               at: performance.now()};
let last = null;
let seenFrames = start.frames;
function tick(now) {
  if (last !== null) intervals.push(now - last);
  last = now;
  if (stats && stats.frames > seenFrames) {
    for (let frame = seenFrames; frame < stats.frames; frame++) draws.push(stats.recent[frame % 512]);
    seenFrames = stats.frames;
  }
  if (now - start.at < seconds * 1000) requestAnimationFrame(tick);
  else {
    if (observer) observer.disconnect();
    callback({intervals, draws, longTasks, elapsed: now - start.at,
              frames: stats ? stats.frames - start.frames : null,
              batches: stats ? stats.batches - start.batches : null,
              positions: stats ? stats.positions - start.positions : null,
              tags: stats ? stats.tags : null});
  }
}
requestAnimationFrame(tick);
"""


def floor_view(driver, base: str, seconds: float, tags: int) -> dict:
    driver.get(f"{base}/#/nets/{FLOOR}/floor")
    started = time.monotonic()
    WebDriverWait(driver, 60, 0.1).until(
        lambda d: (d.execute_script("return window.netcfgFloorStats && window.netcfgFloorStats.tags") or 0) >= tags)
    all_seen = time.monotonic() - started
    WebDriverWait(driver, 10, 0.5).until(lambda _: time.monotonic() - started > 3)  # past the first fits
    driver.set_script_timeout(seconds + 30)
    result = driver.execute_async_script(FRAME_SAMPLER, seconds)
    result["all_seen_s"] = all_seen
    return result


# --------------------------------------------------------------------------
# Report


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def fmt(ms: float) -> str:
    return f"{ms:.0f} ms" if ms >= 10 else f"{ms:.1f} ms"


def line(name: str, value: str, goal: str = "") -> None:
    print(f"  {name:<58} {value:>14}   {goal}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, type=Path, help="the server (the release build)")
    parser.add_argument("--devices", type=int, default=10000, help="devices of the large configuration")
    parser.add_argument("--seconds", type=float, default=10, help="how long to sample the floor plan")
    parser.add_argument("--runs", type=int, default=5, help="repetitions of the page loads and view renders")
    parser.add_argument("--cache", type=Path, default=WORKSPACE / "target" / "bench-front-end",
                        help="where the large configuration's file is kept between runs")
    parser.add_argument("--json", type=Path, help="also write every sample here")
    args = parser.parse_args()

    load_before = Path("/proc/loadavg").read_text().split()[:3]
    print(f"netcfg front end bench: {args.binary}")
    server = Server(binary=args.binary.resolve())
    api = Api(server.url)
    driver = None
    report: dict = {"binary": str(args.binary), "loadavg_before": load_before}
    try:
        try:
            urllib.request.urlopen(server.url + "/ui/app.js", timeout=10).read()
        except Exception as error:  # noqa: BLE001
            raise SystemExit(f"{args.binary} serves no web front end (/ui/app.js: {error}); build it again") from None
        how = make_big(api, args.devices, args.cache)
        print(f"  {args.devices} devices in '{BIG}': {how}")
        api.create_site("warehouse", anchors=4, tags=2)

        downloads = Path(server.scratch / "downloads")
        downloads.mkdir()
        # Each page load of the first-render loop is a new visit: without
        # this, the pages left for about:blank stay in the back-forward cache
        # with their live-events stream open, and from the sixth load the
        # browser's 6 connections per host are taken (HTTP/1.1) until the
        # server's keep-alive evicts them (about 14 s).
        driver = make_driver(downloads, extra=["--disable-back-forward-cache"])

        cold = first_render(driver, server.url, args.runs, cold=True)
        warm = first_render(driver, server.url, args.runs, cold=False)
        devices = devices_view(driver, server.url, args.devices, args.runs)

        lines = [json.loads(text) for text in SITE.read_text().splitlines() if text.strip()]
        tags = sum(1 for device in lines if device["interfaces"][0]["role_id"] not in (2, 3))
        api.create_net(FLOOR)
        post_all(api, FLOOR, lines)
        api.start(FLOOR)
        floor = floor_view(driver, server.url, args.seconds, tags)
        report.update(first_render_cold=cold, first_render_warm=warm, devices=devices, floor=floor)
    finally:
        if driver is not None:
            driver.quit()
        server.stop()
        if sys.exc_info()[0] not in (None, SystemExit):
            print(server.log_path.read_text(errors="replace")[-5000:], file=sys.stderr)
        server.remove()
    report["loadavg_after"] = Path("/proc/loadavg").read_text().split()[:3]

    print()
    print(f"  {'figure':<58} {'value':>14}   goal")
    for name, runs in [("cold", cold), ("warm", warm)]:
        painted = [run["painted"] for run in runs]
        line(f"first render of / ({name} cache): list painted, median of {len(runs)}",
             fmt(statistics.median(painted)), "< 1 s")
        line(f"  worst / DOMContentLoaded / load event (median)",
             f"{fmt(max(painted))} / {fmt(statistics.median(r['dcl'] for r in runs))} / {fmt(statistics.median(r['load'] for r in runs))}")
    rendered = [run["painted"] for run in devices["rendered"]]
    line(f"devices view, {args.devices} devices: navigation to rows painted (first)", fmt(rendered[0]),
         "(includes GET of every device)")
    if len(rendered) > 1:
        line(f"  later visits, median of {len(rendered) - 1}", fmt(statistics.median(rendered[1:])))
    line("  table rows in the DOM (virtualised)", str(devices["rows_in_dom"]))
    searches = devices["searches"]
    if searches:
        painted = [run["painted"] for run in searches]
        line(f"search filter: keystroke to list painted, median of {len(painted)}", fmt(statistics.median(painted)), "< 200 ms")
        line("  p95 / worst", f"{fmt(pct(painted, 95))} / {fmt(max(painted))}", "< 200 ms")
        filters = [run["filter_ms"] for run in searches if run.get("filter_ms") is not None]
        if filters:
            line("  of which filtering and sorting (the view's own timer), median", fmt(statistics.median(filters)))
    intervals = floor["intervals"]
    line(f"floor plan, {floor['tags']} tags at 10 Hz: frame time p50 ({len(intervals)} frames)", fmt(pct(intervals, 50)))
    line("  frame time p95", fmt(pct(intervals, 95)), "<= 33 ms")
    line("  frame time worst", fmt(max(intervals) if intervals else float('nan')))
    if floor["draws"]:
        line(f"  plan's draw duration p50 / p95 ({len(floor['draws'])} draws)",
             f"{fmt(pct(floor['draws'], 50))} / {fmt(pct(floor['draws'], 95))}")
    elapsed = floor["elapsed"] / 1000
    if floor["positions"] is not None:
        line("  positions received per second", f"{floor['positions'] / elapsed:.0f}", f"({floor['tags']} tags × 10 Hz = {floor['tags'] * 10})")
        line("  position batches per second", f"{floor['batches'] / elapsed:.1f}")
    line("  long tasks (> 50 ms): count / total", f"{len(floor['longTasks'])} / {fmt(sum(floor['longTasks']))}")
    line("  time until every tag was on the plan", f"{floor['all_seen_s']:.1f} s")
    print(f"\n  load average before: {' '.join(load_before)}; after: {' '.join(report['loadavg_after'])}"
          f" ({os.cpu_count()} CPUs; the server's simulator and Chromium share them)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
