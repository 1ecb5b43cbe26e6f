// The ceiling: the least a node:http server can do for the same exchange. It reads the body,
// JSON.parses it, and writes a fixed reply: the chat.completion JSON with content-length, or the
// stream's events (one write each when paced, with the same pauses; in one write when not), then
// the end.
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Fixture } from './fixtures.js';

export function ceilingServer(json: Fixture, stream: Fixture): Server {
  const body = Buffer.from(json.body ?? '');
  const jsonHeaders = { ...json.headers, 'content-length': body.length };
  const frames = stream.frames ?? [];
  const paced = frames.some((f) => f.delayMs > 0);
  const unpaced = frames.map((f) => f.bytes).join('');
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let parsed: { stream?: unknown };
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (parsed.stream !== true) {
        res.writeHead(json.status, jsonHeaders);
        res.end(body);
        return;
      }
      res.writeHead(stream.status, stream.headers);
      res.flushHeaders();
      // Unpaced, the events go out in one write, as the mock sends frames due at one moment.
      if (!paced) {
        res.end(unpaced);
        return;
      }
      void (async () => {
        for (const f of frames) {
          if (f.delayMs > 0) await sleep(f.delayMs);
          if (res.destroyed) return;
          res.write(f.bytes);
        }
        res.end();
      })();
    });
  });
}
