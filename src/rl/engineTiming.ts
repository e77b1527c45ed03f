// Which engine trains faster at a run's shapes, from a timed warm step of each: the rule the CLI's
// `train` (src/cli/engineChoice.ts) and the page's worker (runHost.chooseEngine) share. WebGPU is not
// always the faster: the default model's step is bound by its dispatches, and an integrated or busy
// GPU can lose to the CPU engine on every core.
import type { Backend } from '../backend';
import type { RunConfig } from '../config';
import type { Environment } from '../envs/types';
import { Trainer } from './trainer';
export interface EngineTiming { engine: string; msPerStep: number }
export interface EngineChoice { chosen: string; timings: EngineTiming[]; cached: boolean; line: string }

const LABEL: Record<string, string> = { webgpu: 'WebGPU', wasm: 'CPU engine', cpu: 'CPU reference' };
const label = (engine: string) => LABEL[engine] ?? engine;

/** The faster engine (ties: the first given), and the line that says so with every figure. */
export function pickFaster(timings: readonly EngineTiming[]): { chosen: string; line: string } {
  const ok = timings.filter((t) => Number.isFinite(t.msPerStep) && t.msPerStep > 0);
  if (ok.length === 0) throw new Error('no engine could take a timed step');
  const best = ok.reduce((a, b) => (b.msPerStep < a.msPerStep ? b : a));
  const figures = timings.map((t) => `${label(t.engine)} ${Number.isFinite(t.msPerStep) ? `${t.msPerStep.toFixed(0)} ms/step` : 'failed'}`).join(', ');
  return { chosen: best.engine, line: `${figures}: using ${label(best.engine)}` };
}


/** One warm step of `config` on `b` from random weights (its pipelines and buffers made by a first step), in ms. */
export async function timeWarmStep(b: Backend, env: Environment, config: RunConfig): Promise<number> {
  const trainer = new Trainer(b, env, config);
  try {
    await trainer.step();
    const t0 = performance.now();
    await trainer.step();
    return performance.now() - t0;
  } finally { trainer.destroy(); }
}
