// The length a server gives for a file (HEAD), found out small before a download starts: both engines tell a
// download's size with it (web-llm's model library, llama.cpp's GGUF files). Unknown is null, never a guess.

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** The file's length as its server states it (a HEAD request), or null. */
export async function contentLength(url: string, fetchFn: Fetch, signal?: AbortSignal): Promise<number | null> {
  try {
    const res = await fetchFn(url, { method: 'HEAD', signal });
    if (!res.ok) return null;
    const length = Number(res.headers.get('content-length'));
    return Number.isSafeInteger(length) && length > 0 ? length : null;
  } catch {
    return null;
  }
}
