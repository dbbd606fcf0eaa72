// Synthesizes a tiny llama-architecture GGUF model at test time: random weights, a byte-level BPE (gpt2)
// vocabulary with ChatML's special tokens, a ChatML Jinja template that renders tools, tool results and
// thinking. Nothing is downloaded; nothing binary is committed. Used by the browser tests and the bench.
//
// What the weights do (at temperature 0): the layers' weights are small, so the residual stream stays close to the current
// token's embedding and the model is, in effect, a random bigram model with a few designed transitions on top:
//  - a constant feature (embedding dimension 0) carries a strongly negative output weight for every byte token
//    outside printable ASCII and for the special tokens, so free output is printable ASCII (never invalid UTF-8);
//    <tool_call>, </tool_call> and <|im_end|> are only discouraged (about -13), within reach of logit_bias;
//  - "\n" is never generated, and a prompt that ends with "assistant\n" (thinking on) is answered with
//    "<think> Let me think.</think>" and then free text, so reasoning can be split;
//  - "!" is followed by "<|im_end|>", so free text can end on its own, and so is "</tool_call>";
//  - with `answerBytes`, those byte tokens are allowed, the first is favoured everywhere outside the designed
//    transitions, and each leads to the next, the last to "!": the answer is those bytes, "!", the end.
// Everything is deterministic for a given seed.

import { FILE_TYPES, encodeGguf, gaussian, mulberry32, type Meta, type StoredType, type Tensor, type TensorType } from './gguf-file';

export type { TensorType };

export interface SynthOptions {
  /** Width of the residual stream; a multiple of `heads` (default 64). */
  embedding?: number;
  layers?: number;
  /** Feed-forward width (default 2 × embedding). */
  feedForward?: number;
  heads?: number;
  /** Key/value heads (grouped-query attention, `heads` a multiple of it; default `heads`). */
  kvHeads?: number;
  /**
   * Vocabulary size: the synthesized vocabulary (about 470 tokens) padded with unused tokens up to this many (e.g.
   * 151,936, Qwen3's), so the output layer is as wide as a real model's. Free output never produces the padding.
   */
  vocabSize?: number;
  /** Trained context (`llama.context_length`, default 4096). */
  context?: number;
  /**
   * How the weight matrices are stored (default Q4_0, as people run models: quantized; norms stay F32). A model
   * narrower than a block (32 values; 256 for Q4_K) keeps them F16 (gguf-file.ts: storedType).
   */
  type?: TensorType;
  /**
   * With `type: 'q4_k'`, `'q4_k_m'` stores the matrices as llama.cpp's Q4_K_M does: the output layer Q6_K, and
   * attn_v and ffn_down Q6_K in the layers its `use_more_bits` picks (the first and last eighth, every third between);
   * every other matrix Q4_K.
   */
  mix?: 'q4_k_m';
  seed?: number;
  /** `general.name`. */
  name?: string;
  /**
   * Raw bytes the answer opens with at temperature 0 (then "!" and the end), whatever they are: e.g. a lone
   * continuation byte and a truncated multi-byte sequence, to check that output which is not valid UTF-8 never
   * breaks a request. The bytes must differ from each other. Default: none (free output is printable ASCII).
   */
  answerBytes?: number[];
}

export interface SynthModel {
  bytes: Uint8Array;
  /** Token id of a vocabulary entry given as text (specials literally, others as the text they decode to). */
  tokenId(text: string): number;
  vocabSize: number;
  parameters: number;
  chatTemplate: string;
}

// llama.cpp token types.
const NORMAL = 1;
const CONTROL = 3;
const USER_DEFINED = 4;
const UNUSED = 5;

