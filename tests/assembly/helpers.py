"""Small builders shared by the assembly tests."""

from __future__ import annotations

from typing import Any

from tooldeck import parse_config
from tooldeck._core.assembly.pipeline import Assembler
from tooldeck._core.registry import Registry
from tooldeck._core.tool import Tool


def make(name: str, toolset: str = "core", **options: Any) -> Tool:
    return Tool(name=name, description=f"{name} tool", parameters={}, toolset=toolset, **options)


def assembler(tools: list[Tool], **config: Any) -> Assembler:
    return Assembler(Registry(tools), parse_config(config, env={}))
