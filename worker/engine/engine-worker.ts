/// <reference lib="webworker" />
// The engine Web Worker's entry, and nothing else: its code is engine-worker-main.ts, in a chunk of its own that
// the engines' lazily loaded chunks import, so no chunk imports this entry (scripts/worker-chunks.ts says why).
import './engine-worker-main';
