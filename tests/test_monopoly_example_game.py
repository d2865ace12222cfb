"""A whole Monopoly Builder game, two players, dice given turn by turn, scored by hand.

Stand-in board (see rules/monopoly_builder/data): Baltic Avenue (3, brown, pays 2 boats
on a 12), Oriental Avenue (5, light blue, 2 cranes on a 3), Marvin Gardens (23,
yellow, 2 cranes on a 3), Illinois Avenue (19, red, 2 excavators on a 4), Virginia
Avenue (11, pink), Atlantic Avenue (21, yellow). Red starts with 2 dump trucks, 1
excavator, 1 boat; yellow with 2 boats, 1 excavator, 1 crane; both with $900.
"""

from __future__ import annotations

from rules.monopoly_builder.game import Game
from rules.monopoly_builder.table import Step
from rules.monopoly_builder.trading import Offer


def test_example_game_scored_by_hand():
    g = Game(["red", "yellow"], seed=0, first=0)

    # Round 1. Red rolls 3: buys Baltic Avenue ($840) and builds floor 1 at (1,1) with
    # a dump truck and a boat. Yellow rolls 5: buys Oriental Avenue ($800), builds floor
    # 1 at (4,1) with 2 boats.
    g.roll("red", (1, 2))
    g.buy("red")
    g.next_step("red")
    g.build("red", (1, 1), {"dump_truck": 1, "boat": 1})
    g.end_turn("red")
    g.roll("yellow", (2, 3))
    g.buy("yellow")
    g.next_step("yellow")
    g.build("yellow", (4, 1), {"boat": 2})
    g.end_turn("yellow")

    # Round 2. Red rolls 7 onto Collect 2 cranes; floor 2 at (1,1) (any 3). Yellow
    # rolls 3: Oriental pays yellow 2 cranes; Just Visiting; floor 1 at (4,2).
    g.roll("red", (3, 4))
    g.next_step("red")
    g.build("red", (1, 1), {"dump_truck": 1, "excavator": 1, "crane": 1})
    g.end_turn("red")
    g.roll("yellow", (1, 2))
    g.next_step("yellow")
    g.build("yellow", (4, 2), {"crane": 2})
    g.end_turn("yellow")

    # Round 3. Red rolls 3+3: a 6 pays every reference card (red 2 dump trucks, yellow
    # 2 boats); Free Parking: 2 dump trucks for 1 excavator. Doubles: 2+2 onto Collect
    # 2 excavators. Doubles again: 1+2 (Oriental and Marvin Gardens' 3: yellow owns
    # only Oriental yet, 2 cranes) onto Marvin Gardens; red does not buy, yellow wins
    # the auction at $150 ($650). Red now holds 1 crane, 3 excavators.
    g.roll("red", (3, 3))
    g.bank_trade("red", "dump_truck", "excavator")
    g.next_step("red")
    g.roll("red", (2, 2))
    g.next_step("red")
    g.roll("red", (1, 2))
    g.auction("red", "yellow", 150)
    g.next_step("red")
    g.end_turn("red")
    # Yellow rolls 11 onto Illinois Avenue, buys it ($410); a deal: 2 boats to red for
    # $100 ($510, red $740); floor 1 at (5,1) with 2 cranes.
    g.roll("yellow", (5, 6))
    g.buy("yellow")
    g.next_step("yellow")
    g.deal("yellow", "red", Offer.of(resources={"boat": 2}), Offer.of(cash=100))
    g.next_step("yellow")
    g.build("yellow", (5, 1), {"crane": 2})
    g.end_turn("yellow")

    # Round 4. Red rolls 3 (yellow's Oriental and Marvin Gardens pay 4 cranes) onto
    # Collect 2 boats; 4 boats for 1 dump truck; floor 3 at (1,1): dump truck +
    # excavator + excavator. Yellow rolls 6+6: Baltic pays red 2 boats; Boardwalk,
    # nobody bids. 3+3: reference cards; past GO ($710) onto Oriental. 2+5: Steal, a
    # boat from red. 4 cranes for 1 excavator; floor 2 at (4,1).
    g.roll("red", (1, 2))
    g.next_step("red")
    g.bank_trade("red", "boat", "dump_truck")
    g.build("red", (1, 1), {"dump_truck": 1, "excavator": 2})
    g.end_turn("red")
    g.roll("yellow", (6, 6))
    g.auction("yellow", None)
    g.next_step("yellow")
    g.roll("yellow", (3, 3))
    g.next_step("yellow")
    g.roll("yellow", (2, 5))
    g.steal("yellow", "red", "boat")
    g.next_step("yellow")
    g.bank_trade("yellow", "crane", "excavator")
    g.build("yellow", (4, 1), {"excavator": 2, "boat": 1})
    g.end_turn("yellow")

    # Round 5. Red 4+4: past GO ($940) onto Collect 2 dump trucks; 1+2 onto Oriental:
    # yellow asks $10 rent (red $930, yellow $720). 4 dump trucks for a boat; floor 4:
    # crane + boat + boat. Yellow starts with 7 resources and drops a crane on Steal;
    # 2+2 (Illinois pays 2 excavators) onto Free Parking: 2 cranes for a dump truck;
    # 1+3 (2 more excavators) onto Collect 2 excavators. Floor 3 at (4,1), floor 1 at
    # (5,2), floor 2 at (4,2).
    g.roll("red", (4, 4))
    g.next_step("red")
    g.roll("red", (1, 2))
    g.ask_rent("yellow", "light_blue-1")
    g.next_step("red")
    g.bank_trade("red", "dump_truck", "boat")
    g.build("red", (1, 1), {"crane": 1, "boat": 2})
    g.end_turn("red")
    assert g.by_colour("yellow").held == 7
    g.drop("yellow", {"crane": 1})
    g.roll("yellow", (2, 2))
    g.bank_trade("yellow", "crane", "dump_truck")
    g.next_step("yellow")
    g.roll("yellow", (1, 3))
    g.next_step("yellow")
    g.build("yellow", (4, 1), {"dump_truck": 1, "excavator": 2})
    g.build("yellow", (5, 2), {"excavator": 2})
    g.build("yellow", (4, 2), {"excavator": 2, "crane": 1})
    g.end_turn("yellow")

    # Round 6. Red 2+4, a 6 (red 2 dump trucks, yellow 2 boats), buys Virginia Avenue
    # ($770). Yellow 1+2 (4 cranes) onto its Marvin Gardens; floor 1 at (5,3).
    g.roll("red", (2, 4))
    g.buy("red")
    g.end_turn("red")
    g.roll("yellow", (1, 2))
    g.next_step("yellow")
    g.build("yellow", (5, 3), {"crane": 2})
    g.end_turn("yellow")

    # Round 7. Red 5+5 (Virginia pays 2 dump trucks) onto Atlantic Avenue, buys it
    # ($510); 2+3 onto Collect 2 boats. A deal: Atlantic Avenue to yellow for a crane.
    # The penthouse on (1,1): dump truck, crane, excavator, boat + a dump truck. The game
    # ends at once.
    g.roll("red", (5, 5))
    g.buy("red")
    g.next_step("red")
    g.roll("red", (2, 3))
    g.next_step("red")
    g.deal("red", "yellow", Offer.of(deeds=["yellow-1"]), Offer.of(resources={"crane": 1}))
    g.build("red", (1, 1), {"dump_truck": 2, "crane": 1, "excavator": 1, "boat": 1},
            penthouse=True)
    assert g.is_over and g.step is Step.OVER

    # Scored by hand:
    #   red: one building with the penthouse 16; Baltic and Virginia are half sets (0);
    #        $510; neighbourhood of 1.                                  total 16
    #   yellow: (4,1) 3 floors 6, (4,2) 2 floors 3, (5,1) (5,2) (5,3) 1 each: 12;
    #        Atlantic + Marvin Gardens = the yellow set 4 (Oriental, Illinois: half
    #        sets); most cash ($720 > $510) Billionaire Builder 3; (4,1)-(4,2),
    #        (4,1)-(5,1), (5,1)-(5,2), (5,2)-(5,3): 5 buildings side by side against
    #        red's 1, Community Builder 5.                 total 12 + 4 + 3 + 5 = 24
    # Yellow wins although red built the penthouse.
    sheet = {s.colour: s for s in g.score().players}
    red, yellow = sheet["red"], sheet["yellow"]
    assert (red.buildings, red.sets, red.cash, red.total) == ((16,), (), 510, 16)
    assert sorted(yellow.buildings) == [1, 1, 1, 3, 6]
    assert (yellow.sets, yellow.set_points, yellow.cash) == (("yellow",), 4, 720)
    assert yellow.billionaire and yellow.community and yellow.neighbourhood == 5
    assert yellow.total == 24 and g.score().winners == ("yellow",)
    # Nothing was lost or made: 20 of each resource between tray, hands and ground.
    for r, n in g.tray.counts.items():
        held = sum(p.resources[r] for p in g.players) + sum(x[r] for x in g.ground.values())
        assert n + held == 20
