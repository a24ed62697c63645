"""The arguments a validated call carries (for the policy, the audit log and events) are what
the tool's model dumps, whichever shortcut produced them."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, computed_field

from tooldeck import Config, Deck, tool
from tooldeck._core.execution.calls import _dumped


class Point(BaseModel):
    x: int
    y: int = 0


class Colour(StrEnum):
    red = "red"


class Flat(BaseModel):
    a: int
    b: str = "d"
    c: float | None = None
    d: bool = False


class Nested(BaseModel):
    p: Point
    items: list[int] = []
    colour: Colour = Colour.red


class Computed(BaseModel):
    a: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def double(self) -> int:
        return self.a * 2


def test_the_shortcut_equals_model_dump() -> None:
    for model in (
        Flat(a=1),
        Flat(a=1, b="x", c=2.5, d=True),
        Nested(p=Point(x=1)),
        Nested(p=Point(x=1, y=2), items=[1, 2]),
        Computed(a=3),
    ):
        assert _dumped(model) == model.model_dump(), model
        assert type(_dumped(model)) is dict


def test_a_policy_sees_defaults_filled_in() -> None:
    @tool
    def place(p: Point, label: str = "here") -> str:
        """Place a point."""
        return f"{label} {p.x},{p.y}"

    deck = Deck(Config(), tools=[place])
    assert deck.call_sync("place", {"p": {"x": 1}}).content == "here 1,0"
