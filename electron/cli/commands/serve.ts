/**
 * `forkline serve [--port N]`: browser mode, the UI served on 127.0.0.1 over the host's WebSocket
 * transport. Ctrl+C, SIGTERM and SIGHUP stop it (running turns cancelled with the signal as cause,
 * every session flushed), then exit 0.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineCommand } from '../command.js';
import { ENGINE_OPTIONS, openRuntime } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { listenForStopSignals, type StopSignal } from '../stop-signals.js';

export const command = defineCommand({
  options: { ...ENGINE_OPTIONS, port: { type: 'string' } },
  async run(ctx, { options }) {
    const runtime = await openRuntime(options, { scope: 'ui' });
    const port = options.port !== undefined ? Number(options.port) : 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a port number');
    const staticDir = rendererDir();
    const { startBrowserServer } = await import('../../host/transport/ws-server.js');
    if (!existsSync(join(staticDir, 'index.html'))) {
      await runtime.close();
      throw new UsageError(`the renderer is not built (${staticDir}/index.html is missing): run npm run build:renderer first`);
    }
    let server;
    try {
      server = await startBrowserServer({ host: runtime.host, staticDir, port });
    } catch (error) {
      await runtime.close();
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`port ${port} on 127.0.0.1 is already in use: pick another with --port, or omit it for a free one`);
      throw error;
    }
    ctx.stdout.write(`Forkline browser mode: ${server.url}\n(data: ${runtime.dataDir}; Ctrl+C to stop)\n`);
    // Ctrl+C, SIGTERM and SIGHUP stop the server the same way: running turns are cancelled with
    // the signal as their cause, their closers logged and every session flushed; then exit 0.
    let stops: ReturnType<typeof listenForStopSignals> | undefined;
    const signal = await new Promise<StopSignal>((resolveStop) => {
      stops = listenForStopSignals({ onStop: resolveStop });
    });
    await server.close();
    await runtime.close({ kind: 'signal', signal });
    stops?.dispose();
    return 0;
  },
});

/**
 * The built renderer folder: dist/renderer at the package root, found by walking up from this file
 * (electron/cli/commands/serve.ts from source, a chunk under dist/cli/chunks/ from the bundle).
 */
function rendererDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'renderer');
    dir = dirname(dir);
  }
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'renderer');
}
