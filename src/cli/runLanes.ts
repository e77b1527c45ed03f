// The CLI's one runner for the commands that train several runs (sweep, study, robustness, compare):
// placement.ts decides the lanes, and each lane trains either in this process on WebGPU (one Trainer
// of the lane's members, train.ts trainMembers: one device, so one lane at a time) or, on a CPU engine,
// in a member thread of its own (memberPool.ts), as many at once as the placement says.
import { totalmem } from 'node:os';
import type { Backend } from '../backend';
import { WebGpuBackend } from '../gpu/webgpuBackend';
import { checkGpuBudget, checkStackedBudget, memoryShare } from '../rl/memoryBudget';
import { MAX_MEMBERS, placeMembers, type Placement } from '../rl/placement';
import { failure, oneLine } from './jobRuns';
import { cpuThreadBytes, inLanes, type MemberChange } from '../rl/population';
import { modelConfigFor } from '../rl/pretrain';
import { slotNames } from '../rl/slots';
import type { WarmStarts } from '../rl/warmStart';
import { checkBackendFlag, chooseBackend, cpuEngine, log } from './io';
import { memoryLimit, runThread, type MemberJob, type MemberOutcome } from './memberPool';
import type { RunSetup } from './commands/runSetup';
import { trainMembers } from './commands/train';
import type { TrainResult } from './trainResult';

/** Where lanes train: WebGPU in this process, or a CPU engine in one thread per member. */
export type LaneDevice = { gpu: WebGpuBackend } | { engine: 'cpu' | 'wasm' };

/** One run: its checked setup, what a member thread remakes it from, its folder, log label, live changes and warm start. */
export interface LaneRun {
  s: RunSetup; preset: string; overrides: MemberJob['overrides']; out: string; label: string; changes: MemberChange[];
  warm?: WarmStarts; // absent: made where the run trains (shipped, or pretrained there)
  resume?: boolean; // a lone run continues from the state saved in its folder and saves its own (resumeState.ts)
}

/** The placement of every wave; `mode` and `membersAtOnce` as the summaries report them. */
export interface LanePlan {
  /** `rolloutRows`: per lane, the rows a WebGPU lane of one generates at once (Infinity: all; as `train` chunks them). */
  waves: { runs: number[]; placement: Placement; rolloutRows: number[] }[];
  /** stacked-population: lanes of several members; population: several lanes at once; sequential: one run at a time. */
  mode: 'stacked-population' | 'population' | 'sequential';
  membersAtOnce: number;
}

/**
 * The device for --backend (undefined: the CPU engine in threads, or with `preferGpu` WebGPU on a hardware adapter,
 * as `train` chooses), and a backend in this process for the warm starts made here.
 */
export async function laneDevice(flag: unknown, preferGpu = false): Promise<{ device: LaneDevice; backend: Backend }> {
  checkBackendFlag(flag);
  if (flag === 'webgpu' || (flag === undefined && preferGpu)) {
    const backend = await chooseBackend(flag);
    if (backend instanceof WebGpuBackend) return { device: { gpu: backend }, backend };
    return { device: { engine: backend.name === 'cpu' ? 'cpu' : 'wasm' }, backend };
  }
  const engine = flag === 'cpu' ? 'cpu' : 'wasm'; // the CPU engine unless the reference was asked for
  return { device: { engine }, backend: cpuEngine(engine) };
}

/** The runs' live changes as one population's: those to every member once, each run's own at its index. */
function laneChanges(runs: readonly LaneRun[]): MemberChange[] {
  const out: MemberChange[] = [...new Set(runs.flatMap((r) => r.changes.filter((c) => c.member === null)))];
  runs.forEach((r, j) => { for (const c of r.changes) if (c.member !== null) out.push({ ...c, member: j }); });
  return out;
}

/**
 * The lanes of these runs (placement.ts), refused before anything runs when they do not fit: `members` is --members
 * (--sequential: 1), `memoryFlag` --memory-limit. More runs than one population holds (MAX_MEMBERS) train in waves,
 * one after another. On WebGPU each lane is checked against the device's limits here (the host's memory is not
 * what bounds it, so the placement gets no limit there).
 */
