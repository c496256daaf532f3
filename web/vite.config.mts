import path from 'node:path';
import { defineConfig } from 'vite';

const root = path.dirname(new URL(import.meta.url).pathname);

// `npm run build:web`: the dashboard into dist/web, served by the Koa process at `/`. `npm run web:dev` serves it
// with hot reload and forwards the API to a service on :3000.
export default defineConfig({
  root,
  base: '/',
  publicDir: path.join(root, 'public'),
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: path.join(root, '..', 'dist', 'web'),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Every browser the dashboard supports has native module preloading; the polyfill would be dead code.
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
  },
  server: {
    proxy: { '/api': 'http://localhost:3000', '/v1': 'http://localhost:3000', '/files': 'http://localhost:3000' },
  },
});
