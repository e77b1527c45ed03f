// Shader sources for the browser build: every shaders/*.wgsl inlined by Vite,
// keyed by file name without extension (what WebGpuBackend.create expects).
const modules = import.meta.glob('../../shaders/*.wgsl', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

export const shaders: Record<string, string> = Object.fromEntries(
  Object.entries(modules).map(([path, code]) => [path.slice(path.lastIndexOf('/') + 1, -'.wgsl'.length), code]),
);
