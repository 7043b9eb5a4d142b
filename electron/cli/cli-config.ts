/**
 * The CLI's own configuration (docs/security.md: settings scopes): `cli.json` in the data folder, e.g.
 * `{"approvalPolicy": "allow"}`. The approval setting of the desktop app and browser mode
 * (`settings.json`) applies to the UI only; the CLI's policy is, in order: the `--approval` flag,
 * `approvalPolicy` in `cli.json`, else `ask`. A `cli.json` that cannot be read or holds a bad value
 * is ignored (the safe default applies) and the reason is reported.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalPolicyName } from '../../shared/events.js';

/** The policy in force for the CLI and, in words, where it came from (shown by `forkline help`). */
export interface CliApproval {
  readonly policy: ApprovalPolicyName;
  readonly source: string;
  /** Why `cli.json` was ignored, when it was. */
  readonly problem?: string;
}

/** Path of the CLI configuration file in a data folder. */
export function cliConfigFile(dataDir: string): string {
  return join(dataDir, 'cli.json');
}

function isPolicy(value: unknown): value is ApprovalPolicyName {
  return value === 'ask' || value === 'allow' || value === 'deny';
}

/**
 * Resolves the CLI's approval policy.
 * @param flag the `--approval` value, already validated, or undefined.
 */
export function resolveCliApproval(flag: ApprovalPolicyName | undefined, dataDir: string): CliApproval {
  if (flag !== undefined) return { policy: flag, source: 'the --approval flag' };
  const file = cliConfigFile(dataDir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { policy: 'ask', source: `the default (no --approval flag, no approvalPolicy in ${file})` };
    return ignored(file, `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let value: unknown;
  try {
    value = (JSON.parse(text) as { approvalPolicy?: unknown } | null)?.approvalPolicy;
  } catch {
    return ignored(file, 'it is not valid JSON');
  }
  if (value === undefined) return { policy: 'ask', source: `the default (no --approval flag, no approvalPolicy in ${file})` };
  if (!isPolicy(value)) return ignored(file, `its approvalPolicy must be "ask", "allow" or "deny"`);
  return { policy: value, source: `approvalPolicy in ${file}` };
}

function ignored(file: string, why: string): CliApproval {
  const problem = `${file} is ignored: ${why}`;
  return { policy: 'ask', source: `the default (${problem})`, problem };
}

/**
 * The live OTLP export endpoint in `cli.json` (`{"otlpEndpoint": "http://127.0.0.1:4318"}`,
 * issue 26), when it holds an http(s) URL; anything else (no file, bad JSON, another value) is none.
 */
export function cliOtlpEndpoint(dataDir: string): string | undefined {
  try {
    const value = (JSON.parse(readFileSync(cliConfigFile(dataDir), 'utf8')) as { otlpEndpoint?: unknown } | null)?.otlpEndpoint;
    return typeof value === 'string' && /^https?:\/\//i.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
