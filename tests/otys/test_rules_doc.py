"""``envs/otys/RULES.md`` against the code: every table marked ``<!-- table:NAME -->``
is parsed and compared with ``envs/otys/data.py`` / ``config.py``, so the rules
reference cannot drift from the component data the engine plays with."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from otrio.envs.otys import data as D
from otrio.envs.otys.config import Config, SponsorSetup

OTYS = Path(__file__).parents[2] / "envs" / "otys"
RULES = (OTYS / "RULES.md").read_text(encoding="utf-8")
NONE = "—"


def table(name: str) -> list[dict[str, str]]:
    """The rows of the markdown table right after ``<!-- table:name -->``, as dicts
    keyed by the header cells (backticks stripped)."""
    marker = f"<!-- table:{name} -->"
    assert RULES.count(marker) == 1, f"RULES.md needs exactly one {marker}"
    lines = RULES.split(marker, 1)[1].strip().splitlines()
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip().replace("`", "") for cell in line.strip().strip("|").split("|")])
    header, rule, body = rows[0], rows[1], rows[2:]
    assert all(set(cell) <= set("-:") for cell in rule), f"{name}: no header rule"
    assert all(len(row) == len(header) for row in body), f"{name}: ragged rows"
    return [dict(zip(header, row)) for row in body]


def numbers(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", text)]


def payout(text: str) -> tuple[int, int]:
    """'3 credits or 1 PP' -> (3, 1); '2 credits' -> (2, 0)."""
    credits = re.fullmatch(r"(\d+) credits?(?: or (\d+) PP)?", text)
    assert credits, f"unreadable payout {text!r}"
    return int(credits[1]), int(credits[2] or 0)


def test_every_marked_table_is_checked():
    marked = set(re.findall(r"<!-- table:(\w+) -->", RULES))
    checked = {
        "colours", "levels", "technicians", "divers", "keys", "sponsors", "contracts",
        "store", "tokens", "config", "components", "fixed",
    }  # fmt: skip
    assert marked == checked


def test_colours():
    rows = table("colours")
    assert [r["letter"] for r in rows] == list(D.COLOUR_LETTERS)
    assert tuple(r["colour"] for r in rows) == D.COLOUR_NAMES
    assert [r["the Expert who finds it"] for r in rows] == [D.DIVER_NAMES[e] for e in D.EXPERTS]
    assert (D.METAL, D.PLANT, D.FUEL, D.TECH) == tuple(range(len(rows)))  # table order


def test_levels():
    rows = table("levels")
    assert len(rows) == D.NUM_LEVELS
    capacity = D.DEFAULT_COMPONENTS["level_capacity"]
    for li, row in enumerate(rows):
        assert int(row["level"]) == li + 1
        assert int(row["diver slot"]) == D.level_slot(li)
        assert int(row["resource spaces"]) == capacity[li]
        assert row["a resource at setup"] == ("yes" if li in D.START_RESOURCE_LEVELS else "no")
    assert D.NUM_SLOTS == D.SURFACE_SLOTS + D.NUM_LEVELS


def test_technicians():
    rows = {r["improvements made"].split(":")[0]: r for r in table("technicians")}
    for name, key in (("Mechanic", "mechanic_moves"), ("Hacker", "hacker_capacity")):
        values = D.DEFAULT_COMPONENTS[key]
        row = rows.pop(name)
        assert [int(row[str(i)]) for i in range(len(values))] == list(values)
        assert len(row) == len(values) + 1
    assert not rows


def test_divers():
    rows = table("divers")
    assert tuple(r["diver"] for r in rows) == D.DIVER_NAMES
    assert tuple(r["short"] for r in rows) == D.DIVER_SHORT
    costs = tuple(
        (int(r["credits to use: basic"]), int(r["credits to use: upgraded"])) for r in rows
    )
    assert costs == D.DIVER_COST
    codes = (D.METAL_EXPERT, D.PLANT_EXPERT, D.FUEL_EXPERT, D.TECH_EXPERT, D.TRADER, D.SPY,
             D.ENGINEER, D.EXPLORER)  # fmt: skip
    assert codes == tuple(range(D.NUM_DIVERS)) and D.EXPERTS == codes[:4]


def test_keys():
    rows = table("keys")
    assert tuple(r["key"] for r in rows) == D.KEY_NAMES
    assert len(rows) == D.NUM_OWN_KEYS + 1  # own keys, then the neutral X key
    assert rows[D.OWN_X]["key"] == "X" and rows[D.NEUTRAL_X]["key"] == "nX"


def test_sponsors():
    rows = table("sponsors")
    assert [r["tile"] for r in rows] == [f"#{i + 1}" for i in range(D.NUM_SPONSORS)]
    basic = {r["tile"]: r["basic side"] for r in rows}
    free = rows[0]["advanced side"]  # Sponsor #1 advanced: exactly these divers
    named = {d for d, name in enumerate(D.DIVER_NAMES) if name in free}
    assert named == set(D.SPONSOR1_FREE)
    assert numbers(basic["#1"]) == [D.SPONSOR_CREDIT]
    assert numbers(basic["#5"]) == [D.SPONSOR_BATTERY]
    for side in ("basic side", "advanced side"):
        assert numbers(rows[3][side])[0] == D.SPONSOR_UPGRADE_COST
        assert f"+{D.SPONSOR_UPGRADE_PP} PP" in rows[3][side]


def test_contracts():
    rows = table("contracts")
    assert len(rows) == len(D.CONTRACTS)
    capacity = D.DEFAULT_COMPONENTS["level_capacity"]
    for i, (row, (kind, needs, pp, credits, batteries)) in enumerate(zip(rows, D.CONTRACTS)):
        assert int(row["#"]) == i + 1
        assert row["type"] == kind
        if kind == D.COMBINATION:
            assert row["needs"].split() == list(needs), f"card {i + 1}"
            total = len(needs)
        else:
            assert tuple(numbers(row["needs"])) == needs, f"card {i + 1}"
            assert row["needs"] == " + ".join(map(str, needs))
            total = sum(needs)
        assert int(row["resources"]) == total
        lowest = next(li + 1 for li, cap in enumerate(capacity) if cap >= total)
        assert int(row["lowest level"]) == lowest, f"card {i + 1}"
        assert int(row["PP"]) == pp
        bonus = row["bonus"]
        found = {word: int(n) for n, word in re.findall(r"\+(\d+) (credit|battery)", bonus)}
        assert found.get("credit", 0) == credits, f"card {i + 1}"
        assert found.get("battery", 0) == batteries, f"card {i + 1}"
        assert (bonus == NONE) == (credits == batteries == 0)


def test_store():
    rows = table("store")
    credits, pp = D.DEFAULT_COMPONENTS["store_credits"], D.DEFAULT_COMPONENTS["store_pp"]
    assert len(rows) == D.STORE_ROWS
    bonus, discount = D.TRADER_UPGRADE_BONUS, D.TRADER_UPGRADE_DISCOUNT
    for r, row in enumerate(rows):
        assert numbers(row["row"])[0] == r
        assert payout(row["sale, basic Trader"]) == (credits[r], pp[r])
        upgraded_pp = pp[r] + bonus if pp[r] + bonus > 0 else 0
        assert payout(row["sale, upgraded Trader"]) == (credits[r] + bonus, upgraded_pp)
        assert payout(row["purchase, basic Trader"]) == (credits[r], 0)
        assert payout(row["purchase, upgraded Trader"]) == (max(credits[r] - discount, 0), 0)


def test_reward_tokens():
    backs = {f"{D.PERMANENT_CREDITS} credits": "credits", f"{D.PERMANENT_PP} PP": "pp"}
    doc: Counter = Counter()
    for row in table("tokens"):
        colours = "" if row["colours shown"] == NONE else row["colours shown"].replace("/", "")
        key = (row["front"], colours, backs[row["back"]])
        assert key not in doc, f"duplicate row {key}"
        doc[key] = int(row["count"])
    assert doc == Counter(D.REWARD_TOKENS)
    assert (D.RESOURCE, D.BATTERY, D.DRAW, D.UPGRADE, D.PRESTIGE) == tuple(
        D.TOKEN_KINDS.index(k) for k in ("resource", "battery", "draw", "upgrade", "pp")
    )
    assert (D.BACK_CREDITS, D.BACK_PP) == (
        D.TOKEN_BACKS.index("credits"),
        D.TOKEN_BACKS.index("pp"),
    )
    assert sum(doc.values()) == len(D.REWARD_TOKENS)
    assert {front for front, _, _ in doc} == set(D.TOKEN_KINDS)


def test_config_defaults():
    rows = {r["key"]: r["default"] for r in table("config")}
    fields = {name: f.default for name, f in Config.model_fields.items()}
    del fields["sponsors"], fields["components"]
    for name, f in SponsorSetup.model_fields.items():
        fields[f"sponsors.{name}"] = f.default
    assert set(rows) == set(fields) | {"components"}
    for name, default in fields.items():
        assert ast.literal_eval(rows[name]) == default, name


def test_component_defaults():
    rows = {r["components. key"]: r["default"] for r in table("components")}
    assert set(rows) == set(D.DEFAULT_COMPONENTS)
    assert f"{len(D.CONTRACTS)} cards" in rows.pop("contracts")
    assert f"{len(D.REWARD_TOKENS)} tokens" in rows.pop("reward_tokens")
    for key, text in rows.items():
        assert ast.literal_eval(text) == D.DEFAULT_COMPONENTS[key], key


def test_fixed_numbers():
    rows = table("fixed")
    for row in rows:
        name = row["data.py name"]
        assert ast.literal_eval(row["value"]) == getattr(D, name), name
    assert len({r["data.py name"] for r in rows}) == len(rows)


# data.py names the other tables check (see the tests above)
ELSEWHERE = {
    "COLOUR_LETTERS", "COLOUR_NAMES", "METAL", "PLANT", "FUEL", "TECH",
    "DIVER_NAMES", "DIVER_SHORT", "DIVER_COST", "EXPERTS", "SPONSOR1_FREE",
    "METAL_EXPERT", "PLANT_EXPERT", "FUEL_EXPERT", "TECH_EXPERT", "TRADER", "SPY",
    "ENGINEER", "EXPLORER", "KEY_NAMES", "OWN_X", "NEUTRAL_X",
    "COMBINATION", "NUMBER", "CONTRACTS", "REWARD_TOKENS", "TOKEN_KINDS", "TOKEN_BACKS",
    "RESOURCE", "BATTERY", "DRAW", "UPGRADE", "PRESTIGE", "BACK_CREDITS", "BACK_PP",
    "DEFAULT_COMPONENTS",
}  # fmt: skip


def test_every_data_constant_is_documented():
    """A constant added to data.py fails here until RULES.md shows it."""
    names = {n for n in vars(D) if n[0].isalpha() and n.isupper()}
    fixed = {r["data.py name"] for r in table("fixed")}
    assert not fixed & ELSEWHERE
    assert names == fixed | ELSEWHERE


@pytest.mark.parametrize("name", ["RULES.md", "README.md"])
def test_docs_do_not_point_outside_the_repository(name):
    text = (OTYS / name).read_text(encoding="utf-8")
    assert "shared/rules" not in text and "../shared" not in text


def test_readme_links_the_rules():
    assert "(RULES.md)" in (OTYS / "README.md").read_text(encoding="utf-8")
