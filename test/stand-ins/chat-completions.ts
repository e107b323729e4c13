// A stand-in for an OpenAI-compatible Chat Completions server (POST /v1/chat/completions, as
// OpenAI's API reference "Create chat completion" and its streaming "chat completion chunk"
// objects describe, and as Ollama and llama.cpp serve them). It checks each request as such a
// server would (method, path, JSON body, model, messages, bearer key when one is set) and answers
// from a script: text, tool calls, usage, delays, HTTP errors or nonsense; streamed as
// server-sent events when the request asks for `stream: true`, else one JSON body.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedAnswer {
  content?: string | null;
  toolCalls?: Array<{ name: string; arguments: string | Record<string, unknown>; id?: string }>;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer this HTTP status with an OpenAI-style error body. */
  status?: number;
  /** Send these bytes as the body, as they are (nonsense). */
  raw?: string;
  /** Ignore the request's `stream` and answer one JSON body. */
  noStream?: boolean;
}

export type Script = (request: ChatRequestSeen, index: number) => ScriptedAnswer;

export interface ChatRequestSeen {
  model: string;
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; description: string; parameters: unknown } }>;
  stream?: boolean;
  max_tokens?: number;
  authorization: string | undefined;
}

export interface ModelStandIn {
  baseUrl: string;
  requests: ChatRequestSeen[];
  setScript(script: Script): void;
  close(): Promise<void>;
}

export async function startModelStandIn(options: { apiKey?: string; model?: string } = {}): Promise<ModelStandIn> {
  let script: Script = () => ({ content: 'ok' });
  const requests: ChatRequestSeen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void answer(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });

  function fail(res: http.ServerResponse, status: number, message: string, type = 'invalid_request_error') {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
  }

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, text: string) {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
      return fail(res, 404, `Unknown request URL: ${req.method} ${req.url}`);
    if (!String(req.headers['content-type']).startsWith('application/json'))
      return fail(res, 400, 'Content-Type must be JSON');
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`)
      return fail(res, 401, 'Incorrect API key provided', 'authentication_error');
    let body: ChatRequestSeen;
    try {
      body = JSON.parse(text) as ChatRequestSeen;
    } catch {
      return fail(res, 400, 'We could not parse the JSON body of your request.');
    }
    if (typeof body.model !== 'string' || (options.model !== undefined && body.model !== options.model))
      return fail(res, 404, `The model \`${String(body.model)}\` does not exist`);
    if (
      !Array.isArray(body.messages) ||
      body.messages.length === 0 ||
      body.messages.some((m) => typeof m?.role !== 'string')
    )
      return fail(res, 400, "'messages' must be a non-empty array of messages with a role");
    for (const m of body.messages)
      if (m.role === 'tool' && typeof m.tool_call_id !== 'string')
        return fail(res, 400, 'a tool message needs tool_call_id');
    const seen = { ...body, authorization: req.headers.authorization };
    requests.push(seen);
    const scripted = script(seen, requests.length - 1);
    if (scripted.delayMs) await new Promise((r) => setTimeout(r, scripted.delayMs));
    if (res.destroyed) return;
    if (scripted.status)
      return fail(res, scripted.status, 'The server had an error while processing your request.', 'server_error');
    if (scripted.raw !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(scripted.raw);
    }
    const calls = (scripted.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${requests.length}_${i}`,
      type: 'function' as const,
      function: {
        name: c.name,
        arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
      },
    }));
    const usage =
      scripted.usage === null
        ? undefined
        : {
            prompt_tokens: scripted.usage?.prompt_tokens ?? 20,
            completion_tokens: scripted.usage?.completion_tokens ?? 10,
            total_tokens: (scripted.usage?.prompt_tokens ?? 20) + (scripted.usage?.completion_tokens ?? 10),
          };
    const finish = calls.length > 0 ? 'tool_calls' : 'stop';
    const content = scripted.content === undefined ? (calls.length > 0 ? null : '') : scripted.content;
    const id = `chatcmpl-${requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    if (body.stream && !scripted.noStream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      const base = { id, object: 'chat.completion.chunk', created, model: body.model };
      send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
      if (content) {
        // In pieces, as a model streams tokens.
        for (let i = 0; i < content.length; i += 7)
          send({ ...base, choices: [{ index: 0, delta: { content: content.slice(i, i + 7) }, finish_reason: null }] });
      }
      calls.forEach((c, index) => {
        send({
          ...base,
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }],
              },
              finish_reason: null,
            },
          ],
        });
        const args = c.function.arguments;
        for (let i = 0; i < args.length; i += 5)
          send({
            ...base,
            choices: [
              {
                index: 0,
                delta: { tool_calls: [{ index, function: { arguments: args.slice(i, i + 5) } }] },
                finish_reason: null,
              },
            ],
          });
      });
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
      if (usage) send({ ...base, choices: [], usage });
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
            finish_reason: finish,
          },
        ],
        ...(usage ? { usage } : {}),
      }),
    );
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    setScript(next) {
      script = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
