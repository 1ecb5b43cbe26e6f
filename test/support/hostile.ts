// Servers that break HTTP itself, started on 127.0.0.1 for a test: the runner must end every run
// against them with verdicts, within its limits.
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Hostile {
  name: string;
  /** What the server does with each connection. */
  serve(socket: Socket): void;
}

const HEAD = (type: string, extra = '') => `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\n${extra}`;

function pseudoRandom(n: number, seed = 42): Buffer {
  const b = Buffer.alloc(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    b[i] = x & 0xff;
  }
  return b;
}

/** Ends when the connection goes away, so a test never leaves a timer behind. */
function every(socket: Socket, ms: number, tick: () => boolean | void) {
  const t = setInterval(() => {
    if (socket.destroyed || tick() === false) clearInterval(t);
  }, ms);
  socket.on('close', () => clearInterval(t));
}

export const HOSTILE: Hostile[] = [
  { name: 'random-bytes', serve: (s) => s.end(pseudoRandom(4096)) },
  { name: 'headers-then-nothing', serve: (s) => s.write(`${HEAD('application/json', 'content-length: 100\r\n')}\r\n`) },
  {
    name: 'drip-one-byte-a-second',
    serve: (s) => {
      const text = Buffer.from(`${HEAD('application/json', 'content-length: 64\r\n')}\r\n{"object":"list","data":[]}`);
      let i = 0;
      every(s, 1000, () => {
        if (i >= text.length) return false;
        s.write(text.subarray(i, ++i));
      });
    },
  },
  {
    name: 'stream-forever',
    serve: (s) => {
      s.write(`${HEAD('text/event-stream', 'transfer-encoding: chunked\r\n')}\r\n`);
      const event = 'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n';
      every(s, 5, () => void s.write(`${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n`));
    },
  },
  {
    name: 'hundred-megabytes',
    serve: (s) => {
      const total = 100 * 1024 * 1024;
      s.write(`${HEAD('application/json', `content-length: ${total}\r\n`)}\r\n`);
      const block = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      const pump = () => {
        while (sent < total && !s.destroyed) {
          sent += block.length;
          if (!s.write(block)) return void s.once('drain', pump);
        }
        s.end();
      };
      pump();
    },
  },
  {
    name: 'reset-mid-stream',
    serve: (s) => {
      s.write(`${HEAD('text/event-stream', 'transfer-encoding: chunked\r\n')}\r\n`);
      const event = 'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"a"},"finish_reason":null}]}\n\n';
      s.write(`${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n`, () => s.resetAndDestroy());
    },
  },
  { name: 'empty-200', serve: (s) => s.end(`${HEAD('application/json', 'content-length: 0\r\n')}\r\n`) },
  {
    name: 'invalid-utf8-in-json',
    serve: (s) => {
      const body = Buffer.concat([Buffer.from('{"object":"list","data":[{"id":"m\xff'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('","object":"model","created":1,"owned_by":"x"}]}')]);
      s.end(Buffer.concat([Buffer.from(`${HEAD('application/json', `content-length: ${body.length}\r\n`)}\r\n`), body]));
    },
  },
];

export async function startHostile(h: Hostile): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: NetServer = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    // Answer once the request head has arrived, as a real server would.
    socket.once('data', () => h.serve(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
