"""Commands that print secrets out of a secret store: what they write is as secret as a key file."""

from __future__ import annotations

from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.knowledge.credential_names import credential_names
from tooldeck.safety.knowledge.verbs import verb_match


def prints_secrets(inv: Invocation) -> bool:
    """Whether `inv` writes secret values to its standard output: a `prints-secrets` verb of the
    verb table (`kubectl get secret`, `vault kv get`, `sops -d`...) or `printenv` of a secret."""
    if inv.name == "printenv":
        return any(credential_names("$" + a.text) for a in inv.args if not a.text.startswith("-"))
    return verb_match("prints-secrets", inv) is not None
