// Vite's `?url` imports: the built file's URL on this origin.
declare module '*.wasm?url' {
  const url: string;
  export default url;
}
