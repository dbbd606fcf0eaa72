// Image parts for a llama.cpp vision model (a GGUF with its mmproj). The images are read once, as on web-llm
// (../common/images.ts: the host allowlist, a clear 400 naming the part, the remote status never passed on);
// llama.cpp then gets each image's bytes. Its decoder (stb_image in mtmd) reads PNG, JPEG, GIF and BMP; any other
// format the browser decodes (WebP, AVIF, …) is re-encoded as PNG here, so every image the browser can read works.
import type { ImageReader, ResolvedImage } from '../common/images';

/** How images are read and, where needed, re-encoded as PNG; tests substitute their own. */
export interface LlamaImageReader extends ImageReader {
  png(blob: Blob): Promise<Blob>;
}

/** Formats llama.cpp decodes itself. */
const NATIVE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/bmp']);

export const browserLlamaImageReader = (reader: ImageReader): LlamaImageReader => ({
  ...reader,
  async png(blob) {
    const bitmap = await createImageBitmap(blob);
    try {
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const context = canvas.getContext('2d');
      if (!context) throw new Error('no 2D canvas to re-encode the image');
      context.drawImage(bitmap, 0, 0);
      return await canvas.convertToBlob({ type: 'image/png' });
    } finally {
      bitmap.close();
    }
  },
});

/** The bytes llama.cpp gets for one resolved image (`data:<type>;base64,…`). */
export async function imageBytes(image: ResolvedImage, reader: Pick<LlamaImageReader, 'png'>): Promise<ArrayBuffer> {
  const comma = image.dataUrl.indexOf(',');
  const type = image.dataUrl.slice(5, comma).split(';')[0]!.toLowerCase();
  const binary = atob(image.dataUrl.slice(comma + 1));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  if (NATIVE.has(type)) return bytes.buffer;
  return (await reader.png(new Blob([bytes], { type }))).arrayBuffer();
}
