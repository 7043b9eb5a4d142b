/**
 * The environment a tool process gets (docs/security.md "Tool environment", docs/tools.md "A non-interactive
 * shell"; docs/architecture.md §6).
 *
 * 1. Secrets are removed: provider keys (DEEPSEEK_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY, …),
 *    anything named like a credential (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`, `*_KEY`,
 *    `*_CREDENTIALS`, …), every `FORKLINE_*` variable (Forkline's own configuration and secrets),
 *    and any other variable whose value contains the value of a removed one. The user may keep
 *    named variables with `FORKLINE_TOOL_ENV_PASS=NAME,NAME` (e.g. `GH_TOKEN` for `gh`).
 * 2. Nothing can wait for a person: editors (EDITOR, VISUAL, GIT_EDITOR, GIT_SEQUENCE_EDITOR) are a
 *    command that prints why no editor can open and fails; pagers are `cat`; git and ssh credential
 *    prompts are disabled (GIT_TERMINAL_PROMPT=0, SSH_ASKPASS_REQUIRE=never, GCM_INTERACTIVE=never);
 *    package managers run non-interactively (DEBIAN_FRONTEND, PIP_NO_INPUT); colours are off
 *    (NO_COLOR, TERM=dumb) so results hold text, not escape codes.
 *
 * Sources: git(1) `GIT_EDITOR`, `GIT_SEQUENCE_EDITOR`, `GIT_PAGER`, `GIT_TERMINAL_PROMPT`,
 * `GIT_MERGE_AUTOEDIT`; ssh(1) `SSH_ASKPASS_REQUIRE`; https://no-color.org; debconf(7)
 * `DEBIAN_FRONTEND`; pip `PIP_NO_INPUT`; Git Credential Manager `GCM_INTERACTIVE`.
 */

/** Variable names (upper-cased) that hold credentials: these words anywhere in the name … */
const SECRET_WORD = /API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE_?KEY|ACCESS_?KEY/;
/** … or these as a whole `_`-separated part (`GPG_KEY`, `MYSQL_PWD`, `npm_config__auth`). */
const SECRET_PART = /(?:^|_)(?:KEYS?|PWD|AUTH)(?:_|$)/;

/** Names that match the pattern above but are not secrets and are needed by tools. */
const NOT_SECRET: ReadonlySet<string> = new Set(['SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'TOKENIZERS_PARALLELISM', 'PWD', 'OLDPWD']);

/** The user's list of variables to pass through although they look secret. */
export const PASS_VARIABLE = 'FORKLINE_TOOL_ENV_PASS';

/** Values shorter than this are not searched for in other variables (too many false hits). */
const MIN_SECRET_VALUE_LENGTH = 8;

/** Shown on stderr when a program tries to open an editor (see {@link EDITOR_COMMAND}). */
export const NO_EDITOR_MESSAGE =
  'forkline: no interactive editor can open here: commands run without a terminal. ' +
  'Give the text on the command line instead, e.g. git commit -m "message", git merge --no-edit, ' +
  'GIT_EDITOR=true git rebase --continue, or GIT_SEQUENCE_EDITOR="sed -i s/^pick/reword/" git rebase -i HEAD~2.';

/**
 * The editor command: a shell snippet that prints {@link NO_EDITOR_MESSAGE} (passed in the
 * environment, so quoting stays simple) and exits 1. git runs editor strings through `sh -c`, and
 * so do most programs that honour EDITOR; one that execs the string as a file name fails at once.
 */
export const EDITOR_COMMAND = `sh -c 'printf "%s\\n" "$FORKLINE_NO_EDITOR_MESSAGE" >&2; exit 1' forkline-no-editor`;

/** True when a variable of this name is treated as a secret. */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (upper.startsWith('FORKLINE_')) return true;
  if (NOT_SECRET.has(upper)) return false;
  return SECRET_WORD.test(upper) || SECRET_PART.test(upper);
}

/**
 * The values of the credential-like variables of `env` (not the FORKLINE_* configuration, whose
 * values are paths and flags), for redacting tool output.
 */
export function secretValuesOf(env: { readonly [name: string]: string | undefined }): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < MIN_SECRET_VALUE_LENGTH) continue;
    const upper = name.toUpperCase();
    if (NOT_SECRET.has(upper) || !(SECRET_WORD.test(upper) || SECRET_PART.test(upper))) continue;
    out.push(value);
  }
  return out;
}

/** What {@link toolEnvironment} removed, by name (never the values). */
export interface ToolEnvironment {
  readonly env: Record<string, string>;
  readonly removed: readonly string[];
}

/**
 * Builds a tool process's environment from `base` (normally `process.env`).
 * @param extraSecrets values that must not reach the tool whatever the variable is called (e.g.
 *   API keys entered in Settings).
 */
export function toolEnvironment(base: { readonly [name: string]: string | undefined }, extraSecrets: readonly string[] = []): ToolEnvironment {
  const pass = new Set(
    (base[PASS_VARIABLE] ?? '')
      .split(',')
      .map((s) => s.trim().toUpperCase())
      .filter((s) => s !== '' && !s.startsWith('FORKLINE_')),
  );
  const env: Record<string, string> = {};
  const removed: string[] = [];
  const secretValues = new Set(extraSecrets.filter((v) => v.length >= MIN_SECRET_VALUE_LENGTH));
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (isSecretName(name) && !pass.has(name.toUpperCase())) {
      removed.push(name);
      if (value.length >= MIN_SECRET_VALUE_LENGTH) secretValues.add(value);
      continue;
    }
    env[name] = value;
  }
  // A secret copied into an innocent-looking variable goes too.
  for (const [name, value] of Object.entries(env)) {
    if (pass.has(name.toUpperCase())) continue;
    for (const secret of secretValues) {
      if (value.includes(secret)) {
        delete env[name];
        removed.push(name);
        break;
      }
    }
  }
  Object.assign(env, NON_INTERACTIVE);
  return { env, removed: removed.sort() };
}

/** Set in every tool environment (overriding the user's values). */
const NON_INTERACTIVE: Readonly<Record<string, string>> = {
  EDITOR: EDITOR_COMMAND,
  VISUAL: EDITOR_COMMAND,
  GIT_EDITOR: EDITOR_COMMAND,
  GIT_SEQUENCE_EDITOR: EDITOR_COMMAND,
  FORKLINE_NO_EDITOR_MESSAGE: NO_EDITOR_MESSAGE,
  GIT_MERGE_AUTOEDIT: 'no',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  SYSTEMD_PAGER: '',
  GIT_TERMINAL_PROMPT: '0',
  SSH_ASKPASS_REQUIRE: 'never',
  GCM_INTERACTIVE: 'never',
  DEBIAN_FRONTEND: 'noninteractive',
  PIP_NO_INPUT: '1',
  NO_COLOR: '1',
  TERM: 'dumb',
};

/**
 * Replaces every occurrence of a secret value in `text` with `[redacted]` (defence in depth for
 * output that reads a secret some other way, e.g. from a file).
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_VALUE_LENGTH || !out.includes(secret)) continue;
    out = out.split(secret).join('[redacted secret]');
  }
  return out;
}
