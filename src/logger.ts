// Structured JSON logs (pino). Nothing secret may reach them: authorization headers, tokens
// and secrets are redacted wherever they appear, and request URLs lose sensitive query values.
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

const SENSITIVE_QUERY = /([?&](?:user_token|api_token|token|access_token|client_secret|secret|password|api_key)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SENSITIVE_QUERY, '$1[REDACTED]');
}

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: {
      paths: [
        'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-user-token"]',
        '*.token', '*.token_value', '*.client_secret', '*.secret', '*.password', '*.adminToken', '*.secretKey', '*.smtpUrl',
      ],
      censor: '[REDACTED]',
    },
    serializers: {
      req: (req: { method: string; url: string; ip?: string; id?: string }) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
