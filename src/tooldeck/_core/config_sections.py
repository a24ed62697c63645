"""The core's sections of `tooldeck.yaml`: one frozen dataclass per section (the core's keys are
`CoreConfig`, the whole file `tooldeck.Config`), each with the checks types cannot say (`check`).

`ConfigSection` is the base every section shares, the satellites' own too. They live below
`config.py`, so that the validator (`config_check.py`) can know them without knowing the config
classes, whose construction runs it.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeVar, cast, dataclass_transform

from tooldeck._core.link_names import placement_problem
from tooldeck._core.tool_names import NAME_PATTERN as TOOL_NAME
from tooldeck._core.tool_names import SOURCE_PRIORITY
from tooldeck.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    # Bounds in the annotations below stay strings until pydantic reads them: the validator puts
    # these names into this module first, so importing the config never imports them.
    from annotated_types import Ge, Gt, Le


def _in_field_order(schema: dict[str, Any], cls: type[ConfigSection]) -> None:
    """The schema's properties in the order of `cls`'s fields, the order of the file (pydantic
    lists a subclass's own fields after its base's, where `composed` has placed each one)."""
    properties: dict[str, Any] | None = schema.get("properties")
    if not properties:
        return
    order = [name for name in cls.__dataclass_fields__ if name in properties]
    schema["properties"] = {**{name: properties[name] for name in order}, **properties}


class ConfigSection:
    """Construction, immutability, equality, hashing and repr of the config sections, written
    once here instead of compiled by @dataclass for each of the two dozen section classes (which
    cost ~20 ms at every start of the command line). Same meaning as the generated ones: fields
    by position or keyword in order, defaults and default factories, `__post_init__` after;
    assigning or deleting a field raises FrozenInstanceError; fields compared in order; a field
    with `repr=False` (secrets) left out of the repr. pydantic builds sections without calling
    `__init__`, so validation never goes through it."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]
    # pydantic reads this from each section: unknown keys are errors, and so are NaN and infinity;
    # the JSON Schema lists the keys in the section's own order.
    __pydantic_config__: ClassVar[Any] = {
        "extra": "forbid",
        "allow_inf_nan": False,
        "json_schema_extra": _in_field_order,
    }

    def check(self, key: str) -> None:
        """What the types cannot say about this section, once pydantic has validated it: a
        problem is a `ConfigError` naming its key path under `key` (`web.search.url`). The
        validator calls it on every section of the config, nested ones included."""

    def stores(self, resolve: Callable[[str], Path]) -> list[Path]:
        """Files this section keeps outside the tooldeck home (an audit log, a database), which
        the tools may not reach; `resolve` turns a configured path into one."""
        return []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        specs = _init_specs(cls)
        if len(args) > len(specs):
            raise TypeError(
                f"{cls.__qualname__}() takes {len(specs)} positional arguments but {len(args)} were given"
            )
        given = dict(zip((name for name, _, _ in specs), args, strict=False))
        for key, value in kwargs.items():
            if key in given:
                raise TypeError(f"{cls.__qualname__}() got multiple values for argument {key!r}")
            given[key] = value
        unknown = given.keys() - {name for name, _, _ in specs}
        if unknown:
            raise TypeError(f"{cls.__qualname__}() got an unexpected keyword argument {sorted(unknown)[0]!r}")
        for name, default, factory in specs:
            if name in given:
                value = given[name]
            elif factory is not dataclasses.MISSING:
                value = factory()
            elif default is not dataclasses.MISSING:
                value = default
            else:
                raise TypeError(f"{cls.__qualname__}() missing 1 required argument: {name!r}")
            object.__setattr__(self, name, value)
        post = getattr(self, "__post_init__", None)
        if post is not None:
            post()

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def _compared(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, ConfigSection)
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    def __repr__(self) -> str:
        shown = (f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self) if f.repr)
        return f"{type(self).__qualname__}({', '.join(shown)})"


_SPECS: dict[type, tuple[tuple[str, Any, Any], ...]] = {}


