"""Running commands confined: bubblewrap, seccomp, the rootless launcher, the copy-on-write view,
resource limits and the probe of what works here (`bubblewrap.py` holds the runners)."""
