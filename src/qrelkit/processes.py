"""Is a process still there? The one check behind the run records' "running or killed" and the
temporary files a killed writer left behind."""
from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this machine (a pid that is not ours to signal
    exists too). It cannot tell a reused pid from the original (see the callers)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
