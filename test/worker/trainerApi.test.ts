// The trainer worker API in Node: TrainerApi behind comlink on a worker_threads
// Worker (run through tsx), the CPU backend, telemetry on a MessagePort.
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunConfig } from '../../src/config';
import { readCheckpoint } from '../../src/model/checkpoint';
import { CpuBackend } from '../../src/reference/cpuBackend';
import type { StepMetrics } from '../../src/rl/runRecord';
import {
  decodeMetrics, dispatchTelemetry, isTelemetryEvent, METRIC_INDEX, METRIC_NAMES,
  type MetricsEvent, type TelemetryEvent,
} from '../../src/worker/protocol';
import { TelemetryBatcher } from '../../src/worker/telemetry';
import { DivergenceWatch, TrainerApi } from '../../src/worker/trainerApi';

const PRESET = 'relay-silence';
// a different model size from the shipped warm start, so init pretrains its own (briefly)
const SMALL: Partial<RunConfig> = { promptsPerStep: 4, groupSize: 4, minibatches: 2, evalEpisodes: 16, evalEvery: 2, nLayer: 1, nHead: 2, nEmbd: 16, steps: 10000 };
const WARM = { warmStartSteps: 3 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe('TrainerApi over comlink on a worker thread', () => {
  let worker: Worker;
  let api: Comlink.Remote<TrainerApi>;
  let port: MessagePort;
  const events: TelemetryEvent[] = [];
  let loadedWeights: Float32Array | null = null; // what loadCheckpoint installed (the warm start reset returns to)
  const metricsOf = (runId: string) => events.filter((e): e is MetricsEvent => e.kind === 'metrics' && e.runId === runId);
  const rowsOf = (runId: string) => metricsOf(runId).flatMap(decodeMetrics);

  beforeAll(async () => {
    worker = new Worker(new URL('./nodeWorkerBoot.mjs', import.meta.url));
    const failed = new Promise<never>((_, reject) => worker.once('error', reject));
    failed.catch(() => undefined);
    api = Comlink.wrap<TrainerApi>(nodeEndpoint(worker));
    const ch = new MessageChannel();
    port = ch.port1;
    port.on('message', (e: unknown) => {
      if (!isTelemetryEvent(e)) throw new Error(`not a telemetry event: ${JSON.stringify(e)}`);
      events.push(e);
    });
    // a worker that fails to load fails here, not after the hook timeout
    await Promise.race([api.telemetryPort(Comlink.transfer(ch.port2, [ch.port2]) as unknown as globalThis.MessagePort), failed]);
  });

  afterAll(async () => {
    await api?.destroy();
    api?.[Comlink.releaseProxy]();
    port?.close();
    await worker?.terminate();
  });

  it('rejects calls before init with a clear message', async () => {
    await expect(api.step(1)).rejects.toThrow(/call init\(preset\) first/);
    const s = await api.getState();
    expect(s.config).toBeNull();
    expect(s.stepCount).toBe(0);
    await expect(api.init('no-such-preset')).rejects.toThrow(/unknown preset "no-such-preset"/);
    await expect(api.init(PRESET, { nEmbd: 17 })).rejects.toThrow(/nEmbd/);
    // the largest batch and eval on the CPU: refused up front with the estimate and what to lower (not an allocation
    // failure part-way)
    await expect(api.init(PRESET, { promptsPerStep: 256, groupSize: 64, evalEpisodes: 4096 })).rejects.toThrow(/the run needs about \d+ MiB of memory on the CPU .* more than the 2048 MiB it may use \(half the 4 GiB assumed for this browser\); most of it is .*lower/);
    expect((await api.getState()).config).toBeNull(); // nothing started
  });

  it('init warm-starts a model of another size itself, reporting progress as status', async () => {
    const s = await api.init(PRESET, SMALL, WARM);
    expect(s.status).toBe('idle');
    expect(s.stepCount).toBe(0);
    expect(s.config).toMatchObject({ nLayer: 1, nHead: 2, nEmbd: 16, promptsPerStep: 4 });
    expect(s.warmStart).toMatch(/3 pretraining steps/);
    expect(s.backend).toBe('cpu');
    // the port and the comlink reply are separate channels: wait for the port to catch up
    const progress = () => events.filter((e) => e.kind === 'status' && e.runId === s.runId && e.progress !== undefined);
    const settled = () => events.filter((e) => e.kind === 'status' && e.runId === s.runId && !e.starting);
    await until(() => progress().some((e) => e.kind === 'status' && e.progress === 1) && settled().some((e) => e.kind === 'status' && /^ready: /.test(e.message ?? '')), 'the last progress report and the ready status');
    expect(progress().length).toBeGreaterThan(1);
    expect(progress()[0]).toMatchObject({ status: 'idle', progress: 0 });
    expect(progress().at(-1)).toMatchObject({ status: 'idle', progress: 1 });
    // the run was being born (the page shows these on its busy line): each is marked so; the engine's start (where
    // no earlier call made it), the files asked for, then the pretraining's progress
    const stages = events.filter((e) => e.kind === 'status' && e.runId === s.runId && e.starting).map((e) => e.kind === 'status' && e.message);
    const fetched = stages.filter((m) => m && m.startsWith('Fetching'));
    expect(fetched).toEqual(['relay-warm', 'relay-warm-digits4', 'relay-warm-digits5'].map((f) => `Fetching the warm start (${f}.safetensors)…`));
    expect(stages.slice(stages.indexOf(fetched[0]), 3 + stages.indexOf(fetched[0]))).toEqual(fetched);
    expect(progress().every((e) => e.kind === 'status' && e.starting)).toBe(true);
    expect(settled().at(-1)).toMatchObject({ message: expect.stringMatching(/^ready: /) });
  });

  it('step(2) counts 2 steps and delivers metrics rows in METRIC_NAMES order, batched as Float64Arrays', async () => {
    expect(new Set(METRIC_NAMES).size).toBe(METRIC_NAMES.length);
    const { runId } = await api.getState();
    const ms: StepMetrics[] = await api.step(2);
    expect(ms).toHaveLength(2);
    expect(Object.keys(ms[0]).sort()).toEqual([...METRIC_NAMES].sort());
    const s = await api.getState();
    expect(s.stepCount).toBe(2);
    expect(s.status).toBe('paused');
    expect(s.evals.map((e) => e.step)).toEqual([0, 2]); // the warm start's point, then every evalEvery
    await until(() => rowsOf(runId!).length >= 2, 'two metrics rows');
    const msgs = metricsOf(runId!);
    for (const m of msgs) {
      expect(m.data).toBeInstanceOf(Float64Array);
      expect(m.columns).toBe(METRIC_NAMES.length);
      expect(m.rows).toBeGreaterThanOrEqual(1);
      expect(m.data.length).toBe(m.rows * m.columns);
    }
    expect(msgs.length).toBeLessThanOrEqual(2);
    const rows = rowsOf(runId!);
    expect(rows).toEqual(ms);
    for (const r of rows) {
      expect(Number.isFinite(r.reward)).toBe(true);
      expect(Number.isFinite(r.tokens)).toBe(true);
    }
    expect(msgs[0].data[METRIC_INDEX.step]).toBe(0);
    const evals = events.filter((e) => e.kind === 'eval' && e.runId === runId);
    expect(evals.map((e) => (e.kind === 'eval' ? e.record.step : -1))).toEqual([0, 2]);
  });

  it('setHyperparams applies live fields at the next step and rejects the others by name', async () => {
    const { runId } = await api.getState();
    const s = await api.setHyperparams({ lambdaTok: 0.5 });
    expect(s.pending).toEqual({ lambdaTok: 0.5 });
    expect(s.config?.lambdaTok).toBe(0.5);
    const [m] = await api.step(1);
    expect(m.lambda_tok).toBe(0.5);
    await until(() => rowsOf(runId!).some((r) => r.step === m.step), 'the row of that step');
    const msg = metricsOf(runId!).find((e) => decodeMetrics(e).some((r) => r.step === m.step))!;
    const r = decodeMetrics(msg).findIndex((x) => x.step === m.step);
    expect(msg.data[r * msg.columns + METRIC_INDEX.lambda_tok]).toBe(0.5);
    expect((await api.getState()).pending).toEqual({});

    await expect(api.setHyperparams({ nEmbd: 32 })).rejects.toThrow(/nEmbd cannot change during a run/);
    await expect(api.setHyperparams({ lambdaTok: 99 })).rejects.toThrow(/lambdaTok must be in \[0, 10\]/);
    await expect(api.setHyperparams({ bogus: 1 } as Partial<RunConfig>)).rejects.toThrow(/unknown config key "bogus"/);
    expect((await api.getState()).pending).toEqual({}); // a rejected call changes nothing
  });

  it('start() runs steps until pause(), which stops the loop', async () => {
    const s0 = await api.getState();
    const started = await api.start();
    expect(started.status).toBe('running');
    await until(async () => (await api.getState()).stepCount >= s0.stepCount + 3, 'the loop to take steps');
    const paused = await api.pause();
    expect(paused.status).toBe('paused');
    await sleep(300);
    const later = await api.getState();
    expect(later.stepCount).toBe(paused.stepCount);
    expect(later.status).toBe('paused');
    const statuses = () => events.filter((e) => e.kind === 'status' && e.runId === s0.runId).map((e) => (e.kind === 'status' ? e.status : ''));
    await until(() => statuses().at(-1) === 'paused', 'the paused status on the port');
    expect(statuses().slice(-2)).toEqual(['running', 'paused']);
  });

  it('lastTranscripts renders a few episodes of the last step and eval with reward parts', async () => {
    const tr = await api.lastTranscripts(3);
    expect(tr.train?.episodes).toHaveLength(3);
    expect(tr.train!.step).toBe((await api.getState()).stepCount - 1);
    for (const ep of [...tr.train!.episodes, ...tr.eval!.episodes]) {
      expect(ep.lines.length).toBeGreaterThan(0);
      expect(ep.lines[0].text).toMatch(/Scout/);
      expect(Number.isFinite(ep.reward.reward)).toBe(true);
    }
  });

  it('exportCheckpoint round-trips through loadCheckpoint and readCheckpoint', async () => {
    const bytes = await api.exportCheckpoint('last');
    expect(bytes).toBeInstanceOf(Uint8Array);
    const ck = readCheckpoint(bytes);
    expect(ck.config).toMatchObject({ nLayer: 1, nHead: 2, nEmbd: 16 });
    expect(ck.vocab?.length).toBe(ck.config.vocabSize);
    expect(JSON.parse(ck.extras.run_config)).toMatchObject({ nEmbd: 16, promptsPerStep: 4 });
    expect(ck.extras.preset).toBe(PRESET);
    const before = await api.getState();
    const s = await api.loadCheckpoint(bytes);
    expect(s.stepCount).toBe(0);
    expect(s.runId).not.toBe(before.runId);
    expect(s.config).toMatchObject({ nEmbd: 16, promptsPerStep: 4, lambdaTok: 0.5 });
    const again = readCheckpoint(await api.exportCheckpoint('last'));
    expect(again.weights).toEqual(ck.weights);
    loadedWeights = ck.weights;
    const best = readCheckpoint(await api.exportCheckpoint('best'));
    expect(best.weights.length).toBe(ck.weights.length);
  });

  it('loadCheckpoint rejects garbage whole and changes nothing', async () => {
    await api.step(1);
    const before = await api.getState();
    const weights = readCheckpoint(await api.exportCheckpoint('last')).weights;
    await expect(api.loadCheckpoint(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]))).rejects.toThrow(/checkpoint rejected: /);
    const text = new TextEncoder().encode('{"not": "safetensors"}');
    await expect(api.loadCheckpoint(text)).rejects.toThrow(/checkpoint rejected: /);
    expect(await api.getState()).toEqual(before);
    expect(readCheckpoint(await api.exportCheckpoint('last')).weights).toEqual(weights);
  });

  it('reset() starts a new run from the same warm start', async () => {
    const loaded = readCheckpoint(await api.exportCheckpoint('last')).weights;
    const before = await api.getState();
    expect(before.stepCount).toBeGreaterThan(0);
    const s = await api.reset();
    expect(s.stepCount).toBe(0);
    expect(s.evals).toEqual([]);
    expect(s.runId).not.toBe(before.runId);
    expect(s.status).toBe('idle');
    expect(s.warmStart).toMatch(/loaded checkpoint/);
    const after = readCheckpoint(await api.exportCheckpoint('last')).weights;
    expect(after.length).toBe(loaded.length);
    expect(loaded).not.toEqual(loadedWeights); // a step since the load moved the weights...
    expect(after).toEqual(loadedWeights); // ...and reset returned to the loaded ones
    await api.step(1);
    expect((await api.getState()).stepCount).toBe(1);
  });

  it('re-init of the same preset and size reuses the warm start pretrained before', async () => {
    const t0 = performance.now();
    const s = await api.init(PRESET, { ...SMALL, evalEvery: 1000, promptsPerStep: 2, groupSize: 2, minibatches: 1 }, WARM);
    expect(s.stepCount).toBe(0);
    expect(s.warmStart).toMatch(/3 pretraining steps/);
    expect(performance.now() - t0).toBeLessThan(10_000);
    // with evals rare, fast steps share messages
    const ms = await api.step(8);
    await until(() => rowsOf(s.runId!).length >= 8, 'eight rows');
    const msgs = metricsOf(s.runId!);
    const median = [...ms.map((m) => m.step_time_ms)].sort((a, b) => a - b)[4];
    // flushes are >= 66 ms apart, so steps well under that share messages (~7 ms here: 2 messages for 8 rows)
    if (median < 20) expect(msgs.length).toBeLessThanOrEqual(4);
    expect(msgs.reduce((a, m) => a + m.rows, 0)).toBe(8);
  });

  it('moving the channel noise anywhere in [0.1, 0.5] keeps the shipped noisy warm start: no pretraining, and the state names it', async () => {
    for (const channelNoise of [0.1, 0.45]) {
      const s = await api.init('relay-noisy-dr', { channelNoise, evalEpisodes: 16 });
      expect(s.warmStart).toBe('checkpoints/relay-noisy-warm.safetensors');
      const pretraining = events.filter((e) => e.kind === 'status' && e.runId === s.runId && /pretraining/.test(e.message ?? ''));
      expect(pretraining).toEqual([]);
    }
  });
});

