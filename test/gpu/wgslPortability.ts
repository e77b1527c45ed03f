// Portability checks of WGSL modules through an independent front end (wgsl_reflect's scanner and
// parser, not Dawn's Tint): constructs that some browsers' shader compilers reject although Dawn
// accepts them.
// - A function parameter of pointer type in the workgroup, storage or uniform address space: core WGSL
//   allows pointer parameters only in the function and private address spaces; the rest needs the
//   unrestricted_pointer_parameters language feature, which Firefox's compiler lacks.
// - A workgroup array whose element count names an override constant: Safari has been seen to size such
//   arrays wrongly (silent out-of-bounds writes), so workgroup arrays take fixed (const) sizes.
// - Any `enable` or `requires` directive: nothing outside core WGSL is used without a checked fallback,
//   and no module here has one.
// Apart from those rules, `unwrittenReadWrite` lists the read_write storage bindings that no entry point of
// a module writes: such a binding could be declared read-only (which lets a driver use read-only caches).
import {
  Assign, Function as FunctionNode, Increment, Override, PointerType, TokenTypes, UnaryOperator, Var, VariableExpr, WgslParser, WgslScanner,
  type Node,
} from 'wgsl_reflect/wgsl_reflect.module.js';

export interface PortabilityReport {
  /** Override constants the parser found (names). */
  overrides: string[];
  /** Function names the parser found. */
  functions: string[];
  problems: string[];
}

const CORE_POINTER_SPACES = new Set(['function', 'private']);

export function checkPortability(name: string, code: string): PortabilityReport {
  const ast: Node[] = new WgslParser().parse(code); // throws on syntax it cannot parse
  const overrides = ast.filter((n): n is Override => n instanceof Override).map((n) => n.name);
  const functions = ast.filter((n): n is FunctionNode => n instanceof FunctionNode);
  const problems: string[] = [];
  for (const f of functions) {
    for (const arg of f.args) {
      if (arg.type instanceof PointerType && !CORE_POINTER_SPACES.has(arg.type.storage)) {
        problems.push(`${name}.wgsl:${f.line}: ${f.name}(${arg.name}: ptr<${arg.type.storage}, ...>): a pointer parameter in the ` +
          `${arg.type.storage} address space needs unrestricted_pointer_parameters (not in Firefox)`);
      }
    }
  }
  problems.push(...workgroupArraysSizedByOverrides(name, code, new Set(overrides)));
  for (const n of ast) {
    if (n.astNodeType === 'enable' || n.astNodeType === 'requires') {
      problems.push(`${name}.wgsl:${n.line}: '${n.astNodeType}' directive: outside core WGSL`);
    }
  }
  return { overrides, functions: functions.map((f) => f.name), problems };
}

// The parser folds an array's element count to a number (and gives up on override expressions), so the
// count's identifiers are read from the scanner's tokens of each `var<workgroup> name: type` declaration.
function workgroupArraysSizedByOverrides(name: string, code: string, overrides: Set<string>): string[] {
  const tokens = new WgslScanner(code).scanTokens();
  const problems: string[] = [];
  for (let i = 0; i + 4 < tokens.length; i++) {
    if (tokens[i].lexeme !== 'var' || tokens[i + 1].lexeme !== '<' || tokens[i + 2].lexeme !== 'workgroup') continue;
    // tokens: var < workgroup > name : type ... ;  the type runs to the semicolon (or an initializer)
    const declared = tokens[i + 4].lexeme;
    const used: string[] = [];
    for (let j = i + 5; j < tokens.length && tokens[j].lexeme !== ';' && tokens[j].lexeme !== '='; j++) {
      if (tokens[j].type === TokenTypes.tokens.ident && overrides.has(tokens[j].lexeme)) used.push(tokens[j].lexeme);
    }
    if (used.length > 0) {
      problems.push(`${name}.wgsl:${tokens[i].line}: workgroup array '${declared}' sized by override constant(s) ` +
        `${used.join(', ')}: give it a fixed size`);
    }
  }
  return problems;
}

/**
 * The module's `var<storage, read_write>` bindings that nothing in it writes. A binding counts as written
 * where it is the target of an assignment (`name[i] = ...`, `name[i] += ...`), of `++`/`--`, or where its
 * address is taken (`&name[i]`, as atomicAdd and friends need). With `layout: 'auto'` every entry point of a
 * module sees one access mode per binding, so one writer anywhere in the module keeps it read_write.
 */
export function unwrittenReadWrite(code: string): string[] {
  const ast: Node[] = new WgslParser().parse(code);
  const readWrite = ast.filter((n): n is Var => n instanceof Var && n.storage === 'storage' && n.access === 'read_write').map((v) => v.name);
  const written = new Set<string>();
  const seen = new Set<object>();
  const walk = (n: unknown): void => {
    if (n === null || typeof n !== 'object' || seen.has(n)) return;
    seen.add(n);
    if ((n instanceof Assign || n instanceof Increment) && n.variable instanceof VariableExpr) written.add(n.variable.name);
    if (n instanceof UnaryOperator && n.operator === '&' && n.right instanceof VariableExpr) written.add(n.right.name);
    for (const child of Object.values(n)) {
      if (Array.isArray(child)) child.forEach(walk);
      else walk(child);
    }
  };
  ast.forEach(walk);
  return readWrite.filter((name) => !written.has(name));
}
