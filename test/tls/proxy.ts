// A proxy of our own, as small as one can be: absolute-URI requests (GET, POST, ...) relayed to
// http targets, CONNECT tunnels to anything; it counts both, so a test sees which way a run went.
import { createServer, request } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface Proxy {
  url: string;
  /** Absolute-URI requests relayed. */
  relayed(): number;
  /** CONNECT tunnels opened. */
  tunnels(): number;
  close(): Promise<void>;
}

/** Headers of one hop, not to be passed on. */
const HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'upgrade'];

export async function startProxy(): Promise<Proxy> {
  let relayed = 0;
  let tunnels = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-URI requests only');
      return;
    }
    relayed++;
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP.includes(k)));
    const upstream = request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, Object.fromEntries(Object.entries(answer.headers).filter(([k]) => !HOP.includes(k))));
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    tunnels++;
    const [host, port] = [req.url!.slice(0, req.url!.lastIndexOf(':')), Number(req.url!.slice(req.url!.lastIndexOf(':') + 1))];
    const upstream = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    relayed: () => relayed,
    tunnels: () => tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      }),
  };
}
