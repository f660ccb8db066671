"""envs/oceanos/RULES.md cannot drift from the code: every table of numbers in it is
read back and compared with the data, the config and the action table, and its card
list is the block envs/oceanos/make_rules_tables.py prints."""

import re
from collections import Counter
from pathlib import Path

import pytest

from otrio.envs.oceanos import make_rules_tables
from otrio.envs.oceanos.actions import NUM_ACTIONS, TABLE
from otrio.envs.oceanos.cards import CARDS
from otrio.envs.oceanos.cards_table import card_table
from otrio.envs.oceanos.config import Config
from otrio.envs.oceanos.data import (
    AIRLOCK_DIVERS,
    AQUARIUM_CAPACITY,
    COCKPIT_PERISCOPES,
    DECK_COMPOSITION,
    DECK_SIZES,
    DIVER_TOKENS_PER_PLAYER,
    FUEL_TOKENS_PER_PLAYER,
    KRAKEN_SIZES,
    KRAKEN_TOKENS,
    MOTOR_FUEL,
    NUM_ROUNDS,
    PARTS,
    PROPELLER_STARS,
    STARS_PER_ANIMAL,
    TREASURE_TOKENS,
    TURNS_PER_ROUND,
)
from otrio.envs.oceanos.env import INFO
from otrio.envs.oceanos.rules import Decision

ROOT = Path(__file__).resolve().parents[2]
RULES_MD = ROOT / "envs" / "oceanos" / "RULES.md"


@pytest.fixture(scope="module")
def doc() -> str:
    return RULES_MD.read_text(encoding="utf-8")


def tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every markdown table of ``text`` as (header cells, body rows of cells)."""
    found, block = [], []
    for line in [*text.splitlines(), ""]:
        line = line.strip()
        if line.startswith("|"):
            block.append([cell.strip() for cell in line.strip("|").split("|")])
        elif block:
            assert len(block) >= 2 and set("".join(block[1])) <= set("-:"), block[:2]
            found.append((block[0], block[2:]))
            block = []
    return found


def table(text: str, *header: str) -> list[list[str]]:
    """The body of the one table whose header is ``header``."""
    bodies = [body for head, body in tables(text) if head == list(header)]
    assert len(bodies) == 1, f"{len(bodies)} tables with header {header}"
    return bodies[0]


def rows_by_first(body: list[list[str]]) -> dict[str, list[str]]:
    first = [row[0] for row in body]
    assert len(set(first)) == len(first), first
    return {row[0]: row[1:] for row in body}


def ints(cell: str) -> tuple[int, ...]:
    """The integers in a cell (a typographic minus reads as a minus)."""
    return tuple(int(v) for v in re.findall(r"-?\d+", cell.replace("−", "-")))


def plain(cell: str) -> str:
    return cell.strip("`")


# ------------------------------------------------------------------ card list
def test_card_list_is_the_generated_block(doc):
    block = make_rules_tables.cards_markdown()
    assert block in doc, "run: python -m otrio.envs.oceanos.make_rules_tables --write"
    assert doc.count("<!-- BEGIN card-list") == doc.count("<!-- END card-list -->") == 1


def test_card_tables_match_the_data(doc):
    header = ("id", "round", "animal", "corals", "chest", "eyes", "crystal", "base")
    rows = [row for head, body in tables(doc) if head == list(header) for row in body]
    ids = card_table(CARDS).round_ids
    expected = []
    for r, deck in enumerate(CARDS):
        assert len(ids[r]) == len(deck) == DECK_SIZES[r]
        for card_id, card in zip(ids[r], deck):
            expected.append((card_id, r + 1, *card))
    written = [
        (int(i), int(r), a, int(co), int(ch), int(e), cr, int(b))
        for i, r, a, co, ch, e, cr, b in rows
    ]
    assert written == expected
    assert len(written) == sum(DECK_SIZES) == 135


def test_deck_headings_name_sizes_and_id_spans(doc):
    ids = card_table(CARDS).round_ids
    for r in range(NUM_ROUNDS):
        heading = f"Round {r + 1} deck: {len(ids[r])} cards, ids {ids[r][0]}–{ids[r][-1]}"
        assert heading in doc


# ------------------------------------------------------------- other tables
def test_glance_table(doc):
    rows = rows_by_first(table(doc, "item", "value"))
    default = Config.model_fields["num_players"].default
    assert rows["players"] == [f"{INFO.min_players}–{INFO.max_players} (default {default})"]
    assert default == INFO.default_players
    assert ints(rows["rounds"][0]) == (NUM_ROUNDS,)
    assert ints(rows["turns per round"][0]) == (TURNS_PER_ROUND,)


def test_submarine_table(doc):
    rows = table(doc, "part", "what it gives", "level 1", "level 2", "level 3")
    values = {
        "propeller": PROPELLER_STARS,
        "motor": MOTOR_FUEL,
        "cockpit": COCKPIT_PERISCOPES,
        "aquarium": AQUARIUM_CAPACITY,
        "airlock": AIRLOCK_DIVERS,
    }
    assert [row[0] for row in rows] == list(PARTS)
    for part, _, *levels in rows:
        assert tuple(int(v) for v in levels) == values[part], part


def test_player_token_table(doc):
    rows = rows_by_first(table(doc, "token", "per player", "usable at the start"))
    assert rows == {
        "Fuel": [str(FUEL_TOKENS_PER_PLAYER), str(MOTOR_FUEL[0])],
        "Scuba Diver": [str(DIVER_TOKENS_PER_PLAYER), str(AIRLOCK_DIVERS[0])],
    }
    assert FUEL_TOKENS_PER_PLAYER == max(MOTOR_FUEL)
    assert DIVER_TOKENS_PER_PLAYER == max(AIRLOCK_DIVERS)


COMPOSITION_ROWS = {
    "small animal (same number of each kind)": "small_animal",
    "big animal (same number of each kind)": "big_animal",
    "1 coral": "coral_1",
    "2 corals": "coral_2",
    "treasure chest": "chest",
    "1 eye": "eye_1",
    "2 eyes": "eye_2",
    "green crystal": "green_crystal",
    "yellow crystal": "yellow_crystal",
    "base": "base",
}


def test_composition_table(doc):
    rows = rows_by_first(table(doc, "symbol", "round 1", "round 2", "round 3"))
    assert tuple(int(v) for v in rows.pop("cards in the deck")) == DECK_SIZES
    assert set(rows) == set(COMPOSITION_ROWS)
    assert set(COMPOSITION_ROWS.values()) == set(DECK_COMPOSITION)
    for label, key in COMPOSITION_ROWS.items():
        assert tuple(int(v) for v in rows[label]) == DECK_COMPOSITION[key], label


def test_kraken_table(doc):
    rows = table(doc, "size", "lost at the end of round", "tokens of this size")
    assert [row[0] for row in rows] == list(KRAKEN_SIZES)
    defaults = Config().kraken_tokens
    for r, (size, round_, pool) in enumerate(rows):
        assert int(round_) == r + 1
        assert ints(pool) == KRAKEN_TOKENS[size] == getattr(defaults, size), size


def test_treasure_table(doc):
    rows = table(doc, "stars on the token", "tokens in the bag")
    written = {int(value): int(count) for value, count in rows}
    assert written == Counter(TREASURE_TOKENS)
    assert Config().treasure_tokens == TREASURE_TOKENS
    assert f"holds {len(TREASURE_TOKENS)} treasure tokens" in doc


def test_round_scoring_table(doc):
    rows = table(doc, "what", "stars")
    animals = [stars for what, stars in rows if what.startswith("each different kind of animal")]
    assert animals == [f"+{STARS_PER_ANIMAL}"]
    kraken = [stars for what, stars in rows if what.startswith("the Kraken")]
    pools = [v for size in KRAKEN_SIZES for v in KRAKEN_TOKENS[size]]
    assert len(kraken) == 1 and ints(kraken[0]) == (max(pools), min(pools))


def test_config_table(doc):
    rows = rows_by_first(table(doc, "key", "default", "meaning"))
    keys = {plain(key) for key in rows}
    assert keys == set(Config.model_fields)
    defaults = {plain(key): default for key, (default, _) in rows.items()}
    config = Config()
    for key in ("num_players", "two_player_variant", "troubled_waters", "dense_reward"):
        assert defaults[key] == str(getattr(config, key)).lower(), key
    assert config.kraken.mode == "random" and defaults["kraken"] == "`{mode: random}`"


# ---------------------------------------------------------- decisions, actions
def test_decision_table(doc):
    rows = table(doc, "decision (engine name)", "when it is asked", "legal actions")
    assert [plain(row[0]) for row in rows] == [d.name for d in Decision]


def test_action_table(doc):
    rows = table(doc, "ids", "actions", "meaning")
    covered = []
    for ids, names, _ in rows:
        span = ints(ids.replace("–", " "))
        first, last = span[0], span[-1]
        named = re.findall(r"`([^`]+)`", names)
        assert named == (
            [TABLE.name(first)] if first == last else [TABLE.name(first), TABLE.name(last)]
        ), ids
        covered += range(first, last + 1)
    assert covered == list(range(NUM_ACTIONS))
    assert f"The whole action table ({NUM_ACTIONS} ids)" in doc
    upgrade_row = next(m for i, n, m in rows if "upgrade:propeller" in n)
    assert f"order: {', '.join(PARTS)}" in upgrade_row
