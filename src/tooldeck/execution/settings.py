"""ExecutionSettings: the knobs of the execution engine, usually read from the config."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from tooldeck.execution.policy import ApprovalMode

if TYPE_CHECKING:
    from tooldeck.config import Config

Promoted = Collection[str] | Callable[[], Collection[str]]


@dataclass(frozen=True, slots=True)
class ExecutionSettings:
    """How calls run. `from_config` reads `execution`, `approvals` and `sandbox`."""

    # Seconds a call may run when its tool sets no `timeout`.
    default_timeout_s: float = 120.0
    # An upper bound on every call's timeout, even a tool's own (e.g. `tooldeck call --timeout`).
    timeout_cap_s: float | None = None
    # Calls of one batch running at the same time.
    max_concurrency: int = 8
    # Result size (characters) above which a result is cut and kept aside; a tool may set its own.
    max_result_chars: int = 100_000
    # What `requires_approval` tools get: run (allow), refuse (deny) or ask the approver (ask).
    approval_mode: ApprovalMode = "ask"
    # Deferred tools the model has promoted through tool_search (a set, or a function giving one).
    promoted: Promoted = frozenset()
    # Names the active skills allow; None reads the loadout's `skills_allowed` setting.
    skills_allowed: frozenset[str] | None = None
    # Accept `Read-File` for `read_file` when exactly one tool matches (the result says so).
    normalize_names: bool = True
    # The workspace root for file tools (config `sandbox.workspace`); None: the current directory.
    workspace: str | None = None

    def __post_init__(self) -> None:
        if not self.default_timeout_s > 0:
            raise ValueError(f"default_timeout_s must be > 0, got {self.default_timeout_s}")
        if self.timeout_cap_s is not None and not self.timeout_cap_s > 0:
            raise ValueError(f"timeout_cap_s must be > 0, got {self.timeout_cap_s}")
        if self.max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, got {self.max_concurrency}")
        if self.max_result_chars < 1:
            raise ValueError(f"max_result_chars must be >= 1, got {self.max_result_chars}")

    @classmethod
    def from_config(cls, config: Config, **overrides: Any) -> ExecutionSettings:
        """Settings from `execution.*`, `approvals.mode` and `sandbox.workspace`; keywords override."""
        base = cls(
            default_timeout_s=config.execution.default_timeout_s,
            max_concurrency=config.execution.max_concurrency,
            max_result_chars=config.execution.max_result_chars,
            approval_mode=config.approvals.mode,
            workspace=str(config.resolve_path(config.sandbox.workspace)),
        )
        return replace(base, **overrides) if overrides else base

    def timeout_for(self, tool_timeout: float | None) -> float:
        timeout = tool_timeout or self.default_timeout_s
        return min(timeout, self.timeout_cap_s) if self.timeout_cap_s is not None else timeout

    def promoted_names(self) -> Collection[str]:
        return self.promoted() if callable(self.promoted) else self.promoted
