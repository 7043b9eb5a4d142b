/**
 * `forkline ls` loads no importer code: in the CLI bundle (the real esbuild options of
 * scripts/build-cli.js, with its metafile), the entry chunk, the chunk of the `ls` command
 * (electron/cli/commands/ls.ts, which cli.ts loads with `import()`) and every chunk these import
 * statically — what Node evaluates for `ls`; `ls` itself loads nothing with `import()` — hold no
 * source file of electron/import/. The importers are reached only through the `import()` in the
 * `import` command (electron/host/services/session-imports.ts), so they stay in chunks of their own.
 *
 * The same for the OpenTelemetry SDK: neither `ls` nor the runtime (what `run`, `resume`, `serve`
 * and the desktop host open) evaluates it; it is loaded with `import()` only once live export has an
 * endpoint (electron/telemetry/live-trace-switch.ts) or by `export --otlp`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions, Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');

/** Output files evaluated when `entry` is loaded: itself and its static imports, transitively. */
function staticClosure(metafile: Metafile, entry: string): Set<string> {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const output = metafile.outputs[queue.pop()!];
    for (const imported of output?.imports ?? []) {
      if (imported.kind !== 'import-statement' || imported.external || seen.has(imported.path)) continue;
      seen.add(imported.path);
      queue.push(imported.path);
    }
  }
  return seen;
}

describe('the CLI bundle', () => {
  it('loads no importer code for `forkline ls` (importers sit only behind import())', async () => {
    const { build } = await import('esbuild');
    const script = pathToFileURL(join(ROOT, 'scripts/build-cli.js')).href;
    const { cliBuildOptions } = (await import(script)) as { cliBuildOptions: (outdir: string) => BuildOptions };
    const outdir = mkdtempSync(join(tmpdir(), 'forkline-cli-graph-'));
    try {
      const result = await build({ ...cliBuildOptions(outdir), write: false, sourcemap: false });
      const metafile = result.metafile!;
      const entry = Object.keys(metafile.outputs).find((path) => metafile.outputs[path]!.entryPoint === 'electron/cli.ts')!;
      expect(entry).toBeDefined();
      const lsChunk = Object.keys(metafile.outputs).find((path) => path.endsWith('.js') && Object.keys(metafile.outputs[path]!.inputs).includes('electron/cli/commands/ls.ts'))!;
      expect(lsChunk).toBeDefined();
      const loaded = new Set([...staticClosure(metafile, entry), ...staticClosure(metafile, lsChunk)]);
      const loadedInputs = [...loaded].flatMap((path) => Object.keys(metafile.outputs[path]!.inputs));
      // The check sees the store and the list path, so an empty answer is not a vacuous one.
      expect(loadedInputs).toContain('electron/store/session-repository.ts');
      expect(loadedInputs).toContain('electron/cli/stored-sessions.ts');
      expect(loadedInputs.filter((input) => input.startsWith('electron/import/'))).toEqual([]);
      // The importers are in the bundle, only elsewhere.
      const all = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
      expect(all).toContain('electron/import/session-import.ts');
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);

  it('loads the OpenTelemetry SDK neither for `forkline ls` nor with the runtime (only behind import())', async () => {
    const { build } = await import('esbuild');
    const script = pathToFileURL(join(ROOT, 'scripts/build-cli.js')).href;
    const { cliBuildOptions } = (await import(script)) as { cliBuildOptions: (outdir: string) => BuildOptions };
    const outdir = mkdtempSync(join(tmpdir(), 'forkline-cli-graph-'));
    try {
      const result = await build({ ...cliBuildOptions(outdir), write: false, sourcemap: false });
      const metafile = result.metafile!;
      const chunkOf = (input: string): string => Object.keys(metafile.outputs).find((path) => path.endsWith('.js') && Object.keys(metafile.outputs[path]!.inputs).includes(input))!;
      const inputsLoaded = (...entries: string[]): string[] =>
        [...new Set(entries.flatMap((e) => [...staticClosure(metafile, e)]))].flatMap((path) => Object.keys(metafile.outputs[path]?.inputs ?? {}));
      const entry = Object.keys(metafile.outputs).find((path) => metafile.outputs[path]!.entryPoint === 'electron/cli.ts')!;
      const otel = (inputs: string[]): string[] =>
        inputs.filter((input) => input.includes('node_modules/@opentelemetry/') || input.startsWith('electron/telemetry/otlp-export') || input.startsWith('electron/telemetry/live-exporter'));
      const ls = inputsLoaded(entry, chunkOf('electron/cli/commands/ls.ts'));
      const runtime = inputsLoaded(entry, chunkOf('electron/host/runtime.ts'));
      // Not vacuous: the runtime chunk holds the runtime and the switch, and the SDK is in the bundle.
      expect(runtime).toContain('electron/host/runtime.ts');
      expect(runtime).toContain('electron/telemetry/live-trace-switch.ts');
      expect(otel(ls)).toEqual([]);
      expect(otel(runtime)).toEqual([]);
      const all = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
      expect(all.some((input) => input.includes('node_modules/@opentelemetry/exporter-trace-otlp-proto/'))).toBe(true);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);
});