def _init_specs(cls: type) -> tuple[tuple[str, Any, Any], ...]:
    """(name, default, default factory) of each field `__init__` takes, in order (cached)."""
    specs = _SPECS.get(cls)
    if specs is None:
        specs = _SPECS[cls] = tuple(
            (f.name, f.default, f.default_factory) for f in dataclasses.fields(cls) if f.init
        )
    return specs


_S = TypeVar("_S", bound=type)


@dataclass_transform(field_specifiers=(field,))
def section(cls: _S) -> _S:
    """A config section: a dataclass whose methods come from `ConfigSection` (type checkers see the
    `__init__` the fields make)."""
    made: Any = dataclass(init=False, eq=False, repr=False)(cls)
    return cast(_S, made)


MAX_SECONDS = 31_536_000.0
"""The longest time any duration key may hold (a year, in seconds): far beyond any real wait,
and far below what the clocks and timers the values reach can represent. A section bounds its
durations with it: `Annotated[float, Gt(0), Le(MAX_SECONDS)]`."""
# A `use:` reference: `package.module:attribute`.
USE_PATTERN = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def check_use(use: str, key: str) -> None:
    if not USE_PATTERN.fullmatch(use):
        raise ConfigError(f"must look like 'package.module:attribute', got {use!r}", path=key)


@section
class ToolsetConfig(ConfigSection):
    """A user-defined toolset: tool names plus other toolsets it includes."""

    # What the toolset is for (shown nowhere to the model; for people reading the config).
    description: str = ""
    # Tool names the toolset holds (besides tools that name it as their toolset).
    tools: list[str] = field(default_factory=list)
    # Other toolsets this one includes (recursively; cycles and unknown names are reported).
    includes: list[str] = field(default_factory=list)


@section
class ToolEntry(ConfigSection):
    """A DeerFlow-style `tools:` entry: `use: package.module:attribute` plus options."""

    # The tool: `package.module:attribute` naming a Tool, a @tool function, a plain function or a list
    # of tools.
    use: str
    # The name you call it by in the config; a warning when it differs from the tool's own name.
    name: str | None = None
    # A group label for `tool_groups` (`bash` marks a shell tool).
    group: str | None = None
    # Overrides the tool's toolset.
    toolset: str | None = None
    # Environment variables the tool needs; hidden (availability) while one is unset.
    requires_env: list[str] | None = None
    # Programs the tool needs on PATH; hidden while one is missing.
    requires_bins: list[str] | None = None
    # Python modules the tool needs; hidden while one is not installed.
    requires_modules: list[str] | None = None
    # Needs the user: runs alone in a batch.
    interactive: bool | None = None
    # Runs alone in a batch (a barrier for the calls around it).
    sequential: bool | None = None
    # Changes nothing: a timed-out call is offered a retry; shown to MCP clients.
    read_only: bool | None = None
    # May destroy data: shown to MCP clients as destructiveHint.
    destructive: bool | None = None
    # Repeating it is safe: a timed-out call is offered a retry.
    idempotent: bool | None = None
    # Talks to the outside world: its output is framed as untrusted.
    open_world: bool | None = None
    # Each call needs approval (see approvals.mode).
    requires_approval: bool | None = None
    # Seconds a call may run (default execution.default_timeout_s).
    timeout: Annotated[float, Gt(0), Le(MAX_SECONDS)] | None = None
    # Result size above which the result is cut and kept aside for read_result.
    max_result_chars: Annotated[int, Ge(1)] | None = None
    # Runs shell commands: hidden unless a sandbox or allow_host_shell permits it.
    shell: bool | None = None
    # Needs a vision model: hidden unless model.supports_vision.
    needs_vision: bool | None = None
    # true: deferred behind tool_search whatever tool_search.defer says (when tool_search is enabled);
    # false: never deferred.
    defer: bool | None = None
    # `process`: each call runs in a child process killed at its deadline with all it started.
    isolation: Literal["process"] | None = None
    # Through `tooldeck serve`, to clients of MCP's tasks extension: `optional` (it may become a
    # task: after serve.task_after_s, or when it asks), `required` (always answered as a task;
    # other clients get -32021) or `forbidden` (always answered at once).
    task_support: Literal["forbidden", "optional", "required"] | None = None
    # Example arguments shown to the model (each checked against the tool's parameters); replace
    # the tool's own.
    input_examples: list[dict[str, Any]] | None = None

    def options(self) -> dict[str, Any]:
        """The tool options this entry sets (unset ones are left to the tool)."""
        skip = {"use", "name"}
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in skip and getattr(self, f.name) is not None
        }

    def check(self, key: str) -> None:
        check_use(self.use, f"{key}.use")
        if self.name is not None and not TOOL_NAME.match(self.name):
            raise ConfigError(
                f"a tool name is letters, digits, '_' and '-' (at most 64, not starting with a digit or '-'); "
                f"got {self.name!r}",
                path=f"{key}.name",
            )
        rules = (
            ("requires_env", ENV_NAME, "an environment variable name"),
            ("requires_modules", MODULE_NAME, "a Python module name like 'package.module'"),
            ("requires_bins", re.compile(r"[^\s\x00]+"), "a program name or path, without spaces"),
        )
        for name, pattern, what in rules:
            for j, value in enumerate(getattr(self, name) or ()):
                if not pattern.fullmatch(value):
                    raise ConfigError(f"must be {what}, got {value!r}", path=f"{key}.{name}[{j}]")


