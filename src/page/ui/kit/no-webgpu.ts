// What a person sees when this browser gives the page no WebGPU: why, and what to do about it; or, where llama.cpp
// runs the models on the CPU instead, what that means (the sign-up and the Models area show them).
import { h } from 'preact';
import { CopyButton } from './widgets';

function Url(props: { url: string }) {
  // chrome:// and about: pages cannot be linked from a web page: show them to copy instead.
  return h('span', { class: 'inline-copy' }, h('code', null, props.url), ' ', h(CopyButton, { text: props.url, label: `Copy ${props.url}` }));
}

/** `beforeSignUp`: on the sign-up page, where the areas it points to do not exist yet. */
export function NoWebGpu(props: { reason: string | null; beforeSignUp?: boolean }) {
  return h(
    'section',
    { class: 'card no-webgpu', 'aria-labelledby': 'no-webgpu-title' },
    h('h2', { id: 'no-webgpu-title' }, 'The models cannot run in this browser: no usable WebGPU'),
    props.reason && h('p', { class: 'reason' }, props.reason),
    h('p', null, 'The models run on your graphics card through WebGPU, right in this tab. Without it nothing can generate text here.'),
    h('h3', null, 'What to do'),
    h(
      'ol',
      { class: 'steps' },
      h(
        'li',
        null,
        h('strong', null, 'Use a browser with WebGPU. '),
        'Chrome or Edge 113 or newer on Windows, macOS and ChromeOS; Chrome 121 or newer on Android 12+; Safari 26 on macOS, iOS and iPadOS; Firefox 141 or newer on Windows.',
      ),
      h(
        'li',
        null,
        h('strong', null, 'On Linux, switch it on. '),
        'Chrome and Edge may need the flags ',
        h('em', null, 'Unsafe WebGPU Support'),
        ' and ',
        h('em', null, 'Vulkan'),
        ' at ',
        h(Url, { url: 'chrome://flags/#enable-unsafe-webgpu' }),
        ', then a restart. Firefox: ',
        h('code', null, 'dom.webgpu.enabled'),
        ' at ',
        h(Url, { url: 'about:config' }),
        '.',
      ),
      h(
        'li',
        null,
        h('strong', null, 'Check the GPU status. '),
        'Open ',
        h(Url, { url: 'chrome://gpu' }),
        ' and look for “WebGPU: Hardware accelerated”. If it says disabled or blocklisted, turn on “Use graphics acceleration when available” in the browser settings and update the graphics driver.',
      ),
      h('li', null, h('strong', null, 'Open the page over https (or on localhost). '), 'Browsers offer WebGPU only to secure pages.'),
    ),
    h('h3', null, 'What still works'),
    props.beforeSignUp
      ? h(
          'p',
          null,
          'You can still create the workspace below: API keys and the Connect snippets work as usual. Chat completions answer with an error until the page runs in a browser with WebGPU.',
        )
      : h(
          'p',
          null,
          'Your workspace, ',
          h('a', { href: '#keys' }, 'API keys'),
          ' and the ',
          h('a', { href: '#connect' }, 'Connect'),
          ' snippets work as usual. Chat completions answer with an error until the page runs in a browser with WebGPU.',
        ),
  );
}

/** No WebGPU for web-llm, but llama.cpp runs the models on the CPU: what that means, and what would be faster. */
export function CpuNotice(props: { cpu: { threads: number; reason: string | null }; beforeSignUp?: boolean }) {
  const { threads, reason } = props.cpu;
  return h(
    'div',
    { class: 'card cpu-engine', 'data-testid': 'cpu-engine', 'aria-labelledby': 'cpu-engine-title' },
    h('h2', { id: 'cpu-engine-title' }, 'The models run on this device’s CPU'),
    h(
      'p',
      null,
      `This browser offers no usable WebGPU, so the models run on the processor with llama.cpp, on ${threads} thread${threads === 1 ? '' : 's'}. They answer, but more slowly than on a graphics card, and the larger variants may not fit this device’s memory.`,
    ),
    // The browser's own words, after the plain ones.
    reason && h('details', { class: 'detail' }, h('summary', null, 'Technical detail'), h('p', { class: 'detail-text', 'data-testid': 'cpu-reason' }, reason)),
    h(
      'p',
      { class: 'muted' },
      props.beforeSignUp
        ? 'Everything else works as usual. For faster answers, open this page in a browser with WebGPU (Chrome or Edge 113+, Safari 26+, Firefox 141+ on Windows).'
        : 'For faster answers, open this page in a browser with WebGPU (Chrome or Edge 113+, Safari 26+, Firefox 141+ on Windows).',
    ),
  );
}
