"""The HTML report works in a real browser (headless Chromium): it loads from
file:// without console errors or network, its filters and item view work,
and untrusted text is shown as text, never run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
HOSTILE = '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">'
DOCS_IMAGE = Path(__file__).resolve().parents[2] / "docs" / "img" / "report.png"


@pytest.fixture(scope="session")
def chromium() -> None:
    """Make sure Debian's chromium and chromium-driver are installed (apt-get as root).

    Without them, and unable to install them, the test fails with one line
    saying what to install (no traceback).
    """
    from debian_packages import ensure_debian_packages

    ensure_debian_packages(
        ["chromium", "chromium-driver"], lambda: CHROMIUM.exists() and CHROMEDRIVER.exists(), "the report browser tests"
    )


@pytest.fixture(scope="module")
def runs(tiny_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Two real runs on the tiny corpus; in the lexical one, a reasoning made hostile,
    one result file made unreadable and two verdicts made wrong."""
    import agenthorizon
    from agenthorizon.judging.runs.runner import run_judge

    base = tmp_path_factory.mktemp("runs")
    dataset = agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths")
    lexical, constant = base / "lexical", base / "constant"
    run_judge("lexical", dataset, lexical, config="AH", data_root=tiny_root, progress=False)
    run_judge("constant:true", dataset, constant, config="AH", data_root=tiny_root, progress=False)
    ids, labels = dataset["trajectory_id"], dataset["label"]
    hostile_id, broken_id = ids[0], ids[1]
    result = json.loads((lexical / f"{hostile_id}.json").read_text())
    result["verdict"]["reasoning"] = HOSTILE
    (lexical / f"{hostile_id}.json").write_text(json.dumps(result))
    (lexical / f"{broken_id}.json").write_text("{not json")
    # Whatever the baseline's accuracy, make sure every outcome class occurs:
    # turn one other item of each label into a mistake.
    for label in ("positive", "negative"):
        flip = next(i for i, l in zip(ids[2:], labels[2:]) if l == label)
        result = json.loads((lexical / f"{flip}.json").read_text())
        result["verdict"]["success"] = label == "negative"
        (lexical / f"{flip}.json").write_text(json.dumps(result))
    return {"lexical": lexical, "constant": constant, "hostile": hostile_id, "broken": broken_id, "root": tiny_root}


