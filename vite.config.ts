/**
 * Renderer build (`vite build`): root `renderer/`, relative asset paths (`base: './'`, needed when
 * Electron loads the page from a file), output `dist/renderer/`. No inline scripts: the
 * module-preload polyfill is off so the CSP (`script-src 'self'`) holds.
 */
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    sourcemap: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
  },
  server: { host: '127.0.0.1' },
});
