// Builds the Electron main process (ESM, dist/main/main.js) and the sandboxed preload
// (CJS, dist/preload/preload.cjs — sandboxed preloads must be CommonJS). `--mode main|preload`.
import { builtinModules } from 'node:module';
import { defineConfig } from 'vite';

const external = ['electron', 'better-sqlite3', 'node-pty', 'ws', 'openai', 'zod', 'ajv', 'ajv/dist/2020.js', 'diff', 'gpt-tokenizer', 'tsx', /^node:/, ...builtinModules];

export default defineConfig(({ mode }) => {
  const preload = mode === 'preload';
  return {
    build: {
      ssr: true,
      target: 'node22',
      outDir: preload ? 'dist/preload' : 'dist/main',
      emptyOutDir: true,
      sourcemap: true,
      minify: false,
      rollupOptions: {
        input: preload ? 'electron/preload.ts' : 'electron/main.ts',
        external: preload ? ['electron'] : external,
        output: preload ? { format: 'cjs', entryFileNames: 'preload.cjs' } : { format: 'es', entryFileNames: 'main.js' },
      },
    },
  };
});
