// Static server for the demo: serves web/ (and the package files it imports) on 127.0.0.1.
// `PORT` picks the port (default 8080; 0 = any free port). Runs until stopped.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const PUBLIC = ['web', 'bindings', 'dist'];
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript',
  '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ts': 'text/plain; charset=utf-8',
};

export function startServer(port = Number(process.env.PORT ?? 8080)) {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      let path = decodeURIComponent(url.pathname);
      if (path === '/' || path === '/web') { res.writeHead(302, { Location: '/web/' }); return res.end(); }
      if (path.endsWith('/')) path += 'index.html';
      const rel = normalize(path).replace(/^[/\\]+/, '');
      if (!PUBLIC.includes(rel.split(sep)[0]) || rel.includes('..')) { res.writeHead(404); return res.end('not found'); }
      const file = join(root, rel);
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache' });
      res.end(body);
    } catch {
      res.writeHead(404); res.end('not found');
    }
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startServer();
  console.log(`posenc demo: http://127.0.0.1:${server.address().port}/web/`);
}
