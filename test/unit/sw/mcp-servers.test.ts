// Issue 48: the `mcpServers` setting (which MCP servers a deployment's pages may reach), the service worker's
// policy that follows it, and the pure parts of the MCP client: approval rules, the result cut, the tools' echo.
import { describe, expect, it } from 'vitest';
import { mcpServerAllowed, mcpServerOrigins, mcpServersProblem, MCP_BOUNDS } from '#shared/mcp-servers';
import { serviceWorkerCsp } from '#shared/csp';
import { DEFAULT_CONFIG, mergeConfig } from '#shared/config';
import { configJsonSchema } from '#shared/config-schema';
import { checkMcpTools, cut, echoMcpTool, needsApproval } from '../../../worker/sw/responses/mcp';
import { parseResponsesRequest } from '../../../worker/sw/responses/request';
import { ApiError } from '#shared/protocol/errors';

describe('mcpServers', () => {
  const list = ['https://mcp.example.com', 'https://tools.example/team/', 'http://127.0.0.1:4784/mcp'];

  it('an origin allows any path on it; a URL prefix only what is under it; nothing else', () => {
    for (const url of [
      'https://mcp.example.com/mcp',
      'https://mcp.example.com/',
      'https://tools.example/team/x',
      'http://127.0.0.1:4784/mcp',
      'http://127.0.0.1:4784/mcp/sub',
    ]) {
      expect(mcpServerAllowed(url, list), url).toBe(true);
    }
    for (const url of [
      'https://mcp.example.com.evil.example/mcp',
      'http://mcp.example.com/mcp',
      'https://tools.example/teammate',
      'https://tools.example/',
      'http://127.0.0.1:4784/mcpx',
      'http://127.0.0.1:4785/mcp',
      'javascript:alert(1)',
      'not a url',
    ]) {
      expect(mcpServerAllowed(url, list), url).toBe(false);
    }
    expect(mcpServerAllowed('https://mcp.example.com/mcp', [])).toBe(false);
  });

  it('a bad setting is named and lets no server through', () => {
    expect(mcpServersProblem(list)).toBeNull();
    expect(mcpServersProblem('https://mcp.example.com')).toContain('expected an array');
    expect(mcpServersProblem(['https://a.example', 'https://user:pw@b.example'])).toContain('mcpServers[1]');
    expect(mcpServersProblem(['https://a.example/?key=x'])).toContain('mcpServers[0]');
    expect(mcpServerAllowed('https://a.example/mcp', ['https://a.example', 'ftp://b.example'])).toBe(false);
  });

  it("the service worker's connect-src follows it", () => {
    expect(serviceWorkerCsp()).toBe("default-src 'none'; script-src 'self'; connect-src 'self'");
    expect(mcpServerOrigins([...list, 'https://mcp.example.com/other'])).toEqual(['https://mcp.example.com', 'https://tools.example', 'http://127.0.0.1:4784']);
    expect(serviceWorkerCsp(list)).toBe(
      "default-src 'none'; script-src 'self'; connect-src 'self' https://mcp.example.com https://tools.example http://127.0.0.1:4784",
    );
    expect(serviceWorkerCsp('https://not-an-array.example')).toBe("default-src 'none'; script-src 'self'; connect-src 'self'");
  });

  it('the bounds are settings of their own, with defaults, in the JSON Schema', () => {
    const merged = mergeConfig({ ...DEFAULT_CONFIG }, { mcpServers: list, mcpMaxCalls: 2, mcpCallTimeoutMs: '500' });
    expect(merged.mcpServers).toEqual(list);
    expect(merged.mcpMaxCalls).toBe(2);
    expect(merged.mcpCallTimeoutMs).toBe(500);
    expect(merged.mcpMaxResultBytes).toBe(MCP_BOUNDS.mcpMaxResultBytes.default);
    const properties = configJsonSchema().properties as Record<string, { default?: unknown }>;
    for (const [name, bound] of Object.entries(MCP_BOUNDS)) expect(properties[name]?.default, name).toBe(bound.default);
    expect(properties.mcpServers).toMatchObject({ type: 'array', default: [] });
  });
});

