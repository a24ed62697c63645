"""Small builders shared by the assembly tests."""

from __future__ import annotations

from typing import Any

from tooldeck.assembly.pipeline import Assembler
from tooldeck.config_load import parse_config
from tooldeck.registry import Registry
from tooldeck.tool import Tool


def make(name: str, toolset: str = "core", **options: Any) -> Tool:
    return Tool(name=name, description=f"{name} tool", parameters={}, toolset=toolset, **options)


def assembler(tools: list[Tool], **config: Any) -> Assembler:
    return Assembler(Registry(tools), parse_config(config, env={}))
