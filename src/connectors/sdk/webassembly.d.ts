// The part of the WebAssembly JavaScript API the Ruby runtime uses (the project's `lib` has no DOM,
// where TypeScript declares it).
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
    static imports(module: Module): Array<{ module: string; name: string; kind: string }>;
    static exports(module: Module): Array<{ name: string; kind: string }>;
  }
  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number; shared?: boolean });
    readonly buffer: ArrayBuffer;
    grow(delta: number): number;
  }
  class RuntimeError extends Error {}
  type Imports = Record<string, Record<string, unknown>>;
  function compile(bytes: Uint8Array): Promise<Module>;
}
