// posenc inside a Web Worker: the page (main.mjs) never loads it. Each request {id, op, args} calls
// pe[op](...args); the reply is {id, result} (its buffers transferred, not copied) or {id, error} with
// the error's name and message, which the page turns back into a RangeError / TypeError / Error.
// build.mjs bundles this file (import maps do not reach workers, so a bundle or a full URL it must be).
import { load } from 'posenc';

const ready = load();      // fetch and compile the wasm as soon as the worker starts
ready.catch(() => {});     // a failure is reported with each request, below

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    const pe = await ready;
    if (typeof pe[op] !== 'function') throw new TypeError(`posenc has no operation '${op}'`);
    const result = pe[op](...args);
    self.postMessage({ id, result }, ArrayBuffer.isView(result) ? [result.buffer] : []);
  } catch (e) {
    self.postMessage({ id, error: { name: e?.name ?? 'Error', message: e?.message ?? String(e) } });
  }
};
