// Emscripten 3.1.6's JS reads a few heap addresses with a signed shift (`ptr >> 2`): an address past
// 2 GiB then gives a negative index. In the threaded modules one of them is the C++ exception's
// reference count (Atomics.add at `this.ptr >> 2`): "Invalid atomic access index" escapes a catch
// and leaves the module unusable. Run on each linked threaded module (CMakeLists.txt): rewrites those
// shifts unsigned, and fails when a signed shift it does not know remains (a new Emscripten's JS).
// Usage: node scripts/unsigned-pointers.mjs <module.js>...
import { readFileSync, writeFileSync } from 'node:fs';

// [what it is, pattern]: the left operand of `>>` in each is a heap address.
const POINTERS = [
  ['the exception reference count (ExceptionInfo add_ref / release_ref)', /(this\.ptr\s*\+\s*0\s*)>>(\s*2\b)/g],
  ['the arguments of a call proxied to the main thread (doubles)', /(\bvar\s+b\s*=\s*args\s*)>>(\s*3\b)/g],
  ['the WebGL context attributes', /(\bvar\s+a\s*=\s*attributes\s*)>>(\s*2\b)/g],
];
// Signed shifts that are not addresses: UTF-8 / UTF-16 code units, and constant field offsets.
const NOT_POINTERS = [/\b(?:ch|u|u0|u1|c|codeUnit)\s*>>\s*\d+/, /\(\s*\d+\s*>>\s*\d+\s*\)/];

let failed = false;
for (const file of process.argv.slice(2)) {
  let text = readFileSync(file, 'utf8');
  for (const [what, re] of POINTERS) text = text.replace(re, '$1>>>$2');
  if (/ExceptionInfo/.test(text) && !/this\.ptr\s*\+\s*0\s*>>>\s*2/.test(text)) {
    console.error(`${file}: the exception reference count's shift was not found: check Emscripten's ExceptionInfo`);
    failed = true;
  }
  for (const m of text.matchAll(/.{0,30}[^>]>>(?!>)\s*\d+.{0,10}/g)) {
    if (NOT_POINTERS.some((re) => re.test(m[0]))) continue;
    console.error(`${file}: a signed shift not known to be safe for addresses past 2 GiB: ${m[0]}`);
    failed = true;
  }
  writeFileSync(file, text);
}
process.exit(failed ? 1 : 0);
