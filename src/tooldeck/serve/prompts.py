"""The deck's skills (the SKILL.md folders under `skills_dirs`) as MCP prompts.

Each skill is a prompt of its name, with its description. Its arguments are declared in the
SKILL.md front matter, if at all (an entry may also be just a name; other keys are ignored):

    ---
    name: release-notes
    description: Write release notes for a version.
    arguments:
      - name: version
        description: The version to write them for
        required: true
      - name: tone
        values: [plain, cheerful]       # offered by completion/complete
    ---
    Write the notes for {{version}} in a {{ tone }} tone. See template.md and logo.png.

`prompts/get` answers the body as a user message, with `{{name}}` replaced by that argument's
value (empty when an optional one is not given; names that are not declared stay as written) and
`$ARGUMENTS` by all the given values, space-separated, in declaration order. When arguments are
given but the body names none of them, they are appended as an `Arguments:` list. A file of the
skill's folder whose path (relative to the folder) the body mentions follows as one more user
message: an image as image content, a UTF-8 text file as an embedded resource
(`tooldeck://skills/<skill>/<path>`, not listed by `resources/list`), anything else not at all;
at most `MAX_ATTACHMENTS` files of `MAX_ATTACHMENT_BYTES` each, read confined to the folder.

A prompt that does not exist, or a required argument that is missing or empty, is JSON-RPC
invalid params naming it. The list changes when a SKILL.md does (checked on the server's watch
interval), and sessions are told with `notifications/prompts/list_changed`.

The prompts the deck declares in Python (`deck.prompts`, see `declared.py`) are listed first; a
skill of the same name as one of them is left out, with a warning in the server's log.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import mimetypes
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

import yaml

from tooldeck.core import (
    SKILL_FILE,
    ConfinedRoot,
    Prompt,
    Skill,
    SkillCatalog,
    ToolChannel,
    ToolContext,
    load_skills,
    skill_body,
)
from tooldeck.errors import Refused
from tooldeck.serve.channel import ServeChannel
from tooldeck.serve.declared import complete_with, mcp_prompt, prompt_result
from tooldeck.serve.round_trips import RoundTrip
from tooldeck.serve.workspace_files import invalid, text_of

if TYPE_CHECKING:
    import mcp_types
    from mcp.server.context import ServerRequestContext
    from mcp.server.session import ServerSession
    from mcp.server.subscriptions import SubscriptionBus

    from tooldeck.core import CoreConfig

log = logging.getLogger(__name__)

MAX_ATTACHMENTS = 20
MAX_ATTACHMENT_BYTES = 4 * 1024 * 1024
# Files of a skill's folder looked at for references at most.
MAX_SKILL_FILES = 1000
MAX_COMPLETIONS = 100
ARGUMENT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}|\$ARGUMENTS\b")


class Connected(Protocol):
    @property
    def session(self) -> ServerSession | None: ...


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument a skill's front matter declares."""

    name: str
    description: str | None = None
    required: bool = False
    values: tuple[str, ...] = ()


# -- reading skills -------------------------------------------------------------------------------

_arguments: dict[str, tuple[tuple[int, int], tuple[Argument, ...]]] = {}


def skill_arguments(skill: Skill) -> tuple[Argument, ...]:
    """The arguments the skill's SKILL.md declares (cached by its size and modification time)."""
    try:
        info = skill.file.stat()
    except OSError:
        return ()
    key = (info.st_size, info.st_mtime_ns)
    cached = _arguments.get(str(skill.file))
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        text = skill.file.read_text(encoding="utf-8").lstrip("\ufeff")
    except (OSError, UnicodeDecodeError):
        return ()
    found = parse_arguments(text)
    if len(_arguments) > 256:
        _arguments.clear()
    _arguments[str(skill.file)] = (key, found)
    return found


