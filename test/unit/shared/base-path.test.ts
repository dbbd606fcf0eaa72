import { describe, expect, it } from 'vitest';
import { apiPath, apiRoute, configUrl } from '#shared/base-path';

describe("URLs under the app's base path", () => {
  it('puts the API and the settings file at the base', () => {
    expect(apiPath('/')).toBe('/v1');
    expect(apiPath('/app/')).toBe('/app/v1');
    expect(apiPath('https://x.example/a/b/')).toBe('/a/b/v1');
    expect(configUrl('https://x.example/app/').href).toBe('https://x.example/app/inpage.config.json');
    expect(configUrl('/').pathname).toBe('/inpage.config.json');
  });

  it("maps a request path under the API to the routes' /v1 path, and nothing else", () => {
    expect(apiRoute('/app/v1/chat/completions', '/app/v1')).toBe('/v1/chat/completions');
    expect(apiRoute('/app/v1', '/app/v1')).toBe('/v1');
    expect(apiRoute('/v1/models', '/v1')).toBe('/v1/models');
    expect(apiRoute('/v1/models', '/app/v1')).toBeNull();
    expect(apiRoute('/app/v10/models', '/app/v1')).toBeNull();
    expect(apiRoute('/app/index.html', '/app/v1')).toBeNull();
  });
});
