// Where a step's GPU dispatches are: one RL step of relay-silence (default model, P1 x G2, as
// `bench --compare --quick`) after a warm-up, each dispatch tallied by kernel entry and phase.
// Usage: npx tsx scripts/dispatchCount.ts [--P 1] [--G 2] [--layers 2] [--heads 4] [--embd 64] [--decode auto|per-op]
// (--decode per-op: the rollout a GPU takes, whose fused decode step is gated to CPU adapters)
// Counts only (works on SwiftShader); times mean nothing here.
import { parseArgs } from 'node:util';
import { presetConfig, findPreset } from '../src/envs/presets';
import { createEnv } from '../src/envs/registry';
import { createNodeBackend } from '../src/gpu/node';
import { GpuRuntime } from '../src/gpu/runtime';
import { Trainer } from '../src/rl/trainer';

const { values } = parseArgs({ options: { P: { type: 'string', default: '1' }, G: { type: 'string', default: '2' },
  layers: { type: 'string', default: '2' }, heads: { type: 'string', default: '4' }, embd: { type: 'string', default: '64' }, decode: { type: 'string', default: 'auto' } } });
const { backend, reason } = await createNodeBackend();
if (!backend) throw new Error(reason);
if (!['auto', 'per-op'].includes(values.decode!)) throw new Error(`--decode takes auto or per-op, not ${values.decode}`);
if (values.decode === 'per-op') backend.decodeSampleFused = () => false;
const cfg = presetConfig(findPreset('relay-silence'), {
  nLayer: Number(values.layers), nHead: Number(values.heads), nEmbd: Number(values.embd),
  promptsPerStep: Number(values.P), groupSize: Number(values.G), evalEpisodes: Number(values.P) * Number(values.G),
});
const trainer = new Trainer(backend, createEnv(cfg), cfg);
let phase = 'rollout';
const tally = new Map<string, number>();
const proto = GpuRuntime.prototype as unknown as { dispatch: (...a: unknown[]) => void };
const orig = proto.dispatch;
proto.dispatch = function (this: unknown, ...a: unknown[]) {
  const kernel = a[0] as { shader: string; entry: string }, counter = (a[5] as string | undefined) ?? 'dispatches';
  const key = `${phase}\t${counter === 'clears' ? 'clear' : `${kernel.shader}:${kernel.entry}`}`;
  tally.set(key, (tally.get(key) ?? 0) + 1);
  return orig.apply(this, a);
};
await trainer.step(); // warm-up
tally.clear();
// the phase changes when the step's first minibatch is recorded (the objective's record)
const obj = (trainer as unknown as { objective: { recordMinibatch: (...a: unknown[]) => void } }).objective;
const rec = obj.recordMinibatch.bind(obj);
obj.recordMinibatch = (...a: unknown[]) => { phase = 'update'; return rec(...a); };
const before = { ...backend.counters };
await trainer.step();
const after = backend.counters;
const rows = [...tally.entries()].sort((x, y) => x[0].localeCompare(y[0]) || y[1] - x[1]);
for (const [k, n] of rows) console.log(`${String(n).padStart(5)}  ${k}`);
const sum = (p: string) => rows.filter(([k]) => k.startsWith(p)).reduce((a, [, n]) => a + n, 0);
console.log(`rollout ${sum('rollout')}, update ${sum('update')}; counters: dispatches ${after.dispatches - before.dispatches}, ` +
  `clears ${after.clears - before.clears}, submissions ${after.submissions - before.submissions}, readbacks ${after.readbacks - before.readbacks}`);
trainer.destroy();
backend.destroy();
