// The page's engine by measurement: with WebGPU chosen by default, the worker times a warm step
// of WebGPU and of the CPU engine at the run's shapes and keeps the faster; the choice's line names both
// figures. The engines here are CPU engines with WebGPU's name and planted timings (no GPU on this
// machine), so what is tested is the choice, the switch and the freeing, against hand-made figures.
import { afterEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend';
import type { RunConfig } from '../../src/config';
import { WasmBackend } from '../../src/simd/wasmBackend';
import type { BackendPreference } from '../../src/worker/protocol';
import { TrainerApi } from '../../src/worker/trainerApi';
import type { Environment } from '../../src/envs/types';

const SMALL: Partial<RunConfig> = { promptsPerStep: 4, groupSize: 4, minibatches: 2, evalEpisodes: 16, evalEvery: 1, nLayer: 1, nHead: 2, nEmbd: 16, steps: 1000 };

class Engine extends WasmBackend {
  destroyed = false;
  constructor(label: string) {
    super();
    Object.defineProperty(this, 'name', { value: label }); // WebGPU's name on a CPU engine (no GPU here)
  }
  override destroy() { this.destroyed = true; super.destroy(); }
}

/** A worker whose timed steps take the planted figures (NaN: the step fails) per engine name. */
class TimedApi extends TrainerApi {
  constructor(readonly ms: Record<string, number>, readonly made: Engine[], readonly prefs: BackendPreference[]) {
    super(async (prefer) => { prefs.push(prefer); const e = new Engine(prefer === 'cpu' ? 'wasm' : 'webgpu'); made.push(e); return e; }, async () => null, async () => ({ ok: true, adapter: 'test adapter' }));
  }
  protected override async timeStep(b: Backend, _env: Environment, config: RunConfig): Promise<number> {
    expect(config.promptsPerStep).toBe(4); // the run's own shapes
    const ms = this.ms[b.name];
    if (Number.isNaN(ms)) throw new Error('test: this engine cannot take the step');
    return ms;
  }
}

let api: TimedApi | null = null;
afterEach(async () => { await api?.destroy(); api = null; });

describe('the page\'s engine by measurement', () => {
  it('the CPU engine faster: chosen, said with both figures, WebGPU freed, and the next run trains on it', async () => {
    const made: Engine[] = [], prefs: BackendPreference[] = [];
    api = new TimedApi({ webgpu: 29, wasm: 12 }, made, prefs);
    const c = await api.chooseEngine('relay-silence', SMALL);
    expect(c).toEqual({ chosen: 'wasm', timings: [{ engine: 'webgpu', msPerStep: 29 }, { engine: 'wasm', msPerStep: 12 }], cached: false, line: 'WebGPU 29 ms/step, CPU engine 12 ms/step: using CPU engine' });
    expect(made.map((e) => [e.name, e.destroyed])).toEqual([['webgpu', true], ['wasm', false]]);
    const s = await api.init('relay-silence', SMALL, { warmStartSteps: 2 });
    expect(s.backend).toBe('cpu');
    expect(made).toHaveLength(2); // no new backend: the timed CPU engine trains
  });

  it('WebGPU faster: kept, the CPU engine freed; a CPU step that fails leaves WebGPU', async () => {
    const made: Engine[] = [], prefs: BackendPreference[] = [];
    api = new TimedApi({ webgpu: 9, wasm: 124 }, made, prefs);
    expect((await api.chooseEngine('relay-silence', SMALL))!.line).toBe('WebGPU 9 ms/step, CPU engine 124 ms/step: using WebGPU');
    expect(made.map((e) => [e.name, e.destroyed])).toEqual([['webgpu', false], ['wasm', true]]);
    expect((await api.init('relay-silence', SMALL, { warmStartSteps: 2 })).backend).toBe('webgpu');
    await api.destroy();
    const m2: Engine[] = [];
    api = new TimedApi({ webgpu: 50, wasm: Number.NaN }, m2, []);
    const c = (await api.chooseEngine('relay-silence', SMALL))!;
    expect(c.chosen).toBe('webgpu');
    expect(c.line).toBe('WebGPU 50 ms/step, CPU engine failed: using WebGPU');
  });

  it('nothing to choose without WebGPU (a CPU worker answers null and keeps its engine)', async () => {
    const made: Engine[] = [];
    api = new TimedApi({ webgpu: 1, wasm: 2 }, made, []);
    await api.useBackend('cpu');
    expect(await api.chooseEngine('relay-silence', SMALL)).toBeNull();
    expect(made.map((e) => [e.name, e.destroyed])).toEqual([['wasm', false]]);
  });
});
