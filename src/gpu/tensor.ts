// A tensor on the GPU: a window of a GPUBuffer. Views share the buffer of their base.
import type { DType, Tensor } from '../backend';

export class GpuTensor implements Tensor {
  constructor(
    readonly buffer: GPUBuffer,
    readonly byteOffset: number, // multiple of 256 (minStorageBufferOffsetAlignment)
    readonly size: number, // elements
    readonly dtype: DType,
    readonly isView: boolean,
  ) {}

  get byteLength(): number {
    return this.size * 4;
  }
}

export function asGpu(t: Tensor): GpuTensor {
  if (!(t instanceof GpuTensor)) throw new Error('WebGpuBackend: tensor does not belong to a WebGPU backend');
  return t;
}
