"""Properties that must hold for any game and any scene, checked on random examples."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.bot import simulate_game
from rules.maps import load_map
from rules.palace import Palace
from rules.pieces import ANIMAL_KINDS, BUILDING_COLORS, Axis, DecorationColor, Kind, Piece
from rules.placement import physics_violations
from rules.scene import Scene, scene_from_json
from rules.staircase import analyse_turn

FEW = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FEW
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), name=st.sampled_from("1234"))
def test_a_random_legal_game_never_builds_an_illegal_palace(seed, players, name):
    record = simulate_game(players=players, seed=seed, map_name=name)
    ground = load_map(name)
    before = Palace(ground, record.scenes[0].pieces)
    for turn, scene in zip(record.turns, record.scenes[1:], strict=True):
        assert physics_violations(scene.pieces, ground) == []
        after = Palace(ground, scene.pieces)
        if turn.report is not None:
            assert turn.report.legal
            # Judged again from the two scenes alone, as the camera will see them.
            again = analyse_turn(before, after, frog_taken="frog" in turn.trophies)
            assert again.legal, again.violations
            assert again.credits == turn.report.credits
        before = after
    assert record.finished
    seats = [sum(1 for t in record.turns if t.seat == s) for s in range(players)]
    assert len(set(seats)) == 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=3),
    max_leaves=6,
)
extra_keys = st.dictionaries(st.text(min_size=1, max_size=6).filter(
    lambda k: k not in {"id", "kind", "x", "y", "z", "axis", "turn", "color"}), json_values,
    max_size=2)


@st.composite
def pieces(draw, index: int = 0) -> Piece:
    kind = draw(st.sampled_from(list(Kind)))
    color = ""
    if kind is Kind.DECORATION:
        color = draw(st.sampled_from([c.value for c in DecorationColor]))
    elif kind in (Kind.BRICK, Kind.ARCH, Kind.COLUMN):
        color = draw(st.sampled_from(BUILDING_COLORS))
    return Piece(
        kind=kind,
        x=draw(st.integers(0, 31)), y=draw(st.integers(0, 31)), z=draw(st.integers(0, 12)),
        axis=draw(st.sampled_from(list(Axis))) if kind is Kind.ARCH else Axis.X,
        turn=draw(st.integers(0, 3)) if kind is Kind.CORNER else 0,
        color=color, id=draw(st.sampled_from(["", "p"])), extra=draw(extra_keys),
    )


@settings(max_examples=30, deadline=None)
@given(listed=st.lists(pieces(), max_size=8).filter(
           lambda ps: all(sum(p.kind is k for p in ps) <= 1 for k in ANIMAL_KINDS)),
       name=st.sampled_from(["1", "4", "my map"]),
       top=extra_keys)
def test_scene_files_round_trip(listed, name, top):
    unique = [p.moved(id=f"{p.id}{i}") if p.id else p for i, p in enumerate(listed)]
    scene = Scene(map=name, pieces=tuple(unique), extra=top)
    again = scene_from_json(json.loads(scene.dumps()))
    assert again == scene
    assert again.extra == top
    assert [dict(p.extra) for p in again.pieces] == [dict(p.extra) for p in unique]


def test_bot_game_scenes_round_trip():
    record = simulate_game(players=2, seed=3)
    for scene in record.scenes[::5]:
        assert scene_from_json(json.loads(scene.dumps())) == scene
