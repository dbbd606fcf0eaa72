// Synthesizes a tiny vision projector (an "mmproj" GGUF, as llama.cpp's mtmd loads beside a language model) at
// test time: a CLIP-style ViT with random weights and LLaVA's two-layer MLP projector (`clip.projector_type`
// "mlp", the type with the fewest tensors and a fixed image size). Nothing is downloaded; nothing binary is
// committed.
//
// What llama.cpp (tools/mtmd/clip.cpp, llava graph) does with it: the image is resized (padded) to
// `imageSize`², cut into (imageSize / patchSize)² patches, embedded by a convolution plus learned positions,
// run through `layers - 1` transformer blocks (LLaVA takes the second-to-last layer's output), then projected by
// mm.0 → GELU → mm.2 to the language model's width. Each patch becomes one prompt token, so an image adds
// exactly `imageTokens` tokens to the prompt. The projector's output width must equal the language model's
// `embedding_length` (synthesize.ts: 64 by default), else llama.cpp refuses the pair.
import { FILE_TYPES, encodeGguf, gaussian, mulberry32, type Meta, type Tensor, type TensorType } from './gguf-file';

export interface MmprojOptions {
  /** The language model's embedding width, which the projector outputs (default 64, synthesize.ts' default). */
  textEmbedding?: number;
  /** The vision encoder's width; a multiple of `heads` (default 32). */
  embedding?: number;
  /** Encoder blocks in the file (default 2; LLaVA runs all but the last). */
  layers?: number;
  heads?: number;
  /** Feed-forward width (default 2 × embedding). */
  feedForward?: number;
  /** Side of the square image the encoder reads, in pixels (default 32). */
  imageSize?: number;
  /** Side of a patch, in pixels (default 8: 16 patches, so 16 image tokens). */
  patchSize?: number;
  type?: TensorType;
  seed?: number;
}

export interface SynthMmproj {
  bytes: Uint8Array;
  /** Prompt tokens one image takes. */
  imageTokens: number;
  parameters: number;
}

export function synthesizeMmproj(options: MmprojOptions = {}): SynthMmproj {
  const nText = options.textEmbedding ?? 64;
  const n = options.embedding ?? 32;
  const nLayer = options.layers ?? 2;
  const nHead = options.heads ?? 2;
  const nFf = options.feedForward ?? n * 2;
  const imageSize = options.imageSize ?? 32;
  const patch = options.patchSize ?? 8;
  const type = options.type ?? 'f32';
  if (n % nHead !== 0) throw new Error('The encoder width must be a multiple of its heads.');
  if (imageSize % patch !== 0) throw new Error('The image size must be a multiple of the patch size.');
  // clip.cpp swaps ffn_up / ffn_down of old LLaVA files when ffn_down's first dimension equals the width.
  if (nFf === n) throw new Error('The feed-forward width must differ from the encoder width.');
  const patches = (imageSize / patch) ** 2;
  const normal = gaussian(mulberry32(options.seed ?? 1));

  const tensors: Tensor[] = [];
  const tensor = (name: string, dims: number[], fill: () => number) => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = fill();
    tensors.push({ name, dims, data });
  };
  const weight = (fanIn: number) => () => normal() / Math.sqrt(fanIn);
  const zero = () => 0;
  const one = () => 1;

  // Patch embedding: a patch × patch convolution over RGB (ggml order: kernel width, height, channels, outputs).
  tensor('v.patch_embd.weight', [patch, patch, 3, n], weight(patch * patch * 3));
  tensor('v.patch_embd.bias', [n], zero);
  tensor('v.position_embd.weight', [n, patches], () => normal() * 0.1);
  tensor('v.pre_ln.weight', [n], one);
  tensor('v.pre_ln.bias', [n], zero);
  for (let l = 0; l < nLayer; l++) {
    const blk = `v.blk.${l}`;
    tensor(`${blk}.ln1.weight`, [n], one);
    tensor(`${blk}.ln1.bias`, [n], zero);
    for (const part of ['attn_q', 'attn_k', 'attn_v', 'attn_out']) {
      tensor(`${blk}.${part}.weight`, [n, n], weight(n));
      tensor(`${blk}.${part}.bias`, [n], zero);
    }
    tensor(`${blk}.ln2.weight`, [n], one);
    tensor(`${blk}.ln2.bias`, [n], zero);
    tensor(`${blk}.ffn_up.weight`, [n, nFf], weight(n));
    tensor(`${blk}.ffn_up.bias`, [nFf], zero);
    tensor(`${blk}.ffn_down.weight`, [nFf, n], weight(nFf));
    tensor(`${blk}.ffn_down.bias`, [n], zero);
  }
  // LLaVA's projector: mm.0 (encoder width → text width), GELU, mm.2 (text width → text width). Its output is
  // kept small so the image does not drown the language model's own (designed) behaviour on the text.
  tensor('mm.0.weight', [n, nText], weight(n));
  tensor('mm.0.bias', [nText], zero);
  tensor('mm.2.weight', [nText, nText], () => normal() * 0.02);
  tensor('mm.2.bias', [nText], zero);

  const meta: Meta[] = [
    ['general.architecture', 'string', 'clip'],
    ['general.name', 'string', 'inpage-synth-mmproj'],
    ['general.alignment', 'u32', 32],
    ['general.file_type', 'u32', FILE_TYPES[type]],
    ['clip.has_vision_encoder', 'bool', true],
    ['clip.projector_type', 'string', 'mlp'],
    ['clip.vision.image_size', 'u32', imageSize],
    ['clip.vision.patch_size', 'u32', patch],
    ['clip.vision.embedding_length', 'u32', n],
    ['clip.vision.feed_forward_length', 'u32', nFf],
    ['clip.vision.projection_dim', 'u32', nText],
    ['clip.vision.block_count', 'u32', nLayer],
    ['clip.vision.attention.head_count', 'u32', nHead],
    ['clip.vision.attention.layer_norm_epsilon', 'f32', 1e-5],
    ['clip.vision.image_mean', 'f32s', [0.5, 0.5, 0.5]],
    ['clip.vision.image_std', 'f32s', [0.5, 0.5, 0.5]],
  ];

  const parameters = tensors.reduce((sum, t) => sum + t.data.length, 0);
  return { bytes: encodeGguf(meta, tensors, type), imageTokens: patches, parameters };
}
