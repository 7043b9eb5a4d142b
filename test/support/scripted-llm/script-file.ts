/**
 * Reads a script file (`{ "steps": [...] }` or a bare array of steps) and validates every step.
 */
import { readFileSync } from 'node:fs';
import { assertStep } from './compile.js';
import type { ScriptStep } from './script.js';

/** The steps of a script file. @throws Error naming the file and the bad step. */
export function loadScriptFile(path: string): ScriptStep[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${path}: not a readable JSON file (${String(error)})`, { cause: error });
  }
  const steps: unknown = Array.isArray(parsed) ? parsed : (parsed as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(steps)) throw new Error(`${path}: expected {"steps": [...]} or an array of steps`);
  steps.forEach((step, i) => assertStep(step, `${path} step ${i + 1}`));
  return steps as ScriptStep[];
}
