// The package's ES module build (its "main" is CommonJS under "type": "module", which Node cannot load);
// the types are the package's own.
declare module 'wgsl_reflect/wgsl_reflect.module.js' {
  export * from 'wgsl_reflect';
}
