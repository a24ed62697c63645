"""Safe file access under a root folder, by descriptor (no check-then-open).

`ConfinedRoot` opens, stats, lists, creates, replaces, moves and deletes files named by
components relative to a root descriptor; nothing it does can reach outside the root, even
while another process swaps folders for symlinks underneath it. The file tools, `search_files`
and the spill store of long results all go through it.
"""

from tooldeck._core.fs.root import ConfinedRoot, Entry, default_file_mode, scan
from tooldeck._core.fs.walker import Refused

__all__ = ["ConfinedRoot", "Entry", "Refused", "default_file_mode", "scan"]
