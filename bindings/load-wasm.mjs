// Instantiates an Emscripten module whose .wasm is a separate file next to its JS (not inlined): in a
// browser the bytes are compiled while they download (WebAssembly.instantiateStreaming); in Node the
// file is read from disk. One function for every module variant the package ships.

// Loading failures name the URL and what to do; the usual cause is a bundler that did not copy the file.
const NOT_SERVED = 'the package ships it as dist/posenc_wasm.wasm, and it must be served next to the JS that loads it ' +
  '(Vite and webpack copy it by themselves; with esbuild or a plain static server, copy it next to the bundle)';

// Resolves to the module's instance once its wasm is instantiated. `createModule` is an Emscripten
// factory (-sMODULARIZE) linked with bindings/wasm-url.pre.js, which puts `wasmUrl()` (where its .wasm
// is) on the module object. `settings`: further module settings (the threaded module's pool size).
export function instantiate(createModule, settings = {}) {
  let fail;
  const failed = new Promise((_, reject) => { fail = reject; });
  // `settings` itself becomes the module object, so the caller sees what the module puts on it (the
  // threaded module's workers, to end them when loading fails).
  const moduleArg = Object.assign(settings, {
    instantiateWasm(imports, receive) {
      instantiateFrom(moduleArg.wasmUrl(), imports).then((r) => receive(r.instance, r.module), fail);
      return {};  // Emscripten's "instantiating asynchronously"
    },
  });
  return Promise.race([createModule(moduleArg), failed]);
}

async function instantiateFrom(url, imports) {
  if (url.startsWith('file:')) {
    let bytes;
    try {
      bytes = await readLocalFile(new URL(url));
    } catch (e) {
      throw new Error(`posenc: cannot read its WebAssembly file ${url}: ${e.message}`);
    }
    return WebAssembly.instantiate(bytes, imports);
  }
  let response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch (e) {
    throw new Error(`posenc: cannot fetch its WebAssembly from ${url} (${e.message}): ${NOT_SERVED}`);
  }
  if (!response.ok) throw new Error(`posenc: cannot fetch its WebAssembly from ${url} (HTTP ${response.status}): ${NOT_SERVED}`);
  // Streaming compilation needs the application/wasm type; a server that sends another still works, later.
  if (typeof WebAssembly.instantiateStreaming === 'function' && /^application\/wasm\b/.test(response.headers.get('Content-Type') ?? ''))
    return WebAssembly.instantiateStreaming(response, imports);
  return WebAssembly.instantiate(await response.arrayBuffer(), imports);
}

// Node's fetch does not read file: URLs. The specifier is a variable so that bundlers targeting
// browsers neither resolve nor warn about a Node built-in they cannot provide.
const NODE_FS = 'node:fs/promises';
async function readLocalFile(url) {
  const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_FS);
  return readFile(url);
}