describe('the MCP tool', () => {
  const tool = (extra: Record<string, unknown> = {}) => {
    const request = parseResponsesRequest({
      model: 'm',
      input: 'x',
      tools: [{ type: 'mcp', server_label: 's', server_url: 'https://mcp.example.com', ...extra }],
    });
    const t = request.tools![0]!;
    if (t.type !== 'mcp') throw new Error('not mcp');
    return t;
  };
  const info = (name: string, readOnly = false) => ({ name, description: null, input_schema: {}, annotations: readOnly ? { readOnlyHint: true } : null });

  it("require_approval as OpenAI defines it: default always; 'never'; a never filter by names or read-only", () => {
    expect(needsApproval(tool(), info('a'))).toBe(true);
    expect(needsApproval(tool({ require_approval: 'never' }), info('a'))).toBe(false);
    const filtered = tool({ require_approval: { never: { tool_names: ['a'] } } });
    expect(needsApproval(filtered, info('a'))).toBe(false);
    expect(needsApproval(filtered, info('b'))).toBe(true);
    expect(needsApproval(tool({ require_approval: { never: { read_only: true } } }), info('b', true))).toBe(false);
    expect(needsApproval(tool({ require_approval: { never: { read_only: true } } }), info('b'))).toBe(true);
  });

  it('is echoed without its secrets', () => {
    const echoed = echoMcpTool(tool({ authorization: 'tok-123456', headers: { 'x-key': 'hdr-123456' } }));
    expect(JSON.stringify(echoed)).not.toMatch(/tok-123456|hdr-123456/);
    expect(echoed).toEqual({
      type: 'mcp',
      server_label: 's',
      server_url: 'https://mcp.example.com',
      server_description: null,
      headers: null,
      allowed_tools: null,
      require_approval: 'always',
    });
  });

  it('refuses connectors and tunnels, and wants a server_url', () => {
    const refused = (t: Record<string, unknown>) => {
      try {
        parseResponsesRequest({ model: 'm', input: 'x', tools: [t] });
      } catch (err) {
        return err instanceof ApiError ? [err.code, err.param] : err;
      }
      return null;
    };
    expect(refused({ type: 'mcp', server_label: 's', connector_id: 'connector_gmail' })).toEqual(['unsupported_parameter', 'tools[0].connector_id']);
    expect(refused({ type: 'mcp', server_label: 's', server_url: 'https://a.example', tunnel_id: 't' })).toEqual([
      'unsupported_parameter',
      'tools[0].tunnel_id',
    ]);
    expect(refused({ type: 'mcp', server_label: 's' })).toEqual(['missing_required_parameter', 'tools[0].server_url']);
  });
});

describe("a request's MCP tools against the deployment", () => {
  const allowed = ['https://mcp.example.com'];
  const check = (tool: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    try {
      checkMcpTools(parseResponsesRequest({ model: 'm', input: 'x', tools: [{ type: 'mcp', server_label: 's', ...tool }], ...extra }), allowed);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      expect(err.message).not.toContain('pw-secret');
      return [err.status, err.code, err.param];
    }
    return null;
  };
  it('takes an allowed server; refuses others, credentials in the URL, headers fetch would refuse, and an unknown tool_choice label', () => {
    expect(check({ server_url: 'https://mcp.example.com/mcp', headers: { 'x-team': 'a b' }, authorization: 't' })).toBeNull();
    expect(check({ server_url: 'https://mcp.example.org/mcp' })).toEqual([400, 'invalid_value', 'tools[0].server_url']);
    expect(check({ server_url: 'https://u:pw-secret@mcp.example.com/mcp' })).toEqual([400, 'invalid_value', 'tools[0].server_url']);
    expect(check({ server_url: 'https://mcp.example.com/mcp', headers: { 'bad name': 'x' } })).toEqual([400, 'invalid_value', 'tools[0].headers']);
    expect(check({ server_url: 'https://mcp.example.com/mcp', headers: { x: 'a\r\nset-cookie: pw-secret' } })).toEqual([
      400,
      'invalid_value',
      'tools[0].headers',
    ]);
    expect(check({ server_url: 'https://mcp.example.com/mcp', authorization: 'a\nb' })).toEqual([400, 'invalid_value', 'tools[0].authorization']);
    expect(check({ server_url: 'https://mcp.example.com/mcp' }, { tool_choice: { type: 'mcp', server_label: 'other' } })).toEqual([
      400,
      'invalid_value',
      'tool_choice.server_label',
    ]);
  });
});

describe('a result past mcpMaxResultBytes', () => {
  it('is cut at a character and says so', () => {
    expect(cut('short', 10)).toBe('short');
    const text = 'é'.repeat(10); // 20 bytes
    const out = cut(text, 5);
    expect(out.startsWith('éé\n')).toBe(true);
    expect(out).toContain('[cut: the result was 20 bytes; mcpMaxResultBytes is 5]');
  });
});
