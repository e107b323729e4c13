// The Ruby runtime's request thread: makes the HTTP requests of Ruby workers whose call carries an
// exchange (`DirectExchange`), so that a worker blocked on a request waits for this thread, not for
// the server's main thread, which is busy with jobs. The exchange is the step's transport as data:
// the same transport (src/connectors/http/transport.ts) is rebuilt here with the same outbound
// policy settings, CONNECTOR_ORIGINS, timeouts, size limit, redirects and 429/503 handling. What
// stays in the main thread is asked for on `main`: a `Retry-After` wait (the step's own wait, which
// a shutting-down job cuts short) and, when the debug log is on, each exchange's log line.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { createOutboundPolicy, type OutboundPolicy } from '../../outbound/policy.ts';
import { createTransport, tlsOf, type ExchangeLog } from '../http/transport.ts';
import { closeTlsDispatchers } from '../http/tls-dispatchers.ts';
import { StepError } from '../step-error.ts';
import { httpAnswerOf, sdkRequestOf } from './http-op.ts';
import { writeAnswer } from './ruby-answer.ts';
import type {
  DirectExchange,
  RequestThreadData,
  RequestThreadMessage,
  WorkerHttpOp,
  WorkerRegistration,
} from './request-thread-client.ts';

const data = workerData as RequestThreadData;
const main: MessagePort = data.main;

/** Outbound policies by their settings: each keeps its connection pool across calls. */
const policies = new Map<string, OutboundPolicy>();
const POLICIES_KEPT = 8;

function policyFor(exchange: DirectExchange): OutboundPolicy {
  const key = JSON.stringify(exchange.outbound);
  let policy = policies.get(key);
  if (!policy) {
    policy = createOutboundPolicy(exchange.outbound);
    policies.set(key, policy);
    if (policies.size > POLICIES_KEPT) {
      const [oldest, dropped] = policies.entries().next().value!;
      policies.delete(oldest);
      void closeTlsDispatchers(dropped).then(() => dropped.close());
    }
  }
  return policy;
}

let nextWait = 1;
const waits = new Map<number, (error: string | null) => void>();

main.on('message', (message: { wait: number; error: string | null }) => {
  const resolve = waits.get(message.wait);
  waits.delete(message.wait);
  resolve?.(message.error);
});

function toMain(message: RequestThreadMessage): void {
  main.postMessage(message);
}

async function answerOf(worker: number, op: WorkerHttpOp): Promise<unknown> {
  const { exchange } = op;
  const log: ExchangeLog = {
    isLevelEnabled: () => exchange.debug,
    debug: ((fields: Record<string, unknown>, message: string) =>
      toMain({ worker, call: op.call, op: 'exchange_log', line: { fields, message } })) as ExchangeLog['debug'],
  };
  const transport = createTransport({
    outbound: policyFor(exchange),
    log,
    origins: new Map(exchange.origins),
    now: Date.now,
  });
  const request = sdkRequestOf(op.request);
  try {
    const response = await transport.send(
      {
        method: request.method,
        url: request.url,
        headers: request.headers,
        ...(request.body ? { body: request.body } : {}),
        followRedirects: request.followRedirects !== false,
        secrets: exchange.secrets,
        ...tlsOf(request),
      },
      {
        timeoutMs: exchange.timeoutMs,
        maxResponseBytes: exchange.maxResponseBytes,
        deadline: exchange.deadline,
        retryRateLimits: exchange.retryRateLimits,
        sleep: (ms) =>
          new Promise<void>((resolve, reject) => {
            const wait = nextWait++;
            waits.set(wait, (error) => (error === null ? resolve() : reject(new StepError('Interrupted', error))));
            toMain({ worker, call: op.call, op: 'rate_limit_wait', ms, wait });
          }),
      },
    );
    return httpAnswerOf(response);
  } catch (error) {
    if (error instanceof StepError && error.errorType === 'Timeout') return { timeout: true, message: error.message };
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

parentPort?.on('message', (registration: WorkerRegistration) => {
  const { worker, port } = registration;
  const signal = new Int32Array(registration.signal);
  const answer = new Uint8Array(registration.answer);
  port.on('message', (op: WorkerHttpOp) => {
    void answerOf(worker, op).then((value) => writeAnswer(signal, answer, port, JSON.stringify(value)));
  });
  port.on('close', () => port.removeAllListeners());
});
