// Types for comlink's ESM Node adapter (the package ships them only beside the UMD build).
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import nodeEndpoint from 'comlink/dist/umd/node-adapter';
  export default nodeEndpoint;
}