@section
class ReasoningConfig(ConfigSection):
    """How much a reasoning model thinks before it answers, mapped to each provider's own switch
    (Anthropic `thinking`, Responses `reasoning`, Chat Completions `reasoning_effort` and the
    DeepSeek / Gemini / Qwen / Kimi switches). A combination the provider cannot take is refused."""

    # How hard the model reasons: none turns reasoning off; max is the provider's highest level.
    effort: Literal["none", "low", "medium", "high", "max"] | None = None
    # The tokens the model may spend reasoning, where the provider takes a budget (Anthropic,
    # Gemini, Qwen).
    budget_tokens: Annotated[int, Ge(1)] | None = None


@section
class ModelConfig(ConfigSection):
    """The model the agent talks to."""

    # The wire format: OpenAI-compatible Chat Completions, OpenAI Responses or Anthropic Messages.
    provider: Literal["openai", "responses", "anthropic"] = "openai"
    # The model name sent to the provider (also picks schema sanitizers for narrow providers).
    name: str | None = None
    # The endpoint (OpenAI-compatible: ending in /v1; Anthropic: the host root); default the provider's.
    base_url: str | None = None
    # The environment variable holding the API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY).
    api_key_env: str | None = None
    # The model reads images: tools that need vision are shown.
    supports_vision: bool = False
    # The reply's token limit sent with each request.
    max_tokens: Annotated[int, Ge(1)] | None = None
    # The sampling temperature sent with each request.
    temperature: float | None = None
    # Stream replies (text shows as it comes in `tooldeck chat`).
    stream: bool = False
    # Seconds one attempt at a model request may take. A failed attempt (429, 5xx, a timeout, a
    # dropped connection) is tried again up to `max_retries` times, so an endpoint that hangs
    # fails after about max_retries + 1 times timeout_s, plus the backoff: 3 minutes by default.
    timeout_s: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 60.0
    # Retries of a failed request (with backoff; Retry-After honoured).
    max_retries: Annotated[int, Ge(0)] = 2
    # Reasoning turned on and sized (unset: the model's own default).
    reasoning: ReasoningConfig | None = None