def parse_arguments(text: str) -> tuple[Argument, ...]:
    """The `arguments:` of a SKILL.md's front matter; entries that are not usable are skipped."""
    match = _FRONT.match(text)
    if match is None:
        return ()
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return ()
    entries = data.get("arguments") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return ()
    out: list[Argument] = []
    for entry in entries:
        if isinstance(entry, str):
            entry = {"name": entry}
        if not isinstance(entry, dict):
            continue
        name = entry.get("name")
        if not isinstance(name, str) or not ARGUMENT_NAME.match(name) or any(a.name == name for a in out):
            log.warning("a skill argument %r is skipped: a name is letters, digits, '_' and '-'", name)
            continue
        description = entry.get("description")
        values = entry.get("values")
        out.append(
            Argument(
                name=name,
                description=" ".join(description.split()) if isinstance(description, str) else None,
                required=entry.get("required") is True,
                values=tuple(_scalar(v) for v in values if _scalar(v)) if isinstance(values, list) else (),
            )
        )
    return tuple(out)


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, str | int | float) else ""


# -- rendering a prompt ----------------------------------------------------------------------------


def substitute(body: str, declared: Iterable[Argument], given: Mapping[str, str]) -> str:
    """`body` with `{{name}}` and `$ARGUMENTS` replaced (see the module docstring)."""
    arguments = list(declared)
    names = {a.name for a in arguments}
    values = [given[a.name] for a in arguments if given.get(a.name)]
    used = False

    def one(match: re.Match[str]) -> str:
        nonlocal used
        name = match.group(1)
        if name is None:
            used = True
            return " ".join(values)
        if name not in names:
            return match.group(0)
        used = True
        return given.get(name, "")

    text = _PLACEHOLDER.sub(one, body)
    if values and not used:
        listed = "\n".join(f"- {a.name}: {given[a.name]}" for a in arguments if given.get(a.name))
        text = f"{text}\n\nArguments:\n{listed}"
    return text


def skill_files(skill: Skill) -> list[tuple[str, ...]]:
    """The skill's files besides SKILL.md (hidden ones left out; symlinks followed inside only)."""
    try:
        root = ConfinedRoot(skill.folder)
    except OSError:
        return []
    try:
        found: list[tuple[str, ...]] = []
        for parts in _files_in(root, ()):
            found.append(parts)
            if len(found) >= MAX_SKILL_FILES:
                break
        return found
    finally:
        root.close()


def _files_in(root: ConfinedRoot, folder: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    try:
        entries = root.listdir(folder)
    except (OSError, Refused):
        return
    for entry in entries:
        parts = (*folder, entry.name)
        if entry.name.startswith(".") or parts == (SKILL_FILE,):
            continue
        if entry.kind == "dir":
            yield from _files_in(root, parts)
        elif entry.kind in ("file", "link"):
            yield parts


def mentions(body: str, path: str) -> bool:
    """Whether `body` names the file `path` (alone, or as `./path`, not inside a longer name)."""
    return re.search(rf"(?<![\w/.-])(?:\./)?{re.escape(path)}(?![\w/-])(?!\.\w)", body) is not None


def attachments(skill: Skill, body: str) -> list[mcp_types.PromptMessage]:
    """The files of the skill the body mentions, as messages (images, then text, in path order)."""
    import mcp_types

    mentioned = [p for p in skill_files(skill) if mentions(body, "/".join(p))][:MAX_ATTACHMENTS]
    if not mentioned:
        return []
    messages: list[mcp_types.PromptMessage] = []
    root = ConfinedRoot(skill.folder)
    try:
        for parts in mentioned:
            data = _read(root, parts)
            if data is None:
                continue
            name = "/".join(parts)
            mime = mimetypes.guess_type(parts[-1])[0]
            content: mcp_types.ImageContent | mcp_types.EmbeddedResource
            if mime is not None and mime.startswith("image/"):
                content = mcp_types.ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime)
            else:
                text = text_of(data)
                if text is None:
                    continue  # neither an image nor text: not something a prompt carries
                uri = f"tooldeck://skills/{skill.name}/{quote(name, safe='/')}"
                content = mcp_types.EmbeddedResource(
                    resource=mcp_types.TextResourceContents(
                        uri=uri, mime_type=mime or "text/plain", text=text
                    )
                )
            messages.append(mcp_types.PromptMessage(role="user", content=content))
    finally:
        root.close()
    return messages


