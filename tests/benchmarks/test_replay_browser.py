"""The replay page in a real browser (headless Chromium through selenium): it opens and
draws the table, the step controls change the picture and the step label, the round
and point-of-view selectors work, and the end shows the result.

Skipped where Chromium is not installed (Debian: apt-get install chromium
chromium-driver; pip install selenium). One browser serves the whole module.
"""

import io
import json
import shutil
import time
from pathlib import Path

import pytest

from otrio.arena.games import play_game
from otrio.arena.play import GameTask
from otrio.benchmarks.replay.html import SECRET, build_page, frame_view

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
INSTALL = ("the browser tests need Chromium and its driver: apt-get install chromium "
           "chromium-driver (as root; CI's .ci/run does it), and pip install selenium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000"]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium for the module, with a fresh profile."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip(INSTALL)
    webdriver = pytest.importorskip("selenium.webdriver", reason=INSTALL)
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tmp_path_factory.mktemp("chromium-profile")
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """An Oceanos game at three players (its keeps are secret choices) as a page."""
    record = play_game(GameTask(game=0, env_id="oceanos_v0", config={"num_players": 3},
                                seating=("greedy", "random", "random"),
                                specs={"greedy": "greedy", "random": "random"}, seed=4))
    html, data, _ = build_page(json.loads(json.dumps(record)), "browser test")
    path = tmp_path_factory.mktemp("replay") / "game.html"
    path.write_text(html, encoding="utf-8")
    return path, data, record


def opened(browser, path):
    """Load the page and wait until its script has drawn the first frame."""
    from selenium.webdriver.common.by import By

    browser.get(path.as_uri())
    deadline = time.monotonic() + 20
    while browser.execute_script("return document.body.dataset.ready || ''") != "1":
        error = browser.find_elements(By.ID, "error")
        assert not error, error[0].text
        assert time.monotonic() < deadline, "the page did not draw its first frame"
        time.sleep(0.05)
    return lambda ident: browser.find_element(By.ID, ident)


def board_png(browser) -> bytes:
    from selenium.webdriver.common.by import By

    return browser.find_element(By.ID, "board").screenshot_as_png


def colours(png: bytes) -> int:
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    return len(image.getcolors(maxcolors=1 << 24))


def frame(browser) -> int:
    return int(browser.execute_script("return document.body.dataset.frame"))


def test_the_page_opens_and_draws_the_table(browser, page):
    path, data, _ = page
    element = opened(browser, path)
    assert element("title").text == data["title"]
    assert element("step-label").text.startswith(f"Decision 1 / {len(data['frames']) - 1}")
    assert element("action").text == frame_view(data, 0, 0)["label"]
    assert colours(board_png(browser)) > 50  # a drawn table, not a blank or flat box
    assert not browser.find_element("id", "result").is_displayed()


def test_the_step_controls_change_the_picture_and_the_label(browser, page):
    path, data, _ = page
    element = opened(browser, path)
    # the first step whose whole-table picture changes at the next step
    k = next(i for i in range(len(data["frames"]) - 1)
             if frame_view(data, i, 0)["svg"] != frame_view(data, i + 1, 0)["svg"])
    for _ in range(k):
        element("next").click()
    assert frame(browser) == k
    before, label = board_png(browser), element("step-label").text
    element("next").click()
    assert frame(browser) == k + 1
    assert element("step-label").text != label
    assert element("step-label").text.startswith(f"Decision {k + 2} /")
    assert element("action").text == frame_view(data, k + 1, 0)["label"]
    assert board_png(browser) != before
    element("prev").click()
    assert frame(browser) == k and element("step-label").text == label
    assert board_png(browser) == before
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    element("title").click()  # focus off the buttons: the page's keys
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    assert frame(browser) == k + 1
    ActionChains(browser).send_keys(Keys.ARROW_LEFT).perform()
    assert frame(browser) == k


def test_rounds_play_and_the_end(browser, page):
    path, data, record = page
    from selenium.webdriver.support.ui import Select

    element = opened(browser, path)
    assert len(data["rounds"]) == 3
    Select(element("round")).select_by_visible_text("3")
    assert frame(browser) == data["rounds"][2][1]
    element("play").click()
    assert element("play").text == "pause"
    deadline = time.monotonic() + 10
    while frame(browser) == data["rounds"][2][1]:
        assert time.monotonic() < deadline, "play did not advance"
        time.sleep(0.05)
    element("play").click()
    assert element("play").text == "play"
    stopped = frame(browser)
    time.sleep(1.0)  # longer than a step at the normal speed
    assert frame(browser) == stopped
    element("last").click()
    assert frame(browser) == len(data["frames"]) - 1
    result = element("result")
    assert result.is_displayed() and "Breakdown" in result.text
    assert element("step-label").text.startswith("Game over")
    for seat, score in enumerate(record["scores"]):
        assert f"{data['players'][seat]} {score}" in element("scores").text


def test_the_point_of_view_selector_shows_a_seat_its_own_view(browser, page):
    path, data, _ = page
    from selenium.webdriver.support.ui import Select

    element = opened(browser, path)
    # a secret choice of another seat, at a frame where seat 0's picture hides something
    k = next(i for i, f in enumerate(data["frames"]) if 1 in f["x"]
             and frame_view(data, i, 1)["svg"] != frame_view(data, i, 0)["svg"])
    browser.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input'));", k)
    assert frame(browser) == k
    whole_png, whole_label = board_png(browser), element("action").text
    assert whole_label == frame_view(data, k, 0)["label"]
    Select(element("pov")).select_by_value("1")  # seat 0's own view
    assert element("action").text == data["players"][data["frames"][k]["a"]] + SECRET
    assert whole_label not in element("action").text
    assert board_png(browser) != whole_png
    Select(element("pov")).select_by_value("0")
    assert element("action").text == whole_label
    assert board_png(browser) == whole_png