describe('telemetry batching', () => {
  const row = (step: number): StepMetrics => Object.fromEntries(METRIC_NAMES.map((n) => [n, n === 'step' ? step : 1])) as unknown as StepMetrics;

  it('sends many rows as one transferred Float64Array, at most once per interval, and flushes before rare events', () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const sent: Array<{ msg: TelemetryEvent; transfer: Transferable[] }> = [];
      const b = new TelemetryBatcher(66, () => now);
      b.attach({ postMessage: (msg, transfer) => sent.push({ msg: msg as TelemetryEvent, transfer }) });
      for (let i = 0; i < 10; i++) b.metrics('r', row(i));
      expect(sent).toHaveLength(0);
      now += 33; vi.advanceTimersByTime(33);
      expect(sent).toHaveLength(1);
      const m = sent[0].msg as MetricsEvent;
      expect(m).toMatchObject({ kind: 'metrics', runId: 'r', rows: 10, columns: METRIC_NAMES.length });
      expect(sent[0].transfer).toEqual([m.data.buffer]);
      expect(decodeMetrics(m).map((r) => r.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      b.metrics('r', row(10));
      now += 40; vi.advanceTimersByTime(40);
      expect(sent).toHaveLength(1); // 40 ms after the last flush: not yet
      now += 26; vi.advanceTimersByTime(26);
      expect(sent).toHaveLength(2);
      b.metrics('r', row(11));
      b.eval({ runId: 'r', record: { step: 12, accuracy: 1, tokens: 1, turns: 1, lambdaTok: 0, reward: 1 } });
      expect(sent.map((s) => s.msg.kind)).toEqual(['metrics', 'metrics', 'metrics', 'eval']);
      b.metrics('r', row(12));
      b.metrics('s', row(0)); // a new run: the old run's rows go first
      expect(sent.at(-1)!.msg).toMatchObject({ kind: 'metrics', runId: 'r', rows: 1 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('dispatches every event kind', () => {
    const seen: string[] = [];
    const h = { metrics: () => seen.push('metrics'), eval: () => seen.push('eval'), status: () => seen.push('status'), flag: () => seen.push('flag') };
    dispatchTelemetry({ kind: 'status', runId: 'r', status: 'idle' }, h);
    dispatchTelemetry({ kind: 'flag', runId: 'r', flag: { kind: 'diverged', step: 1, message: 'x' } }, h);
    expect(seen).toEqual(['status', 'flag']);
    expect(() => dispatchTelemetry({ kind: 'nope' } as unknown as TelemetryEvent, h)).toThrow(/unhandled telemetry event/);
    expect(isTelemetryEvent({ kind: 'metrics', runId: 'r', columns: METRIC_NAMES.length, rows: 1, data: new Float64Array(METRIC_NAMES.length) })).toBe(true);
    expect(isTelemetryEvent({ kind: 'metrics', runId: 'r', columns: 3, rows: 1, data: new Float64Array(3) })).toBe(false);
    expect(isTelemetryEvent({ kind: 'nope', runId: 'r' })).toBe(false);
    expect(isTelemetryEvent({ kind: 'status', runId: 'r', status: 'exploded' })).toBe(false);
  });
});

describe('divergence', () => {
  it('counts consecutive skipped updates across steps', () => {
    const w = new DivergenceWatch(3);
    expect(w.record(2, 2)).toBe(false); // a whole step skipped: 2
    expect(w.record(0, 2)).toBe(false); // a clean step ends the streak
    expect(w.record(2, 2)).toBe(false);
    expect(w.record(2, 2)).toBe(true); // 4 in a row
    w.reset();
    expect(w.record(1, 4)).toBe(false);
    expect(w.record(4, 4)).toBe(true);
  });

  it('an in-process TrainerApi (no worker) answers before init', async () => {
    const api = new TrainerApi(async () => new CpuBackend(), async () => null);
    expect((await api.getState()).status).toBe('idle');
    await expect(api.setHyperparams({ lambdaTok: 1 })).rejects.toThrow(/init/);
    await api.destroy();
  });
});
