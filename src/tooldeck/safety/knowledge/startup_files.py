"""The files bash, sh and zsh run at a login or interactive start: a change to one runs code at
the user's next shell. The shell rules refuse writes to them in a home folder; the control plane
protects them in the workspace. A module of its own, so the control plane need not import the
shell rules."""

SHELL_STARTUP_FILES = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
)
