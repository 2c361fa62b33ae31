import { AppError } from '../../kernel/api.js';
import { ProviderUnreachable, providerRequest, type Resolver } from './outbound.js';
import type { PromptMessage } from './prompt.js';

export interface ProviderSettings {
  baseUrl: string;
  model: string;
  apiKey: string | null;
  headers: Record<string, string>;
  timeoutMs: number;
  networkFeatures: boolean;
  resolve?: Resolver;
}

export type ProviderFailure = 'unreachable' | 'auth' | 'model-not-found' | 'bad-answer';

/** 502 LLM_PROVIDER_ERROR: what went wrong in params (never the key, never the answer's body). */
export const providerError = (reason: ProviderFailure, status: number | null, detail?: string) =>
  new AppError('LLM_PROVIDER_ERROR', {
    message: `The model provider failed: ${reason}${detail ? ` (${detail})` : ''}.`,
    params: { reason, status },
  });

function endpoint(baseUrl: string, path: string): URL {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return new URL(path, base);
}

async function call(s: ProviderSettings, method: 'GET' | 'POST', path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const headers: Record<string, string> = { ...s.headers, accept: 'application/json' };
  if (s.apiKey) headers['authorization'] = `Bearer ${s.apiKey}`;
  const text = body === undefined ? undefined : JSON.stringify(body);
  if (text !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await providerRequest(endpoint(s.baseUrl, path), { method, headers, body: text, timeoutMs: s.timeoutMs, signal }, s.networkFeatures, s.resolve);
  } catch (err) {
    if (err instanceof ProviderUnreachable) throw providerError('unreachable', null, err.why);
    throw err;
  }
  if (res.status === 401 || res.status === 403) throw providerError('auth', res.status);
  if (res.status === 404) throw providerError('model-not-found', res.status);
  if (res.status < 200 || res.status >= 300) throw providerError(res.status >= 500 ? 'unreachable' : 'bad-answer', res.status);
  try {
    return JSON.parse(res.body) as unknown;
  } catch {
    throw providerError('bad-answer', res.status, 'not JSON');
  }
}

/** The provider's models (`GET {baseUrl}/models`). */
export async function listModels(s: ProviderSettings): Promise<Array<{ id: string }>> {
  const answer = (await call(s, 'GET', 'models', undefined)) as { data?: unknown };
  if (!answer || !Array.isArray(answer.data)) throw providerError('bad-answer', 200, 'no data list');
  return answer.data
    .map((m) => (m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string' ? { id: (m as { id: string }).id } : null))
    .filter((m): m is { id: string } => m !== null);
}

/** One chat completion (`POST {baseUrl}/chat/completions`): the first choice's text. */
export async function complete(
  s: ProviderSettings,
  messages: readonly PromptMessage[],
  opts: { maxTokens?: number; signal?: AbortSignal } = {},
): Promise<string> {
  const answer = (await call(
    s,
    'POST',
    'chat/completions',
    { model: s.model, messages, temperature: 0, ...(opts.maxTokens ? { max_tokens: opts.maxTokens } : {}) },
    opts.signal,
  )) as { choices?: Array<{ message?: { content?: unknown } }> };
  const content = answer?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw providerError('bad-answer', 200, 'no message in the answer');
  return content;
}
