// Images on the llama.cpp engine, for real: the production build's engine worker runs llama.cpp (@wllama/wllama)
// on the CPU with a tiny language model (scripts/gguf/synthesize.ts) and a tiny vision projector beside it
// (scripts/gguf/synthesize-mmproj.ts: a CLIP-style encoder with LLaVA's MLP projector, 32 px images, 16 image
// tokens), both synthesized at test time and served as svc-vision's GGUF and mmproj by a static deployment.
// That the image was encoded shows in usage: the prompt grows by exactly the image's tokens.
import { expect, test } from '@playwright/test';
import { synthesizeGguf } from '../../scripts/gguf/synthesize';
import { synthesizeMmproj } from '../../scripts/gguf/synthesize-mmproj';
import { GGUF_DEFAULTS } from '../../worker/engine/llamacpp/models';
import { call, chat, sseEvents } from './helpers';
import { openChatSettings, playgroundKey } from './workspace-steps';
import { encodePng } from './png';
import { llamaCppDeployment, ggufPath } from './llamacpp-deployment';

interface Completion {
  choices: { message: { content: string | null; reasoning_content?: string }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}
interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const pathOf = ggufPath;
const VISION = 'phi-3.5-vision';

test.describe.configure({ mode: 'serial' });

const model = synthesizeGguf({ seed: 7 });
const mmproj = synthesizeMmproj({ seed: 11 });
// A 20 × 12 picture (not the encoder's 32 × 32: llama.cpp resizes and pads it).
const png = encodePng(20, 12, (x, y) => [x * 12, y * 20, (x + y) % 2 ? 255 : 0]);
const pngDataUrl = `data:image/png;base64,${Buffer.from(png).toString('base64')}`;

const deployment = llamaCppDeployment({
  port: 4591,
  prefix: 'gguf-vision',
  files: async (put) => {
    await put(pathOf(VISION), model.bytes);
    await put(pathOf(VISION, GGUF_DEFAULTS[VISION]!.mmproj), mmproj.bytes);
    await put(pathOf('qwen3-1.7b'), model.bytes);
    await put('pictures/picture.png', png);
  },
});
const openDeployment = () => deployment.open();

const withImages = (urls: string[], extra: Record<string, unknown> = {}) => ({
  model: 'svc-vision',
  temperature: 0,
  // svc-vision's llama.cpp default thinks (a Qwen3-VL Thinking model): the synthesized model's 6 tokens of
  // thinking ("<think> Let me think.</think>"), then 6 of answer.
  max_tokens: 12,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }, ...urls.map((url) => ({ type: 'image_url', image_url: { url } }))] }],
  ...extra,
});

