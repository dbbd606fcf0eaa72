// POST /v1/embeddings: the request checked once, OpenAI's base64 format, and the test engine's vectors.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ApiError } from '#shared/protocol/errors';
import { decodeBase64Float32, embeddingResponse, encodeBase64Float32, isEmbeddingRequest, parseEmbeddingRequest } from '#shared/protocol/embeddings';
import { validateChatRequest } from '#shared/protocol/validate';
import { DEFAULT_CONFIG } from '#shared/config';
import { deterministicEmbedding } from '../../engine/deterministic-embedding';
import { DeterministicEngine } from '../../engine/deterministic-engine';
import type { EngineEvent } from '#shared/wire/engine-port';

function refusal(body: unknown): ApiError {
  try {
    parseEmbeddingRequest(body);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a refusal');
}

const norm = (v: readonly number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('the embeddings request', () => {
  it('takes a string, strings, token ids or lists of them; null optional fields mean unset; user is accepted', () => {
    const one = parseEmbeddingRequest({ model: 'svc-embed', input: 'hello', encoding_format: null, dimensions: null, user: 'u1' });
    expect([one.kind, one.model, one.input, one.encoding_format]).toEqual(['embeddings', 'svc-embed', ['hello'], 'float']);
    expect(isEmbeddingRequest(one)).toBe(true);
    expect(parseEmbeddingRequest({ model: 'svc-embed', input: ['a', 'b'], encoding_format: 'base64' })).toMatchObject({
      input: ['a', 'b'],
      encoding_format: 'base64',
    });
    expect(parseEmbeddingRequest({ model: 'svc-embed', input: [1, 2, 3] }).input).toEqual([[1, 2, 3]]);
    expect(parseEmbeddingRequest({ model: 'svc-embed', input: [[1], [2, 3]] }).input).toEqual([[1], [2, 3]]);
    expect(parseEmbeddingRequest({ model: 'svc-embed', input: 'x', dimensions: 384 }).input).toEqual(['x']);
  });

  it('refuses what it cannot do with OpenAI-shaped 400s naming the field', () => {
    const cases: [unknown, number, string, string | null][] = [
      [{ model: 'svc-embed' }, 400, 'missing_required_parameter', 'input'],
      [{ input: 'x' }, 400, 'missing_required_parameter', 'model'],
      [{ model: 'svc-embed', input: '' }, 400, 'invalid_value', 'input'],
      [{ model: 'svc-embed', input: [] }, 400, 'invalid_value', 'input'],
      [{ model: 'svc-embed', input: ['a', ''] }, 400, 'invalid_value', 'input[1]'],
      [{ model: 'svc-embed', input: [[1], []] }, 400, 'invalid_value', 'input[1]'],
      [{ model: 'svc-embed', input: ['a', 1] }, 400, 'invalid_type', 'input[1]'],
      [{ model: 'svc-embed', input: [1.5] }, 400, 'invalid_type', 'input[0]'],
      [{ model: 'svc-embed', input: [30_522] }, 400, 'invalid_value', 'input[0]'],
      [{ model: 'svc-embed', input: 7 }, 400, 'invalid_type', 'input'],
      [{ model: 'svc-embed', input: 'x', dimensions: 256 }, 400, 'unsupported_parameter', 'dimensions'],
      [{ model: 'svc-embed', input: 'x', encoding_format: 'int8' }, 400, 'invalid_value', 'encoding_format'],
      [{ model: 'svc-model-5.2-fast', input: 'x' }, 400, 'invalid_value', 'model'],
      [{ model: 'text-embedding-3-small', input: 'x' }, 404, 'model_not_found', 'model'],
      [[], 400, 'invalid_type', null],
    ];
    for (const [body, status, code, param] of cases) {
      const err = refusal(body);
      expect([err.status, err.code, err.param], JSON.stringify(body)).toEqual([status, code, param]);
    }
    expect(refusal({ model: 'svc-model-5.2', input: 'x' }).message).toContain('svc-embed');
    expect(refusal({ model: 'svc-embed', input: 'x', dimensions: 256 }).message).toContain('384');
  });

  it('svc-embed asked for chat is a clear 400', () => {
    let err: unknown;
    try {
      validateChatRequest({ model: 'svc-embed', messages: [{ role: 'user', content: 'hi' }] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect([(err as ApiError).status, (err as ApiError).code, (err as ApiError).param]).toEqual([400, 'invalid_value', 'model']);
    expect((err as ApiError).message).toContain('/v1/embeddings');
  });
});

describe('the answer', () => {
  it('base64 is the little-endian float32 bytes, as OpenAI sends (and the SDK decodes)', () => {
    expect(encodeBase64Float32([1, -2])).toBe(Buffer.from(new Float32Array([1, -2]).buffer).toString('base64'));
    // 1.0f = 0x3f800000: little-endian bytes 00 00 80 3f.
    expect(Buffer.from(encodeBase64Float32([1]), 'base64')).toEqual(Buffer.from([0, 0, 0x80, 0x3f]));
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true }), { maxLength: 600 }), (values) => {
        expect(decodeBase64Float32(encodeBase64Float32(values))).toEqual(values.map((x) => Math.fround(x)));
      }),
    );
  });

  it("is OpenAI's list: one embedding per input in order, total_tokens = prompt_tokens", () => {
    const request = parseEmbeddingRequest({ model: 'svc-embed', input: ['a', 'b'] });
    expect(embeddingResponse(request, [[0.5], [0.25]], 7)).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.5] },
        { object: 'embedding', index: 1, embedding: [0.25] },
      ],
      model: 'svc-embed',
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
    const b64 = embeddingResponse({ ...request, encoding_format: 'base64' }, [[0.5], [0.25]], 7);
    expect(b64.data.map((d) => decodeBase64Float32(d.embedding as string))).toEqual([[0.5], [0.25]]);
  });
});

