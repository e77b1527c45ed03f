// Flag parsing for the CLI: every flag is declared; an unknown or malformed one is an InputError.
import { parseDecimal } from '../config';
import { clip, hasKey, InputError } from '../contract/errors';

export type FlagKind = 'string' | 'int' | 'number' | 'bool' | 'list';
export type FlagSpec = Record<string, { kind: FlagKind; help: string }>;
export type Flags = Record<string, string | number | boolean | string[]>;

export function parseFlags(argv: string[], spec: FlagSpec, command: string): Flags {
  const out: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new InputError(`${command}: unexpected argument "${clip(arg)}" (flags start with --)`);
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    const s = hasKey(spec, name) ? spec[name] : undefined;
    if (!s) throw new InputError(`${command}: unknown flag --${clip(name)} (known: ${Object.keys(spec).map((k) => '--' + k).join(', ')})`);
    // given twice, one value would silently win: refused (list flags are the ones meant to repeat)
    if (s.kind !== 'list' && hasKey(out, name)) throw new InputError(`${command}: --${name} is given more than once`);
    if (s.kind === 'bool' && eq < 0) { out[name] = true; continue; }
    const raw = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (raw === undefined || (eq < 0 && raw.startsWith('--'))) throw new InputError(`${command}: --${name} needs a value`);
    if (s.kind === 'int' || s.kind === 'number') {
      const v = parseDecimal(raw) ?? NaN;
      if (!Number.isFinite(v) || (s.kind === 'int' && !Number.isInteger(v))) {
        throw new InputError(`${command}: --${name} must be ${s.kind === 'int' ? 'an integer' : 'a number'}, got "${clip(raw)}"`);
      }
      out[name] = v;
    } else if (s.kind === 'list') {
      out[name] = [...((out[name] as string[]) ?? []), raw];
    } else if (s.kind === 'bool') {
      if (raw !== 'true' && raw !== 'false') throw new InputError(`${command}: --${name} must be true or false, got "${clip(raw)}"`);
      out[name] = raw === 'true';
    } else if (name === 'backend') {
      // bench --compare takes a list of engines: it translates each item itself (benchEngines.ts parseEngineList)
      if (!raw.includes(',')) { const note = oldEngineName(raw); if (note) process.stderr.write(`notice: ${note}\n`); }
      out[name] = raw.includes(',') ? raw : backendFlagValue(raw);
    } else out[name] = raw;
  }
  return out;
}

/**
 * Every command names the engines the same way, in its flags, its output and its JSON: `cpu` the CPU engine
 * (WebAssembly SIMD), `reference` the plain TypeScript reference, `webgpu`. The code's own names (Backend.name)
 * differ for the first two: 'wasm' and 'cpu'. engineName turns a code name into the one a person reads.
 */
export function engineName(codeName: string): string {
  return codeName === 'wasm' ? 'cpu' : codeName === 'cpu' ? 'reference' : codeName;
}

/** The line said when --backend gets an engine's old name (null for a current one). */
export function oldEngineName(raw: string): string | null {
  return raw === 'wasm' ? '--backend wasm: wasm is now called cpu (the CPU engine)' : null;
}

/**
 * The --backend a person types, as the code names it: `cpu` (or its old name `wasm`) is the CPU engine (WebAssembly
 * SIMD), internally 'wasm'; `reference` is the plain TypeScript reference, internally 'cpu' (the names its files and
 * summaries carry); `webgpu` stays. Anything else is left for the command's check to refuse.
 */
export function backendFlagValue(raw: string): string {
  return raw === 'cpu' || raw === 'wasm' ? 'wasm' : raw === 'reference' ? 'cpu' : raw;
}

export function requireFlag(flags: Flags, name: string, command: string): string {
  const v = flags[name];
  if (v === undefined || v === '') throw new InputError(`${command}: --${name} is required`);
  return String(v);
}

/** "1,5,7" -> [1,5,7]; each entry must be an integer token id in [0, V) and the count <= blockSize. */
export function parseTokens(text: string, vocabSize: number, blockSize: number): number[] {
  const parts = text.split(',').map((s) => s.trim());
  if (parts.length === 0 || parts.some((p) => p === '')) throw new InputError(`--tokens must be comma-separated token ids, got "${clip(text)}"`);
  const tokens = parts.map((p, i) => {
    if (!/^-?\d+$/.test(p)) throw new InputError(`--tokens: entry ${i} ("${clip(p)}") is not an integer`);
    const t = Number(p);
    if (t < 0 || t >= vocabSize) throw new InputError(`--tokens: entry ${i} (${t}) is outside the vocabulary [0, ${vocabSize})`);
    return t;
  });
  if (tokens.length > blockSize) throw new InputError(`--tokens: ${tokens.length} tokens is more than block_size ${blockSize}`);
  return tokens;
}

/**
 * `--threads N` for every command: the CPU engine's threads (default every core, capped: io.ts wasmThreads). It is
 * taken out before the command's own flags and set as GSPO_THREADS, which the engine and every member thread read.
 */
export function takeThreads(argv: string[], env: Record<string, string | undefined>, check: (env: Record<string, string | undefined>) => unknown): string[] {
  const out: string[] = [];
  let seen = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a !== '--threads' && !a.startsWith('--threads=')) { out.push(a); continue; }
    if (seen) throw new InputError('--threads is given more than once');
    seen = true;
    const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
    if (v === undefined || v.startsWith('--')) throw new InputError('--threads needs a value (the CPU engine\'s threads, e.g. --threads 4)');
    env.GSPO_THREADS = v;
    check(env); // checked now: one line naming it, before anything runs
  }
  return out;
}

