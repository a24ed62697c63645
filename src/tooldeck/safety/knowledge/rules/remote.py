"""Remote code execution: downloaded content run by a shell or an interpreter, however it gets there."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.model import NETWORK, Invocation, Taint
from tooldeck.safety.analysis.programs import SHELLS, CodeSource, code_source
from tooldeck.safety.knowledge.rules.base import RuleSet
from tooldeck.safety.knowledge.rules.known_packages import well_known_npx
from tooldeck.safety.knowledge.table import programs

rules = RuleSet("remote_code_exec")


def source_of(inv: Invocation) -> CodeSource | None:
    return code_source(inv.name, inv.args, stdin_piped=inv.stdin is not None)


def code_taint(inv: Invocation, source: CodeSource) -> frozenset[Taint]:
    """Where the code that `source` names came from."""
    if source.origin == "arg" and source.code is not None:
        return source.code.taint
    if source.origin == "stdin":
        return inv.data.taint
    if source.file is not None:
        content = source.file.content.taint if source.file.content is not None else frozenset()
        return source.file.taint | content
    return frozenset()


@rules.rule(
    "pipe-to-shell", "approve", "pipes downloaded content into a shell or interpreter (curl ... | sh)"
)
def _pipe(inv: Invocation) -> str | None:
    source = source_of(inv)
    if source is not None and source.origin == "stdin" and NETWORK in inv.data.taint:
        return f"downloaded content is piped into {inv.name}, which runs it"
    return None


@rules.rule(
    "remote-code-argument", "approve", "runs downloaded text as code ($(curl ...) given to -c, eval, -e)"
)
def _argument(inv: Invocation) -> str | None:
    source = source_of(inv)
    if source is not None and source.origin == "arg" and NETWORK in code_taint(inv, source):
        return f"{inv.name} runs code fetched from the network"
    return None


@rules.rule(
    "run-downloaded", "approve", "runs a downloaded script or binary (bash <(curl ...), curl -o x && sh x)"
)
def _downloaded(inv: Invocation) -> str | None:
    if inv.argv and NETWORK in inv.argv[0].taint:
        return f"{inv.argv[0].shown()} was downloaded and is executed"
    source = source_of(inv)
    if source is not None and source.origin == "file" and NETWORK in code_taint(inv, source):
        what = source.file.shown() if source.file is not None else "a file"
        return f"{inv.name} runs {what}, which holds downloaded content"
    return None


rules.signal("interpreter-remote-exec", "approve", "interpreter code that downloads and executes code")
rules.signal(
    "interpreter-reverse-shell",
    "approve",
    "interpreter code that hands a network socket to a shell (a reverse shell)",
)


def _interactive(inv: Invocation) -> bool:
    return any(a.text.startswith("-") and not a.text.startswith("--") and "i" in a.text for a in inv.args[:3])


@rules.rule(
    "reverse-shell",
    "approve",
    "connects a shell to the network (bash -i >& /dev/tcp/..., sh -i fed by a pipe or a fifo)",
)
def _reverse_shell(inv: Invocation) -> str | None:
    if inv.name not in SHELLS:
        return None
    sockets = [r.target.text for r in inv.redirects if r.target.text.startswith(("/dev/tcp/", "/dev/udp/"))]
    if sockets:
        return f"{inv.name} reads or writes {sockets[0]}: a shell driven over the network"
    source = source_of(inv)
    if _interactive(inv) and inv.stdin is not None and source is not None and source.origin == "stdin":
        return f"{inv.name} -i reads its commands from a pipe (a shell driven from elsewhere)"
    return None


_POWERSHELL = frozenset({"powershell", "powershell.exe", "pwsh", "pwsh.exe"})
_PS_RUN = re.compile(r"(?i)\b(iex|invoke-expression|\.invoke\(\)|start-process|&\s*\()")
_PS_FETCH = re.compile(
    r"(?i)downloadstring|downloadfile|downloaddata|\biwr\b|\birm\b|invoke-webrequest|invoke-restmethod|"
    r"net\.webclient|start-bitstransfer|https?://"
)


@rules.rule(
    "powershell-remote-exec",
    "approve",
    "PowerShell that downloads and runs code (iex (New-Object Net.WebClient).DownloadString(...), iwr | iex)",
)
def _powershell(inv: Invocation) -> str | None:
    if inv.name.lower() not in _POWERSHELL:
        return None
    words = inv.arg_texts()
    if any(re.fullmatch(r"(?i)-e(nc(odedcommand)?|c)?", w) for w in words):
        return f"{inv.name} -EncodedCommand runs code no one can read before it runs"
    code = " ".join(words)
    if _PS_RUN.search(code) and _PS_FETCH.search(code):
        return f"{inv.name} downloads code and runs it"
    return None


# Runners that fetch a package and run its code at once, and their subcommand words.
_PACKAGE_RUNNERS: dict[str, tuple[str, ...]] = {
    "npx": (),
    "bunx": (),
    "pnpx": (),
    "pnpm": ("dlx",),
    "yarn": ("dlx",),
    "npm": ("exec",),
    "pipx": ("run",),
    "uvx": (),
    "uv": ("tool", "run"),
}
# A package given as a repository or an address rather than a registry name.
_REMOTE_SPEC = re.compile(
    r"(?:github|gitlab|bitbucket|gist):|git\+\w+://|(?:https?|ftp)://|git@|^[\w.-]+/[\w.-]+(?:#.*)?$"
)
_SPEC_OPTIONS = frozenset({"--spec", "--from", "-p", "--package", "--with"})


@rules.rule(
    "run-remote-package",
    "approve",
    "fetches a package from a repository or URL and runs it (npx github:user/repo, uvx --from git+https://...)",
)
def _remote_package(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    positional = [w for w in words if not w.startswith("-")]
    by_address = _run_by_address(inv.name, positional)
    if by_address is not None:
        return by_address
    unprompted = _unprompted_package(inv, positional)
    if unprompted is not None:
        return unprompted
    sub = _PACKAGE_RUNNERS.get(inv.name)
    if sub is None:
        return None
    if tuple(positional[: len(sub)]) != sub:
        return None
    # The package: what a --spec/--from/-p option names, else the first word after the verb.
    specs = [words[i + 1] for i, w in enumerate(words[:-1]) if w in _SPEC_OPTIONS]
    specs += [w.split("=", 1)[1] for w in words if w.split("=", 1)[0] in _SPEC_OPTIONS and "=" in w]
    if not specs and len(positional) > len(sub):
        specs = [positional[len(sub)]]
    for spec in specs:
        if _REMOTE_SPEC.search(spec) and not spec.startswith("@"):  # @scope/name is a registry's
            return f"{inv.name} fetches {spec[:80]} and runs its code"
    return None


def _run_by_address(name: str, positional: list[str]) -> str | None:
    """`go run host/path@version` (a module fetched and built), `deno run URL`, `bun run URL`."""
    if name == "go" and positional[:1] == ["run"] and len(positional) > 1:
        module = positional[1]
        if "@" in module and not module.startswith((".", "/")) and "." in module.split("/", 1)[0]:
            return f"go run fetches {module[:80]}, builds it and runs it"
    if (
        name in ("deno", "bun")
        and positional[:1] == ["run"]
        and re.match(r"(?:https?|ftp)://", "".join(positional[1:2]))
    ):
        return f"{name} runs {positional[1][:80]}, code fetched from the network"
    return None


def _unprompted_package(inv: Invocation, positional: list[str]) -> str | None:
    """`npx -y PKG` / `npm exec --yes PKG`: a registry package installed and run with its prompt
    answered in advance; only widely used tools pass."""
    words = inv.arg_texts()
    yes = any(w in ("-y", "--yes", "--yes=true") for w in words) or (
        (value := inv.env_value("npm_config_yes")) is not None and value.text == "true"
    )
    if not yes:
        return None
    if inv.name == "npx":
        specs = positional
    elif inv.name == "npm" and positional[:1] in (["exec"], ["x"]):
        specs = positional[1:]
    else:
        return None
    packages = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-p", "--package")]
    packages += [w.split("=", 1)[1] for w in words if w.startswith("--package=")]
    spec = packages[0] if packages else (specs[0] if specs else "")
    if spec and not well_known_npx(spec):
        return f"{inv.name} --yes installs and runs {spec[:80]} without asking, code no one has reviewed"
    return None


_APPLY_VERBS = frozenset({"apply", "create", "replace"})
_CLUSTER_CLIENTS = programs().in_class("cluster-client")


@rules.rule(
    "apply-remote-manifest",
    "approve",
    "applies a cluster manifest fetched from the network (kubectl apply -f https://..., curl ... | kubectl apply -f -)",
)
def _remote_manifest(inv: Invocation) -> str | None:
    if inv.name not in _CLUSTER_CLIENTS:
        return None
    words = inv.arg_texts()
    if not any(w in _APPLY_VERBS for w in words):
        return None
    files = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-f", "--filename", "-k", "--kustomize")]
    files += [w.split("=", 1)[1] for w in words if w.startswith(("--filename=", "-f="))]
    for target in files:
        if re.match(r"(?:https?|ftp)://", target):
            return f"{inv.name} applies {target[:80]} to the cluster, fetched unreviewed"
        if target == "-" and NETWORK in inv.data.taint:
            return f"{inv.name} applies a manifest piped in from the network to the cluster"
    return None


# Package managers and the words that make them install (and so run the package's scripts).
_INSTALLERS: dict[str, frozenset[str]] = {
    "dpkg": frozenset({"-i", "--install"}),
    "rpm": frozenset({"-i", "-U", "-F", "--install", "--upgrade", "--freshen"}),
    "apt": frozenset({"install", "reinstall"}),
    "apt-get": frozenset({"install", "reinstall"}),
    "dnf": frozenset({"install", "reinstall", "localinstall"}),
    "yum": frozenset({"install", "reinstall", "localinstall"}),
    "zypper": frozenset({"install", "in"}),
    "pip": frozenset({"install"}),
    "pip3": frozenset({"install"}),
    "npm": frozenset({"install", "i", "add"}),
    "gem": frozenset({"install"}),
    "snap": frozenset({"install"}),
    "apk": frozenset({"add"}),
}
_PACKAGE_ADDRESS = re.compile(
    r"(?:https?|ftp)://\S+\.(?:deb|rpm|whl|tar\.gz|tgz|zip|gem|apk|snap)(?:[?#]\S*)?$"
)


@rules.rule(
    "install-downloaded-package",
    "approve",
    "installs a package file that was just downloaded or is fetched from an address (wget x.deb && dpkg -i x.deb, "
    "pip install https://.../x.tar.gz): its install scripts run unreviewed",
)
def _install_downloaded(inv: Invocation) -> str | None:
    name = "pip" if inv.name == "python" or inv.name.startswith("python3") else inv.name
    args = inv.args
    if name == "pip" and inv.name != "pip" and [a.text for a in args[:2]] == ["-m", "pip"]:
        args = args[2:]
    verbs = _INSTALLERS.get(name)
    if verbs is None:
        return None
    words = [a.text for a in args]
    if not any(w in verbs or (name == "rpm" and re.fullmatch(r"-[a-zA-Z]*[iUF][a-zA-Z]*", w)) for w in words):
        return None
    for arg in args:
        package_file = "/" in arg.text or re.search(
            r"\.(?:deb|rpm|whl|tar\.gz|tgz|zip|gem|apk|snap)$", arg.text
        )
        if NETWORK in arg.taint and package_file and not arg.text.startswith("-"):
            return (
                f"{inv.name} installs {arg.shown()[:80]}, which was downloaded, running its install scripts"
            )
        if _PACKAGE_ADDRESS.match(arg.text):
            return f"{inv.name} installs {arg.text[:80]} from the network, running its install scripts"
    return None
