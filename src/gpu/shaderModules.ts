// A WGSL module may span files, so that no file holds more than one thing a reader names: shaders/<module>.wgsl
// holds what its parts share (params, bindings, helpers) and each shaders/<module>.<part>.wgsl some of its entry
// points. The module is one text (one GPUShaderModule, its pipelines found by module and entry point as before):
// the base file, then its parts in name order, each after a marker line naming its file. WGSL's module-scope
// declarations may come in any order, so the order only fixes the line numbers, which sourceLine maps back.

/** The marker line before each part's text in a composed module. */
const PART_MARK = '// ---- part: ';

/**
 * Modules from files (a file name without .wgsl -> its text): `name.wgsl` alone is module `name`; `name.part.wgsl`
 * is appended to module `name`. A part without its base file is an error (it would be a module of its own).
 */
export function composeModules(files: Record<string, string>): Record<string, string> {
  const modules: Record<string, string> = {};
  const bases = Object.keys(files).filter((f) => !f.includes('.')).sort();
  for (const base of bases) {
    const parts = Object.keys(files).filter((f) => f.startsWith(`${base}.`)).sort();
    modules[base] = [files[base], ...parts.map((f) => `${PART_MARK}${f}.wgsl\n${files[f]}`)].join('\n');
  }
  const orphans = Object.keys(files).filter((f) => f.includes('.') && !(f.slice(0, f.indexOf('.')) in modules));
  if (orphans.length > 0) throw new Error(`WGSL parts without their module's base file: ${orphans.map((f) => `${f}.wgsl`).join(', ')}`);
  return modules;
}

/** The file and line (1-based) of line `line` of module `name`'s composed text (compiler messages count in it). */
export function sourceLine(name: string, code: string, line: number): { file: string; line: number } {
  const lines = code.split('\n');
  let file = `${name}.wgsl`, start = 0;
  for (let i = 0; i < Math.min(line - 1, lines.length); i++) {
    if (lines[i].startsWith(PART_MARK)) { file = lines[i].slice(PART_MARK.length); start = i + 1; }
  }
  return { file, line: line - start };
}