/** ChatML (Qwen3's shape): system + tools block, tool calls and tool results, thinking, `enable_thinking`. */
export const CHAT_TEMPLATE = `{%- if tools %}
{{- '<|im_start|>system\\n' }}
{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}
{{- '# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>' }}
{%- for tool in tools %}{{- '\\n' }}{{- tool | tojson }}{%- endfor %}
{{- '\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>{"name": <function-name>, "arguments": <args-json-object>}\\n</tool_call><|im_end|>\\n' }}
{%- else %}
{%- if messages[0].role == 'system' %}{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}{%- endif %}
{%- endif %}
{%- for message in messages %}
{%- if message.role == 'user' or (message.role == 'system' and not loop.first) %}
{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}
{%- elif message.role == 'assistant' %}
{%- set content = message.content if message.content is string else '' %}
{%- if '</think>' in content %}{%- set content = content.split('</think>')[-1].lstrip('\\n') %}{%- endif %}
{{- '<|im_start|>assistant\\n' + content }}
{%- if message.tool_calls %}
{%- for tool_call in message.tool_calls %}
{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}
{%- if loop.first and content %}{{- '\\n' }}{%- endif %}
{{- '<tool_call>{"name": "' + tool_call.name + '", "arguments": ' }}
{%- if tool_call.arguments is string %}{{- tool_call.arguments }}{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}
{{- '}\\n</tool_call>' }}
{%- endfor %}
{%- endif %}
{{- '<|im_end|>\\n' }}
{%- elif message.role == 'tool' %}
{%- if loop.first or (messages[loop.index0 - 1].role != 'tool') %}{{- '<|im_start|>user' }}{%- endif %}
{{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}
{%- if loop.last or (messages[loop.index0 + 1].role != 'tool') %}{{- '<|im_end|>\\n' }}{%- endif %}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|im_start|>assistant\\n' }}
{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}
{%- endif %}`;

const SPECIALS: [string, number][] = [
  ['<|endoftext|>', CONTROL],
  ['<|im_start|>', CONTROL],
  ['<|im_end|>', CONTROL],
  ['<think>', USER_DEFINED],
  ['</think>', USER_DEFINED],
  ['<tool_call>', USER_DEFINED],
  ['</tool_call>', USER_DEFINED],
  ['<tool_response>', USER_DEFINED],
  ['</tool_response>', USER_DEFINED],
];

/** Words that get merged tokens (built left to right, so every merge joins two existing tokens). */
const WORDS = [
  ' the',
  ' a',
  ' and',
  ' of',
  ' to',
  ' is',
  ' in',
  ' it',
  ' you',
  ' that',
  ' I',
  ' me',
  ' think',
  ' Let',
  ' The',
  ' answer',
  ' hello',
  ' world',
  ' yes',
  ' no',
  ' ok',
  ' model',
  ' page',
  ' local',
  ' fast',
  ' small',
  ' tool',
  ' call',
  ' weather',
  ' city',
  ' Paris',
  ' Tokyo',
  ' name',
  ' value',
  ' count',
  ' red',
  ' green',
  ' blue',
  ' one',
  ' two',
  ' three',
  ' four',
  ' five',
  ' this',
  ' with',
  ' for',
  ' on',
  ' at',
  ' by',
  ' from',
  'Hello',
  'Hi',
  'system',
  'user',
  'assistant',
  'tool',
  'ing',
  'ed',
  'er',
  'ly',
  'tion',
  '\n\n',
  '{"',
  '":',
  ' "',
  '",',
  '"}',
  'name',
  'arguments',
  'type',
  'object',
  'string',
];

/** GPT-2's byte → printable character mapping. */
function byteToUnicode(): string[] {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const out: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(keep.includes(b) ? b : 256 + extra++);
  return out;
}

