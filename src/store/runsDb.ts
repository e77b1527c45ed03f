// Where runs persist: the runs, their metrics (appended in chunks, about once
// a second) and their best/last checkpoints (safetensors bytes). Beside the
// last checkpoint, written in the same transaction, its resume state (the
// Trainer's counters and AdamW's moments: what Resume continues from). IndexedDB
// in the browser; an in-memory twin for tests and for browsers without it.
import { METRIC_NAMES, type ResumeState } from '../worker/protocol';
import { MetricsSeries } from './metricsSeries';
import type { RunMeta } from './runTypes';

export type CheckpointKind = 'last' | 'best';

export interface RunStorage {
  readonly kind: 'indexeddb' | 'memory';
  /** Why runs are kept in memory only (the page's banner says it); null for IndexedDB. */
  readonly why?: string | null;
  listRuns(): Promise<RunMeta[]>;
  putRun(meta: RunMeta): Promise<void>;
  /** The run, its metrics and its checkpoints. */
  deleteRun(id: string): Promise<void>;
  /** Rows in METRIC_NAMES order. */
  appendMetrics(id: string, data: Float64Array, rows: number): Promise<void>;
  loadMetrics(id: string): Promise<MetricsSeries>;
  /**
   * Stores a checkpoint. For 'last', `resume` (its resume state, of the same step) is written in the
   * same transaction; without one, any older resume state is removed, so a state never outlives its checkpoint.
   */
  putCheckpoint(id: string, which: CheckpointKind, bytes: Uint8Array, resume?: ResumeState): Promise<void>;
  getCheckpoint(id: string, which: CheckpointKind): Promise<Uint8Array | null>;
  /** The resume state stored with the run's last checkpoint (null: none, e.g. a run stored before it was kept). */
  getResumeState(id: string): Promise<ResumeState | null>;
}

const RESUME_KEY = (id: string) => `${id}:resume`;

interface MetricsChunk { run: string; columns: string[]; rows: number; data: Float64Array }

/** Chunks in order into one series; columns matched by name (a column this page does not know is dropped). */
function seriesFromChunks(chunks: MetricsChunk[]): MetricsSeries {
  const s = new MetricsSeries(), C = METRIC_NAMES.length;
  for (const ch of chunks) {
    const same = ch.columns.length === C && ch.columns.every((c, i) => c === METRIC_NAMES[i]);
    if (same) { s.append(ch.data, ch.rows); continue; }
    const at = METRIC_NAMES.map((n) => ch.columns.indexOf(n));
    const data = new Float64Array(ch.rows * C);
    for (let r = 0; r < ch.rows; r++) for (let c = 0; c < C; c++) data[r * C + c] = at[c] < 0 ? NaN : ch.data[r * ch.columns.length + at[c]];
    s.append(data, ch.rows);
  }
  return s;
}

/** Why runs are kept in memory where the browser has no IndexedDB at all (the page's banner says it). */
export const NO_INDEXEDDB = 'this browser offers no IndexedDB here';

export class MemoryRunStorage implements RunStorage {
  readonly kind = 'memory' as const;
  constructor(readonly why: string = NO_INDEXEDDB) {}
  private readonly runs = new Map<string, RunMeta>();
  private readonly chunks = new Map<string, MetricsChunk[]>();
  private readonly ckpts = new Map<string, Uint8Array>();
  private readonly resumes = new Map<string, ResumeState>();

  async listRuns(): Promise<RunMeta[]> { return [...this.runs.values()].map((r) => structuredClone(r)); }
  async putRun(meta: RunMeta): Promise<void> { this.runs.set(meta.id, structuredClone(meta)); }
  async deleteRun(id: string): Promise<void> {
    this.runs.delete(id);
    this.chunks.delete(id);
    this.ckpts.delete(`${id}:last`);
    this.ckpts.delete(`${id}:best`);
    this.resumes.delete(RESUME_KEY(id));
  }
  async appendMetrics(id: string, data: Float64Array, rows: number): Promise<void> {
    const list = this.chunks.get(id) ?? [];
    list.push({ run: id, columns: [...METRIC_NAMES], rows, data: data.slice() });
    this.chunks.set(id, list);
  }
  async loadMetrics(id: string): Promise<MetricsSeries> { return seriesFromChunks(this.chunks.get(id) ?? []); }
  async putCheckpoint(id: string, which: CheckpointKind, bytes: Uint8Array, resume?: ResumeState): Promise<void> {
    this.ckpts.set(`${id}:${which}`, bytes.slice());
    if (which !== 'last') return;
    if (resume) this.resumes.set(RESUME_KEY(id), structuredClone(resume));
    else this.resumes.delete(RESUME_KEY(id));
  }
  async getCheckpoint(id: string, which: CheckpointKind): Promise<Uint8Array | null> { return this.ckpts.get(`${id}:${which}`)?.slice() ?? null; }
  async getResumeState(id: string): Promise<ResumeState | null> {
    const r = this.resumes.get(RESUME_KEY(id));
    return r ? structuredClone(r) : null;
  }
}

