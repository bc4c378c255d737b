// A real local upstream provider speaking the http-json adapter's protocol, whose answers
// the test controls: it can hold a request until released, to catch a worker mid-task.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';

export interface FakeUpstream {
  url: string;
  /** prediction requests received so far */
  calls: number;
  /** while true, prediction requests hang until `release()` */
  hold: boolean;
  release(): void;
  close(): Promise<void>;
}

export async function startUpstream(): Promise<FakeUpstream> {
  const png = new PNG({ width: 8, height: 8 });
  png.data.fill(200);
  const image = PNG.sync.write(png);
  const waiting: Array<() => void> = [];
  const sockets = new Set<import('node:net').Socket>();
  const state: FakeUpstream = {
    url: '',
    calls: 0,
    hold: false,
    release() {
      this.hold = false;
      for (const go of waiting.splice(0)) go();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/out.png') {
      res.writeHead(200, { 'content-type': 'image/png' }).end(image);
      return;
    }
    if (req.method === 'POST' && req.url?.startsWith('/v1/models/')) {
      state.calls++;
      req.resume();
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'completed', outputs: [`${state.url}/out.png`], inference_ms: 42 }));
      };
      if (state.hold) waiting.push(answer);
      else answer();
      return;
    }
    res.writeHead(404).end();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
