"""Reads exported files the way Python and bash do, independently of the TypeScript that wrote them.

stdin: JSON [{"path": ..., "text": ...}] -> stdout: JSON [{"top": [...], "error": str|null}], one per file:
  .py: every top-level statement as "import x" / "from x import a, b" / "def f" / "class C" / "assign NAME" / "if" / other
       (ast.parse; a syntax error is reported as the error);
  .sh: every command substitution or backtick the shell would run outside single quotes is an error
       (bash -n for the syntax), and "top" lists each line's first word outside quotes.
"""
import ast
import json
import subprocess
import sys


def py_top(text):
    tree = ast.parse(text)
    top = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            top.append("import " + ", ".join(a.name for a in node.names))
        elif isinstance(node, ast.ImportFrom):
            top.append(f"from {node.module} import " + ", ".join(a.name for a in node.names))
        elif isinstance(node, ast.FunctionDef):
            top.append("def " + node.name)
        elif isinstance(node, ast.ClassDef):
            top.append("class " + node.name)
        elif isinstance(node, ast.Assign):
            top.append("assign " + ", ".join(ast.unparse(t) for t in node.targets))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            top.append("docstring")
        elif isinstance(node, ast.If):
            top.append("if " + ast.unparse(node.test))
        else:
            top.append(type(node).__name__)
    return top


def sh_top(text):
    r = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
    if r.returncode != 0:
        raise ValueError("bash -n: " + r.stderr.strip())
    # outside single quotes, nothing but the script's own $VAR / ${VAR...} / "$(dirname "$0")" may expand
    out, quoted = [], False
    for line in text.splitlines():
        if not quoted and line.startswith("#"):
            continue
        i = 0
        while i < len(line):
            ch = line[i]
            if ch == "\\" and not quoted:
                i += 2  # an escaped character outside quotes (as in '\\'')
                continue
            if ch == "'":
                quoted = not quoted
            elif not quoted and ch == "`":
                raise ValueError(f"a backtick outside single quotes: {line!r}")
            elif not quoted and line.startswith("$(", i) and not line.startswith('$(dirname "$0")', i):
                raise ValueError(f"a command substitution: {line!r}")
            i += 1
        if not quoted and line and not line.startswith("#") and not line.startswith(" "):
            out.append(line.split()[0])
    return out


result = []
for f in json.load(sys.stdin):
    try:
        if f["path"].endswith(".py"):
            result.append({"top": py_top(f["text"]), "error": None})
        elif f["path"].endswith(".sh"):
            result.append({"top": sh_top(f["text"]), "error": None})
        else:
            result.append({"top": [], "error": None})
    except Exception as e:  # noqa: BLE001 - any failure to read is the answer
        result.append({"top": None, "error": f"{type(e).__name__}: {e}"})
print(json.dumps(result))