def _read(root: ConfinedRoot, parts: tuple[str, ...]) -> bytes | None:
    try:
        fd = root.open(parts, os.O_RDONLY | os.O_NONBLOCK)
    except (OSError, Refused):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ATTACHMENT_BYTES:
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_ATTACHMENT_BYTES and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks) if size <= MAX_ATTACHMENT_BYTES else None
    finally:
        os.close(fd)


# -- the prompts of a deck (blocking: run off the event loop) ------------------------------------


class SkillPrompts:
    """The skills of one config as prompts."""

    def __init__(self, config: CoreConfig, *, declared: Sequence[str] = ()) -> None:
        self.config = config
        # The names of the declared prompts: they come first, and a skill of one of them is left out.
        self.declared = tuple(declared)
        self._fingerprint: str | None = None
        self._clashes: set[str] = set()

    def catalog(self) -> SkillCatalog:
        return load_skills(self.config)

    def skill(self, name: str) -> Skill:
        catalog = self.catalog()
        found = catalog.get(name)
        if found is None:
            known = ", ".join(dict.fromkeys([*self.declared, *catalog.names])) or "none"
            raise _unknown(name, known)
        return found

    def prompts(self) -> list[mcp_types.Prompt]:
        import mcp_types

        out: list[mcp_types.Prompt] = []
        for skill in self.catalog().skills:
            if skill.name in self.declared:
                if skill.name not in self._clashes:
                    self._clashes.add(skill.name)
                    log.warning(
                        "the skill %r is not served as a prompt: a declared prompt has its name (%s)",
                        skill.name,
                        skill.file,
                    )
                continue
            declared = skill_arguments(skill)
            arguments = [
                mcp_types.PromptArgument(name=a.name, description=a.description, required=a.required)
                for a in declared
            ]
            out.append(
                mcp_types.Prompt(name=skill.name, description=skill.description, arguments=arguments or None)
            )
        return out

    def get(self, name: str, given: Mapping[str, str] | None) -> mcp_types.GetPromptResult:
        import mcp_types

        skill = self.skill(name)
        declared = skill_arguments(skill)
        given = dict(given or {})
        missing = [a.name for a in declared if a.required and not given.get(a.name)]
        if missing:
            from mcp.shared.exceptions import MCPError
            from mcp_types import INVALID_PARAMS

            listed = ", ".join(repr(m) for m in missing)
            raise MCPError(
                INVALID_PARAMS,
                f"prompt {name!r} needs the argument{'s' if len(missing) > 1 else ''} {listed}",
                data={"prompt": name, "missing": missing},
            )
        try:
            body = skill_body(skill)
        except (OSError, UnicodeDecodeError) as exc:
            raise invalid(f"prompt {name!r} cannot be read: {exc}") from None
        text = mcp_types.TextContent(text=substitute(body, declared, given))
        messages = [mcp_types.PromptMessage(role="user", content=text), *attachments(skill, body)]
        return mcp_types.GetPromptResult(description=skill.description, messages=messages)

    def complete(self, name: str, argument: str, typed: str) -> tuple[list[str], int]:
        skill = self.skill(name)
        found = next((a for a in skill_arguments(skill) if a.name == argument), None)
        if found is None:
            return [], 0
        start = typed.casefold()
        matches = [v for v in found.values if v.casefold().startswith(start)]
        return matches[:MAX_COMPLETIONS], len(matches)

    def changed(self) -> bool:
        """Whether the skills changed since the last look (False at the first one)."""
        before, self._fingerprint = self._fingerprint, self.catalog().fingerprint
        return before is not None and before != self._fingerprint


