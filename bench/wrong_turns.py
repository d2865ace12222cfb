"""What a wrong turn got wrong, in the few forms that recur, and what its report got wrong.

The benches count a turn exactly right or not; to choose what to mend next, a wrong turn
is put in one of the forms the development sets show again and again (checked in this
order, the first that fits):

- ``stack``: the reading is the truth but for a column read as three bricks of its
  outline or the other way round (the levels' colours, where no view shows them, are
  all that tells the two);
- ``decoration``: only the decoration differs (its place, or it is missing or extra);
- ``first step``: only the two lowest levels differ, and there an arch on the plate is
  read where the truth has none, or the truth's is missed: the first step's prior
  against a lone brick (or two stacked) under the next step's leg;
- ``other``: anything else (a step misread, a piece the model denies, a hidden
  staircase).

A wrong report is put by the fields that differ (legal, credits, highest decoration,
bonus card), one count per field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rules import Palace
from rules.pieces import Kind, Piece, place_key
from rules.staircase import analyse_added

FORMS = ("stack", "decoration", "first step", "other")
REPORT_FIELDS = ("legal", "credits", "highest", "bonus")
"""The fields of :func:`report_key`, in its order."""


def report_key(before: Palace, pieces: Iterable[Piece]) -> tuple[object, ...]:
    """What a turn's report says that the players score by (:data:`REPORT_FIELDS`), as
    the game judges it (a starting stud the map does not know named by the decoration)."""
    r = analyse_added(before, list(pieces))
    return (r.legal, r.credits, r.decoration_highest, r.bonus_card)


def wrong_form(truth: Sequence[Piece], read: Sequence[Piece]) -> str:
    """The form (:data:`FORMS`) of a wrong reading ``read`` of the pieces ``truth``."""
    true_keys = {place_key(p): p for p in truth}
    read_keys = {place_key(p): p for p in read}
    missing = [true_keys[k] for k in true_keys.keys() - read_keys.keys()]
    extra = [read_keys[k] for k in read_keys.keys() - true_keys.keys()]
    if _stack_swap(missing, extra) or _stack_swap(extra, missing):
        return "stack"
    differ = (*missing, *extra)
    if all(p.kind is Kind.DECORATION for p in differ):
        return "decoration"
    if (any(p.kind is Kind.ARCH and p.z == 0 for p in differ)
            and all(p.z <= 1 and p.kind is not Kind.DECORATION for p in differ)):
        return "first step"
    return "other"


def _stack_swap(columns: Sequence[Piece], bricks: Sequence[Piece]) -> bool:
    """Whether ``columns`` is one column and ``bricks`` the three bricks of its outline."""
    if len(columns) != 1 or columns[0].kind is not Kind.COLUMN or len(bricks) != 3:
        return False
    column = columns[0]
    return (all(p.kind is Kind.BRICK for p in bricks)
            and sorted((p.x, p.y, p.z) for p in bricks)
            == [(column.x, column.y, column.z + level) for level in range(3)])


def report_fields(truth: Sequence[object], read: Sequence[object]) -> list[str]:
    """The fields (:data:`REPORT_FIELDS`) in which two report keys differ."""
    return [name for name, a, b in zip(REPORT_FIELDS, truth, read, strict=True) if a != b]


def forms_line(forms: Mapping[str, int], fields: Mapping[str, int]) -> str:
    """The benches' line of wrong turns by form and wrong reports by field."""
    return ("wrong turns by what differs: "
            + ", ".join(f"{form} {forms.get(form, 0)}" for form in FORMS)
            + "; wrong reports by field: "
            + ", ".join(f"{name} {fields.get(name, 0)}" for name in REPORT_FIELDS))