@pytest.fixture(scope="module")
def report_file(runs: dict, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from agenthorizon.cli import main

    out = tmp_path_factory.mktemp("report") / "report.html"
    code = main(
        ["report", str(runs["lexical"]), str(runs["constant"]), "--data", str(runs["root"]), "--out", str(out),
         "--bootstrap", "200"]
    )
    assert code == 0
    return out


@pytest.fixture(scope="module")
def browser(chromium, tmp_path_factory: pytest.TempPathFactory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}", "--window-size=1280,1600",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _expected_outcomes(runs: dict, run_dir: Path) -> dict[str, int]:
    """Outcome counts computed from the result files and labels, independently of the page."""
    from agenthorizon.release.files import load_references

    counts = {"correct": 0, "false_accept": 0, "false_reject": 0, "invalid": 0}
    for row in load_references(runs["root"], "AH"):
        path = run_dir / f"{row['trajectory_id']}.json"
        try:
            result = json.loads(path.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            counts["invalid"] += 1
            continue
        success = (result.get("verdict") or {}).get("success")
        if result["parse_status"] != "ok" or not isinstance(success, bool):
            counts["invalid"] += 1
        elif success == (row["label"] == "positive"):
            counts["correct"] += 1
        else:
            counts["false_accept" if success else "false_reject"] += 1
    return counts


def _visible_rows(driver) -> list:
    """Rows the user can see (laid out by the browser), in one round trip."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#items-table tbody tr'))"
        ".filter(row => row.getClientRects().length > 0)"
    )


def _visible_outcomes(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#items-table tbody tr'))"
        ".filter(row => row.getClientRects().length > 0).map(row => row.dataset.outcome)"
    )


def test_report_is_one_self_contained_file(report_file: Path):
    text = report_file.read_text(encoding="utf-8")
    for external in ('src="http', "src='http", 'href="http', "href='http", "@import", "url(http"):
        assert external not in text
    assert "data:image/jpeg;base64," in text  # thumbnails are embedded
    assert HOSTILE not in text  # the hostile reasoning only ever appears escaped


def test_page_loads_without_console_errors_and_filters_rows(browser, report_file: Path, runs: dict):
    browser.get(report_file.as_uri())
    errors = [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
    assert errors == []
    expected = _expected_outcomes(runs, runs["lexical"])
    n_items = sum(expected.values())
    assert len(_visible_rows(browser)) == n_items
    assert min(expected.values()) >= 1
    for name in ("false_accept", "false_reject", "invalid", "correct"):
        browser.find_element("css selector", f'button[data-filter="{name}"]').click()
        assert _visible_outcomes(browser) == [name] * expected[name], name
    browser.find_element("css selector", 'button[data-filter="all"]').click()
    search = browser.find_element("id", "item-search")
    search.send_keys(runs["hostile"][:8])
    assert len(_visible_rows(browser)) == 1
    search.clear()
    search.send_keys(" ")  # input event with an empty query shows everything again
    assert len(_visible_rows(browser)) == n_items
    # The second run (constant:true) accepts everything: no false rejects, every negative a false accept.
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "run-select")).select_by_index(1)
    browser.find_element("css selector", 'button[data-filter="false_accept"]').click()
    assert len(_visible_rows(browser)) == _expected_outcomes(runs, runs["constant"])["false_accept"]
    browser.find_element("css selector", 'button[data-filter="false_reject"]').click()
    assert _visible_rows(browser) == []


def test_item_opens_with_instruction_and_reasoning_shown_as_text(browser, report_file: Path, runs: dict):
    import agenthorizon

    browser.get(report_file.as_uri())
    search = browser.find_element("id", "item-search")
    search.send_keys(runs["hostile"])
    (row,) = _visible_rows(browser)
    row.click()
    dialog = browser.find_element("id", "item-dialog")
    assert dialog.get_attribute("open") is not None
    dataset = agenthorizon.load_dataset(runs["root"], "AH", split="test", images="paths")
    instruction = dataset[dataset["trajectory_id"].index(runs["hostile"])]["instruction"]
    assert browser.find_element("id", "dialog-instruction").text == instruction.strip()
    assert browser.find_element("id", "dialog-reasoning").text == HOSTILE
    assert browser.find_element("id", "dialog-status").text == "ok"
    assert browser.execute_script("return window.__pwned === undefined")
    assert dialog.find_elements("css selector", "script") == []
    images = dialog.find_elements("css selector", ".thumbs img")
    assert 1 <= len(images) <= 3
    assert all(browser.execute_script("return arguments[0].naturalWidth", img) > 0 for img in images)
    browser.find_element("id", "dialog-close").click()
    assert dialog.get_attribute("open") is None
    # The unreadable result file is an invalid prediction, shown with its status.
    search.clear()
    search.send_keys(runs["broken"])
    _visible_rows(browser)[0].click()
    assert browser.find_element("id", "dialog-status").text == "malformed_json"
    browser.find_element("id", "dialog-close").click()


def test_comparison_matches_compare_and_screenshot_is_saved(browser, report_file: Path, runs: dict, tmp_path: Path):
    from PIL import Image

    from agenthorizon.report.runs import load_runs
    from agenthorizon.scoring.compare import compare

    run_set = load_runs([runs["lexical"], runs["constant"]], runs["root"], images=None)
    result = compare(run_set.runs[0].predictions(), run_set.runs[1].predictions(), run_set.rows, bootstrap=0)
    browser.get(report_file.as_uri())
    row = browser.find_element("css selector", "#comparison-table tbody tr")
    assert f"{100 * -result.difference:+.1f}" in row.text
    assert f"{result.only_b_correct} / {result.only_a_correct}" in row.text
    browser.set_window_size(1280, 1500)
    path = tmp_path / "report.png"
    assert browser.save_screenshot(str(path))
    with Image.open(path) as shot:
        assert shot.size[0] >= 1000 and shot.size[1] >= 800
        if os.environ.get("AGENTHORIZON_UPDATE_DOCS_IMAGES"):
            DOCS_IMAGE.parent.mkdir(parents=True, exist_ok=True)
            shot.convert("RGB").resize((shot.width // 2, shot.height // 2)).save(DOCS_IMAGE, optimize=True)


def test_report_refuses_runs_it_cannot_score_honestly(runs: dict, tmp_path: Path, capsys):
    from agenthorizon.cli import main

    root, lexical = str(runs["root"]), str(runs["lexical"])
    assert main(["report", str(tmp_path / "no-run"), "--data", root, "--out", str(tmp_path / "r.html")]) == 2
    assert "no-run" in capsys.readouterr().err
    # run.json says AH; asking for another config is a contradiction, not a silent rescore.
    assert main(["report", lexical, "--data", root, "--config", "AH-S", "--out", str(tmp_path / "r.html")]) == 2
    assert "contradicts" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_bare_verdict_files_show_their_reasoning(runs: dict, tmp_path: Path):
    # Not a browser test: the data the page is built from. A results folder of
    # bare verdicts (no runner wrapper) must show reasoning and confidence.
    from agenthorizon.report.items import run_views
    from agenthorizon.report.runs import load_runs

    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "run.json").write_text((runs["constant"] / "run.json").read_text())
    for path in runs["constant"].glob("*-*-*-*-*.json"):
        (bare / path.name).write_text(json.dumps(json.loads(path.read_text())["verdict"]))
    wrapped, unwrapped = (
        run_views(load_runs([directory], runs["root"], images=None))[0]["verdicts"]
        for directory in (runs["constant"], bare)
    )
    assert unwrapped == wrapped
    assert all(view["reasoning"] and view["confidence"] for view in unwrapped)


@pytest.fixture(scope="module")
def partial_report(tiny_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The report of a run interrupted (Ctrl-C) after 2 items, made by the real runner and the real CLI."""
    import agenthorizon
    from agenthorizon.cli import main
    from agenthorizon.judging.runs.runner import run_judge
    from stub_judges import InterruptedJudge

    base = tmp_path_factory.mktemp("partial")
    dataset = agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths")
    with pytest.raises(KeyboardInterrupt):
        run_judge(InterruptedJudge(stop_at=3), dataset, base / "run", config="AH", data_root=tiny_root, progress=False,
                  concurrency=1)
    out = base / "report.html"
    assert main(["report", str(base / "run"), "--data", str(tiny_root), "--out", str(out), "--bootstrap", "0"]) == 0
    return {"page": out, "run": base / "run", "n": len(dataset), "root": tiny_root}


def test_the_report_of_an_unfinished_run_says_so_first(browser, partial_report: dict):
    from agenthorizon.judging.runs.folder import read_results, read_run_record
    from agenthorizon.release.files import load_references
    from agenthorizon.scoring.metrics import score

    n = partial_report["n"]
    browser.get(partial_report["page"].as_uri())
    # The first thing under the title: how many items were judged, why it stopped, how to resume.
    warnings = [element.text for element in browser.find_elements("css selector", ".warning")]
    # The banner names its run: on a page of several runs it is never read as the whole report's.
    label = read_run_record(partial_report["run"]).label
    assert warnings[0] == f"Partial run {label}: 2 of {n} items judged ({100 * 2 / n:.1f}%); the {n - 2} others " \
        "count as invalid (wrong), so this run's numbers are not the judge's accuracy on the config."
    assert warnings[1].startswith("Why: ") and "interrupted (signal): KeyboardInterrupt" in warnings[1]
    assert warnings[2].startswith("To complete it: re-run the same `agenthorizon judge` command")
    first_warning = browser.find_element("css selector", ".warning")
    summary = browser.find_element("id", "summary-table")
    assert first_warning.location["y"] < summary.location["y"]  # said before any number
    # The headline numbers are marked partial, in the summary and above the run's cards.
    mark = f"PARTIAL: 2 of {n} items judged"
    assert mark in summary.text
    run_section = browser.find_element("css selector", "section.run")
    marked = run_section.find_element("css selector", ".partial-mark")
    cards = run_section.find_element("css selector", ".headline")
    assert marked.text == mark and marked.location["y"] < cards.location["y"]
    # Strict: the missing items are wrong and stay in the denominator.
    rows = load_references(partial_report["root"], "AH")
    expected = score(read_results([partial_report["run"]]).predictions(), rows)
    balanced = cards.find_element("css selector", '[data-metric="balanced_accuracy"] .value').text
    assert balanced == f"{100 * expected.balanced_accuracy:.1f}%" and expected.n == n
    invalid = cards.find_element("css selector", '[data-metric="invalid"] .value').text
    assert invalid == str(n - 2)


REPORT_CARDS_IMAGE = "report-run-cards.png"


def test_cost_table_is_labelled_and_rounded_zero_bars_show_and_no_card_is_half_empty(browser, report_file: Path, tmp_path: Path):
    import re

    from agenthorizon.report.style import QUANTITY_LABELS

    browser.set_window_size(1280, 1600)
    browser.get(report_file.as_uri())
    constant = browser.find_elements("css selector", "section.run")[1]  # constant:true: 0 % on every negative
    cost = constant.find_element("css selector", '[data-section="cost"]')
    shown = [row.find_element("css selector", "td").text for row in cost.find_elements("css selector", "tbody tr")]
    assert shown and set(shown) <= set(QUANTITY_LABELS.values()), shown  # human labels, no field names
    rounded = re.compile(r"^(unknown|\$0|<\$0\.0001|\$\d[\d,]*\.\d{2,4}|\d[\d,]*(\.\d)?|0\.\d{1,2}|\d+(\.\d+)? (ms|s|min)|\d+ / \d+)$")
    cells = [cell.text for cell in cost.find_elements("css selector", "td.num")]
    assert cells and all(rounded.match(text) for text in cells), cells
    # A 0 % bar is drawn (a stub of its own colour), unlike a value that does not exist (no bar).
    zero_bars = constant.find_elements("css selector", ".bar.zero span")
    assert zero_bars and all(bar.size["width"] >= 3 and bar.is_displayed() for bar in zero_bars)
    # Every two-column grid holds two cards (or, inside a card, two tables): none sits beside an empty half.
    for grid in browser.find_elements("css selector", ".grid.two"):
        halves = grid.find_elements("xpath", "./div[contains(@class, 'card')]") or grid.find_elements("xpath", "./table")
        assert len(halves) >= 2, grid.get_attribute("outerHTML")[:300]
    # ... and no card is stretched to its neighbour's height: below its last line, only its padding.
    slack = browser.execute_script(
        "return [...document.querySelectorAll('.grid > .card')].map(c => c.getBoundingClientRect().bottom"
        " - c.lastElementChild.getBoundingClientRect().bottom)")
    assert slack and max(slack) < 40, slack
    browser.execute_script("arguments[0].scrollIntoView()", constant)
    path = tmp_path / REPORT_CARDS_IMAGE
    assert constant.screenshot(str(path))
    if os.environ.get("AGENTHORIZON_KEEP_SCREENSHOTS"):  # to look at the page: a folder the caller names
        Path(os.environ["AGENTHORIZON_KEEP_SCREENSHOTS"]).mkdir(parents=True, exist_ok=True)
        import shutil

        shutil.copy(path, Path(os.environ["AGENTHORIZON_KEEP_SCREENSHOTS"]) / REPORT_CARDS_IMAGE)
