// Stored responses (POST /v1/responses with `store`): how many this browser keeps, and a way to delete them all.
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { countResponses, deleteAllResponses } from '#shared/responses-db';
import { formatInteger } from '../../kit/format';
import { errorText } from '../../kit/widgets';

/** How often the count is read again while it is on screen (responses are stored by other tabs' scripts too). */
const REFRESH_MS = 5000;

export function StoredResponses() {
  const [count, setCount] = useState<number | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const read = () =>
    countResponses().then(
      (n) => setCount(n),
      (err: unknown) => setError(errorText(err)),
    );
  useEffect(() => {
    void read();
    const timer = setInterval(() => void read(), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const removeAll = async () => {
    setConfirming(false);
    try {
      await deleteAllResponses();
      await read();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const n = count ?? 0;
  return h(
    'div',
    { class: 'stored-responses', 'data-testid': 'stored-responses' },
    h('h2', { class: 'section-title' }, 'Stored responses ', h('span', { class: 'count' }, count === null ? '…' : formatInteger(n))),
    h(
      'p',
      { class: 'hint' },
      'Kept in this browser by ',
      h('code', null, 'POST /v1/responses'),
      ' (unless ',
      h('code', null, 'store: false'),
      '), each readable only with the key that made it.',
    ),
    error ? h('p', { class: 'error', role: 'alert' }, error) : null,
    confirming
      ? h(
          'p',
          null,
          h('button', { type: 'button', class: 'button danger small', onClick: () => void removeAll() }, `Delete all ${formatInteger(n)}`),
          ' ',
          h('button', { type: 'button', class: 'button small', onClick: () => setConfirming(false) }, 'Cancel'),
        )
      : h('button', { type: 'button', class: 'button small', disabled: n === 0, onClick: () => setConfirming(true) }, 'Delete all stored responses'),
  );
}
