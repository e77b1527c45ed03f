// Every user string that goes into a file is escaped for that file's format (src/store/textFormats.ts, one function per
// format): a run's name in LIVE_CHANGES.md with raw HTML, markdown or a newline cannot start new structure (it came
// through as is: a heading of its own, an <img onerror>), a path in robustness.md's command cannot close its block.
import { describe, expect, it } from 'vitest';
import { presetConfig, findPreset } from '../../src/envs/presets';
import { liveChangesNote } from '../../src/store/runsSlice';
import { csvField, htmlText, markdownCodeBlock, markdownText, yamlString } from '../../src/store/textFormats';
import { pyString } from '../../src/export/literal';
import { robustnessMarkdown } from '../../src/cli/commands/robustness';

const config = presetConfig(findPreset('relay-silence'));
const note = (name: string) => liveChangesNote({ name, config, changes: [{ step: 10, field: 'lambdaTok', value: 0.2 }] })!.text;

describe('LIVE_CHANGES.md with a hostile run name', () => {
  const hostile = 'evil <img src=x onerror=alert(1)>\n# Owned\r\n| a | b |\u2028**bold** [link](http://x) `code` _e_\n- item\n> quote';
  it('the name stays inside its heading: the same lines as a plain name\'s, no raw tag, no new heading, row or list', () => {
    const text = note(hostile), plain = note('plain');
    const lines = text.split('\n');
    expect(lines.length).toBe(plain.split('\n').length);
    expect(lines.slice(1)).toEqual(plain.split('\n').slice(1));
    expect(lines[0].startsWith('# Live changes of "')).toBe(true);
    expect(text).not.toContain('<img');
    expect(text).not.toMatch(/[^\\]\*\*bold/);
    expect(lines.filter((l) => l.startsWith('#'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('|'))).toHaveLength(3);
    expect(lines[0]).toBe('# Live changes of "evil &lt;img src=x onerror=alert\\(1\\)&gt; \\# Owned \\| a \\| b \\| \\*\\*bold\\*\\* \\[link\\]\\(http://x\\) \\`code\\` \\_e\\_ - item &gt; quote"');
  });
  it('the table keeps its numbers as they are', () => expect(note('x')).toContain('| 11 | lambdaTok | 0.1 | 0.2 |'));
});

describe('one function per format', () => {
  it('markdown: one line, no raw HTML, a list marker at the start escaped', () => {
    expect(markdownText('a\nb\rc\u2028d\u0085e')).toBe('a b c d e');
    expect(markdownText('- x')).toBe('\\- x');
    expect(markdownText('1. x')).toBe('1\\. x');
    expect(markdownText('<b>&')).toBe('&lt;b&gt;&amp;');
    expect(markdownText('0.25')).toBe('0.25');
  });
  it('a markdown code block cannot be closed by the text inside', () => {
    const b = markdownCodeBlock("run --doc 'a\n```\n# x'", 'sh');
    expect(b.startsWith('````sh\n')).toBe(true);
    expect(b.endsWith('\n````')).toBe(true);
    const md = robustnessMarkdown([], "npm run gspo -- robustness --doc 'x\n```\n# Owned'", NaN);
    expect(md).toContain("````sh\nnpm run gspo -- robustness --doc 'x\n```\n# Owned'\n````");
  });
  it('HTML', () => expect(htmlText(`<img src="x" onerror='y'>&`)).toBe('&lt;img src=&quot;x&quot; onerror=&#39;y&#39;&gt;&amp;'));
  it('CSV: a newline, comma or quote stays in its field; no formula', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('a\nb')).toBe('"a\nb"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField(0.5)).toBe('0.5');
  });
  it('Python and YAML: one string literal whatever it holds', () => {
    expect(pyString('a"\n\\')).toBe('"a\\"\\x0a\\\\"');
    expect(yamlString('a: "b"\n- c\u2028')).toBe('"a: \\"b\\"\\n- c\\u2028"');
  });
});
