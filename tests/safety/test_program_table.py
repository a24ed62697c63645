"""The table of programs: it loads with every example checked, a wrong entry is refused by name,
and the analyser reads every CLI, wrapper and package runner of the table the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from tooldeck.safety import analyse_command
from tooldeck.safety.knowledge.table import TABLE_FILE, TableError, load_table, programs


def test_table_loads_with_every_example_checked() -> None:
    table = load_table()
    examples = [e for item in [*table.wrappers.values(), *table.programs.values()] for e in item.examples]
    assert len(examples) > 60 and any(e.negative for e in examples)
    assert {"docker", "podman", "nerdctl", "finch"} <= table.in_class("container-engine")
    assert {"psql", "mysql", "sqlite3"} <= table.in_class("sql-client")


def _table_with(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "programs.toml"
    path.write_text(TABLE_FILE.read_text(encoding="utf-8") + "\n" + extra, encoding="utf-8")
    return path


def test_an_example_that_does_not_hold_names_the_entry_and_the_line(tmp_path: Path) -> None:
    entry = """
[[program]]
names = ["mycloud"]
global_values = ["--region"]
examples = [{ line = "mycloud --region eu --verbose vm delete x", command = "delete" }]
"""
    with pytest.raises(TableError, match=r"mycloud: `mycloud --region eu --verbose vm delete x` command"):
        load_table(_table_with(tmp_path, entry))


def test_a_counter_example_that_matches_is_refused(tmp_path: Path) -> None:
    entry = """
[[wrapper]]
names = ["mywrap"]
examples = [{ line = "mywrap -q rm x", runs = "rm x" }]
not_examples = [{ line = "mywrap -t 5 rm x", not_runs = "5" }]
"""
    with pytest.raises(TableError, match=r"mywrap: .*expected not '5'"):
        load_table(_table_with(tmp_path, entry))


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            '[[program]]\nnames = ["x"]\nglobal_value = ["-a"]\n',
            r"program\[\d+\] \(x\): unknown key 'global_value'",
        ),
        ('[[program]]\nnames = ["x"]\nclasses = ["a"]\n', r"\(x\): an entry needs at least one example"),
        (
            '[[program]]\nnames = ["git"]\nexamples = [{ line = "git x", command = "x" }]\n',
            "'git' is declared twice",
        ),
        (
            '[[program]]\nnames = ["x"]\nexamples = [{ line = "x", runs = "x" }]\n',
            r"examples\[0\]: expected \{line, command or writes or sql or operands\}",
        ),
        (
            '[[program]]\nnames = ["x"]\nwrites = { operands = "first" }\nexamples = [{ line = "x a", writes = "a" }]\n',
            r"\(x\)\.writes\.operands: expected all, last or second, not 'first'",
        ),
    ],
)
def test_a_malformed_entry_is_refused_with_its_key_path(tmp_path: Path, entry: str, message: str) -> None:
    with pytest.raises(TableError, match=message):
        load_table(_table_with(tmp_path, entry))


def test_a_new_engine_is_a_table_entry(tmp_path: Path) -> None:
    entry = """
