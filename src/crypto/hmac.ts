// HMAC-SHA256 (RFC 2104) for one fixed key, from two one-shot SHA-256 calls over scratch buffers
// that hold the padded keys. It gives the same bytes as createHmac('sha256', key) and costs about
// half as much per call: createHmac builds a native object per call, which is most of its cost
// for messages as short as a token (docs/adr/0005).
import { hash } from 'node:crypto';

const BLOCK = 64;
const DIGEST = 32;

export function hmacSha256(key: Buffer): (data: string) => Buffer {
  const block = key.length > BLOCK ? hash('sha256', key, 'buffer') : key;
  const outer = Buffer.alloc(BLOCK + DIGEST, 0x5c);
  let inner = Buffer.alloc(BLOCK + 1024, 0x36);
  for (let i = 0; i < block.length; i++) {
    outer[i] = (block[i] as number) ^ 0x5c;
    inner[i] = (block[i] as number) ^ 0x36;
  }
  return (data: string) => {
    // Room for the message as UTF-8 (at most three bytes per UTF-16 unit); reused between calls,
    // which are synchronous.
    if (inner.length < BLOCK + data.length * 3) {
      const grown = Buffer.alloc(BLOCK + data.length * 3);
      inner.copy(grown, 0, 0, BLOCK);
      inner = grown;
    }
    const written = inner.write(data, BLOCK, 'utf8');
    hash('sha256', inner.subarray(0, BLOCK + written), 'buffer').copy(outer, BLOCK);
    return hash('sha256', outer, 'buffer');
  };
}
