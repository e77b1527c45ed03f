// The page's export: one self-extracting Python file per recipe (a browser
// download cannot be a folder, and the recipe's files import each other by
// name, so they must land side by side). `python3 <file> [DIR]` writes them.
import { InputError, quote } from '../errors';
import { py } from './literal';
import type { ExportFile } from './readme';

export function recipeBundle(files: ExportFile[], folder: string): string {
  // the folder name also lands in the docstring: only the characters fileStem keeps
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(folder)) throw new InputError(`the export folder name must be letters, digits, - and _ (at most 100), got ${quote(folder)}`);
  for (const f of files) if (!/^[A-Za-z0-9_.-]{1,100}$/.test(f.path)) throw new InputError(`an exported file name must be letters, digits, ., - and _, got ${quote(f.path)}`);
  const entries = files.map((f) => `    ${py(f.path)}: ${py(f.text)},`).join('\n');
  // every value went through py(), which writes printable ASCII: the bundle is valid UTF-8 whatever the names hold
  return `"""A GSPO Playground export: run \`python3 ${folder}.py [DIR]\` to write its files into DIR (default ${folder}/).

Files: ${files.map((f) => f.path).join(', ')}. Then follow DIR/README.md.
"""
import os
import sys

FILES = {
${entries}
}

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else ${py(folder)}
    os.makedirs(out, exist_ok=True)
    for name, text in FILES.items():
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write(text)
    print(f"wrote {len(FILES)} files to {out}/; see {out}/README.md")
`;
}