export function placeRuns(runs: readonly LaneRun[], device: LaneDevice, opts: { members?: unknown; memoryFlag?: unknown } = {}): LanePlan {
  const gpu = 'gpu' in device ? device.gpu : null;
  const memoryBytes = gpu ? Infinity : memoryLimit(opts.memoryFlag);
  const waves: LanePlan['waves'] = [];
  for (let at = 0; at < runs.length; at += MAX_MEMBERS) {
    const idx = runs.slice(at, at + MAX_MEMBERS).map((_, j) => at + j), wave = idx.map((i) => runs[i]);
    const placement = placeMembers(wave.map((r) => r.s.config), wave.map((r) => r.s.env), {
      backend: gpu ? 'webgpu' : 'cpu', lanesAtOnce: gpu ? 1 : wave.length, memoryBytes, asked: opts.members as number | undefined, changes: laneChanges(wave),
      memberCost: gpu ? undefined : cpuThreadBytes, // each member in a thread of its own
    });
    // a stacked lane must fit whole; a lone run may generate its rollouts in chunks, as `train` does
    const budget = opts.memoryFlag !== undefined ? memoryLimit(opts.memoryFlag) : memoryShare(totalmem() / 2 ** 30);
    const rolloutRows = placement.lanes.map((lane) => {
      if (!gpu) return Infinity;
      const s = wave[lane[0]].s, model = modelConfigFor(s.env, s.config);
      if (lane.length === 1) return checkGpuBudget(s.config, model, slotNames(s.env).length, gpu.limits, budget).chunkRows;
      checkStackedBudget(s.config, model, lane.length, gpu.limits, budget);
      return Infinity;
    });
    waves.push({ runs: idx, placement, rolloutRows });
  }
  const widest = Math.max(...waves.map((w) => Math.max(...w.placement.lanes.map((l) => l.length))));
  const atOnce = Math.max(...waves.map((w) => Math.min(w.placement.atOnce, w.placement.lanes.length)));
  return { waves, mode: widest > 1 ? 'stacked-population' : atOnce > 1 ? 'population' : 'sequential', membersAtOnce: widest * atOnce };
}

/**
 * Trains every run where `plan` puts it and returns each one's outcome in the runs' order: a run that stopped with
 * a fault is an outcome, never a stop of the others. `started` as a lane starts, `done` as each run ends.
 */
export async function runLanes(runs: readonly LaneRun[], device: LaneDevice, plan: LanePlan,
  hooks: { started?: (runs: number[]) => void; done?: (run: number, o: MemberOutcome) => void } = {}): Promise<MemberOutcome[]> {
  const out: MemberOutcome[] = new Array(runs.length);
  sayNoResume(runs, plan);
  for (const wave of plan.waves) {
    const lanes = wave.placement.lanes.map((lane) => lane.map((j) => wave.runs[j]));
    await inLanes(lanes.length, wave.placement.atOnce, async (l) => {
      const lane = lanes[l], members = lane.map((i) => runs[i]);
      hooks.started?.(lane);
      let got: MemberOutcome[];
      if ('gpu' in device) {
        // a lone run keeps its changes as given (members named by their index in the plan, for its record)
        const changes = members.length === 1 ? members[0].changes : laneChanges(members);
        const rolloutRows = wave.rolloutRows[l];
        if (Number.isFinite(rolloutRows)) log(`${members[0].label}: the rollouts and evals are generated ${rolloutRows} rows at a time (all at once would not fit this GPU)`);
        try {
          const results = await trainMembers(device.gpu, members.map((r) => ({ s: r.s, out: r.out, warm: r.warm, label: r.label, resume: r.resume })), changes, { quiet: true, rolloutRows });
          got = results.map((r) => ('fault' in r ? { ok: false, kind: 'fault', message: r.fault } : { ok: true, result: r }));
        } catch (e) {
          // the lane stopped (a file it could not write, say): each of its runs failed, the other lanes go on
          const o = failure(e);
          got = members.map(() => o);
        }
      } else {
        const r = members[0]; // the CPU never stacks: one member per lane
        got = [await runThread({ preset: r.preset, overrides: r.overrides, out: r.out, warm: r.warm, changes: r.changes, label: r.label, engine: device.engine, resume: r.resume })];
      }
      got.forEach((o, j) => { out[lane[j]] = o; hooks.done?.(lane[j], o); });
    });
  }
  return out;
}

/** Says before training which runs asked to resume will not (trainMembers saves no state for them), so a kill's cost is known. */
function sayNoResume(runs: readonly LaneRun[], plan: LanePlan): void {
  const stacked = new Set(plan.waves.flatMap((w) => w.placement.lanes.filter((l) => l.length > 1).flatMap((l) => l.map((j) => w.runs[j]))));
  const names = (idx: number[]) => `${idx.length} run${idx.length > 1 ? 's' : ''} (${idx.slice(0, 4).map((i) => runs[i].label).join(', ')}${idx.length > 4 ? ', ...' : ''})`;
  const lost = runs.map((_, i) => i).filter((i) => runs[i].resume && stacked.has(i));
  const curriculum = runs.map((_, i) => i).filter((i) => runs[i].resume && !stacked.has(i) && runs[i].s.env.curriculum);
  if (lost.length) log(`${names(lost)} train stacked on WebGPU, which saves no resume state: after a kill they start over (finished runs are kept)`);
  if (curriculum.length) log(`${names(curriculum)} have a curriculum, whose progress the resume state does not hold: they save no state, and after a kill they start over (finished runs are kept)`);
}

/** A run's result, or why it failed on one line (a fault, a file it could not write, a thread that died): jobRuns.ts's rule. */
export function settled(o: MemberOutcome): TrainResult | { fault: string } {
  if (o.ok) return o.result;
  return { fault: oneLine(o.message) };
}
