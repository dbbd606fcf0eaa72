// Native llama.cpp for the bench's reference rows (scripts/bench-llama.mjs), the unit test that loads the
// synthesizer's files in it (test/unit/tooling/llamacpp-native.test.ts) and the hybrid tests' upstream server
// (test/upstream/server.ts): node-llama-cpp's prebuilt CPU binary. It is not a devDependency: with its binaries for
// every platform (arm64, armv7l, CUDA, Vulkan…) it was 711 MB of every `npm install`. It is installed on first use
// into NATIVE_LLAMA_DIR (git-ignored), node-llama-cpp at its pinned version and only this machine's binary package,
// by `npm test`'s set-up (scripts/ensure-test-env.mjs) or by whichever of the three needs it first.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The node-llama-cpp the bench and the tests run, exactly (its binaries are one llama.cpp release's). */
export const NODE_LLAMA_CPP_VERSION = '3.22.1';
/** Where it is installed on first use (git-ignored). */
export const NATIVE_LLAMA_DIR = join(ROOT, '.native-llama');

/** node-llama-cpp's prebuilt binary package for a platform (`@node-llama-cpp/linux-x64`, `…/mac-arm64-metal`, …). */
export function binaryPackage(platform = process.platform, arch = process.arch) {
  const os = platform === 'darwin' ? 'mac' : platform === 'win32' ? 'win' : platform;
  const cpu = arch === 'arm' ? 'armv7l' : arch;
  return `@node-llama-cpp/${os}-${cpu}${platform === 'darwin' && arch === 'arm64' ? '-metal' : ''}`;
}

const versionAt = (dir) => {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
};

/** Installs node-llama-cpp and this machine's binary package into NATIVE_LLAMA_DIR unless they are there. */
export function ensureNodeLlamaCpp() {
  const modules = join(NATIVE_LLAMA_DIR, 'node_modules');
  const binary = binaryPackage();
  if (versionAt(join(modules, 'node-llama-cpp')) === NODE_LLAMA_CPP_VERSION && versionAt(join(modules, binary)) === NODE_LLAMA_CPP_VERSION) return;
  mkdirSync(NATIVE_LLAMA_DIR, { recursive: true });
  const manifest = {
    name: 'inpage-native-llama',
    private: true,
    description: 'Installed by scripts/native-llama.mjs: native llama.cpp for the bench and the tests.',
    dependencies: { 'node-llama-cpp': NODE_LLAMA_CPP_VERSION, [binary]: NODE_LLAMA_CPP_VERSION },
  };
  writeFileSync(join(NATIVE_LLAMA_DIR, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  console.error(`Installing node-llama-cpp ${NODE_LLAMA_CPP_VERSION} with ${binary} into ${NATIVE_LLAMA_DIR} (native llama.cpp for the tests and the bench)…`);
  // Its dependencies as locked (scripts/native-llama/<platform>.package-lock.json: npm install keeps a lockfile's
  // versions), so a fresh machine runs what the developers ran; a platform with no lockfile here resolves them anew,
  // and says so. (Not `npm ci`: it wants the other platforms' optional binaries in the lockfile, which npm leaves out.)
  // The other platforms' binaries are node-llama-cpp's optional dependencies: left out. Its postinstall would
  // look for a binary to download or build; the one it needs is installed here already.
  const lock = join(ROOT, 'scripts/native-llama', `${binary.slice('@node-llama-cpp/'.length)}.package-lock.json`);
  if (existsSync(lock)) copyFileSync(lock, join(NATIVE_LLAMA_DIR, 'package-lock.json'));
  else {
    rmSync(join(NATIVE_LLAMA_DIR, 'package-lock.json'), { force: true });
    console.error(`(no lockfile ${lock} for this platform: node-llama-cpp's dependencies are resolved anew)`);
  }
  execFileSync('npm', ['install', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: NATIVE_LLAMA_DIR,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (versionAt(join(modules, binary)) !== NODE_LLAMA_CPP_VERSION)
    throw new Error(`node-llama-cpp: ${binary}@${NODE_LLAMA_CPP_VERSION} did not install into ${modules}.`);
}

/** node-llama-cpp's module, installed first if needed. */
export async function importNodeLlamaCpp() {
  ensureNodeLlamaCpp();
  return import(pathToFileURL(join(NATIVE_LLAMA_DIR, 'node_modules/node-llama-cpp/dist/index.js')).href);
}
