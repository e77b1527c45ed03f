// Shader sources for the browser build: every shaders/*.wgsl inlined by Vite, a module's parts joined
// (shaderModules.ts), keyed by module name (what WebGpuBackend.create expects).
import { composeModules } from './shaderModules';

const files = import.meta.glob('../../shaders/*.wgsl', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

export const shaders: Record<string, string> = composeModules(Object.fromEntries(
  Object.entries(files).map(([path, code]) => [path.slice(path.lastIndexOf('/') + 1, -'.wgsl'.length), code]),
));
