"""Less common engines, cloud, object-store and database CLIs, wrappers and VM front-ends are judged by the
class the tables give them: container engines' host privileges and mounts, object stores'
recursive and wildcard deletions, commands run inside a VM or a dev shell. A program like a known
one is a table entry (with its examples), and the engine's option matching reads `--opt=value`
and `--opt value` alike."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tooldeck.safety import analyse_command
from tooldeck.safety.analysis.model import Field, Invocation
from tooldeck.safety.knowledge.table import TABLE_FILE, Table, TableError, load_table
from tooldeck.safety.knowledge.verbs import VERBS_FILE, load_verbs, verb_command
from tooldeck.safety.knowledge.wrappers import unwrap

# (command, the rule that must flag it)
FLAGGED = [
    ("colima nerdctl -- run --privileged alpine", "container-host-root"),
    ("colima docker -- run -v /:/host alpine", "container-host-root"),
    ("nerdctl --namespace k8s.io run --pid host alpine", "container-host-root"),
    ("podman --remote container create --cap-add=SYS_ADMIN alpine", "container-host-root"),
    ("docker run --cap-add CAP_SYS_MODULE alpine", "container-host-root"),
    ("docker run --cap-add=ALL alpine", "container-host-root"),
    ("sudo docker --context prod run --device /dev/sda alpine", "container-host-root"),
    ("docker run --mount=type=bind,source=/,target=/host alpine", "container-host-root"),
    ("doas finch run --volume=/etc:/x alpine", "container-host-root"),
    ("podman run --rm -v /etc:/host/etc:ro alpine cat /host/etc/shadow", "container-host-root"),
    ("gsutil -m rm -r gs://prod-bucket", "delete-cloud-storage"),
    ("gsutil rm 'gs://prod-bucket/logs/*'", "delete-cloud-storage"),
    ("gcloud --project p storage rm --recursive gs://b", "delete-cloud-storage"),
    ("s5cmd rm 's3://b/*'", "delete-cloud-storage"),
    ("s5cmd --endpoint-url http://minio:9000 rb s3://b", "delete-cloud-storage"),
    ("rclone purge remote:bucket", "delete-cloud-storage"),
    ("mc rb --force minio/bucket", "delete-cloud-storage"),
    ("mc rm -r --force minio/bucket", "delete-cloud-storage"),
    ("b2 rm --recursive --versions b2://b", "delete-cloud-storage"),
    ("azcopy rm 'https://a.blob.core.windows.net/c/*'", "delete-cloud-storage"),
    ("aws --no-cli-pager s3 rm 's3://b/logs/*'", "delete-cloud-storage"),
    ("pulumi --cwd infra destroy --yes", "infra-destroy"),
    ("cdk --profile prod destroy MyStack", "infra-destroy"),
    ("limactl shell default sudo rm -rf /", "delete-root"),
    ("multipass exec vm -- sudo rm -rf /", "delete-root"),
    ("orbctl run -m ubuntu rm -rf ~", "delete-home"),
    ("nix shell nixpkgs#coreutils -c rm -rf ~", "delete-home"),
    ("nix develop --command rm -rf ~", "delete-home"),
    ("colima ssh -- sudo rm -rf /", "delete-root"),
    ("chrt -f 99 rm -rf ~", "delete-home"),
    ("ionice -c3 -n7 rm -rf ~", "delete-home"),
    ("stdbuf -oL -eL rm -rf ~", "delete-home"),
    ("flock -n /tmp/lock -c 'rm -rf ~'", "delete-home"),
    ("firejail --quiet -- rm -rf ~", "delete-home"),
    ("busybox sh -c 'rm -rf ~'", "delete-home"),
    ("pkgx rm -rf ~", "delete-home"),
    ("sudo -u postgres dropdb -h db.internal app", "drop-database-tool"),
    ("mysqladmin -u root -p drop shop", "drop-database-tool"),
    ("mongo.exe app --eval 'db.users.drop()'", "mongo-drop"),
    ("influx bucket delete -n metrics", "drop-database-tool"),
    ("heroku run rails db:drop", "framework-db-reset"),
    ("yarn prisma migrate reset --force", "framework-db-reset"),
    ("python -W ignore manage.py migrate shop zero", "framework-db-reset"),
    ("php bin/console doctrine:database:drop --force", "framework-db-reset"),
    ("hasura migrate apply --down all", "framework-db-reset"),
    ("goose -dir db postgres dsn down-to 0", "framework-db-reset"),
    ("gchmod -R 777 /etc", "chmod-system-tree"),
    ("sudo gchown -R nobody /usr", "chmod-system-tree"),
    ("minikube kubectl -- delete namespace prod", "kubectl-delete"),
    ("microk8s.kubectl delete ns prod", "kubectl-delete"),
    ("helmfile -e prod destroy", "helm-uninstall"),
    ("argocd app delete prod-app --cascade", "kubectl-delete"),
    ("sst remove --stage production", "infra-destroy"),
    ("railway down", "cloud-delete"),
    ("gcloud alpha storage rm -r gs://b", "delete-cloud-storage"),
    ("pssh -h hosts.txt 'sudo rm -rf /'", "delete-root"),
    ("duckdb app.db 'DROP TABLE t'", "sql-destructive"),
    ("distrobox enter box -- rm -rf ~", "delete-home"),
    ("wsl.exe -d Ubuntu -e rm -rf ~", "delete-home"),
    ("schroot -c jammy -- rm -rf ~", "delete-home"),
    ("systemd-nspawn -D /mnt rm -rf /", "delete-root"),
]

LOOK_ALIKES = [
    "colima start --cpu 4",
    "colima nerdctl -- ps",
    "docker run --cap-add NET_BIND_SERVICE nginx",
    "docker run --device /dev/snd alpine",
    "docker run --mount type=bind,source=./src,target=/app alpine",
    "docker run -v data:/data alpine",
    "docker exec --privileged web ls",
    "gsutil -m rm gs://prod-bucket/file.txt",
    "gsutil -m cp -r gs://b/x .",
    "gcloud storage rm gs://b/file.txt",
    "s5cmd rm s3://b/file.txt",
    "s5cmd cp 's3://b/*' .",
    "rclone ls remote:bucket",
    "mc ls minio/bucket",
    "azcopy copy a b --recursive",
    "pulumi preview",
    "cdk diff",
    "limactl shell default ls",
    "multipass exec vm -- uname -a",
    "orbctl list",
    "nix shell nixpkgs#jq",
    "nix develop -c make test",
    "chrt -r 10 make",
    "flock -x /tmp/lock make",
    "busybox sh -c 'ls -la'",
    "mysqladmin -u drop status",
    "mongosh --host db app",
    "dropdb --help",
    "RAILS_ENV=test rails db:drop",
    "grep -r 'rails db:drop' .",
    "python manage.py migrate shop 0042",
    "hasura migrate apply --down 1",
    "console doctrine:fixtures:load --append",
    "gchmod 644 README.md",
    "minikube start",
    "helmfile -e prod diff",
    "argocd app sync prod-app",
    "tilt down",
    "railway up",
    "pssh -h hosts.txt uptime",
    "duckdb app.db 'SELECT 1'",
    "wsl -l -v",
    "distrobox enter box",
    "systemd-nspawn -D /mnt ls",
]


@pytest.mark.parametrize(("command", "rule"), FLAGGED)
def test_commands_of_a_known_class_are_flagged_by_its_rule(command: str, rule: str) -> None:
    found = {f.rule for f in analyse_command(command).findings}
    assert rule in found, f"{command!r}: {found}"


@pytest.mark.parametrize("command", LOOK_ALIKES)
def test_their_look_alikes_pass(command: str) -> None:
    verdict = analyse_command(command)
    assert verdict.verdict == "safe", f"{command!r} flagged by {verdict.rule}: {verdict.reason}"


def _argv(line: str) -> tuple[Field, ...]:
    return tuple(Field(w) for w in shlex.split(line))


def _table(tmp_path: Path, entry: str) -> Table:
    """The package's table with `entry` added, loaded with every example checked."""
    path = tmp_path / "programs.toml"
    path.write_text(TABLE_FILE.read_text(encoding="utf-8") + entry, encoding="utf-8")
    return load_table(path)