test('llama.cpp reads images through its mmproj: data: and same-origin URLs, any browser format, counted in usage; bad images and text models refused', async () => {
  test.setTimeout(180_000);
  const { page, key } = await openDeployment();
  const start = deployment.server.gets.length;

  // The same prompt without an image, then with one: the answer completes, and the prompt is longer by exactly
  // the image's tokens (the encoder's 16 patches), which only an encoded image gives. llama.cpp joins a turn's
  // parts with "\n" and puts its media marker in the image's place, so the plain prompt is "Hello" and an empty
  // part: the same text tokens.
  const plain = await chat(
    page,
    key,
    withImages([], {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hello' },
            { type: 'text', text: '' },
          ],
        },
      ],
    }),
  );
  expect(plain.status, plain.text).toBe(200);
  const plainUsage = (plain.json as Completion).usage;
  const pictured = await chat(page, key, withImages([pngDataUrl]));
  expect(pictured.status, pictured.text).toBe(200);
  const answer = pictured.json as Completion;
  expect(answer.choices[0]!.message.content).toMatch(/^[\x20-\x7e]+$/);
  expect(answer.choices[0]!.message.reasoning_content).toBe('Let me think.');
  expect(answer.choices[0]!.finish_reason).toBe('length');
  expect(answer.usage.completion_tokens).toBe(12);
  expect(answer.usage.prompt_tokens - plainUsage.prompt_tokens).toBe(mmproj.imageTokens);
  // Both files were fetched once, together (the empty browser context had nothing cached). wllama also asks
  // for Hugging Face's LFS pointers (`/raw/` instead of `/resolve/`) to learn the files' SHA-256.
  const files = [`/gguf/${pathOf(VISION)}`, `/gguf/${pathOf(VISION, GGUF_DEFAULTS[VISION]!.mmproj)}`];
  expect(
    deployment.server.gets
      .slice(start)
      .filter((p) => p.endsWith('.gguf') && p.includes('/resolve/'))
      .sort(),
  ).toEqual([...files].sort());

  // The same picture by URL of this origin (fetched by the engine worker, as the host allowlist permits), and
  // as WebP (which llama.cpp cannot decode: re-encoded as PNG first): the same prompt size.
  const byUrl = await chat(page, key, withImages([`${deployment.server.origin}/gguf/pictures/picture.png`]));
  expect(byUrl.status, byUrl.text).toBe(200);
  expect((byUrl.json as Completion).usage.prompt_tokens).toBe(answer.usage.prompt_tokens);
  const encoded = (type: string) =>
    page.evaluate(async (type) => {
      const canvas = new OffscreenCanvas(24, 18);
      const context = canvas.getContext('2d')!;
      context.fillStyle = '#3366cc';
      context.fillRect(0, 0, 24, 18);
      context.fillStyle = '#ffcc00';
      context.fillRect(4, 4, 10, 6);
      const blob = await canvas.convertToBlob({ type });
      const bytes = new Uint8Array(await blob.arrayBuffer());
      return { type: blob.type, url: `data:${blob.type};base64,${btoa(String.fromCharCode(...bytes))}` };
    }, type);
  const webp = await encoded('image/webp');
  expect(webp.type).toBe('image/webp');
  const fromWebp = await chat(page, key, withImages([webp.url]));
  expect(fromWebp.status, fromWebp.text).toBe(200);
  expect((fromWebp.json as Completion).usage.prompt_tokens).toBe(answer.usage.prompt_tokens);
  // JPEG goes to llama.cpp as it is (its own decoder reads it).
  const jpeg = await encoded('image/jpeg');
  expect(jpeg.type).toBe('image/jpeg');
  const fromJpeg = await chat(page, key, withImages([jpeg.url]));
  expect(fromJpeg.status, fromJpeg.text).toBe(200);
  expect((fromJpeg.json as Completion).usage.prompt_tokens).toBe(answer.usage.prompt_tokens);

  // A conversation that goes on after an image turn (as the workspace sends it): the image stays in the prompt.
  const followUp = (image: boolean) =>
    chat(page, key, {
      model: 'svc-vision',
      temperature: 0,
      max_tokens: 4,
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'Hello' }, image ? { type: 'image_url', image_url: { url: pngDataUrl } } : { type: 'text', text: '' }],
        },
        { role: 'assistant', content: 'Hi there' },
        { role: 'user', content: 'And now?' },
      ],
    });
  const laterPlain = await followUp(false);
  const laterPictured = await followUp(true);
  expect(laterPictured.status, laterPictured.text).toBe(200);
  expect((laterPictured.json as Completion).usage.prompt_tokens - (laterPlain.json as Completion).usage.prompt_tokens).toBe(mmproj.imageTokens);

  // Two images: two times the image's tokens (and one more "\n" between the parts).
  const two = await chat(page, key, withImages([pngDataUrl, webp.url]));
  expect(two.status, two.text).toBe(200);
  expect((two.json as Completion).usage.prompt_tokens).toBe(answer.usage.prompt_tokens + mmproj.imageTokens + 1);

  // Streamed: the same answer, usage in the last chunk.
  const streamed = await chat(page, key, withImages([pngDataUrl], { stream: true, stream_options: { include_usage: true } }));
  expect(streamed.status).toBe(200);
  const chunks = sseEvents(streamed.text)
    .slice(0, -1)
    .map((e) => JSON.parse(e) as { choices: { delta: { content?: string } }[]; usage?: Completion['usage'] | null });
  expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(answer.choices[0]!.message.content);
  expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: answer.usage.prompt_tokens, completion_tokens: 12 });

  // Images that cannot be read: a clear 400 naming the part, before the model is touched.
  const elsewhere = await chat(page, key, withImages(['https://images.example.com/cat.png']));
  expect(elsewhere.status).toBe(400);
  expect((elsewhere.json as ErrorBody).error).toMatchObject({
    type: 'invalid_request_error',
    code: 'invalid_value',
    param: 'messages[0].content[1].image_url.url',
  });
  expect((elsewhere.json as ErrorBody).error.message).toContain('not on a host this service may reach');
  const missing = await chat(page, key, withImages([`${deployment.server.origin}/gguf/pictures/none.png`]));
  expect(missing.status).toBe(400);
  expect((missing.json as ErrorBody).error).toMatchObject({ code: 'invalid_value', param: 'messages[0].content[1].image_url.url' });
  const notAnImage = await chat(page, key, withImages([`data:image/png;base64,${Buffer.from('not a picture').toString('base64')}`]));
  expect(notAnImage.status).toBe(400);
  expect((notAnImage.json as ErrorBody).error).toMatchObject({ code: 'invalid_value', param: 'messages[0].content[1].image_url.url' });
  expect((notAnImage.json as ErrorBody).error.message).toContain('not an image the browser can decode');

  // A text-only llama.cpp model refuses image parts with the same 400 as on web-llm.
  const textModel = await chat(page, key, withImages([pngDataUrl], { model: 'svc-model-5.2-short' }));
  expect(textModel.status).toBe(400);
  expect((textModel.json as ErrorBody).error).toEqual({
    type: 'invalid_request_error',
    code: 'unsupported_parameter',
    param: 'messages[0].content[1]',
    message: "The model 'svc-model-5.2-short' does not take image input ('messages[0].content[1]'); use svc-vision.",
  });
  // …and the vision model still answers after all of that.
  expect((await chat(page, key, withImages([pngDataUrl]))).status).toBe(200);

  // The Responses API's input_image takes the same path (converted to a chat image part): the same prompt size.
  const response = await call(page, '/v1/responses', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'svc-vision',
      temperature: 0,
      max_output_tokens: 16,
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Hello' },
            { type: 'input_image', image_url: pngDataUrl },
          ],
        },
      ],
    }),
  });
  expect(response.status, response.text).toBe(200);
  expect((response.json as { status: string; usage: { input_tokens: number } }).usage.input_tokens).toBe(answer.usage.prompt_tokens);

  // A new engine worker (the page reloaded) loads the model and its mmproj from wllama's cache: no GET of either
  // (nor of their pointers).
  const before = deployment.server.gets.length;
  await page.reload();
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  const cached = await chat(page, key, withImages([pngDataUrl]));
  expect(cached.status, cached.text).toBe(200);
  expect((cached.json as Completion).usage.prompt_tokens).toBe(answer.usage.prompt_tokens);
  expect(deployment.server.gets.slice(before).filter((p) => p.endsWith('.gguf'))).toEqual([]);

  // The storage the model takes counts both files; deleting it removes both (the next image request fetches both).
  const status = async () => (await page.evaluate(async () => (await window.inpageReady)!.engine!.control.status())).find((m) => m.id === 'svc-vision')!;
  expect((await status()).sizeOnDisk).toBe(model.bytes.length + mmproj.bytes.length);
  await page.evaluate(async () => (await window.inpageReady)!.engine!.control.deleteFromCache('svc-vision'));
  expect((await status()).state).toBe('not_downloaded');
  const afterDelete = deployment.server.gets.length;
  expect((await chat(page, key, withImages([pngDataUrl]))).status).toBe(200);
  expect(
    deployment.server.gets
      .slice(afterDelete)
      .filter((p) => p.endsWith('.gguf') && p.includes('/resolve/'))
      .sort(),
  ).toEqual([...files].sort());

  // The Playground says what the engine does: svc-vision's model here always thinks (no reasoning_effort
  // "none" on llama.cpp), so its Thinking switch is on and cannot be turned off, and the hint says it thinks.
  // (The workspace was registered through the API: a reload shows it.)
  await page.goto('/#playground');
  await page.reload();
  await playgroundKey(page);
  await page.getByLabel('Model').selectOption('svc-vision');
  await openChatSettings(page);
  await page.getByText('Parameters').click();
  const thinking = page.getByRole('checkbox', { name: /Thinking/ });
  await expect(thinking).toBeChecked();
  await expect(thinking).toBeDisabled();
  await expect(page.locator('.pg-params')).toContainText('(the model serving it here always thinks)');
  await expect(page.locator('#pg-model-hint')).toContainText('Thinks first');

  await page.context().close();
});

test('llama.cpp: an mmproj made for another model (another width) fails the load clearly, naming the file', async () => {
  test.setTimeout(120_000);
  const mmprojPath = `/gguf/${pathOf(VISION, GGUF_DEFAULTS[VISION]!.mmproj)}`;
  deployment.server.override(mmprojPath, synthesizeMmproj({ seed: 11, textEmbedding: 32 }).bytes);
  try {
    // A fresh browser context: nothing cached, both files are fetched again.
    const { page, key } = await openDeployment();
    const failed = await chat(page, key, withImages([pngDataUrl]));
    expect(failed.status).toBe(503);
    const error = (failed.json as ErrorBody).error;
    expect(error).toMatchObject({ type: 'server_error', code: 'model_load_failed', param: null });
    expect(error.message).toContain(pathOf(VISION));
    expect(error.message).toContain(`vision projector (mmproj ${deployment.server.origin}${mmprojPath})`);
    await page.context().close();
  } finally {
    deployment.server.override(mmprojPath, null);
  }
});