@section
class SandboxLimitsConfig(ConfigSection):
    """Resource limits of each call (terminal, execute_code; disk_mb for every tool), far below a
    host's own; a call that reaches one ends with an error naming it. Never above the host's hard
    limits (a higher value is lowered to them)."""

    # Processes and threads the command may have at once, all of them together (a fork loop
    # stops here): a cgroup's pids bound where the host offers one, else the per-user process
    # limit counted in the command's own sandbox.
    processes: Annotated[int, Ge(8)] = 256
    # Memory of the whole command, in MiB: all its processes together with what they keep in
    # its in-memory folders, where the host offers a cgroup (`tooldeck explain terminal` says
    # whether it does; the kernel kills a process of the command past it); and the address
    # space of each process everywhere (a memory hog gets allocation failures).
    memory_mb: Annotated[int, Ge(64)] = 2048
    # Largest file a process may write, in MiB.
    file_size_mb: Annotated[int, Ge(1)] = 1024
    # What one call may write into the workspace in all, in MiB, whichever tool writes it: the
    # file tools count each file they write, a command's changes are counted before they land
    # (running as root, its copy-on-write layer is a tmpfs of this size, counted in memory_mb).
    # Going over is the call's error, and nothing of a command's changes lands.
    disk_mb: Annotated[int, Ge(1)] = 1024
    # CPU seconds of each process (it gets SIGXCPU, then is killed 5 s later).
    cpu_s: Annotated[int, Ge(1)] = 600
    # Open file descriptors of each process.
    open_files: Annotated[int, Ge(16)] = 1024
    # Size of each private in-memory folder (/tmp, /dev/shm, the emptied home folders), in MiB: what is
    # written there takes the host's memory (counted in memory_mb where a cgroup bounds the command).
    tmp_mb: Annotated[int, Ge(1)] = 512


@section
class SandboxConfig(ConfigSection):
    """Where file and shell tools may act, and how shell commands are confined."""

    # "bwrap": shell tools are offered when bubblewrap works here. "none": no sandbox is
    # required, so shell tools need allow_host_shell. Either way a command runs inside
    # bubblewrap whenever it works here, and on the host only with allow_host_shell.
    kind: Literal["none", "bwrap"] = "none"
    # Show shell tools without a sandbox (they run on the host).
    allow_host_shell: bool = False
    # The root the file tools are confined to, and the one folder shell commands may write;
    # relative to the config file's folder. The root of the file system (`/`) is refused.
    workspace: str = "."
    # Sandboxed commands reach the network (loopback included) only when this is true.
    network: bool = False
    # When tooldeck runs as root: the unprivileged host uid (and gid) sandboxed commands run as;
    # the files of the workspace folder's owner appear as theirs (an idmapped mount).
    uid: Annotated[int, Ge(1), Le(4_294_967_294)] = 65534
    # Resource limits of each sandboxed command.
    limits: SandboxLimitsConfig = field(default_factory=SandboxLimitsConfig)
    # Workspace paths (relative, globs allowed; a folder covers what is inside) that tools may not
    # change unasked: read-only inside the sandbox, and file-tool edits of them need approval
    # (rule protected-path:PATH). Entries add to the defaults (.git/hooks, .git/config,
    # .git/commondir, .git/config.worktree, linked worktrees' and submodules' hooks and config,
    # .gitconfig, .config/git, .ssh, .vscode, .idea, .claude, .cursor, .codex,
    # .gemini, .mcp.json, shell start-up files such as .bashrc, .profile, .zshrc); "!ENTRY" drops
    # one, and takes ENTRY (and what lies below it) out of the classes below (e.g. "!.venv" for
    # a trusted virtualenv that pip install may change unasked). The config file in use and the
    # workspace modules it imports (use:, discover:) are always protected. Protected by class,
    # wherever they lie and before they exist (a change needs approval; the effects of terminal
    # and execute_code touching one are held): git (hooks, .git pointer files and commondir of
    # every repository at any depth, and any git config holding keys that make git run a program
    # - fsmonitor, hooksPath, sshCommand, pager, editor, credential helpers, drivers, ! aliases,
    # includes: git runs them at the user's next git command; a config without them lands);
    # interpreter start-up (*.pth, sitecustomize, usercustomize under any site-packages, the
    # bin/ of an existing environment, conda activate.d, node_modules/.bin, .cargo/config,
    # .npmrc, .yarnrc: run at the next start of that interpreter or tool); tooldeck.yaml in any
    # folder (the next start there reads it); and, when the workspace is or holds the user's
    # home, its top-level dot-files and dot-folders, ~/bin and what its shell start-up files
    # source or put on PATH (a login shell runs them).
    protected: list[str] = field(default_factory=list)

    def check(self, key: str) -> None:
        for i, entry in enumerate(self.protected):
            path = entry.removeprefix("!").strip().replace("\\", "/")
            if not path or path.startswith("/") or ".." in path.split("/"):
                raise ConfigError(
                    "must be a path relative to the workspace without '..' (optionally '!' to drop a "
                    f"default), got {entry!r}",
                    path=f"{key}.protected[{i}]",
                )


