"""`tooldeck config`: the effective configuration, its JSON Schema, or the key reference.

The effective configuration is printed with its secrets hidden (API keys, MCP headers, the
environment given to servers and agents: the fields a section leaves out of its repr), since
this output is what people paste into bug reports. The keys of a hidden mapping stay visible.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from tooldeck.cli.common import add_config, add_json, emit, fail, print_json


def configure(parser: argparse.ArgumentParser) -> None:
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--schema", action="store_true", help="the JSON Schema of tooldeck.yaml (editor completion)"
    )
    what.add_argument(
        "--reference", action="store_true", help="every key with its type, default and meaning (Markdown)"
    )
    add_config(parser)
    add_json(parser)  # accepted as by every command: the configuration and its schema are JSON already


def run(args: argparse.Namespace) -> int:
    if args.reference and args.as_json:
        fail("the reference is Markdown for people; --schema is its machine-readable form")
    if args.reference:
        from tooldeck.cli.config_reference import reference

        emit(reference().rstrip("\n"))
        return 0
    if args.schema:
        from tooldeck import Config
        from tooldeck.core import config_schema_adapter

        schema = config_schema_adapter(Config).json_schema(mode="validation")
        schema["title"] = "tooldeck.yaml"
        # Where the file was read from is no key of the file.
        for key in ("base_dir", "config_file"):
            schema["properties"].pop(key, None)
        print_json(schema)
        return 0
    from tooldeck import load_config
    from tooldeck.errors import ConfigError

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        fail(f"config error: {exc}")
    data = shown(config)
    data.pop("config_file", None)
    print_json({"base_dir": data.pop("base_dir"), "config": data})
    return 0


HIDDEN = "<hidden>"


def shown(value: Any) -> Any:
    """`value` as JSON-ready data, with the values of secret fields replaced by HIDDEN."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            out[f.name] = shown(item) if f.repr else _hidden(item)
        return out
    if isinstance(value, dict):
        return {k: shown(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [shown(v) for v in value]
    return value


def _hidden(value: Any) -> Any:
    if isinstance(value, dict):
        return dict.fromkeys(value, HIDDEN)
    return None if value is None else HIDDEN
