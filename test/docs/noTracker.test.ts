// The docs describe the project as it is, for a reader of the repository, who has no issue tracker and was
// not at the sessions that built it: no tracker issue numbers (the word issue and a number, or a hash and a number), no session history ("round
// three", "this session", "the issue's targets"); and the README stays a page a newcomer reads at once.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = [
  'README.md', 'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
];

/** What a tracker or a session's history looks like in prose. */
const PATTERNS: [RegExp, string][] = [
  [/\bissues?\s*#?\d+\b/i, 'a tracker issue number'],
  [/(?<![\w&/#])#\d{2,6}(?![\w-])/, 'a tracker issue number (#N)'],
  [/\bround[- ](one|two|three|four|five|six|seven|eight|nine|ten|\d+)\b/i, 'a session round'],
  [/\b(this|that|the (previous|next|last)) session\b|\bsession's\b/i, 'session history'],
  [/\bthe issue\b|\bthe issue's\b/i, 'a reference to the tracker issue'],
];

/** The prose of a markdown file: fenced code blocks blanked, inline code spans removed (a command may hold #1). */
export function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) { fenced = !fenced; return ''; }
    return fenced ? '' : line.replace(/`[^`]*`/g, '');
  });
}

export function trackerMentions(file: string, text: string): string[] {
  const out: string[] = [];
  proseLines(text).forEach((line, i) => {
    for (const [re, what] of PATTERNS) {
      const m = re.exec(line);
      if (m) { out.push(`${file}:${i + 1}: ${what}: "${m[0]}" in: ${line.trim().slice(0, 120)}`); break; }
    }
  });
  return out;
}

describe('the docs mention no tracker and no session history', () => {
  it('finds what it looks for, and not in code or in words that merely look alike', () => {
    const hits = (s: string) => trackerMentions('README.md', s).length;
    const n = 44; // the examples are built, so this file holds no tracker number itself
    for (const s of [`as issue ${n} asked`, `see issue #${n - 32}`, `(#${n})`, 'Dispatches per step, round three', 'round-two row',
      'measured at the end of this session', 'the issue\'s targets']) expect(hits(s), s).toBe(1);
    for (const s of ['rounded up to 8', 'each round every philosopher acts', 'refill round r', 'round(frac x P)',
      'a colour #fff', '`git show #44`', `\`\`\`\nissue ${n}\n\`\`\``, 'the page issues a read', 'a sessionSlice', 'first round only']) {
      expect(hits(s), s).toBe(0);
    }
  });

  it('in README.md, CHANGELOG.md and docs/', () => {
    const found = DOCS.flatMap((f) => {
      let text: string;
      try { text = readFileSync(join(ROOT, f), 'utf8'); } catch { return []; }
      return trackerMentions(f, text);
    });
    expect(found).toEqual([]);
  });
});

describe('the README', () => {
  it('is a page a newcomer reads at once: at most 170 lines', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(170);
  });

  it('has the two commands, a picture that exists, and a map whose links all exist', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(text).toContain('npm install && npm run dev');
    expect(text).toContain('npm test');
    const links = [...text.matchAll(/\]\(([^)#\s]+)\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.some((l) => l.startsWith('docs/images/'))).toBe(true);
    for (const l of links) expect(() => readFileSync(join(ROOT, l)), l).not.toThrow();
  });
});
