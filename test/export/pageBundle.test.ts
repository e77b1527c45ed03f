// The page's TRL export of a run with weights carries policy/: the one-file bundle the runs table downloads
// (store exportRun -> src/export/bundle.ts), unpacked by python3, holds the same files, byte for byte, as the
// CLI's `export --checkpoint` of the same checkpoint; the weights come from the current run's live last, else
// the stored last or best; a checkpoint that cannot be read leaves the recipe without policy/ and says so.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recipeBundle } from '../../src/export/bundle';
import { createAppStore, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { FakeTrainer, fakeClient, settle } from '../store/fakeClient';
import { gspo, ROOT, tempDir } from '../cli/run';

const hasPython = spawnSync('python3', ['--version']).status === 0;
if (process.env.CI === 'true' && !hasPython) throw new Error('python3 is needed to unpack the exported bundles (CI=true)');

const CHECKPOINT = join(ROOT, 'public', 'checkpoints', 'relay-warm.safetensors');
const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world() {
  const fake = new FakeTrainer(), storage = new MemoryRunStorage();
  const downloads: { name: string; blob: Blob }[] = [];
  const store = createAppStore({ client: fakeClient(fake), storage, hub: new MetricsHub(), replaceUrl: () => {}, download: (name, blob) => downloads.push({ name, blob }), persistIntervalMs: 60_000 });
  stores.push(store);
  return { store, fake, storage, downloads };
}

/** Every file under dir, path -> bytes. */
function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p); else out.set(relative(dir, p), readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

async function unpack(blob: Blob): Promise<Map<string, Buffer>> {
  const dir = tempDir(), file = join(dir, 'bundle.py');
  writeFileSync(file, await blob.text());
  execFileSync('python3', [file, join(dir, 'out')]);
  return tree(join(dir, 'out'));
}

function cliExport(): Map<string, Buffer> {
  const out = join(tempDir(), 'cli');
  const r = gspo(['export', '--preset', 'relay-silence', '--to', 'trl', '--checkpoint', CHECKPOINT, '--out', out]);
  expect(r.code, r.stderr).toBe(0);
  return tree(out);
}

describe.skipIf(!hasPython)('the page\'s TRL bundle carries policy/', () => {
  it('the current run\'s weights: the same files as the CLI\'s export --checkpoint, byte for byte', async () => {
    const { store, fake, downloads } = world();
    await store.getState().boot('?preset=relay-silence');
    fake.checkpointBytes = new Uint8Array(readFileSync(CHECKPOINT));
    fake.emitSteps(0, 2);
    await settle();
    await store.getState().exportRun(store.getState().runId!, 'trl');
    expect(store.getState().error).toBeNull();
    const page = await unpack(downloads[0].blob), cli = cliExport();
    const policy = [...cli.keys()].filter((p) => p.startsWith('policy/')).sort();
    expect(policy).toEqual(['policy/config.json', 'policy/generation_config.json', 'policy/model.safetensors', 'policy/playground.json', 'policy/special_tokens_map.json', 'policy/tokenizer.json', 'policy/tokenizer_config.json']);
    expect([...page.keys()].sort()).toEqual([...cli.keys()].sort());
    for (const [path, bytes] of cli) expect(page.get(path)!.equals(bytes), path).toBe(true);
    expect(cli.get('policy/model.safetensors')!.length).toBeGreaterThan(100_000);
  }, 120_000);

  it('without a live trainer: the stored best when no last is stored', async () => {
    const { store, fake, storage, downloads } = world();
    await store.getState().boot('?preset=relay-silence');
    const id = store.getState().runId!;
    fake.emitSteps(0, 2);
    await settle();
    fake.exportCheckpoint = async () => { throw new Error('no trainer'); };
    await storage.putCheckpoint(id, 'best', new Uint8Array(readFileSync(CHECKPOINT)));
    await store.getState().exportRun(id, 'trl');
    const page = await unpack(downloads[0].blob), cli = cliExport();
    for (const [path, bytes] of cli) expect(page.get(path)!.equals(bytes), path).toBe(true);
  }, 120_000);

  it('a checkpoint that cannot be read: the recipe without policy/, and the page says why', async () => {
    const { store, fake, downloads } = world();
    await store.getState().boot('?preset=relay-silence');
    fake.checkpointBytes = new Uint8Array([1, 2, 3]);
    fake.emitSteps(0, 2);
    await settle();
    await store.getState().exportRun(store.getState().runId!, 'trl');
    const page = await unpack(downloads[0].blob);
    expect([...page.keys()].some((p) => p.startsWith('policy/'))).toBe(false);
    expect(page.has('train_grpo.py')).toBe(true);
    expect(store.getState().notice).toMatch(/without policy\/: its last checkpoint: /);
  });

  it('verl gets no policy/', async () => {
    const { store, fake, downloads } = world();
    await store.getState().boot('?preset=relay-silence');
    fake.checkpointBytes = new Uint8Array(readFileSync(CHECKPOINT));
    fake.emitSteps(0, 2);
    await settle();
    await store.getState().exportRun(store.getState().runId!, 'verl');
    expect([...(await unpack(downloads[0].blob)).keys()].some((p) => p.startsWith('policy/'))).toBe(false);
  });
});

describe('the bundle\'s paths', () => {
  it('one folder at most, never . or ..', () => {
    const f = (path: string) => () => recipeBundle([{ path, text: '' }], 'x');
    for (const bad of ['../a', 'a/../b', 'a/b/c', '/a', 'policy/..', 'policy/.', '.', '..', 'a\\b', '.hidden/x']) expect(f(bad), bad).toThrow(/exported file name/);
    for (const good of ['a.py', 'policy/config.json', 'policy/model.safetensors']) expect(f(good), good).not.toThrow();
  });
});
