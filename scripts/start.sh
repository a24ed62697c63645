#!/usr/bin/env bash
# Set everything up, then run tooldeck's main job on the example config:
#  - with a model endpoint in the environment, one agent turn (the prompt is $1, or a default);
#  - without one, the loadout and why each tool is or is not visible to the model (`tooldeck explain --agent`).
# Endpoints: OPENAI_BASE_URL (any OpenAI-compatible server, ending in /v1) and/or OPENAI_API_KEY,
# or ANTHROPIC_API_KEY (ANTHROPIC_BASE_URL optional); TOOLDECK_MODEL names the model.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${TOOLDECK_SKIP_SETUP:-}" ] || bash scripts/setup.sh
CONFIG=examples/tooldeck.yaml
PROMPT="${1:-How many words are in the sentence 'tools are only useful when the model can see them', and what time is it in UTC?}"

if [ -n "${OPENAI_BASE_URL:-}${OPENAI_API_KEY:-}" ]; then
  exec .venv/bin/tooldeck run --config "$CONFIG" --provider "${TOOLDECK_PROVIDER:-openai}" \
    --model "${TOOLDECK_MODEL:-gpt-4o-mini}" "$PROMPT"
elif [ -n "${ANTHROPIC_API_KEY:-}${ANTHROPIC_BASE_URL:-}" ]; then
  exec .venv/bin/tooldeck run --config "$CONFIG" --provider anthropic \
    --model "${TOOLDECK_MODEL:-claude-sonnet-4-5}" "$PROMPT"
fi
# As the model of an agent run sees them (`--agent`: clarify, present_files, delegate_task too).
.venv/bin/tooldeck explain --agent --config "$CONFIG"
echo
echo "The built-in web, browser, vision and skills tools (hidden ones say what they miss: a search"
echo "key, a browser, a vision model):"
.venv/bin/tooldeck explain --agent --config "$CONFIG" web_extract web_search browser_navigate browser_vision \
  vision_analyze skills_list skill_view 2>/dev/null
echo
echo "No model endpoint is set, so this showed the loadout. For an agent turn, set OPENAI_BASE_URL"
echo "(an OpenAI-compatible server ending in /v1, e.g. vLLM, Ollama, llama.cpp) or OPENAI_API_KEY,"
echo "or ANTHROPIC_API_KEY, plus TOOLDECK_MODEL, and run this command again."
