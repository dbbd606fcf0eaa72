// The form of an API key: `sk-svc-` + 43 base64url characters (32 random bytes), hashed with SHA-256.

export const KEY_PREFIX = 'sk-svc-';
const KEY_PATTERN = /^sk-svc-[A-Za-z0-9_-]{43}$/;

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function generateKey(): string {
  return KEY_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(32)));
}

export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export async function hashKey(key: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * `sk-svc-abcd…wxyz`: enough to recognise a key, never enough to use it. A presented string that is not
 * a well-formed key shows at most its first and last four characters, and nothing of a short one.
 */
export function displayForm(key: string): string {
  if (key.startsWith(KEY_PREFIX) && key.length >= KEY_PREFIX.length + 12) {
    const secret = key.slice(KEY_PREFIX.length);
    return `${KEY_PREFIX}${secret.slice(0, 4)}…${secret.slice(-4)}`;
  }
  if (key.length >= 16) return `${key.slice(0, 4)}…${key.slice(-4)}`;
  return '…';
}
