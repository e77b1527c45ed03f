// Which backend a worker computes on: WebGPU only when its pipelines all build at load and, the first
// time this adapter runs this version of the shaders, the engine self-check (each kernel, then a whole
// step, against the CPU reference) agrees; else the CPU engine (cpuEngine.ts), with a message naming what failed.
// The verdict is remembered per (adapter, shader sources), so later loads skip the check.
import type { Backend } from '../backend';
import { WebGpuBackend } from '../gpu/webgpuBackend';
import { verifyEngine } from '../rl/selfCheck';
import { cpuEngine, type CpuEngine } from './cpuEngine';

export interface StoredVerdict {
  ok: boolean;
  message: string;
  at: number; // Date.now() of the check
}

export interface VerdictStore {
  get(key: string): Promise<StoredVerdict | undefined>;
  set(key: string, verdict: StoredVerdict): Promise<void>;
}

export function memoryVerdictStore(): VerdictStore {
  const m = new Map<string, StoredVerdict>();
  return { get: async (k) => m.get(k), set: async (k, v) => { m.set(k, v); } };
}

/** FNV-1a over the shader sources in name order: a new shader version is checked again. */
export function verdictKey(adapterInfo: string, shaders: Record<string, string>): string {
  let h = 0x811c9dc5;
  for (const name of Object.keys(shaders).sort()) {
    for (const s of [name, shaders[name]]) {
      for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
    }
  }
  return `${adapterInfo}|${h.toString(16)}`;
}

export interface BackendChoice {
  backend: Backend;
  /** Why WebGPU was there but is not used (null when it is used, or when there is none). */
  note: string | null;
  /** Whether this choice ran the self-check (false: none needed, or a stored verdict decided). */
  checked: boolean;
}

export interface ChooseOptions {
  gpu: GPU | undefined;
  shaders: Record<string, string>;
  store: VerdictStore;
  /** The WebGPU backend's constructor (tests pass one over Node's Dawn). */
  create?: (gpu: GPU, shaders: Record<string, string>) => Promise<WebGpuBackend>;
  /** The CPU engine when WebGPU is not used (the browser host passes its threaded start; default one thread). */
  cpu?: () => Promise<CpuEngine>;
}

async function onCpu(start: () => Promise<CpuEngine>, note: string | null, checked = false): Promise<BackendChoice> {
  const cpu = await start();
  return { backend: cpu.backend, note: [note, cpu.note].filter((n) => n !== null).join('; ') || null, checked };
}

export async function chooseBackend({ gpu, shaders, store, create = WebGpuBackend.create, cpu = async () => cpuEngine() }: ChooseOptions): Promise<BackendChoice> {
  if (!gpu) return onCpu(cpu, null);
  let backend: WebGpuBackend;
  try {
    backend = await create(gpu, shaders);
  } catch (e) {
    if ((e as Error).name === 'NoAdapterError') return onCpu(cpu, null);
    return onCpu(cpu, `WebGPU failed at load (${(e as Error).message}); computing on the CPU`);
  }
  const key = verdictKey(backend.adapterInfo, shaders);
  const stored = await store.get(key).catch(() => undefined); // a store that fails only costs a re-check
  if (stored?.ok) return { backend, note: null, checked: false };
  if (stored) {
    backend.destroy();
    return onCpu(cpu, `WebGPU is not used on this adapter: ${stored.message}; computing on the CPU`);
  }
  const verdict = await verifyEngine(backend);
  await store.set(key, { ok: verdict.ok, message: verdict.message, at: Date.now() }).catch(() => undefined);
  if (verdict.ok) return { backend, note: null, checked: true };
  backend.destroy();
  return onCpu(cpu, `WebGPU is not used on this adapter: ${verdict.message}; computing on the CPU`, true);
}

/** The verdicts in IndexedDB (the workers' storage; localStorage is the page's alone). */
export function indexedDbVerdictStore(idb: IDBFactory, dbName = 'gspo-gpu-verdicts'): VerdictStore {
  const STORE = 'verdicts';
  let opened: Promise<IDBDatabase> | null = null;
  const db = () => (opened ??= new Promise<IDBDatabase>((resolve, reject) => {
    const req = idb.open(dbName, 1);
    req.onupgradeneeded = () => { req.result.createObjectStore(STORE); };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  }));
  const request = <T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest): Promise<T> => db().then((d) =>
    new Promise<T>((resolve, reject) => {
      const req = fn(d.transaction(STORE, mode).objectStore(STORE));
      req.onsuccess = () => resolve(req.result as T);
      req.onerror = () => reject(req.error);
    }));
  return {
    get: (key) => request<StoredVerdict | undefined>('readonly', (s) => s.get(key)),
    set: async (key, v) => { await request('readwrite', (s) => s.put(v, key)); },
  };
}
