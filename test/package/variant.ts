// Which dependencies the package test's apps install, chosen by scripts/test-package.mjs through the environment:
//   locked (default, CI): each app's lockfile (test/package/locks/<variant>/<app>.package-lock.json) with `npm ci`,
//     so a fresh machine tests exactly what the developers tested;
//   newest (--newest): no lockfile, the newest release in each of the app's ranges, as a user installs today;
//     with --update-locks the lockfiles are written anew from that install;
//   vite (--vite=lowest or --vite=X.Y.Z): the Vite-built apps with that Vite instead of the one they name; `lowest`
//     is the lowest version inpage's peer range (package.json `peerDependencies.vite`) names.
// Every app names inpage as `file:<the tarball>`; its lockfile entry keeps no integrity (the tarball is new each
// run: with one, npm would install the cached older tarball of the same name).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LOCKS = join(ROOT, 'test/package/locks');

export interface Variant {
  /** As printed: "locked", "newest", "locked, vite 6.0.0"… */
  name: string;
  /** The lockfiles' folder under test/package/locks. */
  folder: string;
  /** Install with `npm ci` from the lockfiles (else `npm install`, the newest in range). */
  locked: boolean;
  /** The Vite version the Vite-built apps get instead of theirs (undefined: theirs). */
  vite: string | undefined;
  /** Write the apps' lockfiles anew from this run's install. */
  updateLocks: boolean;
  /** Writes an app's lockfile (its inpage entry without integrity) into the variant's folder. */
  saveLock(app: string, from: string): void;
}

/** The lowest Vite inpage's peer range names. */
export function lowestVite(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: { vite: string } };
  const lowest = semver.minVersion(pkg.peerDependencies.vite);
  if (!lowest) throw new Error(`package.json peerDependencies.vite (${pkg.peerDependencies.vite}) names no version`);
  return lowest.version;
}

export function packageVariant(env: NodeJS.ProcessEnv = process.env): Variant {
  const viteAsked = env.INPAGE_PACKAGE_VITE || undefined;
  const vite = viteAsked === 'lowest' ? lowestVite() : viteAsked;
  if (vite !== undefined && !semver.valid(vite)) throw new Error(`INPAGE_PACKAGE_VITE=${viteAsked}: not a version (or "lowest")`);
  const updateLocks = env.INPAGE_PACKAGE_UPDATE_LOCKS === '1';
  const locked = env.INPAGE_PACKAGE_DEPS !== 'newest' && !updateLocks;
  const folder = vite ? `vite-${vite}` : 'range';
  return {
    name: `${locked ? 'locked' : 'newest in range'}${vite ? `, vite ${vite}` : ''}${updateLocks ? ', writing the lockfiles' : ''}`,
    folder,
    locked,
    vite,
    updateLocks,
    saveLock(app, from) {
      const lock = JSON.parse(readFileSync(from, 'utf8')) as { name?: string; packages: Record<string, { integrity?: string; resolved?: string }> };
      delete lock.packages['node_modules/inpage']?.integrity;
      const to = lockPath(this, app);
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, `${JSON.stringify(lock, null, 2)}\n`);
    },
  };
}

/** Where an app's lockfile of a variant is kept. */
export const lockPath = (variant: Pick<Variant, 'folder'>, app: string): string => join(LOCKS, variant.folder, `${app}.package-lock.json`);

/** An app's package.json as the test installs it: inpage from the tarball at `tarball`, and the variant's Vite. */
export function withInpageFrom(manifest: Record<string, unknown>, tarball: string, variant: Pick<Variant, 'vite'>): Record<string, unknown> {
  const deps = { ...(manifest.dependencies as Record<string, string>), inpage: `file:${tarball}` };
  const dev = { ...(manifest.devDependencies as Record<string, string> | undefined) };
  if (variant.vite && 'vite' in dev) dev.vite = variant.vite;
  return { ...manifest, dependencies: deps, devDependencies: dev };
}
