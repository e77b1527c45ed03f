// Compute pipelines, created once per (shader file, entry point, override constants).
// Shader sources are injected (file name without extension -> WGSL text) so the
// same code runs under Vite in the browser and under Node.

export class PipelineCache {
  private readonly modules = new Map<string, GPUShaderModule>();
  private readonly pipelines = new Map<string, GPUComputePipeline>();

  constructor(
    private readonly device: GPUDevice,
    private readonly shaders: Record<string, string>,
  ) {}

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
        if (msg.type === 'error') problems.push(`${name}.wgsl:${msg.lineNum}:${msg.linePos}: ${msg.message}`);
      }
    }
    if (problems.length > 0) throw new Error(`WGSL compilation failed:\n${problems.join('\n')}`);
  }

  get(shader: string, entry: string, constants?: Record<string, number>): { pipeline: GPUComputePipeline; key: string } {
    const key = constants ? `${shader}:${entry}:${JSON.stringify(constants)}` : `${shader}:${entry}`;
    let pipeline = this.pipelines.get(key);
    if (!pipeline) {
      pipeline = this.device.createComputePipeline({
        layout: 'auto',
        // (constants: undefined crashes Dawn's Node binding; leave the key out instead)
        compute: constants ? { module: this.module(shader), entryPoint: entry, constants } : { module: this.module(shader), entryPoint: entry },
        label: key,
      });
      this.pipelines.set(key, pipeline);
    }
    return { pipeline, key };
  }

  get size(): number {
    return this.pipelines.size;
  }
}
