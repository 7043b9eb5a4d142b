/** The `forkline` usage text (help on stdout; with no command, on stderr with exit 2). */
import { defaultDataDir } from '../host/data-dir.js';
import { COMMAND_TABLE } from './command-table.js';

/** Every command's usage lines, in table order. */
const COMMAND_LINES = Object.values(COMMAND_TABLE)
  .flatMap((entry) => entry.usage)
  .join('\n');

/** The whole text, the default data folder filled in. */
export const USAGE = `forkline — a coding agent whose sessions are append-only event logs

Usage:
${COMMAND_LINES}

Model options (run, resume, serve):
  --provider deepseek|openai|openrouter|gemini|ollama|vllm|llamacpp|lmstudio|custom
                     (default: deepseek, or custom with --base-url; custom learns the dialect from the wire)
  --base-url URL     any OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1
  --model M          model id (default: the provider's default, deepseek-v4-flash)
  --effort E         reasoning effort (DeepSeek: off|low|high|max)
  --context-window N the model's context window in tokens (wins over what the endpoint publishes)
  --max-output N     max output tokens per request
  --approval ask|allow|deny   shell commands and file writes (default: ask, or approvalPolicy in
                     <data dir>/cli.json; with no terminal, ask denies). The desktop app's and browser
                     mode's approval setting applies to the UI only.
  --mcp-config FILE  MCP servers ({"mcpServers": {...}}) for this run; repeatable
Budgets (run, resume): a request that could cross one is not sent; the turn ends with "budget"
  --budget USD       for the whole session (what it already spent counts)
  --turn-budget USD  per turn
  --max-tokens-total N   billed tokens for the whole session (for models with no known price)
  Prices: the bundled list (genai-prices 0.1.8); your own per endpoint and model in <data dir>/cli.json,
  e.g. {"prices": [{"baseUrl": "http://127.0.0.1:11434/v1", "model": "*", "inputMtok": 0, "outputMtok": 0}]}
Other:
  --data-dir DIR     where sessions are stored (default: ${defaultDataDir()})
  --json             ls, show, compare, price: one JSON document on stdout (see the README)

Session ids may be shortened to any unique prefix. Exit codes: 0 success, 1 the turn did not
complete or the command failed, 2 bad usage, configuration or input.

Keys: DEEPSEEK_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY or GEMINI_API_KEY from the environment.`;