[[program]]
names = ["myengine"]
classes = ["container-engine"]
global_values = ["--socket"]
examples = [{ line = "myengine --socket /run/x.sock run --privileged alpine", command = "run --privileged" }]
"""
    table = load_table(_table_with(tmp_path, entry))
    assert "myengine" in table.in_class("container-engine")


# The review's four commands, their variants through other engines, wrappers and global options,
# and look-alikes that only differ in what makes them dangerous.
DANGEROUS = [
    "git --config-env core.pager=X push --force origin main",
    "git --config-env=core.pager=X --no-pager push -f origin master",
    "git -C ../app -c user.name=x push --force origin main",
    "finch run --privileged -v /:/host alpine",
    "sudo finch run --privileged -v /:/host alpine",
    "sudo -u root nerdctl -n k8s.io run --pid=host alpine",
    "docker --context prod run --privileged alpine",
    "sudo docker -H unix:///var/run/docker.sock run --privileged alpine",
    "podman --connection prod --log-level debug run -v /etc:/etc alpine",
    "env DOCKER_HOST=x timeout 60 docker --tls run --privileged alpine",
    "kubectl --context prod --kubeconfig ~/.kube/prod delete namespace payments",
    "helm --kube-context prod -n web uninstall site",
    "aws --profile prod --region eu-west-1 ec2 terminate-instances --instance-ids i-1",
    "gcloud --project prod --quiet projects delete prod",
    "az --subscription prod group delete -n rg --yes",
    "terraform -chdir=infra/prod destroy -auto-approve",
    "nice -n 5 nohup docker --context prod system prune -a --volumes -f",
    "uvx --from rimraf rimraf ~/",
    "pipx run --spec trash-cli trash-empty && poetry run rm -rf ~",
    "sudo finch --debug run -v /var/run/docker.sock:/var/run/docker.sock alpine",
    "lima nerdctl run --privileged -v /:/host alpine",
    "k --context prod delete namespace payments",
    "aws-vault exec prod -- aws s3 rb s3://prod-backups --force",
    "op run --env-file .env -- rm -rf ~",
    "cpulimit -l 50 -- rm -rf ~",
    "gosu root rm -rf /etc",
    "watch -n 60 'rm -rf ~/*'",
    "nix-shell -p git --run 'git push --force origin main'",
    "sshpass -p x ssh deploy@host 'sudo reboot'",
    "systemctl -H prod --no-block stop sshd",
    "crictl --runtime-endpoint unix:///run/containerd/containerd.sock rmp -a -f",
    "ctr -n k8s.io containers rm $(ctr -n k8s.io containers ls -q)",
    "rclone --config ~/.rclone.conf -v purge gdrive:Backups",
    "gsutil -h Cache-Control:no-cache rm -r gs://prod-bucket",
]
BENIGN = [
    "git --config-env core.pager=X push origin feature/x",
    "git -C ../app --no-pager log --oneline",
    "finch run --rm -v $PWD:/src alpine ls /src",
    "sudo finch ps",
    "docker --context prod run --rm alpine echo hi",
    "sudo docker -H unix:///var/run/docker.sock ps",
    "kubectl --context prod -n payments get pods",
    "helm --kube-context prod -n web status site",
    "aws --profile prod --region eu-west-1 ec2 describe-instances",
    "gcloud --project prod projects describe prod",
    "terraform -chdir=infra/prod plan",
    "terraform -help destroy",
    "uvx --from ruff ruff check .",
    "poetry run pytest -x",
    "systemctl --user stop my-app",
    "aws-vault exec prod -- aws s3 ls",
    "op run -- npm test",
    "watch -n 5 kubectl --context prod get pods",
    "sshpass -p x ssh deploy@host uptime",
    "systemctl -H prod status sshd",
    "crictl --runtime-endpoint unix:///run/containerd/containerd.sock ps -a",
    "ctr -n k8s.io containers rm web-1",
    "rclone --config ~/.rclone.conf lsd gdrive:",
]


@pytest.mark.parametrize("command", DANGEROUS)
def test_global_options_and_wrappers_do_not_hide_danger(command: str) -> None:
    verdict = analyse_command(command)
    assert verdict.verdict != "safe", f"{command!r} passed as safe"


@pytest.mark.parametrize("command", BENIGN)
def test_benign_look_alikes_with_global_options_stay_safe(command: str) -> None:
    verdict = analyse_command(command)
    assert verdict.verdict == "safe", f"{command!r} flagged by {verdict.rule}: {verdict.reason}"


def test_the_package_table_is_loaded_once() -> None:
    assert programs() is programs()


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("valkey-cli -h cache -a pw FLUSHALL", "redis-flush"),
        ("sudo keydb-cli -n 3 --user admin DEL 'session:*'", "redis-destructive"),
        ("printf 'FLUSHDB\\n' | dragonfly-cli -p 6380", "redis-flush"),
    ],
)
def test_redis_protocol_clients_come_from_the_key_value_client_class(command: str, rule: str) -> None:
    assert rule in {f.rule for f in analyse_command(command).findings}


@pytest.mark.parametrize(
    "command", ["redis-cli -a FLUSHALL ping", "valkey-cli --pattern 'FLUSHDB' --count 10 SCAN 0"]
)
def test_an_option_value_is_not_taken_for_a_redis_command(command: str) -> None:
    assert {f.rule for f in analyse_command(command).findings}.isdisjoint(
        {"redis-flush", "redis-destructive"}
    )
