// Software WebGPU adapters: the GPU emulated on the CPU (SwiftShader in
// Chrome, llvmpipe/lavapipe in Mesa, WARP on Windows). Training there is
// usually slower than the plain CPU backend, so the page says so.
const SOFTWARE = [
  { re: /swiftshader/i, name: 'SwiftShader' },
  { re: /llvmpipe|lavapipe/i, name: 'llvmpipe' },
  { re: /softpipe/i, name: 'softpipe' },
  { re: /\bwarp\b|basic render driver/i, name: 'WARP' },
];

/** The software renderer an adapter description names, or null for a hardware GPU. */
export function softwareRenderer(adapter: string): string | null {
  return SOFTWARE.find((s) => s.re.test(adapter))?.name ?? null;
}
