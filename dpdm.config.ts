// The import-cycle check of `npm run lint`: it fails on any cycle among our modules. Type-only
// imports count too: a cycle of types ties modules together for readers and tools as much as a
// value cycle does (a context type that names the engine ties every service to the engine).
export default {
  files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'soak/**/*.ts'],
  transform: false,
  exitCode: 'circular:1',
  tree: false,
  warning: false,
  progress: false,
};
