// Where an engine keeps its model files in OPFS. By default the worker's own origin-private folder
// (`navigator.storage.getDirectory()`); a model provider's engine worker is given the folder of its
// StorageAccessHandle instead (docs/shared-models.md): a dedicated worker's own folder is partitioned by the
// top-level site, the handle's is the provider's first-party one, the same for every consumer site.

let root: FileSystemDirectoryHandle | null = null;

/** Makes `dir` the root of the model cache (before the engine is created). */
export function setStorageRoot(dir: FileSystemDirectoryHandle): void {
  root = dir;
}

/** The folder given with setStorageRoot, if one was. */
export function givenStorageRoot(): FileSystemDirectoryHandle | null {
  return root;
}

/** The root of the model cache: the given folder, else this worker's own. */
export async function storageRoot(): Promise<FileSystemDirectoryHandle> {
  return root ?? navigator.storage.getDirectory();
}
