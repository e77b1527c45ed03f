// `bench --compare --backend reference,cpu[,webgpu]`: the --compare cases on several engines in one
// process, one after the other, and PyTorch once beside them on the CPU at a set thread count,
// in one side-by-side table: ms per step, GFLOP/s, and the ratios of the ms columns
// (docs/speed.md, "Several engines side by side").
import type { Backend } from '../../backend';
import { InputError } from '../../contract/errors';
import { backendFlagValue } from '../args';
import { BACKEND_CHOICES, checkBackendFlag, cpuEngine, log, webgpuBackend, type BackendChoice } from '../io';
import { compareTorch, formatCompare, measureEngine, type CompareOptions, type CompareResult, type TorchCompare } from './benchCompare';
import { fmt, table } from './benchTable';

/**
 * `--backend a,b,...` as a list of engines (the code's names, io.ts BackendChoice); throws naming the flag for an
 * unknown, empty or repeated item. The names are every command's (reference, cpu, webgpu). A list that holds `wasm`
 * is in bench's old names, where cpu was the reference: `cpu,wasm` is read as reference,cpu, and `note` says so.
 */
export function parseEngineList(flag: string, note: (line: string) => void = (l) => log(`notice: ${l}`)): BackendChoice[] {
  const items = flag.split(',').map((s) => s.trim());
  for (const it of items) if (it === '') throw new InputError(`bench: --backend "${flag}" has an empty item; give engines separated by commas, e.g. reference,cpu`);
  const old = items.includes('wasm');
  const engines = items.map((it) => (old && it === 'cpu' ? 'reference' : it === 'wasm' ? 'cpu' : it));
  if (old) note(`--backend ${flag} is in the old names (wasm is now called cpu, the CPU engine; cpu was the reference): read as ${engines.join(',')}`);
  const code = engines.map((it) => {
    const c = backendFlagValue(it);
    try { checkBackendFlag(c); } catch { throw new InputError(`bench: each engine of --backend must be ${BACKEND_CHOICES}, got "${it}" in "${flag}"`); }
    return c;
  });
  const dup = engines.find((it, i) => engines.indexOf(it) !== i);
  if (dup) throw new InputError(`bench: --backend names ${dup} twice in "${flag}"`);
  return code;
}

export interface SideRow {
  case: string; model: string; P: number; G: number;
  /** GFLOP of the step as the first engine ran it (src/model/flops.ts); PyTorch was given that engine's shapes. */
  flops: number;
  ms: Record<string, number>; gflops: Record<string, number>;
  /** Quotients of two ms columns: `cpu/E` (the reference's ms over E's) and `E/torch` (E's ms over PyTorch's). */
  ratios: Record<string, number>;
}

export interface EnginesResult {
  engines: string[]; threads: number;
  /** Engines asked for but not measured, with the reason (WebGPU without an adapter). */
  skipped: { engine: string; reason: string }[];
  results: CompareResult[]; torch: TorchCompare; rows: SideRow[];
}

/** The side-by-side rows from each engine's results and PyTorch's, by case (every engine runs the same cases). */
export function sideRows(results: CompareResult[], torch: TorchCompare): SideRow[] {
  const names = results.map((r) => r.backend);
  return results[0].cases.map((c0, i) => {
    const ms: Record<string, number> = {}, gflops: Record<string, number> = {}, ratios: Record<string, number> = {};
    for (const r of results) { ms[r.backend] = r.cases[i].ms; gflops[r.backend] = r.cases[i].gflops; }
    const t = torch.results.find((x) => x.case === c0.name);
    if (t?.ms !== undefined) { ms.torch = t.ms; gflops.torch = c0.flops / t.ms / 1e6; }
    if (names.includes('reference')) for (const n of names) if (n !== 'reference') ratios[`reference/${n}`] = ms.reference / ms[n];
    if (ms.torch !== undefined) for (const n of names) ratios[`${n}/torch`] = ms[n] / ms.torch;
    return { case: c0.name, model: c0.model, P: c0.P, G: c0.G, flops: c0.flops, ms, gflops, ratios };
  });
}

