// One escaping function per file format a user string can go into: a run's name (typed on the page, or
// imported), a path, a flag's text. Every writer of such a file uses these, so no string can start new structure
// there: markdown and HTML get no raw tags, a newline in markdown cannot begin a heading or a table row, a CSV
// field cannot end its row or start a formula, a Python or YAML string cannot end its quotes.
// (Python and shell: src/export/literal.ts `pyString`, `shellWord`, the export's one way a string enters code.)

// every line break a renderer may honour (CR, LF, VT, FF, NEL, LS, PS) and the other control characters
const BREAKS = /[\r\n\v\f\u0085\u2028\u2029]+/g;
const CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f]/g;

/** HTML text or a quoted attribute value: & < > " ' as entities. */
export function htmlText(s: string): string {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * Markdown inline text on one line (a heading, a table cell, a list item): line breaks and control characters
 * become a space, < > & are entities (no raw HTML), and the punctuation that makes structure inline (emphasis,
 * links, images, code spans, table cells, headings, strikethrough) is backslash-escaped, as is a list or
 * block-quote marker at the start; numbers such as 0.1 read as they are.
 */
export function markdownText(s: string): string {
  return String(s).replace(BREAKS, ' ').replace(CONTROLS, ' ')
    .replace(/[\\`*_{}[\]()#|~!]/g, (c) => '\\' + c)
    .replace(/^(\s*)([-+=])(?=\s|$)/, '$1\\$2').replace(/^(\s*\d+)([.)])(?=\s|$)/, '$1\\$2')
    .replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
}

/** A fenced markdown code block holding `text` as is: the fence is longer than any run of backticks in it. */
export function markdownCodeBlock(text: string, lang = ''): string {
  const longest = Math.max(0, ...(String(text).match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${String(text).replace(CONTROLS, ' ')}\n${fence}`;
}

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break (inside quotes those are data,
 * so a newline cannot end the row), quotes doubled; a field a spreadsheet would run as a formula (= + - @, tab, CR
 * first) gets a leading apostrophe.
 */
export function csvField(s: string | number): string {
  if (typeof s === 'number') return String(s);
  let v = String(s).replace(CONTROLS, ' ');
  if (/^[=+\-@\t\r]/.test(v)) v = `'${v}`;
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** A YAML double-quoted scalar: backslash, quote, line breaks and non-printable characters escaped, so it stays one value. */
export function yamlString(s: string): string {
  let out = '"';
  for (const ch of String(s)) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f) || c === 0x2028 || c === 0x2029 || (c >= 0xd800 && c <= 0xdfff) || c === 0xfeff) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}
