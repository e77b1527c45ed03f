// Software WebGPU adapters: the GPU emulated on the CPU (SwiftShader in Chrome and
// Dawn, llvmpipe/lavapipe in Mesa, WARP on Windows). Training there is slower than
// the CPU engine by far, so neither the page nor the CLI picks them by default.

const SOFTWARE = [
  { re: /swiftshader/i, name: 'SwiftShader' },
  { re: /llvmpipe|lavapipe/i, name: 'llvmpipe' },
  { re: /softpipe/i, name: 'softpipe' },
  { re: /\bwarp\b|basic render driver/i, name: 'WARP' },
];

/** The software renderer an adapter description names (or 'a fallback adapter' when the browser flags it so), or null for a hardware GPU. */
export function softwareRenderer(adapter: string, fallback = false): string | null {
  return SOFTWARE.find((s) => s.re.test(adapter))?.name ?? (fallback ? 'a fallback adapter' : null);
}