ApprovalMode = Literal["ask", "deny", "allow"]

# The default `platform`, and the only platform of a config that defines no platform_toolsets.
DEFAULT_PLATFORM = "cli"

# Per-tool approval modes that apply unless `approvals.tools` says otherwise. The built-in file
# edits are destructive but confined to the workspace, so, as in most coding agents, they run
# without asking; set them to "ask" to be asked about every edit.


@section
class ApprovalsConfig(ConfigSection):
    """Consent for what needs it: shell commands a rule flags, destructive tools, and tools
    marked requires_approval."""

    # What needs approval gets: asked (ask), refused (deny) or run (allow). Blocked shell
    # commands are refused whatever the mode.
    mode: ApprovalMode = "ask"
    # Seconds a prompt or an approval callback may take to answer; no answer in time is a no.
    timeout_s: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 300.0
    # A call that needs consent when nobody can be asked (no terminal, no approver): refused
    # (deny), or, in an agent run, left pending: the turn ends `interrupted` with the calls
    # that wait, stored with the session, and `run --resume ID --approve/--deny/--edit` decides.
    unattended: Literal["deny", "interrupt"] = "deny"
    # The audit log of approval decisions (JSON lines); relative to the config file's folder;
    # default <home>/approvals.jsonl.
    audit_log: str | None = None
    # Per-tool modes (a tool name or a glob such as "mcp__github__*") over the tool's own approval
    # setting and over `mode`; the exact name wins, then the first matching glob.
    tools: dict[str, ApprovalMode] = field(default_factory=dict)

    def stores(self, resolve: Callable[[str], Path]) -> list[Path]:
        return [resolve(self.audit_log)] if self.audit_log else []


@section
class ShellConfig(ConfigSection):
    """Levels of the shell analyser's rules: ids or categories moved to `block` (never runnable)
    or to `approve` (runnable with consent). `tooldeck shell-check` shows the verdicts."""

    # Rule ids or categories whose commands are refused, even with approval.
    block: list[str] = field(default_factory=list)
    # Rule ids or categories whose commands run only with approval.
    approve: list[str] = field(default_factory=list)

    def check(self, key: str) -> None:
        """Rule ids and categories must exist: a typo would otherwise leave a rule at a level the
        user did not mean."""
        if not self.block and not self.approve:
            return
        from tooldeck.safety.policy import unknown_name  # the rule table, only when lists are set

        for level, names in (("block", self.block), ("approve", self.approve)):
            for i, name in enumerate(names):
                problem = unknown_name(name)
                if problem is not None:
                    raise ConfigError(problem, path=f"{key}.{level}[{i}]")
        both = sorted(set(self.block) & set(self.approve))
        if both:
            raise ConfigError(f"named in both shell.block and shell.approve: {', '.join(both)}", path=key)


