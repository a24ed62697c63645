"""Destroying infrastructure: the delete verbs of cluster, provisioning, cloud and container CLIs.

`kubectl delete` of anything but a single pod or job (and `--all`, selectors, manifests),
`kubectl drain` and scaling to zero; `terraform destroy`, `apply -destroy`, `state rm`;
`pulumi destroy`, `cdk destroy`; `helm uninstall`; the delete/terminate verbs of aws, gcloud, az
and other cloud CLIs; `gh repo delete`; container prunes that take images or volumes, volume
removal and `podman system reset`; and destroying VMs and local clusters.
"""

from __future__ import annotations

import re

from tooldeck.safety.analysis.argv import word_operands as operands
from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.knowledge.rules.base import RuleSet
from tooldeck.safety.knowledge.table import operands_of, programs, value_options_of

rules = RuleSet("infra_destruction")


def _flags(words: list[str]) -> set[str]:
    """Long options by name, and each letter of short option clusters as `-x`."""
    out: set[str] = set()
    for word in words:
        if word.startswith("--"):
            out.add(word.split("=", 1)[0])
        elif word.startswith("-") and len(word) > 1:
            out.add(word.split("=", 1)[0])
            out.update(f"-{c}" for c in word[1:] if c.isalpha())
    return out


_KUBE_CLIS = programs().in_class("cluster-client")
_EPHEMERAL = frozenset({"pod", "pods", "po", "job", "jobs", "event", "events", "ev", "lease", "leases"})
_MASS = frozenset(
    {
        "--all",
        "-A",
        "--all-namespaces",
        "-l",
        "--selector",
        "--field-selector",
        "-f",
        "--filename",
        "-k",
        "--kustomize",
    }
)


@rules.rule(
    "kubectl-delete",
    "approve",
    "deletes cluster resources (namespaces, deployments, volumes, --all, selectors, manifests), drains a node "
    "or scales to zero",
    previewable=True,
)
def _kubectl(inv: Invocation) -> str | None:
    # `microk8s kubectl`, `minikube kubectl --` are wrappers of the table: their kubectl is here.
    words = inv.arg_texts()
    if inv.name not in _KUBE_CLIS:
        return None
    positional = operands(words, value_options_of("kubectl"))
    verb = positional[0] if positional else ""
    flags = _flags(words)
    if verb == "delete":
        targets = positional[1:]
        kinds = {t.split("/", 1)[0].lower() for t in targets if "/" in t} or set(
            targets[0].lower().split(",") if targets else []
        )
        mass = flags & _MASS
        if kinds and kinds <= _EPHEMERAL and not mass:
            return None
        what = " ".join(positional[1:3]) or " ".join(w for w in words if w.startswith("-"))
        return f"{inv.name} delete {what} removes cluster resources and their data"
    if verb == "drain":
        return f"{inv.name} drain evicts every workload from {' '.join(positional[1:2])}"
    if verb == "scale" and any(re.fullmatch(r"--replicas=0+", w) for w in words):
        return f"{inv.name} scale --replicas=0 takes {' '.join(positional[1:3])} down"
    if verb == "delete-namespace" or (inv.name == "oc" and verb == "delete-project"):
        return f"{inv.name} {verb} deletes a namespace"
    return None


# Tearing infrastructure down and uninstalling releases are verbs alone (verbs.toml).
rules.declare(
    "infra-destroy",
    "approve",
    "tears infrastructure down: terraform/tofu destroy, apply -destroy, state rm, pulumi destroy, cdk destroy",
    previewable=True,
)
rules.declare(
    "helm-uninstall",
    "approve",
    "uninstalls a Helm release (its workloads and, often, its volumes)",
    previewable=True,
)


@rules.rule(
    "cloud-delete",
    "approve",
    "deletes cloud resources (aws delete-*/terminate-*, gcloud/az/doctl ... delete, heroku apps:destroy, "
    "gh repo delete)",
    previewable=True,
)
def _cloud(inv: Invocation) -> str | None:
    """A DELETE through a forge's API (`gh api -X DELETE repos/o/r`); the providers' delete
    commands are verbs (verbs.toml)."""
    if inv.name not in ("gh", "glab"):
        return None
    words = inv.arg_texts()
    method = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-X", "--method")), "")
    method = method or next((w.split("=", 1)[1] for w in words if w.startswith("--method=")), "")
    positional = operands_of(inv)
    if positional[:1] == ["api"] and method.upper() == "DELETE":
        return f"{inv.name} api DELETE {' '.join(positional[1:2])} deletes through the API"
    return None


_ENGINES = programs().in_class("container-engine")
_COMPOSE = programs().in_class("container-compose")
_ENGINE_VALUE = value_options_of("docker") | value_options_of("docker-compose")


@rules.rule(
    "container-prune",
    "approve",
    "deletes container data: system prune -a/--volumes, volume prune/rm, podman system reset, compose down -v, "
    "removing every container or image",
    previewable=True,
)
def _containers(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    if inv.name in _COMPOSE:
        words = ["compose", *words]
    elif inv.name not in _ENGINES:
        return None
    positional = operands(words, _ENGINE_VALUE)
    flags = _flags(words)
    head = positional[:2]
    if head == ["system", "prune"] and flags & {"-a", "--all", "--volumes"}:
        return f"{inv.name} system prune {' '.join(w for w in words if w.startswith('-'))} deletes images and volumes"
    if head == ["system", "reset"]:
        return f"{inv.name} system reset deletes every container, image and volume"
    if head == ["volume", "prune"] or head in (["volume", "rm"], ["volume", "remove"]):
        return f"{inv.name} volume {head[1]} deletes the data kept in volumes"
    if head == ["compose", "down"] and flags & {"-v", "--volumes"}:
        return f"{inv.name} compose down --volumes deletes the project's volumes"
    removing = head[:1] in (["rm"], ["rmi"], ["rmp"]) or (
        head[:1] in (["container"], ["containers"], ["c"], ["image"], ["images"], ["i"], ["pods"])
        and head[1:] in (["rm"], ["remove"], ["delete"], ["del"])
    )
    if removing and flags & {"-a", "--all"}:
        return f"{inv.name} {' '.join(head)} --all removes every container, pod or image"
    if removing and any(not a.exact for a in inv.args):
        return f"{inv.name} {' '.join(head)} removes every container or image listed at run time"
    return None


_MACHINES: dict[str, tuple[tuple[str, ...], ...]] = {
    "vagrant": (("destroy",),),
    "virsh": (("undefine",), ("vol-delete",), ("pool-delete",)),
    "lxc": (("delete",), ("rm",)),
    "incus": (("delete",), ("rm",)),
    "multipass": (("delete",), ("purge",)),
    "minikube": (("delete",),),
    "kind": (("delete",),),
    "k3d": (("cluster", "delete"), ("cluster", "rm")),
    "lima": (("delete",),),
    "limactl": (("delete",), ("rm",)),
}


@rules.rule(
    "destroy-machine",
    "approve",
    "destroys virtual machines or local clusters and their disks",
    previewable=True,
)
def _machines(inv: Invocation) -> str | None:
    positional = [w for w in inv.arg_texts() if not w.startswith("-")]
    for verb in _MACHINES.get(inv.name, ()):
        if tuple(positional[: len(verb)]) == verb:
            return f"{inv.name} {' '.join(positional[:3])} destroys a machine and its disks"
    return None
