// The page's export: one self-extracting Python file per recipe (a browser
// download cannot be a folder, and the recipe's files import each other by
// name, so they must land side by side). `python3 <file> [DIR]` writes them.
// A TRL export of a run with weights also carries policy/ (src/export/policy.ts):
// its text files as text, model.safetensors as base64, written back byte for byte.
import { InputError, quote } from '../contract/errors';
import { py } from './literal';
import type { ExportFile } from './readme';

/** A recipe file (text) or a policy/ file (text or bytes). */
export type BundleFile = ExportFile | { path: string; data: string | Uint8Array };

// a file name, or one folder (no dots, so never "." or "..") and a file name in it
const PATH = /^(?:[A-Za-z0-9_-]{1,100}\/)?[A-Za-z0-9_.-]{1,100}$/;

function base64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export function recipeBundle(files: BundleFile[], folder: string): string {
  // the folder name also lands in the docstring: only the characters fileStem keeps
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(folder)) throw new InputError(`the export folder name must be letters, digits, - and _ (at most 100), got ${quote(folder)}`);
  for (const f of files) if (!PATH.test(f.path) || /(^|\/)\.\.?$/.test(f.path)) throw new InputError(`an exported file name must be letters, digits, ., - and _ (in at most one folder), got ${quote(f.path)}`);
  const texts: [string, string][] = [], blobs: [string, Uint8Array][] = [];
  for (const f of files) {
    const data = 'text' in f ? f.text : f.data;
    if (typeof data === 'string') texts.push([f.path, data]); else blobs.push([f.path, data]);
  }
  const entries = texts.map(([path, text]) => `    ${py(path)}: ${py(text)},`).join('\n');
  const blobEntries = blobs.map(([path, bytes]) => `    ${py(path)}: ${py(base64(bytes))},`).join('\n');
  // every value went through py(), which writes printable ASCII: the bundle is valid UTF-8 whatever the names hold
  return `"""A GSPO Playground export: run \`python3 ${folder}.py [DIR]\` to write its files into DIR (default ${folder}/).

Files: ${files.map((f) => f.path).join(', ')}. Then follow DIR/README.md.
"""
import base64
import os
import sys

FILES = {
${entries}
}

# binary files (the policy's weights), base64
BLOBS = {
${blobEntries}
}

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else ${py(folder)}
    for name in list(FILES) + list(BLOBS):
        os.makedirs(os.path.dirname(os.path.join(out, name)), exist_ok=True)
    for name, text in FILES.items():
        with open(os.path.join(out, name), "w", encoding="utf-8", newline="\\n") as f:
            f.write(text)
    for name, data in BLOBS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(base64.b64decode(data))
    print(f"wrote {len(FILES) + len(BLOBS)} files to {out}/; see {out}/README.md")
`;
}
