// The trainer worker for Node tests: TrainerApi over comlink on worker_threads,
// the CPU engine (WebAssembly SIMD, as the page's), warm starts read from public/checkpoints on disk.
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { TrainerApi } from '../../src/worker/trainerApi';

const dir = new URL('../../public/checkpoints/', import.meta.url);

const api = new TrainerApi(
  async () => new WasmBackend(),
  async (file) => {
    try {
      return new Uint8Array(await readFile(new URL(file, dir)));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  },
);

if (!parentPort) throw new Error('nodeWorker.ts runs as a worker_threads Worker');
Comlink.expose(api, nodeEndpoint(parentPort));
