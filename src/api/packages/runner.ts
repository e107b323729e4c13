// The background work of packages: exports and imports run one at a time, in the order they were
// asked for. The work is in the database (a package `in_progress`), and each start of it is
// counted there before it begins. A package whose count says an earlier start never ended (the
// server died while it ran: a crash, a kill, a lost machine) is failed with that reason rather
// than run again, since it may be what made the server die; only an import whose transaction had
// committed goes on, with its restarts. A graceful stop finishes the package in hand, or gives its
// start back when it cannot.
import type { ServiceContext } from '../../context.ts';
import type { PackageRow } from '../../db/types.ts';
import { toStored } from '../../time.ts';
import { createWorkLoop, type WorkLoop } from '../../work-loop.ts';
import { isSharedByNodes } from '../../db/dialect.ts';
import { withLease } from '../../leases.ts';
import type { RecipeRuntime } from '../recipes/recipes.service.ts';
import type { ExportOptions } from './export.ts';
import type { ImportOptions } from './appliers/run.ts';
import { PackageFailure } from './failure.ts';
import {
  countAttempt,
  giveBackAttempt,
  countChunks,
  findPackageById,
  finishPackage,
  pendingPackageIds,
  readChunk,
} from './packages.store.ts';
import type { ZipLimits } from './zip.ts';

/** kick after a package was stored; start takes up the packages left in progress. */
export type PackageRunner = WorkLoop;

export type { ExportOptions as ExportPackageOptions } from './export.ts';
export type { ImportOptions as ImportPackageOptions } from './appliers/run.ts';

/** The zip an import reads: its own, or that of the build it deploys (which must have succeeded). */
async function zipFor(ctx: ServiceContext, pkg: PackageRow, options: ImportOptions): Promise<Buffer> {
  if (options.sourcePackageId === undefined) return zipOf(ctx, pkg.id);
  const source = await findPackageById(ctx.db, options.sourcePackageId);
  if (!source || source.status === 'failed')
    throw new PackageFailure(`The build failed${source?.error ? `: ${source.error}` : ''}; nothing was deployed`);
  if (source.status !== 'completed') throw new PackageFailure('The build has not finished; nothing was deployed');
  return zipOf(ctx, source.id);
}

/** The stored zip of a package, in one buffer. */
async function zipOf(ctx: ServiceContext, id: number): Promise<Buffer> {
  const count = await countChunks(ctx.db, id);
  const parts: Buffer[] = [];
  for (let seq = 0; seq < count; seq += 1) {
    const chunk = await readChunk(ctx.db, id, seq);
    if (chunk) parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(parts);
}

export function createPackageRunner(ctx: ServiceContext, engine: RecipeRuntime, limits: ZipLimits): PackageRunner {
  const leaseDeps = { db: ctx.db, clock: ctx.clock, nodeId: ctx.nodeId, leaseMs: ctx.config.nodeLeaseMs };
  async function work(pkg: PackageRow): Promise<void> {
    // The export and the import (their files, appliers and zip libraries) load at the first package.
    if (pkg.operation_type === 'export') {
      const { runExport } = await import('./export.ts');
      await runExport(ctx, pkg, JSON.parse(pkg.options) as ExportOptions);
    } else {
      const { runImport } = await import('./import.ts');
      const options = JSON.parse(pkg.options) as ImportOptions;
      await runImport(ctx, engine, pkg, options, () => zipFor(ctx, pkg, options), limits, options.applied);
    }
  }

  async function one(id: number, stopped: () => boolean): Promise<void> {
    const pkg = await findPackageById(ctx.db, id);
    if (!pkg || pkg.status !== 'in_progress') return;
    const attempts = await countAttempt(ctx.db, id);
    const now = () => toStored(ctx.clock.now());
    const committed = pkg.operation_type === 'import' && (JSON.parse(pkg.options) as ImportOptions).applied;
    if (attempts > 1 && !committed) {
      await finishPackage(ctx.db, id, {
        status: 'failed',
        error: `The ${pkg.operation_type} was interrupted: the server stopped while it ran (a crash or a kill). It is not run again, in case it is what stopped the server; nothing of it was applied. Start it again to retry`,
        now: now(),
      });
      return;
    }
    try {
      await work(pkg);
    } catch (error) {
      if (error instanceof PackageFailure) {
        await finishPackage(ctx.db, id, {
          status: 'failed',
          error: error.message,
          error_parts: error.parts.length > 0 ? error.parts : null,
          now: now(),
        });
        return;
      }
      if (stopped()) {
        // Cut by a graceful stop: the next start runs it again as if this one never began.
        await giveBackAttempt(ctx.db, id).catch(() => undefined);
        throw error;
      }
      ctx.log.error({ err: error, packageId: id }, `the ${pkg.operation_type} of a package failed`);
      await finishPackage(ctx.db, id, {
        status: 'failed',
        error: `The ${pkg.operation_type} failed because of a server error; see the server log`,
        now: now(),
      });
    }
  }

  return createWorkLoop({
    name: 'the package runner',
    log: ctx.log,
    // Several nodes: a package left by a node that died is taken up once its lease runs out.
    repassEveryMs: isSharedByNodes(ctx.db) ? ctx.config.nodeLeaseMs : undefined,
    async pass(stopped) {
      for (const id of await pendingPackageIds(ctx.db)) {
        if (stopped()) return;
        // Another node works on it (or one that died, until its lease runs out): the packages
        // after it wait, as they run in id order (a deployment needs the build before it).
        const held = await withLease(leaseDeps, `package:${id}`, () => one(id, stopped));
        if (!held) return;
        const done = await findPackageById(ctx.db, id);
        if (!done || done.status === 'in_progress') continue;
        ctx.notifier.publish('package.finished', { packageId: id, status: done.status });
      }
    },
  });
}
