// The sandbox's own thread: one task's QuickJS engine (engine.mjs), answering the host's calls over
// the shared-memory channel of syncChannel.ts. The host waits for each reply with a deadline and
// terminates this thread when a call overruns it (a C loop in QuickJS that polls no interrupt, a
// getter the engine cannot stop): nothing the task does can outrun that.
//
// The same file serves a Node worker_thread (workerData) and a browser Web Worker (its first
// message): { control, data, code, prelude, callMs, memoryBytes, stackBytes, taskFile }.
// The channel (indices and states shared with syncChannel.ts):
//   control[0] state: 0 idle, 1 a request is in data, 2 a reply is in data
//   control[1] the byte length of the request or reply in data (UTF-8)
//   control[2] 1 once the engine's wasm is compiled (a call's deadline counts from then)
// A reply's first character: 'T' a result's JSON follows, 'F' a failure's description (engine.d.mts).
import variant from '@jitl/quickjs-singlefile-mjs-release-sync';
import { loadEngineWasm, MEMORY_BYTES, TaskEngine } from './engine.mjs';

const STATE = 0, LENGTH = 1, READY = 2;
const REQUEST = 1, REPLY = 2;

// the thread holds one task's engine: its wasm memory is the task's memory, capped at the task's limit
async function serve(init, spare = null) {
  const compiled = spare && init.memoryBytes === MEMORY_BYTES ? spare : loadEngineWasm(variant, init.memoryBytes);
  const control = new Int32Array(init.control);
  const data = init.data;
  const bytes = new Uint8Array(data); // tracks the buffer's length as it grows
  const encoder = new TextEncoder(), decoder = new TextDecoder();
  const write = (text) => {
    let enc = encoder.encode(text);
    if (enc.length > data.byteLength) {
      if (enc.length <= data.maxByteLength) data.grow(enc.length);
      else enc = encoder.encode('F' + JSON.stringify({ cause: 'size', fn: 'unknown', item: -1, name: 'Error', message: `the reply is ${enc.length} bytes, more than the ${data.maxByteLength} a call may return` }));
    }
    bytes.set(enc);
    Atomics.store(control, LENGTH, enc.length);
    Atomics.store(control, STATE, REPLY);
    Atomics.notify(control, STATE);
  };
  const wasm = await compiled;
  Atomics.store(control, READY, 1); // the host's deadline for the first call starts now
  Atomics.notify(control, STATE);
  let engine = null;
  for (;;) {
    while (Atomics.load(control, STATE) !== REQUEST) Atomics.wait(control, STATE, Atomics.load(control, STATE));
    const request = decoder.decode(bytes.slice(0, Atomics.load(control, LENGTH)));
    const cut = request.indexOf('\n');
    const name = request.slice(0, cut), arg = request.slice(cut + 1);
    try {
      if (name === 'load') {
        engine = new TaskEngine(wasm, init);
        const failure = engine.load();
        write(failure ? 'F' + JSON.stringify(failure) : 'T' + 'null');
      } else {
        const r = engine.call(name, arg);
        write(r.failure ? 'F' + JSON.stringify(r.failure) : 'T' + r.text);
      }
    } catch (e) {
      // the engine itself failed (a wasm abort): the host ends this thread and starts another
      write('F' + JSON.stringify({ cause: 'internal', fn: name === 'load' ? 'module' : 'unknown', item: -1, name: 'Error', message: String(e && e.message || e).slice(0, 200) }));
    }
  }
}

if (typeof process !== 'undefined' && process.versions?.node) {
  // hidden from the page's bundler (a browser worker never takes this branch)
  const { workerData } = await import(/* @vite-ignore */ 'node:' + 'worker_threads');
  await serve(workerData);
} else {
  // everything asynchronous (the engine's module, its wasm) is done before this thread says it is up: a parent
  // that then waits for it synchronously (Atomics.wait) cannot turn its event loop for anything it would need
  const compiled = loadEngineWasm(variant, MEMORY_BYTES); // a spare's engine, for the default limit (the page's)
  self.onmessage = (e) => { self.onmessage = null; void serve(e.data, compiled); };
  void compiled.then(() => self.postMessage('up')); // webSpawner.ts: a spare ready to take a task
}