def _unknown(name: str, known: str) -> Exception:
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    return MCPError(
        INVALID_PARAMS, f"no prompt named {name!r}; the prompts are: {known}", data={"prompt": name}
    )


# -- the handlers ---------------------------------------------------------------------------------


class ServedPrompts:
    """The prompt handlers of a `DeckServer`, and telling sessions the prompt list changed."""

    def __init__(
        self,
        config: CoreConfig,
        *,
        state: Callable[[ServerRequestContext[Any, Any]], Connected | None],
        sessions: Callable[[], Iterable[Connected]],
        bus: SubscriptionBus,
        declared: Sequence[Prompt] = (),
    ) -> None:
        self.declared = {p.name: p for p in declared}
        self.skills = SkillPrompts(config, declared=list(self.declared))
        # Called on every request: the server remembers the session, to tell it of changes.
        self._state = state
        self._sessions = sessions
        self._bus = bus
        self.notifications_sent = 0

    async def list_prompts(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListPromptsResult:
        import mcp_types

        self._state(ctx)
        if params is not None and params.cursor:
            raise invalid("invalid cursor: the prompts come in one page")
        declared = [mcp_prompt(p) for p in self.declared.values()]
        return mcp_types.ListPromptsResult(prompts=declared + await asyncio.to_thread(self.skills.prompts))

    async def get_prompt(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.GetPromptRequestParams
    ) -> mcp_types.GetPromptResult | mcp_types.InputRequiredResult:
        state = self._state(ctx)
        found = self.declared.get(params.name)
        if found is None:
            return await asyncio.to_thread(self.skills.get, params.name, params.arguments)
        # A prompt function may ask the client as a tool does (`ctx.elicit`): on the request's
        # stream in the handshake era, as input_required round trips at 2026-07-28.
        trip = RoundTrip(params.request_state, params.input_responses) if state is None else None
        channel = ServeChannel(ctx.session, ctx.request_id, level=None, round_trip=trip)
        context = ToolContext(
            call_id=f"prompt-{ctx.request_id}",
            tool_name=found.name,
            services={ToolChannel: channel},
            loop=asyncio.get_running_loop(),
        )
        from mcp.shared.exceptions import MCPError

        try:
            result = await prompt_result(found, params.arguments, context)
        except MCPError:
            if trip is not None and trip.pending:
                return trip.input_required()
            raise
        return trip.input_required() if trip is not None and trip.pending else result

    async def complete(self, params: mcp_types.CompleteRequestParams) -> mcp_types.CompleteResult:
        import mcp_types

        name = params.ref.name if isinstance(params.ref, mcp_types.PromptReference) else ""
        found = self.declared.get(name)
        if found is not None:
            argument = params.argument
            if argument.name not in {a.name for a in found.arguments}:
                raise invalid(f"prompt {name!r} has no argument {argument.name!r}")
            pending = found.completions(argument.name, argument.value)
            return await complete_with(pending, {"prompt": name, "argument": argument.name})
        values, total = await asyncio.to_thread(
            self.skills.complete, name, params.argument.name, params.argument.value
        )
        return mcp_types.CompleteResult(
            completion=mcp_types.Completion(values=values, total=total, has_more=total > len(values))
        )

    async def tick(self) -> None:
        """Tell every session, and the listen streams, when the skills changed since the last look."""
        from mcp.server.subscriptions import PromptsListChanged

        try:
            if not await asyncio.to_thread(self.skills.changed):
                return
            for state in list(self._sessions()):
                if state.session is not None:
                    try:
                        await state.session.send_prompt_list_changed()
                    except Exception:  # boundary: a session gone away must not keep the others from hearing
                        log.debug("could not tell a session its prompts changed", exc_info=True)
            await self._bus.publish(PromptsListChanged())
            self.notifications_sent += 1
        except Exception:  # boundary: a failed look at the skills must not stop the server's watch
            log.exception("checking the skills for changes failed")
