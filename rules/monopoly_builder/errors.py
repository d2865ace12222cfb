"""Why an action was refused: one error type per rule, so a caller can react to the kind.

Every refusal is raised before anything changes, so a game that refused an action is
exactly the game it was before; the message is the sentence a player reads.
"""

from __future__ import annotations


class RefusedAction(ValueError):
    """An action the rules do not allow now; nothing was changed."""


class GameOverError(RefusedAction):
    """The penthouse is built (or the table stopped): nothing more can be played."""


class NotYourTurnError(RefusedAction):
    """Only the player whose turn it is may roll, move, trade with the bank or build."""


class WrongStepError(RefusedAction):
    """The action belongs to another step of the turn (rolling twice, building in step 4)."""


class DecisionPendingError(RefusedAction):
    """A decision the rules force (buy or auction, forced trade) must be taken first."""


class TooManyResourcesError(RefusedAction):
    """More than 6 resources carried into a turn, or a drop that does not end on 6."""


class InJailError(RefusedAction):
    """Building (or moving on) while In Jail."""


class BuildError(RefusedAction):
    """A floor or penthouse that breaks a building rule."""


class MissingResourcesError(BuildError):
    """The resources offered do not match what a floor (or trade) needs, or are not held."""


class MixedColourError(BuildError):
    """A floor on another player's building: a building holds one colour only."""


class FloorLimitError(BuildError):
    """A fifth regular floor: a building has at most 4, then only the penthouse."""


class PenthouseError(BuildError):
    """A penthouse on a building without 4 floors, or a second penthouse."""


class OutOfBlocksError(BuildError):
    """A player has used all 12 of their builder's blocks."""


class LotError(BuildError):
    """A lot that is not on Monopoly Island."""


class PropertyError(RefusedAction):
    """A title deed that is not the player's, already mortgaged, owned, or the like."""


class CashError(RefusedAction):
    """Not enough money for a purchase, bid, fine or unmortgage, or an impossible amount."""


class TradeError(RefusedAction):
    """A bank trade or deal that the rules (or the bank's tray) do not allow."""
