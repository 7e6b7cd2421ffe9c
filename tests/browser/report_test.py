#!/usr/bin/env python3
"""The report's page in a real browser (Debian's chromium, chromium-driver, python3-selenium).

Writes the reports of bundled maps with the release binary, opens each index.html from
its folder (file://, no server), clicks hexes and points at others as a reader would, and
checks what the page shows against `hexsight viewshed --json` and `hexsight los --json`:
the hexes of each class, the verdict, the hindrance, the blocker and the reason. Toggles
every layer and checks the map changes; a screenshot of each map must not be blank. A
report compared with a layer (`--against-layer`) shows "What changes": its counts, its
heatmap, and each clicked hex's viewshed gained and lost, checked against `hexsight diff --json`.

    tests/browser/report_test.py target/release/hexsight [--shots DIR] [--bench MAP]

--bench MAP also writes MAP's report and prints its sizes and the click time measured in
the page (no assertion on time). Ends with `N passed, M failed`; exits 1 on a failure.
"""

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = {"passed": 0, "failed": 0}


def check(ok, what, detail=""):
    RESULTS["passed" if ok else "failed"] += 1
    print(("ok    " if ok else "FAIL  ") + what + ("" if ok or not detail else ": " + str(detail)[:600]), flush=True)
    return ok


