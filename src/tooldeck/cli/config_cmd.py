"""`tooldeck config`: the effective configuration, its JSON Schema, or the key reference."""

from __future__ import annotations

import argparse
import dataclasses

from tooldeck.cli.common import add_config, emit, fail, print_json


def configure(parser: argparse.ArgumentParser) -> None:
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--schema", action="store_true", help="the JSON Schema of tooldeck.yaml (editor completion)"
    )
    what.add_argument(
        "--reference", action="store_true", help="every key with its type, default and meaning (Markdown)"
    )
    add_config(parser)


def run(args: argparse.Namespace) -> int:
    if args.reference:
        from tooldeck.cli.config_reference import reference

        emit(reference().rstrip("\n"))
        return 0
    if args.schema:
        from tooldeck.config_load import schema_adapter

        schema = schema_adapter().json_schema(mode="validation")
        schema["title"] = "tooldeck.yaml"
        schema.get("properties", {}).pop("base_dir", None)
        print_json(schema)
        return 0
    from tooldeck.config_load import load_config
    from tooldeck.errors import ConfigError

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        fail(f"config error: {exc}")
    data = dataclasses.asdict(config)
    print_json({"base_dir": data.pop("base_dir"), "config": data})
    return 0