async function open(engine: BackendChoice, quick: boolean): Promise<{ backend: Backend | null; reason: string }> {
  if (engine !== 'webgpu') return { backend: cpuEngine(engine), reason: '' };
  const r = await webgpuBackend();
  const info = (r.backend as { adapterInfo?: string } | null)?.adapterInfo ?? '';
  // Dawn falls back to a CPU renderer where there is no GPU: not GPU speed, and hours at the full sizes
  if (r.backend && !quick && /swiftshader|llvmpipe|lavapipe/i.test(info)) {
    r.backend.destroy();
    return { backend: null, reason: `the adapter is a CPU renderer (${info}), not a GPU; --quick measures it anyway` };
  }
  return r;
}

export async function benchEngines(engines: BackendChoice[], opts: CompareOptions): Promise<EnginesResult> {
  const results: CompareResult[] = [], skipped: EnginesResult['skipped'] = [];
  for (const e of engines) {
    const { backend, reason } = await open(e, opts.quick);
    // "where present": a run that lists webgpu still measures the CPU engines on a machine without a GPU
    if (!backend) { log(`notice: webgpu not measured (${reason}); bench --compare goes on without it`); skipped.push({ engine: e, reason }); continue; }
    try { results.push(await measureEngine(backend, opts.quick)); } finally { backend.destroy(); }
  }
  const threads = opts.threads ?? 1;
  // PyTorch at the shapes of the first CPU engine's steps (a list holds at least one: two distinct engines)
  const shapes = results.find((r) => r.backend !== 'webgpu') ?? results[0];
  const torch = compareTorch(shapes.cases, opts, { device: 'cpu', threads });
  const ordered = [shapes, ...results.filter((r) => r !== shapes)];
  return { engines: results.map((r) => r.backend), threads, skipped, results, torch, rows: sideRows(ordered, torch) };
}


const WHAT: Record<string, string> = { reference: 'the plain TypeScript reference', cpu: 'the CPU engine (WebAssembly SIMD)', webgpu: 'WebGPU' };

export function formatEngines(r: EnginesResult): string {
  let out = r.results.map((x) => formatCompare(x)).join('\n');
  for (const s of r.skipped) out += `\n${s.engine}: not measured (${s.reason})\n`;
  out += '\npopulation: not run beside several engines (bench --compare --backend ENGINE runs it for one)\n';
  // every row's columns (a PyTorch case that failed leaves a dash in its row, not a missing column)
  const names = [...new Set(r.rows.flatMap((x) => Object.keys(x.ms)))];
  const ratioNames = [...new Set(r.rows.flatMap((x) => Object.keys(x.ratios)))];
  const cpuSide = r.engines.filter((n) => n !== 'webgpu').map((n) => `${n} = ${WHAT[n]}`).join(', ');
  const first = r.torch.results.find((x) => x.result)?.result;
  const w = r.results[0]?.cases[0]?.warmup ?? 1;
  out += `\nRL step side by side, mean of ${r.results[0]?.cases[0]?.steps ?? 0} step(s) after ${w === 1 ? 'a warm-up' : `${w} warm-up steps`}: ${cpuSide}, on 1 thread each`
    + (r.engines.includes('webgpu') ? `; webgpu = ${r.results.find((x) => x.backend === 'webgpu')?.device}` : '')
    + (r.torch.available ? `; torch = PyTorch ${r.torch.version} on the CPU, ${first?.threads ?? r.threads} thread(s) (torch.set_num_threads(${r.threads}))\n` : '\n');
  out += table(
    ['case', 'model', 'P x G', 'GFLOP/step', ...names.map((n) => `${n} ms`), ...names.map((n) => `${n} GFLOP/s`), ...ratioNames],
    r.rows.map((row) => [
      row.case, row.model, `${row.P} x ${row.G}`, fmt(row.flops / 1e9, 3),
      ...names.map((n) => fmt(row.ms[n])), ...names.map((n) => fmt(row.gflops[n], 2)),
      ...ratioNames.map((k) => (row.ratios[k] === undefined ? '-' : `${row.ratios[k].toFixed(2)}x`)),
    ]),
  );
  out += '(ratios divide the ms columns: reference/E = the reference\'s ms over E\'s, how many times faster E is; E/torch = E\'s ms over PyTorch\'s, above 1 where PyTorch is faster)\n';
  if (!r.torch.available) out += `PyTorch: not compared (${r.torch.reason})\n`;
  else {
    out += `PyTorch: ${r.torch.python}; generation there: ${first?.generation_path ?? '-'}; BLAS: ${first?.blas ?? r.torch.blas ?? 'unknown'}\n`;
    for (const t of r.torch.results) if (t.error) out += `PyTorch ${t.case}: error: ${t.error}\n`;
  }
  return out;
}
