// Vite's `?url` imports: the built file's URL on this origin.
declare module '*.wasm?url' {
  const url: string;
  export default url;
}
// Vite's `?raw` imports: the file's text.
declare module '*.js?raw' {
  const text: string;
  export default text;
}
