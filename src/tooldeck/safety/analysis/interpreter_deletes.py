"""Interpreter code that deletes paths it computes, starting from the home directory or a system
folder: `unlink glob("$ENV{HOME}/*")`, `list(map(os.remove, glob(expanduser('~/*'))))`,
`Dir.glob(File.join(Dir.home, "*")).each { |f| File.delete(f) }`, `array_map("unlink", glob(...))`,
`[p.unlink() for p in Path.home().glob('*')]`.

Which files go is only known at run time, so such code needs approval. Deleting computed paths
below the project or a scratch folder (`os.remove(os.path.join('build', f))`,
`shutil.rmtree(tempfile.mkdtemp())`) stays the project's business.
"""

from __future__ import annotations

import re

# The home directory, however a language names it, or a literal absolute path outside scratch space.
_OUTSIDE = re.compile(
    r"expanduser|Path\.home\(\)|homedir\(\)|Dir\.home|\bENV\[\s*['\"]HOME|\$ENV\{\s*['\"]?HOME|getenv\(\s*['\"]HOME"
    r"|environ(?:\.get\(|\[)\s*['\"]HOME|process\.env\.HOME|\$_SERVER\[\s*['\"]HOME|\$HOME\b"
    r"|['\"]~(?:/[^'\"]*)?['\"]|['\"]/(?!tmp\b|var/tmp\b|dev/shm\b|dev/null\b)[^'\"]*['\"]"
)
# Deletions whose target is not written as an argument: a method on a computed path, Perl's
# list operators without parentheses, a deleting function handed over as a value or by name.
_COMPUTED = re.compile(
    r"\.(?:unlink|rmdir|rmtree|rm_rf|rm_r|delete|remove)\s*\(\s*(?:missing_ok\s*=\s*True\s*)?\)"
    r"|(?<![\w.$>@%&])(?:unlink|rmtree|remove_tree|rmdir)\s+(?!\()[\w$@(\"']"
    r"|(?<![\w.])(?:os\.(?:remove|unlink|rmdir|removedirs)|shutil\.rmtree|fs\.(?:rmSync|unlinkSync|rmdirSync)"
    r"|FileUtils\.(?:rm_rf|rm_r|rm)|File\.delete)\s*[,)]"
    r"|\bmethod\(\s*:(?:delete|unlink|rm_rf|rm_r|rm)\b|&File\.method"
    r"|['\"](?:unlink|rmdir)['\"]\s*[,)]"
)


def reaches_outside(code: str) -> bool:
    """Does the code name the home directory or an absolute path outside scratch space?"""
    return bool(_OUTSIDE.search(code))


def computed_deletion(code: str) -> bool:
    """Does the code delete paths it does not write out, in a way the argument readers miss?"""
    return bool(_COMPUTED.search(code))
