// Why a package's export or import failed, in words its owner can act on: the package is marked
// failed with this message (and the parts it names), never retried.
export class PackageFailure extends Error {
  override name = 'PackageFailure';
  readonly parts: string[];
  constructor(message: string, parts: string[] = []) {
    super(message);
    this.parts = parts;
  }
}
