// Compute pipelines, created once per (shader module, entry point, override constants).
// Shader sources are injected (module name -> WGSL text, its parts joined: shaderModules.ts) so the
// same code runs under Vite in the browser and under Node.
// `prepare` creates the variants a backend will use up front, asynchronously and inside error
// scopes, so a pipeline a browser's compiler rejects is known (by name) before a run starts and the
// first step does not stall compiling; `get` still creates anything else on first use.
import { sourceLine } from './shaderModules';

export interface PipelineVariant {
  shader: string;
  entry: string;
  constants?: Record<string, number>;
}

export interface PipelineFailure {
  key: string; // shader:entry:constants
  message: string;
}

/** The cache key; constants in name order, so callers may list them in any order. */
export function pipelineKey(shader: string, entry: string, constants?: Record<string, number>): string {
  if (!constants) return `${shader}:${entry}`;
  const sorted = Object.fromEntries(Object.entries(constants).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return `${shader}:${entry}:${JSON.stringify(sorted)}`;
}

export class PipelineCache {
  private readonly modules = new Map<string, GPUShaderModule>();
  private readonly pipelines = new Map<string, GPUComputePipeline>();

  constructor(
    private readonly device: GPUDevice,
    private readonly shaders: Record<string, string>,
  ) {}

  private readonly readOnly = new Map<string, ReadonlySet<number>>();

  /** The module's `var<storage, read>` binding numbers (the WGSL access mode decides the 'auto' layout's). */
  readOnlyBindings(shader: string): ReadonlySet<number> {
    let set = this.readOnly.get(shader);
    if (!set) {
      const code = (this.shaders[shader] ?? '').replace(/\/\/.*$/gm, '');
      set = new Set([...code.matchAll(/@binding\((\d+)\)\s*var<storage\s*,\s*read\s*>/g)].map((m) => Number(m[1])));
      this.readOnly.set(shader, set);
    }
    return set;
  }

  module(shader: string): GPUShaderModule {
    let m = this.modules.get(shader);
    if (!m) {
      const code = this.shaders[shader];
      if (code === undefined) throw new Error(`WebGPU: no shader source '${shader}.wgsl' was provided`);
      m = this.device.createShaderModule({ code, label: shader });
      this.modules.set(shader, m);
    }
    return m;
  }

  /** Compiles every shader and throws with the compiler's messages if any has an error. */
  async checkAll(): Promise<void> {
    const problems: string[] = [];
    for (const name of Object.keys(this.shaders)) {
      const info = await this.module(name).getCompilationInfo();
      for (const msg of info.messages) {
        if (msg.type !== 'error') continue;
        const at = sourceLine(name, this.shaders[name], msg.lineNum); // the file of a module's part, not the joined text's line
        problems.push(`${at.file}:${at.line}:${msg.linePos}: ${msg.message}`);
      }
    }
    if (problems.length > 0) throw new Error(`WGSL compilation failed:\n${problems.join('\n')}`);
  }

  private descriptor(shader: string, entry: string, key: string, constants?: Record<string, number>): GPUComputePipelineDescriptor {
    return {
      layout: 'auto',
      // (constants: undefined crashes Dawn's Node binding; leave the key out instead)
      compute: constants ? { module: this.module(shader), entryPoint: entry, constants } : { module: this.module(shader), entryPoint: entry },
      label: key,
    };
  }

  /** Pipelines created on first use (not by `prepare`): a variant the prepared list missed. */
  lateCreated = 0;

  get(shader: string, entry: string, constants?: Record<string, number>): { pipeline: GPUComputePipeline; key: string } {
    const key = pipelineKey(shader, entry, constants);
    let pipeline = this.pipelines.get(key);
    if (!pipeline) {
      pipeline = this.device.createComputePipeline(this.descriptor(shader, entry, key, constants));
      this.pipelines.set(key, pipeline);
      this.lateCreated++;
    }
    return { pipeline, key };
  }

  /**
   * Creates every variant with createComputePipelineAsync, each inside validation and internal error
   * scopes (a rejected promise and a scoped error both count), all in flight at once. Returns the
   * failures, each naming its pipeline; the others are cached for `get`.
   */
  async prepare(variants: readonly PipelineVariant[]): Promise<PipelineFailure[]> {
    const failures: PipelineFailure[] = [];
    const pending: Promise<void>[] = [];
    for (const { shader, entry, constants } of variants) {
      const key = pipelineKey(shader, entry, constants);
      if (this.pipelines.has(key)) continue;
      const fail = (message: string) => { failures.push({ key, message }); };
      let descriptor: GPUComputePipelineDescriptor;
      try {
        descriptor = this.descriptor(shader, entry, key, constants);
      } catch (e) {
        fail((e as Error).message);
        continue;
      }
      // push, create, pop with no await between: the scopes hold exactly this pipeline's errors
      this.device.pushErrorScope('validation');
      this.device.pushErrorScope('internal');
      const created = this.device.createComputePipelineAsync(descriptor);
      const internal = this.device.popErrorScope();
      const validation = this.device.popErrorScope();
      pending.push((async () => {
        let pipeline: GPUComputePipeline | null = null;
        try {
          pipeline = await created;
        } catch (e) {
          fail((e as Error).message);
        }
        for (const error of [await validation, await internal]) if (error) fail(error.message);
        if (pipeline && !failures.some((f) => f.key === key)) this.pipelines.set(key, pipeline);
      })());
    }
    await Promise.all(pending);
    return failures;
  }

  get size(): number {
    return this.pipelines.size;
  }
}
