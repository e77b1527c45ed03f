// Kernel, CPU twin and test name each other: every shader's header names its CPU twin(s) and its parity
// test, and each of those files names the shader back, so any one of the three leads to the other two in
// one hop. A new shader without the line, or a renamed file, fails here.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
/** The leading comment block of a file (its header). */
const header = (text: string) => text.split('\n').filter((_, i, ls) => ls.slice(0, i + 1).every((l) => l.startsWith('//'))).join('\n');

describe('kernel, CPU twin and test', () => {
  const shaders = readdirSync(join(ROOT, 'shaders')).filter((f) => f.endsWith('.wgsl'));
  it('there are shaders to check', () => expect(shaders.length).toBeGreaterThan(5));
  for (const f of shaders) {
    it(`shaders/${f} <-> its CPU twin <-> its test`, () => {
      const h = header(read(`shaders/${f}`));
      const line = /CPU twins?: ([^;]+); tests?: (.+)$/m.exec(h);
      expect(line, `shaders/${f}: its header lacks "CPU twin: ...; test: ..."`).not.toBeNull();
      const twins = line![1].split(',').map((s) => s.trim()), tests = line![2].split(',').map((s) => s.trim().replace(/\.$/, ''));
      for (const p of [...twins, ...tests]) expect(existsSync(join(ROOT, p)), `shaders/${f} names ${p}, which does not exist`).toBe(true);
      for (const t of twins) expect(header(read(t)), `${t} does not name shaders/${f} in its header`).toContain(`shaders/${f}`);
      for (const t of tests) {
        const th = header(read(t));
        expect(th, `${t} does not name shaders/${f} in its header`).toContain(`shaders/${f}`);
        expect(twins.some((w) => th.includes(w)), `${t} names none of ${twins.join(', ')} in its header`).toBe(true);
      }
    });
  }
  it('the check can fail: a header without the line is caught', () => {
    expect(/CPU twins?: ([^;]+); tests?: /.exec(header('// a kernel\n// no twin named\nfn main() {}'))).toBeNull();
  });
});