const DB_NAME = 'gspo-playground';
const DB_VERSION = 1;

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => { tx.oncomplete = () => resolve(); tx.onerror = () => reject(tx.error); tx.onabort = () => reject(tx.error ?? new Error('transaction aborted')); });
}

export class IndexedDbRunStorage implements RunStorage {
  readonly kind = 'indexeddb' as const;
  readonly why = null;
  private constructor(private readonly db: IDBDatabase) {}

  /** Closes the connection (a store opened too late to be used). */
  close(): void { this.db.close(); }

  static async open(factory: IDBFactory = indexedDB): Promise<IndexedDbRunStorage> {
    const req = factory.open(DB_NAME, DB_VERSION);
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains('runs')) db.createObjectStore('runs', { keyPath: 'id' });
      if (!db.objectStoreNames.contains('metrics')) db.createObjectStore('metrics', { autoIncrement: true }).createIndex('run', 'run');
      if (!db.objectStoreNames.contains('checkpoints')) db.createObjectStore('checkpoints');
    };
    return new IndexedDbRunStorage(await request(req));
  }

  async listRuns(): Promise<RunMeta[]> {
    const tx = this.db.transaction('runs', 'readonly');
    return request(tx.objectStore('runs').getAll() as IDBRequest<RunMeta[]>);
  }

  async putRun(meta: RunMeta): Promise<void> {
    const tx = this.db.transaction('runs', 'readwrite');
    tx.objectStore('runs').put(meta);
    return done(tx);
  }

  async deleteRun(id: string): Promise<void> {
    const tx = this.db.transaction(['runs', 'metrics', 'checkpoints'], 'readwrite');
    tx.objectStore('runs').delete(id);
    const keys = await request(tx.objectStore('metrics').index('run').getAllKeys(IDBKeyRange.only(id)));
    for (const k of keys) tx.objectStore('metrics').delete(k);
    tx.objectStore('checkpoints').delete(`${id}:last`);
    tx.objectStore('checkpoints').delete(`${id}:best`);
    tx.objectStore('checkpoints').delete(RESUME_KEY(id));
    return done(tx);
  }

  async appendMetrics(id: string, data: Float64Array, rows: number): Promise<void> {
    const tx = this.db.transaction('metrics', 'readwrite');
    const chunk: MetricsChunk = { run: id, columns: [...METRIC_NAMES], rows, data };
    tx.objectStore('metrics').add(chunk);
    return done(tx);
  }

  async loadMetrics(id: string): Promise<MetricsSeries> {
    const tx = this.db.transaction('metrics', 'readonly');
    // the primary keys increase with every add, so key order is append order
    const chunks = await request(tx.objectStore('metrics').index('run').getAll(IDBKeyRange.only(id)) as IDBRequest<MetricsChunk[]>);
    return seriesFromChunks(chunks);
  }

  async putCheckpoint(id: string, which: CheckpointKind, bytes: Uint8Array, resume?: ResumeState): Promise<void> {
    const tx = this.db.transaction('checkpoints', 'readwrite');
    const store = tx.objectStore('checkpoints');
    store.put(bytes, `${id}:${which}`);
    if (which === 'last') {
      if (resume) store.put(resume, RESUME_KEY(id));
      else store.delete(RESUME_KEY(id));
    }
    return done(tx);
  }

  async getResumeState(id: string): Promise<ResumeState | null> {
    const tx = this.db.transaction('checkpoints', 'readonly');
    const v = await request(tx.objectStore('checkpoints').get(RESUME_KEY(id)) as IDBRequest<ResumeState | undefined>);
    return v ?? null;
  }

  async getCheckpoint(id: string, which: CheckpointKind): Promise<Uint8Array | null> {
    const tx = this.db.transaction('checkpoints', 'readonly');
    const v = await request(tx.objectStore('checkpoints').get(`${id}:${which}`) as IDBRequest<Uint8Array | undefined>);
    return v ?? null;
  }
}

/** How long the page waits for IndexedDB to open before it goes on in memory: it opens before the page renders, so a store that never answers would hold the page blank. */
export const STORAGE_OPEN_MS = 5000;

/** IndexedDB when the browser has it and it opens within `ms`, else memory with the reason (the page says runs will not survive a reload). */
export async function openRunStorage(factory: IDBFactory | null = globalThis.indexedDB ?? null, ms = STORAGE_OPEN_MS): Promise<RunStorage> {
  if (factory === null) return new MemoryRunStorage();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const opening = IndexedDbRunStorage.open(factory);
  try {
    const late = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), ms); });
    const opened = await Promise.race([opening, late]);
    if (opened) return opened;
    void opening.then((s) => s.close(), () => undefined); // opened after the page went on: closed, so it holds no connection
    return new MemoryRunStorage(`IndexedDB did not open within ${ms / 1000} s`);
  } catch (e) {
    return new MemoryRunStorage(`IndexedDB did not open (${e instanceof Error ? e.message : String(e)})`);
  } finally {
    clearTimeout(timer);
  }
}