@section
class ToolSearchConfig(ConfigSection):
    """Progressive disclosure: deferred tools reach the model by name only, and `tool_search`
    loads their schemas when the model asks for them."""

    # Defer tools behind tool_search (the tool_search tool is exposed whenever a tool is deferred).
    enabled: bool = False
    # What to defer: "mcp" (every MCP tool), "source:KIND" (config, user, builtin, mcp, plugin, acp),
    # toolset names, tool names or glob patterns of either.
    defer: list[str] = field(default_factory=lambda: ["mcp"])
    # Also defer tools while the exposed schemas cost more tokens than this (counted in the dialect of
    # model.provider), plugin/MCP tools and the largest schemas first; unset: no budget.
    max_exposed_tokens: Annotated[int, Ge(1)] | None = None
    # How the system prompt lists the deferred tools: one line per toolset or MCP server (its name,
    # how many tools it holds, their names while they fit), each tool's name with a one-line
    # summary, names only, or not at all (the model then finds them with tool_search alone).
    listing: Literal["toolsets", "summaries", "names", "none"] = "toolsets"
    # The longest one-line summary in the listing, in characters.
    summary_chars: Annotated[int, Ge(20)] = 100
    # How tool_search ranks free-text queries: bm25 (lexical), semantic (MiniLM embeddings, the
    # semantic extra), hybrid (both) or auto (hybrid when the semantic extra is installed, else bm25).
    ranker: Literal["auto", "bm25", "semantic", "hybrid"] = "auto"
    # Use the provider's own deferral where it has one (Anthropic `defer_loading` + `tool_reference`,
    # OpenAI Responses `tool_search` + `defer_loading` + namespaces) and a cache-stable mode elsewhere
    # (tools[] and the system prompt never change; found tools are called through `call_tool`);
    # off: deferred tools join tools[] when found.
    native: Literal["auto", "off"] = "auto"
    # Who answers a native search: tooldeck's own search (client: its rankers, select:, regex) or
    # the provider's hosted search (server: Anthropic's tool_search_tool_bm25/regex, Responses
    # `execution: "server"`). Only with native: auto, on Anthropic and Responses.
    execution: Literal["client", "server"] = "client"
    # Which of Anthropic's server-side search tools answers with execution: server.
    server_search: Literal["bm25", "regex"] = "bm25"

    def check(self, key: str) -> None:
        """A `source:` entry must name a kind of source, and no entry is empty (a blank pattern
        would defer nothing, silently)."""
        for i, entry in enumerate(self.defer):
            if not entry.strip():
                raise ConfigError("an empty entry defers nothing", path=f"{key}.defer[{i}]")
            kind = entry.removeprefix("source:")
            if entry.startswith("source:") and kind not in SOURCE_PRIORITY:
                raise ConfigError(
                    f"unknown kind of source {kind!r}; one of {', '.join(SOURCE_PRIORITY)}",
                    path=f"{key}.defer[{i}]",
                )


@section
class SkillConfig(ConfigSection):
    # The skill's name.
    name: str
    # The tools the skill allows; while the skill is active, tools outside the union of active skills'
    # lists are hidden (essential tools stay).
    allowed_tools: list[str] | None = None
    # Whether the skill's allowed_tools apply now.
    active: bool = True
    # What the skill is for.
    description: str = ""


@section
class ChecksConfig(ConfigSection):
    # Seconds a requirement check's answer is reused before the check runs again.
    ttl_s: Annotated[float, Ge(0), Le(MAX_SECONDS)] = 30.0
    # Time all checks of one assembly may take together; a check still running counts as unavailable.
    budget_ms: Annotated[float, Gt(0), Le(MAX_SECONDS * 1000)] = 1000.0
    # A check that raises or times out keeps its last good answer until this many seconds after
    # that answer (flap grace), however long `ttl_s` is; then it is checked again.
    flap_grace_s: Annotated[float, Ge(0), Le(MAX_SECONDS)] = 60.0


@section
class CheckpointKeepConfig(ConfigSection):
    """How many checkpoints a workspace keeps. Past a bound, whole sessions go, oldest first;
    the current session and the one before it are never pruned."""

    # The most checkpoints kept per workspace (more when the last two sessions hold more).
    count: Annotated[int, Ge(1)] = 500
    # Sessions whose last checkpoint is older than this many days are dropped.
    max_age_days: Annotated[float, Gt(0), Le(36500)] = 30.0
    # The most bytes of earlier file contents kept per workspace (1 GiB). A change whose earlier
    # bytes would pass it once old sessions are pruned is held for approval, naming the size
    # (denied when nobody can be asked): it is never paid for by evicting the history of the
    # current session or the one before.
    max_bytes: Annotated[int, Ge(1)] = 1 << 30