describe("the test engine's vectors", () => {
  it('are fixed-size, unit length, the same for the same input and different for different inputs', () => {
    const seen = new Map<string, number[]>();
    fc.assert(
      fc.property(fc.oneof(fc.string({ minLength: 1 }), fc.array(fc.nat(30_521), { minLength: 1, maxLength: 8 })), (input) => {
        const v = deterministicEmbedding(input, 384);
        if (v.length !== 384 || Math.abs(norm(v) - 1) > 1e-5) return false;
        const again = deterministicEmbedding(input, 384);
        if (again.some((x, i) => x !== v[i])) return false;
        const key = JSON.stringify(input);
        for (const [other, w] of seen) if (other !== key && w.every((x, i) => x === v[i])) return false;
        if (seen.size < 50) seen.set(key, v);
        return true;
      }),
      { numRuns: 200 },
    );
    expect(deterministicEmbedding('1', 384)).not.toEqual(deterministicEmbedding([1], 384));
  });

  it('the engine embeds beside the loaded chat model, counts tokens, and refuses inputs over 512 tokens', async () => {
    const engine = new DeterministicEngine(DEFAULT_CONFIG);
    await engine.load('svc-model-5.2-fast');
    const generation = await engine.embed(parseEmbeddingRequest({ model: 'svc-embed', input: ['one two', 'three'] }), new AbortController().signal);
    const events: EngineEvent[] = [];
    for await (const e of generation.events) events.push(e);
    expect(events.map((e) => e.type)).toEqual(['embedding', 'embedding', 'finish']);
    expect(events[0]).toEqual({ type: 'embedding', index: 0, embedding: deterministicEmbedding('one two', 384) });
    const finish = events[2] as Extract<EngineEvent, { type: 'finish' }>;
    expect([finish.usage.prompt_tokens, finish.usage.total_tokens]).toEqual([3, 3]);
    const states = Object.fromEntries(engine.status().map((s) => [s.id, s.state]));
    expect([states['svc-model-5.2-fast'], states['svc-embed']]).toEqual(['ready', 'ready']);
    await expect(
      engine.embed(parseEmbeddingRequest({ model: 'svc-embed', input: [Array.from({ length: 513 }, () => 1)] }), new AbortController().signal),
    ).rejects.toMatchObject({ code: 'context_length_exceeded', status: 400 });
  });
});