def test_a_vm_front_end_is_a_wrapper_entry(tmp_path: Path) -> None:
    entry = """
[[wrapper]]
names = ["myvm"]
subcommands = ["exec", "docker"]
program_subcommands = ["docker"]
skip_operands = 1
examples = [{ line = "myvm exec box -- rm -rf x", runs = "rm -rf x" }]
"""
    table = _table(tmp_path, entry)
    assert [f.text for f in unwrap(_argv("myvm exec box -- rm -rf x"), table).argv] == ["rm", "-rf", "x"]
    # A program subcommand is the program: its `--` ends the wrapper's options, not the program's.
    ran = unwrap(_argv("myvm docker -- --context prod run x"), table).argv
    assert [f.text for f in ran] == ["docker", "--context", "prod", "run", "x"]
    assert unwrap(_argv("myvm start"), table).argv[0].text == "myvm"


def test_a_wrapper_with_an_argv_option_runs_nothing_without_it(tmp_path: Path) -> None:
    entry = """
[[wrapper]]
names = ["myenv"]
subcommands = ["shell"]
argv_options = ["--run"]
examples = [{ line = "myenv shell pkg-a pkg-b --run rm -rf x", runs = "rm -rf x" }]
"""
    table = _table(tmp_path, entry)
    assert unwrap(_argv("myenv shell pkg-a"), table).argv == ()