@section
class CheckpointsConfig(ConfigSection):
    """What a call changes in the workspace is recorded before it lands, so `tooldeck undo` can
    restore it (kept under the tooldeck home, never in the workspace)."""

    # false: no checkpoints are taken (and `tooldeck undo` has nothing to restore).
    enabled: bool = True
    # Pruning of old checkpoints.
    keep: CheckpointKeepConfig = field(default_factory=CheckpointKeepConfig)
    # A file larger than this (bytes) is too large to checkpoint: changing it needs approval, as a
    # deletion does (denied, with nothing changed, when nobody can be asked) (64 MiB).
    max_file_bytes: Annotated[int, Ge(1)] = 64 << 20


@section
class EffectsConfig(ConfigSection):
    """What a shell or code call does is judged before it lands: it runs against a copy-on-write
    view of the workspace, and effects beyond these bounds are held for approval (denied when
    nobody can be asked), so nothing of them reaches the workspace unasked."""

    # false: commands write the workspace directly (their changes are not checkpointed either).
    enabled: bool = True
    # A call may delete, empty or replace this many files that existed before it without asking.
    max_deletions: Annotated[int, Ge(0)] = 20
    # A call may create, change or delete this many paths in all without asking.
    max_changed: Annotated[int, Ge(0)] = 1000


@section
class ExecutionConfig(ConfigSection):
    """How tool calls run."""

    # Seconds a call may run when its tool sets no `timeout`.
    default_timeout_s: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 120.0
    # An upper bound on every call's timeout, even a tool's own.
    max_timeout_s: Annotated[float, Gt(0), Le(MAX_SECONDS)] | None = None
    # Calls of one batch running at the same time.
    max_concurrency: Annotated[int, Ge(1)] = 8
    # Result size (characters) above which a result is cut and kept aside; a tool may set its own.
    max_result_chars: Annotated[int, Ge(1)] = 100_000
    # Accept `Read-File` for `read_file` when exactly one tool matches (the result says so).
    normalize_names: bool = True

    def timeout_for(self, tool_timeout: float | None) -> float:
        timeout = tool_timeout or self.default_timeout_s
        return min(timeout, self.max_timeout_s) if self.max_timeout_s is not None else timeout


@section
class OpenAIDialectConfig(ConfigSection):
    # Send OpenAI function schemas in strict mode where the schema allows it (explain says why not
    # otherwise).
    strict: bool = False


@section
class DialectsConfig(ConfigSection):
    # OpenAI dialect options.
    openai: OpenAIDialectConfig = field(default_factory=OpenAIDialectConfig)


@section
class MiddlewareEntry(ConfigSection):
    """A `middleware:` entry: an object with `async def on_call(self, call, call_next)`."""

    # `package.module:attribute` naming a middleware instance, or a class or factory that makes
    # one when called with no arguments.
    use: str
    # Place it just outside this link of the call path (trace, validate, approvals, effects,
    # frame, truncate, budget, checkpoint, run). With neither key it is outside every link but trace, so
    # it sees the model's raw arguments.
    before: str | None = None
    # Place it just inside this link (not run, the last): after validate it sees the arguments
    # validated and coerced ("2" -> 2).
    after: str | None = None

    def check(self, key: str) -> None:
        problem = placement_problem(self.before, self.after)
        if problem is not None:
            raise ConfigError(problem[1], path=f"{key}.{problem[0]}")


@section
class PromptEntry(ConfigSection):
    """A `prompts:` entry: MCP prompts `tooldeck serve` offers beside the skills."""

    # `package.module:attribute` naming a @prompt (a plain function is made one) or a list of them.
    use: str

    def check(self, key: str) -> None:
        check_use(self.use, f"{key}.use")


@section
class ResourceEntry(ConfigSection):
    """A `resources:` entry: MCP resources `tooldeck serve` offers beside the workspace's files."""

    # `package.module:attribute` naming a @resource (a fixed URI or a URI template) or a list of them.
    use: str

    def check(self, key: str) -> None:
        check_use(self.use, f"{key}.use")


@section
class PluginsConfig(ConfigSection):
    # Load tools from installed distributions' `tooldeck.tools` entry points.
    enabled: bool = True
    # Entry point names not to load.
    disabled: list[str] = field(default_factory=list)
