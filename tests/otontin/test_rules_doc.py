"""RULES.md against the code: the component tables, the order and action tables, and
every constant of ``data.py`` are read from the document and compared with the data,
so the rules reference cannot drift from what the engine plays."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from otrio.envs.otontin import data
from otrio.envs.otontin.actions import TABLE
from otrio.envs.otontin.orders import CARD_PAIRS, ORDERS

RULES = Path(data.__file__).with_name("RULES.md")


NUMBER_WORDS = {15: "fifteen"}  # how RULES.md spells the number of dice


def _text() -> str:
    return RULES.read_text(encoding="utf-8")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table(heading: str, first_column: str) -> list[dict[str, str]]:
    """The rows of the first table under ``heading`` whose first column header is
    ``first_column``, as dicts keyed by the header cells."""
    lines = _text().splitlines()
    title = [i for i, line in enumerate(lines) if re.fullmatch(r"#+ " + re.escape(heading), line)]
    assert len(title) == 1, f"RULES.md needs exactly one heading {heading!r}"
    i = title[0] + 1
    while i < len(lines) and not lines[i].startswith("#"):
        if lines[i].startswith("|") and _cells(lines[i])[0] == first_column:
            header = _cells(lines[i])
            rows = []
            for line in lines[i + 2 :]:
                if not line.startswith("|"):
                    break
                cells = _cells(line)
                assert len(cells) == len(header), f"ragged row under {heading!r}: {line}"
                rows.append(dict(zip(header, cells)))
            assert rows, f"empty table under {heading!r}"
            return rows
        i += 1
    raise AssertionError(f"no table starting with {first_column!r} under {heading!r}")


def code(cell: str) -> str:
    """``"`NAME`"`` -> ``"NAME"``."""
    match = re.fullmatch(r"`([A-Z_0-9]+)`", cell)
    assert match, f"expected a `CONSTANT`, got {cell!r}"
    return match.group(1)


def indexed(cell: str) -> tuple[str, int]:
    """``"`SPEAR` = 0"`` -> ``("SPEAR", 0)``."""
    match = re.fullmatch(r"`([A-Z_0-9]+)` = (-?\d+)", cell)
    assert match, f"expected `NAME` = index, got {cell!r}"
    return match.group(1), int(match.group(2))


def id_range(cell: str) -> range:
    """``"3"`` or ``"1–5"`` (en dash) as a range of ids."""
    lo, _, hi = cell.partition("–")
    return range(int(lo), int(hi or lo) + 1)


def test_constants_table():
    rows = table("Players and constants", "constant")
    for row in rows:
        assert getattr(data, code(row["constant"])) == int(row["value"]), row


def test_every_data_constant_is_documented():
    text = _text()
    names = [n for n in vars(data) if n.isupper() and not n.startswith("_")]
    missing = [n for n in names if f"`{n}`" not in text]
    assert not missing, f"data.py constants missing from RULES.md: {missing}"


def test_pool_table():
    rows = table("Resource pool", "players")
    got = {int(r["players"]): (int(r["warriors"]), int(r["beans"])) for r in rows}
    want = {n: (p, p) for n, p in data.POOL_BY_PLAYERS.items()}
    assert got == want
    assert sorted(got) == list(range(data.MIN_PLAYERS, data.MAX_PLAYERS + 1))


def test_die_faces_table():
    rows = table("Die faces", "index")
    assert [r["face"] for r in rows] == list(data.FACE_NAMES)
    for row in rows:
        name, index = indexed(row["index"])
        assert getattr(data, name) == index
        assert data.FACE_NAMES[index] == row["face"]


def test_dice_table():
    rows = table("Campaign dice", "colour")
    got = []
    for row in rows:
        faces = tuple(f.strip() for f in row["faces of one die"].split(","))
        got.append((row["colour"], int(row["dice"]), faces))
        for face in data.FACE_NAMES:  # the count columns agree with the face list
            assert int(row[face]) == faces.count(face), (row["colour"], face)
    assert tuple(got) == data.DICE


def test_dice_totals_in_prose():
    """The sentences that count all the dice and sum their faces."""
    text = " ".join(_text().split()).lower()
    dice = sum(k for _, k, _ in data.DICE)
    assert f"{NUMBER_WORDS.get(dice, dice)} dice" in text
    faces = {f: sum(k * fs.count(f) for _, k, fs in data.DICE) for f in data.FACE_NAMES}
    total = sum(k * len(fs) for _, k, fs in data.DICE)
    listed = ", ".join(f"{faces[f]} {f}" for f in data.FACE_NAMES[:-1])
    last = data.FACE_NAMES[-1]
    assert f"{listed} and {faces[last]} {last} faces out of {total}" in text


def test_tactic_cards_table():
    rows = table("Tactic cards", "index")
    assert [r["card"] for r in rows] == list(data.CARD_NAMES)
    for row in rows:
        name, index = indexed(row["index"])
        assert getattr(data, name) == index
        assert int(row["copies per leader"]) == data.TACTIC_HAND.count(index)
    assert sum(int(r["copies per leader"]) for r in rows) == len(data.TACTIC_HAND)


def test_hand_offers_table():
    rows = table("Hand offers", "index")
    assert [r["offer"] for r in rows] == list(data.OFFER_NAMES)
    for row in rows:
        name, index = indexed(row["index"])
        assert getattr(data, name) == index
        assert int(row["beans paid"]) == data.OFFER_PAYMENT.get(index, 0)


def test_military_values_table():
    rows = table("Military values", "warrior")
    got = {r["warrior"]: int(r["value"]) for r in rows}
    assert got == {
        "active attack": data.ATTACK_VALUE,
        "active defence": data.DEFENCE_VALUE,
        "resting": data.RESTING_VALUE,
    }


def test_bean_targets_table():
    rows = table("Game lengths (bean targets)", "mode")
    assert {r["mode"]: int(r["target"]) for r in rows} == data.BEAN_TARGETS


def test_orders_table():
    rows = table("Orders", "left card")
    assert len(rows) == len(CARD_PAIRS)
    seen = []
    for row in rows:
        ids = id_range(row["ids"])
        assert int(row["orders"]) == len(ids)
        pair = (data.CARD_NAMES.index(row["left card"]), data.CARD_NAMES.index(row["right card"]))
        assert [ORDERS[i][0::2] for i in ids] == [pair] * len(ids), row
        seen.extend(ids)
    assert seen == list(range(len(ORDERS)))


def test_action_table():
    rows = table("Decisions and action ids", "ids")
    by_start = {ids.start: (kind, ids) for kind, ids in TABLE.blocks.items()}
    assert len(rows) == len(by_start)
    for row in rows:
        kind, ids = by_start[id_range(row["ids"]).start]
        assert id_range(row["ids"]) == ids, row
        assert f"`{kind}" in row["action"], row
    assert f"{len(TABLE)} actions" in _text()


@pytest.mark.parametrize("heading", ["Config, variants and flags"])
def test_config_table_names_every_key(heading):
    from otrio.envs.otontin.rules import Config

    rows = table(heading, "key")
    keys = [r["key"].strip("`") for r in rows]
    assert sorted(keys) == sorted(Config.model_fields)
    defaults = {r["key"].strip("`"): r["default"] for r in rows}
    for key in ("num_players", "bean_target", "round_cap"):
        assert int(defaults[key]) == Config.model_fields[key].default
