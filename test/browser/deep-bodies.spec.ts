// Issue 14: a 4 KB body nested thousands of levels deep made postMessage overflow its stack (500). Bodies nested
// more than 64 levels are refused with 400 invalid_value naming the field, before anything clones or validates
// them; bodies within the limit are served as ever. (The hostile suite generates many more.)
import { expect, test } from '@playwright/test';
import { auth, call, makeKey, openApp } from './helpers';

// Written as JSON text: serialising such values recursively would overflow the test's own stack.
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const objects = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
const hi = '"model":"svc-model-5.2-fast","messages":[{"role":"user","content":"deep"}]';

test('deep bodies: over 64 levels 400 invalid_value naming the field, streams included; 64 levels served', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const post = (body: string) => call(page, '/v1/chat/completions', { method: 'POST', headers: auth(key), body });
  const cases: [string, string | null][] = [
    [`{${hi},"x_extension":${arrays(2000)}}`, 'x_extension'],
    [`{${hi},"stream":true,"x_extension":${objects(2000)}}`, 'x_extension'],
    [`{${hi},"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${objects(5000)}}}}`, 'response_format'],
    [`{"model":"svc-model-5.2-fast","messages":[{"role":"user","content":${arrays(100)}}]}`, 'messages'],
    [arrays(3000), null],
    // 1 (body) + 64 = 65 levels: one over.
    [`{${hi},"x_extension":${arrays(64)}}`, 'x_extension'],
  ];
  for (const [body, param] of cases) {
    const answer = await post(body);
    expect(answer.status, answer.text.slice(0, 300)).toBe(400);
    expect((answer.json as { error: unknown }).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param });
    expect((answer.json as { error: { message: string } }).error.message).toContain('64 levels');
  }
  // 64 levels in all (the body and 63 more): an ignored field, served as ever.
  const within = await post(`{${hi},"x_extension":${arrays(63)}}`);
  expect(within.status, within.text.slice(0, 300)).toBe(200);
  expect((within.json as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: deep');
});
