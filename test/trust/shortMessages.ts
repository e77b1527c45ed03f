// A relay-silence warm start's short messages at temperature 1 on held-out unknown tasks: how many hold the asked
// digit s_j (the task's own secret is the oracle). Used by shortMessages.test.ts and scripts/relayShortMessages.ts.
import { findPreset, presetConfig } from '../../src/envs/presets';
import { createEnv } from '../../src/envs/registry';
import { digitId, greedyVerboseMessage, type RelayState } from '../../src/envs/relay';
import { readCheckpoint } from '../../src/model/checkpoint';
import { GPT } from '../../src/model/gpt';
import { Generator, rollout } from '../../src/rl/rollout';
import { WasmBackend } from '../../src/simd/wasmBackend';

export interface ShortRates { unknown: number; spoke: number; short: number; shortHolding: number; fullHolding: number }

export async function shortMessageRates(digits: number, checkpoint: Uint8Array, tasks = 512): Promise<ShortRates> {
  const cfg = presetConfig(findPreset('relay-silence'), { digits });
  const env = createEnv(cfg);
  const ck = readCheckpoint(checkpoint);
  const b = new WasmBackend({});
  try {
    const gen = new Generator(b, new GPT(b, ck.config, ck.weights));
    const ro = await rollout(env, () => gen, env.sampleTasks('eval', tasks, 7, 0), 1, 1, 12345, 0);
    const r: ShortRates = { unknown: 0, spoke: 0, short: 0, shortHolding: 0, fullHolding: 0 };
    for (const st of ro.states as RelayState[]) {
      if (st.task.known) continue;
      r.unknown++;
      const m = st.messages![0];
      if (m.length === 0) continue;
      r.spoke++;
      const holds = m.includes(digitId(st.task.secret[st.task.j - 1]));
      if (m.length < Math.min(greedyVerboseMessage(st.task, cfg.maxMessage, true).length, cfg.maxMessage)) { r.short++; if (holds) r.shortHolding++; }
      else if (holds) r.fullHolding++;
    }
    return r;
  } finally {
    b.destroy();
  }
}
