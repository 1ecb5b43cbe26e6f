// A stand-in for the real server a recorder proxies to, at its worst: it answers every request with
// a 200 event stream that never ends, written as fast as the reader takes it. It counts the bytes it
// managed to write and notes when each request's connection closed, so that a test can say when the
// recorder stopped reading. Binds 127.0.0.1 on a free port.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EndlessUpstream {
  url: string;
  /** Bytes written so far, over every request. */
  written(): number;
  /** performance.now() when each request's connection closed, in the order they closed. */
  closed: number[];
  /** Requests under way. */
  open(): number;
  close(): Promise<void>;
}

const PIECE = Buffer.from(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'more ' }, finish_reason: null }] })}\n\n`.repeat(512));

export async function startEndlessUpstream(): Promise<EndlessUpstream> {
  let written = 0;
  const closed: number[] = [];
  const answers = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    req.resume();
    answers.add(res);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const pump = () => {
      // Written until the socket pushes back, then again when it drains: as fast as it is read.
      while (!res.destroyed) {
        written += PIECE.length;
        if (!res.write(PIECE)) return;
      }
    };
    res.on('drain', pump);
    res.once('close', () => {
      answers.delete(res);
      closed.push(performance.now());
    });
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written: () => written,
    closed,
    open: () => answers.size,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}