def run(exe, *args):
    p = subprocess.run([exe, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"hexsight {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


def browser():
    o = Options()
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900"]:
        o.add_argument(a)
    for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser"]:
        if os.path.exists(path):
            o.binary_location = path
            break
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)


def open_page(d, folder):
    d.get("file://" + os.path.abspath(folder) + "/index.html")
    for _ in range(300):
        ready = d.execute_script("return document.body.dataset.ready || ''")
        if ready:
            break
        time.sleep(0.05)
    return check(ready == "1", f"{folder}: the page unpacks its data", d.find_element(By.ID, "status").text)


def at(d, label):
    """Moves the view so `label` is in the middle, and returns the page's canvas and offsets to it."""
    d.execute_script("hexsight.centreOn(arguments[0])", label)
    time.sleep(0.05)
    p = d.execute_script("return hexsight.screenOf(arguments[0])", label)
    ui = d.find_element(By.ID, "c-ui")
    r = d.execute_script("return arguments[0].getBoundingClientRect().toJSON()", ui)
    return ui, p["x"] - r["x"] - r["width"] / 2, p["y"] - r["y"] - r["height"] / 2


def click(d, label):
    ui, x, y = at(d, label)
    ActionChains(d).move_to_element_with_offset(ui, int(round(x)), int(round(y))).click().perform()
    time.sleep(0.05)


def hover(d, label):
    """Points at a hex with the mouse, without moving the view (the observer must stay)."""
    p = d.execute_script("return hexsight.screenOf(arguments[0])", label)
    ui = d.find_element(By.ID, "c-ui")
    r = d.execute_script("return arguments[0].getBoundingClientRect().toJSON()", ui)
    if not (r["left"] < p["x"] < r["right"] and r["top"] < p["y"] < r["bottom"]):
        d.execute_script("hexsight.fit()")
        time.sleep(0.05)
        p = d.execute_script("return hexsight.screenOf(arguments[0])", label)
    ActionChains(d).move_to_element_with_offset(
        ui, int(round(p["x"] - r["x"] - r["width"] / 2)), int(round(p["y"] - r["y"] - r["height"] / 2))).perform()
    time.sleep(0.05)


def text(d, id_):
    return d.execute_script("return document.getElementById(arguments[0]).textContent", id_)


def page_classes(d):
    d.execute_script("document.getElementById('lists').open = true")
    time.sleep(0.05)
    return {c: set(text(d, "list-" + c).split()) for c in ["visible", "hindered", "blocked", "blind"]}


def cli_classes(exe, map_path, label):
    v = json.loads(run(exe, "viewshed", map_path, "--from", label, "--json"))
    # `viewshed --json` lists hexes by class; its blind hexes are also in `blocked`.
    blind = set(v["blind"])
    return {"visible": set(v["clear"]), "hindered": set(v["hindered"]),
            "blocked": set(v["blocked"]) - blind, "blind": blind}


def canvas_hash(d, id_):
    return d.execute_script("const c = document.getElementById(arguments[0]); return c.toDataURL().length + ':' + c.toDataURL().slice(-200)", id_)


def viewsheds_match(d, exe, map_path, observers):
    for label in observers:
        click(d, label)
        state = d.execute_script("return hexsight.state()")
        if not check(state["selected"] == label, f"{map_path}: a click on {label} selects it", state):
            continue
        want, got = cli_classes(exe, map_path, label), page_classes(d)
        diff = {c: sorted(want[c] ^ got[c])[:8] for c in want if want[c] != got[c]}
        check(not diff, f"{map_path}: the page's viewshed of {label} is `viewshed --json`'s", diff)


def lines_match(d, exe, map_path, observer, targets, explained=True):
    click(d, observer)
    for target in targets:
        hover(d, target)
        state = d.execute_script("return hexsight.state()")
        if not check(state["pointed"] == target, f"{map_path}: pointing at {target} from {observer}", state):
            continue
        los = json.loads(run(exe, "los", map_path, observer, target, "--json"))
        verdict = text(d, "verdict")
        want = {"clear": "visible", "hindered": "hindered", "blocked": "blocked"}[los["verdict"]]
        if los["verdict"] == "blocked" and verdict == "blind":
            want = "blind"  # a blocked line to a blind hex: the page says which
        got = {"verdict": verdict}
        exp = {"verdict": want}
        if explained:
            got.update(blocker=text(d, "blocker"), reason=text(d, "reason"), hindrance=text(d, "hindrance"))
            exp.update(blocker=los["blocked_by"] or "none", reason=los["reason"], hindrance=str(los["hindrance"]))
        check(got == exp, f"{map_path}: {observer} -> {target} as `los --json` says ({los['verdict']})",
              {"page": got, "los": exp})


def layers_toggle(d, folder):
    radios = d.find_elements(By.CSS_SELECTOR, "input[name=layer]")
    check(len(radios) >= 4, f"{folder}: viewshed, seen by, sees and blind zones are layers", len(radios))
    legends = set()
    for r in radios:
        value = r.get_attribute("value")
        r.click()
        time.sleep(0.1)
        state = d.execute_script("return hexsight.state()")
        painted = d.execute_script(
            "const c = document.getElementById('c-over'), p = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
            "let n = 0; for (let k = 3; k < p.length; k += 4) if (p[k]) n++; return n")
        legend = text(d, "legend")
        check(state["layer"] == value and (painted > 1000 or "No hex has a value" in legend) and legend not in legends,
              f"{folder}: layer {value} draws its colours and its legend", (state["layer"], painted, legend[:80]))
        legends.add(legend)
    radios[0].click()
    for box in d.find_elements(By.CSS_SELECTOR, "input[data-show]"):
        key = box.get_attribute("data-show")
        if not box.is_enabled():
            continue
        before = canvas_hash(d, "c-top")
        box.click()
        time.sleep(0.1)
        after = canvas_hash(d, "c-top")
        shown = d.execute_script("return hexsight.state().show[arguments[0]]", key)
        check(before != after and shown == box.is_selected(), f"{folder}: switching {key} redraws the map", shown)
        box.click()
        time.sleep(0.1)
        check(canvas_hash(d, "c-top") == before, f"{folder}: switching {key} back restores it")


def not_blank(d, folder, shots, name=None):
    """The screenshot's map area has many colours (a blank or one-colour map fails)."""
    from PIL import Image

    d.execute_script("hexsight.fit()")
    time.sleep(0.2)
    png = d.get_screenshot_as_png()
    if shots:
        os.makedirs(shots, exist_ok=True)
        with open(os.path.join(shots, (name or os.path.basename(folder.rstrip("/"))) + ".png"), "wb") as f:
            f.write(png)
    img = Image.open(io.BytesIO(png)).convert("RGB")
    box = d.execute_script("return document.getElementById('mapbox').getBoundingClientRect().toJSON()")
    dpr = d.execute_script("return window.devicePixelRatio")
    crop = img.crop(tuple(int(v * dpr) for v in (box["x"] + 2, box["y"] + 2, box["right"] - 2, box["bottom"] - 2)))
    colours = crop.getcolors(1 << 20) or []
    top = max((c for c, _ in colours), default=0)
    total = crop.width * crop.height
    check(len(colours) > 50 and top < 0.8 * total, f"{folder}: the screenshot shows a drawn map",
          f"{len(colours)} colours, the commonest covers {top / max(total, 1):.0%}")


def keyboard_and_search(d, folder, label):
    d.find_element(By.ID, "search").clear()
    d.find_element(By.ID, "search").send_keys(label, Keys.ENTER)
    time.sleep(0.1)
    check(d.execute_script("return hexsight.state().selected") == label, f"{folder}: searching {label} selects it")
    d.find_element(By.ID, "search").clear()
    d.find_element(By.ID, "search").send_keys("ZZ999", Keys.ENTER)
    time.sleep(0.1)
    check("No hex" in text(d, "search-msg"), f"{folder}: searching a label not on the map says so", text(d, "search-msg"))
    ui = d.find_element(By.ID, "c-ui")
    ui.send_keys(Keys.ARROW_RIGHT)
    time.sleep(0.05)
    pointed = d.execute_script("return hexsight.state().pointed")
    check(pointed not in (None, label), f"{folder}: an arrow key moves the cursor to another hex", pointed)
    ui.send_keys(Keys.ENTER)
    time.sleep(0.05)
    check(d.execute_script("return hexsight.state().selected") == pointed, f"{folder}: Enter makes the cursor's hex the observer")
    scale = d.execute_script("return hexsight.state().scale")
    ui.send_keys("+")
    time.sleep(0.1)
    check(d.execute_script("return hexsight.state().scale") > scale, f"{folder}: + zooms in")


def tap(d, label):
    """A touch tap (no hover) on a hex, where the view now shows it."""
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    p = d.execute_script("return hexsight.screenOf(arguments[0])", label)
    a = ActionBuilder(d, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    a.pointer_action.move_to_location(int(p["x"]), int(p["y"])).pointer_down().pointer_up()
    a.perform()
    time.sleep(0.1)


def touch(d, folder, observer, target):
    """With nothing selected a tap selects; then a tap on another hex points at it (a touch
    has no hover), and a second tap makes it the observer."""
    d.execute_script("hexsight.fit()")
    d.find_element(By.ID, "c-ui").send_keys(Keys.ESCAPE)
    time.sleep(0.1)
    check(d.execute_script("return hexsight.state().selected") is None, f"{folder}: Escape clears the selection")
    tap(d, observer)
    state = d.execute_script("return hexsight.state()")
    check(state["selected"] == observer, f"{folder}: a tap on {observer} selects it", state)
    tap(d, target)
    state = d.execute_script("return hexsight.state()")
    check(state["selected"] == observer and state["pointed"] == target,
          f"{folder}: a tap on {target} points at it from {observer}", state)
    tap(d, target)
    state = d.execute_script("return hexsight.state()")
    check(state["selected"] == target, f"{folder}: a second tap on {target} makes it the observer", state)


def painted(d):
    """How many pixels of the colour layer are drawn."""
    return d.execute_script(
        "const c = document.getElementById('c-over'), p = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        "let n = 0; for (let k = 3; k < p.length; k += 4) if (p[k]) n++; return n")


def what_changes(d, exe, map_path, out, against, observers, shots):
    """The section of a compared report: the counts and the heatmap of `diff --json`, then
    for each clicked hex (on the heatmap, then on the change layer) its viewshed gained and
    lost as `diff --json --view` lists them, drawn on the map."""
    check(d.execute_script("return !document.getElementById('change').hidden"), f"{out}: the page shows What changes")
    want = json.loads(run(exe, "diff", map_path, *against, "--json", "--view", ",".join(observers)))
    counts = want["counts"]
    summary = text(d, "change-sum")
    check(f"{counts['gained']} ordered pairs gained, {counts['lost']} lost" in summary,
          f"{out}: the section's pair counts are `diff --json`'s", (summary, counts))
    d.find_element(By.CSS_SELECTOR, "input[name=layer][value=dheat]").click()
    time.sleep(0.1)
    legend = text(d, "legend")
    check(painted(d) > 200 and "What changes" in legend, f"{out}: the change heatmap draws its colours and legend",
          (painted(d), legend[:80]))
    not_blank(d, out, shots, "what-changes-seen-by")
    views = want["views"]
    check(any(v["gained"] for v in views) and any(v["lost"] for v in views),
          f"{out}: the clicked hexes gain some hexes and lose others (so the test can fail)")
    for k, v in enumerate(want["views"]):
        click(d, v["from"])
        state = d.execute_script("return hexsight.state()")
        check(state["selected"] == v["from"] and state["layer"] == "change",
              f"{out}: a click on {v['from']} shows its viewshed's change", state)
        got = {c: set(text(d, "list-" + c).split()) - {"none"} for c in ["gained", "lost"]}
        exp = {c: set(v[c]) for c in ["gained", "lost"]}
        check(got == exp, f"{out}: {v['from']} gains {len(exp['gained'])} and loses {len(exp['lost'])} as `diff --view` says",
              {c: sorted(got[c] ^ exp[c])[:8] for c in got})
        if exp["gained"] or exp["lost"]:
            check(painted(d) > 0, f"{out}: the change of {v['from']}'s viewshed is drawn", painted(d))
        if k == 0:
            not_blank(d, out, shots)


def report(exe, map_path, out, *extra):
    run(exe, "report", map_path, "--out", out, *extra)
    return out


def bench(d, exe, map_path, tmp):
    out = os.path.join(tmp, "bench")
    t = time.time()
    report(exe, map_path, out)
    took = time.time() - t
    size = lambda f: os.path.getsize(os.path.join(out, f))
    folder = sum(size(f) for f in os.listdir(out))
    page = size("index.html") + size("data.js")
    print(f"bench: report of {map_path} in {took:.1f} s; page + data {page / 1e6:.2f} MB; folder {folder / 1e6:.1f} MB")
    open_page(d, out)
    print("bench: " + text(d, "about-size"))
    times = []
    for label in d.execute_script("return [11, 2222, 4545, 7070, 9898].map(k => hexsight.label(k))"):
        click(d, label)
        times.append(d.execute_script("return window.hexsightLastDraw"))
    print("bench: click to viewshed drawn / on screen (ms): " + ", ".join(
        f"{t['drawn']:.1f}/{t['shown']:.1f}" for t in times if t))
    not_blank(d, out, os.environ.get("HEXSIGHT_SHOTS"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("hexsight")
    ap.add_argument("--shots")
    ap.add_argument("--bench")
    a = ap.parse_args()
    exe = os.path.abspath(a.hexsight)
    os.chdir(ROOT)
    try:
        d = browser()
    except Exception as e:  # no chromium or driver: say so, counted as a failure
        check(False, "headless Chromium starts (chromium, chromium-driver)", repr(e))
        print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
        sys.exit(1)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            # Hill 112 (Combat Commander: hindrances, crests, blind hexes, units of two sides),
            # with the zones of two sides added for the zones layer.
            hill = json.load(open("maps/hill-112.json"))
            hill["zones"] = {"axis-setup": "A1:F10,G3", "allied-entry": "Q1:T12"}
            zoned = os.path.join(tmp, "hill-112-zoned.json")
            json.dump(hill, open(zoned, "w"))
            cases = [
                ("maps/hill-112.json", ["K6", "H8", "C3", "Q10"], "K6", ["H11", "O5", "J8", "K1", "D9", "S12"]),
                ("maps/miniatures-hamlet.json", ["E18", "M9", "A1"], "E18", ["M9", "X1", "L12", "E10"]),
                (zoned, ["G7"], "G7", ["B2", "T12"]),
            ]
            for map_path, observers, observer, targets in cases:
                out = report(exe, map_path, os.path.join(tmp, os.path.basename(map_path)[:-5]))
                if not open_page(d, out):
                    continue
                viewsheds_match(d, exe, map_path, observers)
                lines_match(d, exe, map_path, observer, targets)
                layers_toggle(d, out)
                keyboard_and_search(d, out, observers[-1])
                touch(d, out, observer, targets[0])
                click(d, observer)
                hover(d, targets[0])
                not_blank(d, out, a.shots)
            # What changes: the ASL map with its western woods cut, and woods and smoke laid
            # where it has open ground (so lines are both gained and lost).
            layer = os.path.join(tmp, "woods-cut-and-grown.json")
            json.dump({"hexsight_layer": 1, "substitute": [{"terrain": "woods", "to": "open", "zone": "A1:H12"}],
                       "hexes": {"F6": {"terrain": "woods"}, "G6": {"terrain": "woods", "level": 1}},
                       "add": {"markers": [{"hex": "H7", "kind": "smoke"}]}}, open(layer, "w"))
            crest = "maps/asl-stream-crest.json"
            against = ["--against-layer", layer]
            out = report(exe, crest, os.path.join(tmp, "asl-stream-crest-what-changes"), *against)
            if open_page(d, out):
                what_changes(d, exe, crest, out, against, ["C5", "E6", "J7", "H5", "D3"], a.shots)
            if a.bench:
                bench(d, exe, a.bench, tmp)
    except Exception as e:  # a crash is a failure, counted and shown
        check(False, "the browser test ran to its end", repr(e))
    finally:
        d.quit()
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    sys.exit(1 if RESULTS["failed"] else 0)


if __name__ == "__main__":
    main()
