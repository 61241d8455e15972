// Linked into the Emscripten module with --pre-js (CMakeLists.txt), so it runs inside the module's
// factory. Hands bindings/load-wasm.mjs the URL Emscripten computed for the module's .wasm:
// `new URL('posenc_wasm.wasm', import.meta.url)`, relative to the module's own JS file, the form bundlers
// (Vite, webpack) recognise and emit the file for. `wasmBinaryFile` is Emscripten 3.1.6's variable for
// it, set by the time the module asks for its instance (Module.instantiateWasm).
Module['wasmUrl'] = function () { return String(wasmBinaryFile); };