export function synthesizeGguf(options: SynthOptions = {}): SynthModel {
  const nEmbd = options.embedding ?? 64;
  const nLayer = options.layers ?? 2;
  const nFf = options.feedForward ?? nEmbd * 2;
  const nHead = options.heads ?? 4;
  const nKvHead = options.kvHeads ?? nHead;
  if (nHead % nKvHead) throw new Error('heads must be a multiple of kvHeads.');
  const type = options.type ?? 'q4_0';
  if (options.mix && type !== 'q4_k') throw new Error("mix: 'q4_k_m' needs type 'q4_k'.");
  const random = mulberry32(options.seed ?? 1);
  const normal = gaussian(random);

  // Vocabulary: 256 byte tokens, merged words, specials.
  const b2u = byteToUnicode();
  const tokens: string[] = [...b2u];
  const types: number[] = tokens.map(() => NORMAL);
  const merges: string[] = [];
  const index = new Map<string, number>(tokens.map((t, i) => [t, i]));
  for (const word of WORDS) {
    const units = [...new TextEncoder().encode(word)].map((b) => b2u[b]!);
    let current = units[0]!;
    for (const unit of units.slice(1)) {
      const joined = current + unit;
      if (!index.has(joined)) {
        merges.push(`${current} ${unit}`);
        index.set(joined, tokens.length);
        tokens.push(joined);
        types.push(NORMAL);
      }
      current = joined;
    }
  }
  for (const [text, kind] of SPECIALS) {
    index.set(text, tokens.length);
    tokens.push(text);
    types.push(kind);
  }
  const synthesized = tokens.length;
  if (options.vocabSize !== undefined && options.vocabSize < synthesized) throw new Error(`vocabSize: at least ${synthesized}`);
  for (let i = synthesized; i < (options.vocabSize ?? synthesized); i++) {
    tokens.push(`<|inpage_unused_${i}|>`);
    types.push(UNUSED);
  }
  const nVocab = tokens.length;
  const encodeText = (text: string) => [...new TextEncoder().encode(text)].map((b) => b2u[b]!).join('');
  const tokenId = (text: string): number => {
    const id = index.get(text) ?? index.get(encodeText(text));
    if (id === undefined) throw new Error(`No token for ${JSON.stringify(text)}`);
    return id;
  };

  // Designed transitions: token → next token, each with a feature dimension of its own.
  const designed: [string, string][] = [
    ['\n', '<think>'],
    ['<think>', ' Let'],
    [' Let', ' me'],
    [' me', ' think'],
    [' think', '.'],
    ['.', '</think>'],
    ['</think>', ' The'],
    ['!', '<|im_end|>'],
    // A tool call ends the turn (else the grammar would let <tool_call> follow again).
    ['</tool_call>', '<|im_end|>'],
  ];
  const answerBytes = options.answerBytes ?? [];
  if (new Set(answerBytes).size !== answerBytes.length) throw new Error('answerBytes must differ from each other.');
  const byteText = (b: number) => b2u[b]!;
  answerBytes.forEach((b, i) => designed.push([byteText(b), i + 1 < answerBytes.length ? byteText(answerBytes[i + 1]!) : '!']));
  if (designed.length + 1 > nEmbd / 2) throw new Error('The model is too narrow for its designed transitions.');
  const featureOf = new Map<number, number>(designed.map(([from], i) => [tokenId(from), 1 + i]));
  const nextOf = new Map<number, number>(designed.map(([from, to]) => [tokenId(from), tokenId(to)]));

  // Tokens free output never produces: bytes outside printable ASCII (and "\n"), and the special tokens
  // (except where a designed transition leads to one). Three are only discouraged, so a request's logit_bias
  // (at most +100) can still bring them up: <tool_call> and </tool_call> for a tool call, <|im_end|> to end.
  const banned = new Set<number>();
  for (let b = 0; b < 256; b++) if (b < 0x20 || b > 0x7e) banned.add(b);
  banned.add(tokenId('\n\n'));
  for (const [text] of SPECIALS) banned.add(tokenId(text));
  for (let i = synthesized; i < nVocab; i++) banned.add(i);
  const discouraged = new Set(['<tool_call>', '</tool_call>', '<|im_end|>'].map(tokenId));
  for (const b of answerBytes) banned.delete(b);
  const favoured = answerBytes.length ? answerBytes[0]! : -1;

  // Tensors, in ggml order (ne0 first). Their values are made as the file is written, tensor by tensor, in this
  // order (so the random numbers fall as they always did), and dropped once stored.
  const tensors: Tensor[] = [];
  const tensor = (name: string, dims: number[], fill: (i: number) => number, stored?: StoredType) => {
    const n = dims.reduce((a, b) => a * b, 1);
    const data = () => {
      const values = new Float32Array(n);
      for (let i = 0; i < n; i++) values[i] = fill(i);
      return values;
    };
    // A row that is not whole Q6_K blocks keeps the file's choice (storedType).
    tensors.push({ name, dims, data, ...(stored && dims[0]! % 256 === 0 ? { type: stored } : {}) });
  };
  // llama.cpp's use_more_bits (llama-quant.cpp), for Q4_K_M's Q6_K layers.
  const eighth = Math.floor(nLayer / 8);
  const moreBits = (l: number) => l < eighth || l >= Math.floor((7 * nLayer) / 8) || (l - eighth) % 3 === 2;
  const q6 = (l?: number): StoredType | undefined => (options.mix && (l === undefined || moreBits(l)) ? 'q6_k' : undefined);
  const CONSTANT = 4;
  const FEATURE = 6;
  tensor('token_embd.weight', [nEmbd, nVocab], (i) => {
    const token = Math.floor(i / nEmbd);
    const dim = i % nEmbd;
    if (dim === 0) return CONSTANT;
    if (dim <= designed.length) return featureOf.get(token) === dim ? FEATURE : 0;
    return normal();
  });
  tensor('output_norm.weight', [nEmbd], () => 1);
  tensor(
    'output.weight',
    [nEmbd, nVocab],
    (i) => {
      const token = Math.floor(i / nEmbd);
      const dim = i % nEmbd;
      if (dim === 0) return token === favoured ? 10 : discouraged.has(token) ? -3 : banned.has(token) ? -40 : 0;
      if (dim <= designed.length) {
        const from = designed[dim - 1]![0];
        return nextOf.get(tokenId(from)) === token ? 60 : 0;
      }
      return normal() * 0.3;
    },
    q6(),
  );
  const small = () => normal() * 0.02;
  const headDim = nEmbd / nHead;
  for (let l = 0; l < nLayer; l++) {
    tensor(`blk.${l}.attn_norm.weight`, [nEmbd], () => 1);
    tensor(`blk.${l}.attn_q.weight`, [nEmbd, nHead * headDim], small);
    tensor(`blk.${l}.attn_k.weight`, [nEmbd, nKvHead * headDim], small);
    tensor(`blk.${l}.attn_v.weight`, [nEmbd, nKvHead * headDim], small, q6(l));
    tensor(`blk.${l}.attn_output.weight`, [nHead * headDim, nEmbd], small);
    tensor(`blk.${l}.ffn_norm.weight`, [nEmbd], () => 1);
    tensor(`blk.${l}.ffn_gate.weight`, [nEmbd, nFf], small);
    tensor(`blk.${l}.ffn_up.weight`, [nEmbd, nFf], small);
    tensor(`blk.${l}.ffn_down.weight`, [nFf, nEmbd], small, q6(l));
  }

  const meta: Meta[] = [
    ['general.architecture', 'string', 'llama'],
    ['general.name', 'string', options.name ?? 'inpage-synth'],
    ['general.alignment', 'u32', 32],
    ['general.file_type', 'u32', FILE_TYPES[type]],
    ['llama.context_length', 'u32', options.context ?? 4096],
    ['llama.embedding_length', 'u32', nEmbd],
    ['llama.block_count', 'u32', nLayer],
    ['llama.feed_forward_length', 'u32', nFf],
    ['llama.attention.head_count', 'u32', nHead],
    ['llama.attention.head_count_kv', 'u32', nKvHead],
    ['llama.rope.dimension_count', 'u32', headDim],
    ['llama.rope.freq_base', 'f32', 10000],
    ['llama.attention.layer_norm_rms_epsilon', 'f32', 1e-6],
    ['llama.vocab_size', 'u32', nVocab],
    ['tokenizer.ggml.model', 'string', 'gpt2'],
    ['tokenizer.ggml.pre', 'string', 'qwen2'],
    ['tokenizer.ggml.tokens', 'strings', tokens],
    ['tokenizer.ggml.token_type', 'i32s', types],
    ['tokenizer.ggml.merges', 'strings', merges],
    ['tokenizer.ggml.bos_token_id', 'u32', tokenId('<|endoftext|>')],
    ['tokenizer.ggml.eos_token_id', 'u32', tokenId('<|im_end|>')],
    ['tokenizer.ggml.padding_token_id', 'u32', tokenId('<|endoftext|>')],
    ['tokenizer.ggml.add_bos_token', 'bool', false],
    ['tokenizer.chat_template', 'string', CHAT_TEMPLATE],
  ];

  const bytes = encodeGguf(meta, tensors, type);

  const parameters = tensors.reduce((n, t) => n + t.dims.reduce((a, b) => a * b, 1), 0);
  return { bytes, tokenId, vocabSize: nVocab, parameters, chatTemplate: CHAT_TEMPLATE };
}
