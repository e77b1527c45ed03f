// Chromium's command line for the browser tests and scripts/startTime.ts: without a GPU (the CPU engine trains, as
// on most first visits), or with SwiftShader's WebGPU (a machine whose only adapter is a software one). No vitest here,
// so a plain script can import it.

const QUIET = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
/** WebGPU on SwiftShader (Chromium's CPU Vulkan). */
const WEBGPU = ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-angle=swiftshader', '--use-vulkan=swiftshader'];

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function chromiumArgs(gpu: 'none' | 'swiftshader'): string[] {
  return [...(gpu === 'none' ? ['--disable-gpu'] : WEBGPU), ...QUIET];
}
