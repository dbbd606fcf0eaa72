// pdf.js's worker as a file of the build (Vite's `?url`): its URL on the app's origin.
declare module 'pdfjs-dist/build/pdf.worker.min.mjs?url' {
  const url: string;
  export default url;
}