def test_a_wrong_wrapper_key_is_refused_by_name(tmp_path: Path) -> None:
    entry = '\n[[wrapper]]\nnames = ["myvm"]\nprogram_subcommand = ["x"]\n'
    with pytest.raises(TableError, match=r"myvm.*unknown key 'program_subcommand'"):
        _table(tmp_path, entry)


def _verb_matches(tmp_path: Path, entry: str, line: str) -> list[str] | None:
    path = tmp_path / "verbs.toml"
    path.write_text(VERBS_FILE.read_text(encoding="utf-8") + entry, encoding="utf-8")
    [verb] = load_verbs(path).by_effect["container-host-root"]["myengine-test"]
    return verb_command(verb, Invocation(_argv(line)))


_ENGINE_VERB = """
[[verb]]
effect = "container-host-root"
programs = ["myengine-test"]
commands = ["run"]
with = ["--ipc=host", "--cap-add=*SYS_BOOT", "*://*[*]*"]
says = "x"
dangerous = ["myengine-test run --ipc host x", "myengine-test run --cap-add=CAP_SYS_BOOT x"]
benign = ["myengine-test run --ipc private x", "myengine-test run --cap-add NET_RAW x"]
"""


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("myengine-test run --ipc host x", ["run", "--ipc host"]),
        ("myengine-test run --ipc=host x", ["run", "--ipc=host"]),
        ("myengine-test run --cap-add SYS_BOOT x", ["run", "--cap-add SYS_BOOT"]),
        ("myengine-test run s3://b/logs/* x", ["run", "s3://b/logs/*"]),
    ],
)
def test_a_verb_option_matches_its_value_glob_in_one_word_or_two(
    tmp_path: Path, line: str, shown: list[str]
) -> None:
    assert _verb_matches(tmp_path, _ENGINE_VERB, line) == shown


@pytest.mark.parametrize(
    "line",
    [
        "myengine-test run --ipc private x",
        "myengine-test run --ipc",
        "myengine-test run --cap-add NET_RAW x",
        "myengine-test run s3://b/logs/a.txt",
    ],
)
def test_a_verb_option_with_another_value_does_not_match(tmp_path: Path, line: str) -> None:
    assert _verb_matches(tmp_path, _ENGINE_VERB, line) is None
