// Static server for the demo: serves web/ (and the package files it imports) on 127.0.0.1, and the API
// reference (`npm run docs` writes it to build/docs/api) at /api/, and the browser examples at /examples/.
// `PORT` picks the port (default 8080; 0 = any free port). Runs until stopped. Pages are served
// cross-origin isolated (COOP/COEP), so the demo runs posenc's threaded module.
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// URL prefix -> folder (relative to the repository root).
const PUBLIC = { web: 'web', bindings: 'bindings', dist: 'dist', examples: 'examples', api: 'build/docs/api' };
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript',
  '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ts': 'text/plain; charset=utf-8',
};

// Cross-origin isolation: with these headers the page (and its workers) may use SharedArrayBuffer, so
// load() picks posenc's threaded module. Everything the pages embed comes from this server. Not for
// the esbuild example: its bundle does not carry the threaded module's files (see index.d.ts, load).
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const isolated = (path) => !path.startsWith('/examples/esbuild/');

export function startServer(port = Number(process.env.PORT ?? 8080)) {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      let path = decodeURIComponent(url.pathname);
      if (path === '/' || path === '/web') { res.writeHead(302, { Location: '/web/' }); return res.end(); }
      if (path === '/api') { res.writeHead(302, { Location: '/api/' }); return res.end(); }
      if (path.endsWith('/')) path += 'index.html';
      const rel = normalize(path).replace(/^[/\\]+/, '');
      const [prefix, ...rest] = rel.split(sep);
      if (!Object.hasOwn(PUBLIC, prefix) || rel.includes('..')) { res.writeHead(404); return res.end('not found'); }
      const file = join(root, PUBLIC[prefix], ...rest);
      if (prefix === 'api' && !existsSync(join(root, PUBLIC.api))) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
        return res.end('The API reference has not been generated: run `npm run docs` (npm start does it).');
      }
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache', ...(isolated(path) ? ISOLATION : {}) });
      res.end(body);
    } catch {
      res.writeHead(404); res.end('not found');
    }
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startServer();
  const url = `http://127.0.0.1:${server.address().port}`;
  console.log(`posenc demo: ${url}/web/`);
  console.log(`API reference: ${url}/api/`);
  console.log(`examples: ${url}/examples/browser/, ${url}/examples/esbuild/ and ${url}/examples/worker/ (after node examples/<name>/build.mjs)`);
}
