#!/usr/bin/env bash
# Creates (once) a virtualenv with the real MCP Agent Mail server package,
# mcp-agent-mail==0.1.0, for the interop tests. Prints the venv's python path.
# Usage: setup-venv.sh VENV_DIR   (needs python3.12; exit 3 when it is missing)
set -euo pipefail
venv=$(realpath -m "${1:?usage: setup-venv.sh VENV_DIR}")
if [ -x "$venv/bin/python" ] && [ -f "$venv/.amail-ready" ]; then
  echo "$venv/bin/python"
  exit 0
fi
# A pyenv shim may exist without a working 3.12 behind it: try each candidate.
py=""
for cand in ${AMAIL_PYTHON312:-} "$(command -v python3.12 2>/dev/null || true)" \
    /root/.pyenv/versions/3.12*/bin/python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
  if [ -n "$cand" ] && [ -x "$cand" ] && "$cand" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
    py=$cand
    break
  fi
done
if [ -z "$py" ]; then
  echo "python3.12 not found (set AMAIL_PYTHON312 to its path)" >&2
  exit 3
fi
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$py" -m venv "$venv" >&2
"$venv/bin/pip" install -q --disable-pip-version-check mcp-agent-mail==0.1.0 >&2
touch "$venv/.amail-ready"
echo "$venv/bin/python"
